//! No code: the tests of this crate (`tests/handler_diagnostics.rs`) compile
//! each handler mistake in `tests/compile_fail/` and compare the compiler's
//! errors with the `.stderr` beside it.
