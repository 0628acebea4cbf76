// A closure of 17 parameters: a handler takes at most 16.
use mcp_fusion::{Action, CallContext, ToolError};

fn main() {
    let _ = Action::new(
        "get",
        |_: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext,
         _: CallContext| async { Ok::<_, ToolError>("ok") },
    );
}
