//! The fixture of the suite's `json-schema-2020-12` scenario (MCP
//! 2025-11-25 basic/index, "JSON Schema Usage"; SEP-1613): a tool whose
//! input schema is written by hand in JSON Schema 2020-12 (`$schema`,
//! `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`,
//! `additionalProperties: false`) and listed exactly as written.
//!
//! Every other fixture derives its schema from a Rust type; this one is
//! declared with `Action::from_tool`, which lists an `rmcp` tool as given
//! and hands its handler the arguments as sent, unvalidated.

use mcp_fusion::model::{JsonObject, Tool};
use mcp_fusion::{Action, ServerBuilder, ToolError};
use serde_json::json;

async fn accept(_args: JsonObject) -> Result<&'static str, ToolError> {
    Ok("ok")
}

/// The tool `json_schema_2020_12_tool`, its schema as the suite's
/// reference server lists it.
fn listed() -> Tool {
    serde_json::from_value(json!({
        "name": "json_schema_2020_12_tool",
        "description": "A tool whose input schema uses JSON Schema 2020-12 keywords",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {
                "properties": {"contactMethod": {"const": "phone"}},
                "required": ["contactMethod"]
            },
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }
    }))
    .expect("a valid tool")
}

pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(Action::from_tool(listed(), accept))
}
