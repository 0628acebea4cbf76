//! [`SchemaError`]: why an action's schema could not be compiled.

/// An action's JSON Schema could not be compiled (at start-up, by
/// [`SchemaValidator::new`](super::SchemaValidator::new)). A developer error:
/// the message says what is wrong with the schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema has a `$ref` to a document outside itself (`https://…`,
    /// `file:…`, another relative file). Only references into the schema
    /// itself (`#/$defs/Name`) are resolved; nothing is fetched.
    #[error(
        "the schema refers to `{reference}`, which is outside the schema; only local references such as `#/$defs/Name` are resolved, remote ones are refused"
    )]
    RemoteReference {
        /// The reference as resolved against the schema's base URI.
        reference: String,
    },
    /// The schema is not a valid JSON Schema (draft 2020-12), or a local
    /// reference points to nothing.
    #[error("the schema is not a valid JSON Schema (draft 2020-12): {reason}")]
    Invalid {
        /// What the compiler reported, with the JSON Pointer of the part of
        /// the schema at fault when there is one (`… (at /properties/a/type)`).
        reason: String,
    },
}
