//! The fixture of the suite's `http-custom-header-server-validation`
//! scenario (MCP 2026-07-28 basic/transports/streamable-http, SEP-2243): a
//! tool whose string parameter carries `x-mcp-header`, so that a 2026-07-28
//! client mirrors it into the `Mcp-Param-Region` header and the server
//! refuses a request whose header and body disagree (HTTP 400, `-32020`).

use mcp_fusion::{Action, ServerBuilder, ToolError};

/// `test_custom_header`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RegionArgs {
    /// The region, mirrored into the `Mcp-Param-Region` header
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

async fn custom_header(args: RegionArgs) -> Result<String, ToolError> {
    Ok(format!("Region: {}", args.region))
}

/// Adds the custom-header fixture to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(
        Action::new("test_custom_header", custom_header)
            .description("Echoes its region, a parameter mirrored into the Mcp-Param-Region header")
            .read_only(),
    )
}
