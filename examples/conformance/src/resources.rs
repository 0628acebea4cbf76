//! The suite's fixture resources (`resources-*` scenarios).

use mcp_fusion::{Resource, ResourceTemplate, ServerBuilder, ToolError};

use crate::WATCHED_RESOURCE;
use crate::content::RED_PIXEL_PNG;

/// The variables of `test://template/{id}/data`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TemplateVars {
    /// The record's id.
    id: String,
}

async fn template_data(vars: TemplateVars) -> Result<String, ToolError> {
    Ok(serde_json::json!({
        "id": vars.id,
        "templateTest": true,
        "data": format!("Data for ID: {}", vars.id),
    })
    .to_string())
}

fn png_bytes() -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(RED_PIXEL_PNG)
        .unwrap_or_default()
}

/// Adds every fixture resource and the template to `builder`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .resource(
            Resource::text(
                "test://static-text",
                "Static Text Resource",
                "This is the content of the static text resource.",
            )
            .description("A static text resource for testing")
            .mime_type("text/plain"),
        )
        .resource(
            Resource::blob(
                "test://static-binary",
                "Static Binary Resource",
                png_bytes(),
            )
            .description("A static binary resource (image) for testing")
            .mime_type("image/png"),
        )
        .resource(
            Resource::text(
                WATCHED_RESOURCE,
                "Watched Resource",
                "Watched resource content",
            )
            .description("A resource that can be subscribed to")
            .mime_type("text/plain"),
        )
        .resource_template(
            ResourceTemplate::new(
                "test://template/{id}/data",
                "Resource Template",
                template_data,
            )
            .description("A resource template with parameter substitution")
            .mime_type("application/json")
            .complete_values("id", ["123", "456", "789"]),
        )
}
