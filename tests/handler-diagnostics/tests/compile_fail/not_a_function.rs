// Not a function at all.
use mcp_fusion::Action;

fn main() {
    let _ = Action::new("get", 42u8);
}
