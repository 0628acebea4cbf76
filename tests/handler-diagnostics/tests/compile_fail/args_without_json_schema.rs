// The arguments type derives serde::Deserialize but not schemars::JsonSchema.
use mcp_fusion::{Action, ToolError};

#[derive(serde::Deserialize)]
struct Args {
    id: String,
}

async fn get(args: Args) -> Result<String, ToolError> {
    Ok(args.id)
}

fn main() {
    let _ = Action::new("get", get);
}
