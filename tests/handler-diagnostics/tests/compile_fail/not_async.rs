// A plain fn: it returns a Result, not a future of one.
use mcp_fusion::{Action, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    id: String,
}

fn get(args: Args) -> Result<String, ToolError> {
    Ok(args.id)
}

fn main() {
    let _ = Action::new("get", get);
}
