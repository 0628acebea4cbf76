//! Each mistake in a handler gives a compile error that names its cause
//! (the first line) and its fix (the note), not a bare "`fn {get}:
//! Handler<_>` is not satisfied". One program per mistake in
//! `tests/compile_fail/`, each calling `Action::new("get", get)` (or
//! `Prompt::new`) through the public API, with the compiler's output beside
//! it in a `.stderr` file:
//!
//! | program | mistake | the error's first line |
//! | --- | --- | --- |
//! | `args_without_json_schema` | the arguments type derives `Deserialize`, not `JsonSchema` | `` `Args` cannot be a handler's last parameter: it is neither an arguments type nor an extractor `` |
//! | `error_io` | the error type is `std::io::Error` | `` `std::io::Error` cannot be a handler's error type: it does not convert into ToolError `` |
//! | `error_anyhow` | the error type is `anyhow::Error` | `` `anyhow::Error` cannot be a handler's error type: it does not convert into ToolError `` |
//! | `args_before_state` | `async fn get(args: Args, State(db): State<Db>)` | `` `Args` cannot be taken from the call: it is not an extractor `` |
//! | `state_not_clone` | `State<Db>` where `Db` is not `Clone` | `` `Db` cannot be a state: a state is cloned for every call, so it must be Clone + Send + Sync + 'static `` |
//! | `not_async` | a plain `fn` returning `Result<String, ToolError>` | ``a handler must be an `async fn`: it returns `Result<std::string::String, ToolError>`, which is not a future of Result<_, _>`` |
//! | `prompt_returns_bytes` | a prompt handler returning `Vec<u8>` | ``a handler producing `PromptMessages` cannot return `Vec<u8>` on success`` |
//! | `action_returns_non_serialize` | an action returning a type that is not `Serialize` | ``a handler producing `ToolOutput` cannot return `Invoice` on success`` |
//! | `too_many_params` | a closure of 17 parameters | `` `{closure@…}` is not a handler: a handler is an `async fn`, or a closure returning a future, of at most 16 parameters `` |
//! | `not_a_function` | `Action::new("get", 42u8)` | `` `u8` is not a handler: a handler is an `async fn`, or a closure returning a future, of at most 16 parameters `` |
//!
//! The `.stderr` files are the compiler's whole output (trybuild replaces
//! the paths), so they depend on the rustc version: they were written with
//! rustc 1.95, the project's only toolchain. A newer compiler may word the
//! lines around the message differently; when it does, check that each
//! first line and note still say the above, then rewrite the files with
//! `TRYBUILD=overwrite cargo test -p handler-diagnostics`.

#[test]
fn each_handler_mistake_names_its_cause_and_fix() {
    trybuild::TestCases::new().compile_fail("tests/compile_fail/*.rs");
}
