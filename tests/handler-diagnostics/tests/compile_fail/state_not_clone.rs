// The state type is not Clone.
use mcp_fusion::{Action, State, ToolError};

struct Db;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    id: String,
}

async fn get(State(_db): State<Db>, args: Args) -> Result<String, ToolError> {
    Ok(args.id)
}

fn main() {
    let _ = Action::new("get", get);
}
