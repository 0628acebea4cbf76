// The error type is std::io::Error, which does not convert into ToolError.
use mcp_fusion::Action;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    path: String,
}

async fn get(args: Args) -> Result<String, std::io::Error> {
    std::fs::read_to_string(args.path)
}

fn main() {
    let _ = Action::new("get", get);
}
