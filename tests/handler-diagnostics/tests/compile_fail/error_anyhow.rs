// The error type is anyhow::Error, which does not convert into ToolError.
use mcp_fusion::Action;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    id: String,
}

async fn get(args: Args) -> Result<String, anyhow::Error> {
    anyhow::ensure!(!args.id.is_empty(), "empty id");
    Ok(args.id)
}

fn main() {
    let _ = Action::new("get", get);
}
