//! JSON Schema validation of tool arguments, phrased for the model (wire contract §4).
//!
//! [`SchemaValidator`] compiles an action's schema once (draft 2020-12,
//! formats asserted, no remote `$ref`) and checks arguments against it,
//! returning every problem at once as [`FieldError`](crate::error::FieldError) lines:
//!
//! ```text
//! {problem}. You sent: {sent}. {expected}
//! ```
//!
//! e.g. `Invalid email format. You sent: 'not-an-email'. Expected a valid
//! email address.` at path `customer.email`.
//! The phrase per keyword and the `You sent:` rules are listed in
//! `docs/validation.md`.
//!
//! ```
//! use mcp_fusion::validation::SchemaValidator;
//! use serde_json::json;
//!
//! let v = SchemaValidator::new(&json!({
//!     "type": "object",
//!     "properties": {"project": {"type": "string"}, "limit": {"type": "integer", "minimum": 0}},
//!     "required": ["project"]
//! }))
//! .unwrap();
//! let errors = v.validate(&mut json!({"project": "demo", "limit": "ten"})).unwrap_err();
//! assert_eq!(errors[0].path, "limit");
//! assert_eq!(errors[0].message, "Wrong type. You sent: 'ten'. Expected an integer.");
//! ```

mod expect;
mod format;
mod int_bounds;
mod line;
mod lookup;
mod nulls;
mod path;
mod phrase;
mod plan;
mod schema_error;
mod sent;
mod subschemas;
mod union;
mod unknown_keys;
mod validator;

pub use schema_error::SchemaError;
pub use validator::SchemaValidator;
