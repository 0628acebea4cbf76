//! The server runtime end to end: tools/list. A group is one tool whose
//! description names every action and its required fields, with a merged input
//! schema and hints; tools come in registration order, deprecations named.

use mcp_fusion::capability::Annotations;
use serde_json::{Value, json};

use crate::server::fixture;

#[tokio::test]
async fn a_group_is_listed_as_one_tool_naming_every_action_and_field() {
    let (server, _) = fixture();
    let listing = server
        .listings()
        .into_iter()
        .find(|l| l.name == "render")
        .expect("render is listed");
    assert_eq!(
        listing.description,
        "Render a document.\n\nSet \"action\" to choose one of these actions:\n- pdf: Render as PDF. (requires title) [read-only, idempotent]\n- png: Render as PNG. (requires title, width) [read-only]\n- svg: Overwrite the stored SVG. (requires width) [destructive]"
    );
    assert_eq!(
        listing.input_schema,
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["pdf", "png", "svg"],
                    "description": "The action to run: one of pdf, png, svg."
                },
                "title": {
                    "type": "string",
                    "description": "The document title. Used by: pdf, png."
                },
                "pages": {
                    "anyOf": [
                        {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                        {"type": "null"}
                    ],
                    "description": "Used by: pdf."
                },
                "width": {
                    "anyOf": [
                        {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                        {"type": "string"}
                    ],
                    "description": "Used by: png, svg."
                }
            },
            "required": ["action"]
        })
    );
    assert_eq!(listing.output_schema, None);
    assert_eq!(
        listing.annotations,
        Annotations {
            read_only: false,
            destructive: true,
            idempotent: false
        }
    );

    // The same, as rmcp's `Tool` sent in tools/list.
    let tool = server
        .tools()
        .into_iter()
        .find(|t| t.name == "render")
        .expect("render is a tool");
    assert_eq!(
        tool.description.as_deref(),
        Some(listing.description.as_str())
    );
    let annotations = tool.annotations.expect("annotations are set");
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(true));
    assert_eq!(annotations.idempotent_hint, Some(false));
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        listing.input_schema
    );
}

#[tokio::test]
async fn tools_are_listed_in_registration_order_and_deprecations_are_named() {
    let (server, _) = fixture();
    let names: Vec<String> = server.listings().into_iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "report",
            "invoices",
            "render",
            "orders",
            "big",
            "empty_message",
            "cleared_message",
            "crash",
            "io_fail",
            "wrapped",
            "wrapped_io",
            "control",
            "warn"
        ]
    );
    let invoices = server
        .tools()
        .into_iter()
        .find(|t| t.name == "invoices")
        .expect("invoices is a tool");
    assert_eq!(
        invoices.description.as_deref(),
        Some(
            "Invoices.\n\nSet \"action\" to choose one of these actions:\n- list (requires status)\n- legacy_list (requires status) [deprecated: use invoices.list]"
        )
    );
    assert_eq!(invoices.annotations, None);
}
