// A prompt handler returns Vec<u8>: a prompt returns text or messages.
use mcp_fusion::{Prompt, ToolError};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    topic: String,
}

async fn summarize(args: Args) -> Result<Vec<u8>, ToolError> {
    Ok(args.topic.into_bytes())
}

fn main() {
    let _ = Prompt::new("summarize", summarize);
}
