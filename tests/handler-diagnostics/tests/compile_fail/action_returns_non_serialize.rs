// An action returns a type that is not serde::Serialize.
use mcp_fusion::{Action, ToolError};

struct Invoice;

async fn get() -> Result<Invoice, ToolError> {
    Ok(Invoice)
}

fn main() {
    let _ = Action::new("get", get);
}
