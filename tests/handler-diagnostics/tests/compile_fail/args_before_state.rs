// The arguments come before State(..): every parameter but the last must be
// an extractor.
use mcp_fusion::{Action, State, ToolError};

#[derive(Clone)]
struct Db;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    id: String,
}

async fn get(args: Args, State(_db): State<Db>) -> Result<String, ToolError> {
    Ok(args.id)
}

fn main() {
    let _ = Action::new("get", get);
}
