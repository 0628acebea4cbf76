//! The JSON Schema keywords whose values are schemas (JSON Schema 2020-12
//! Core §10, with the earlier drafts' `additionalItems` and `definitions`):
//! the ones a walk over a schema's subschemas follows.

/// Keywords whose value is one schema.
pub(super) const ONE_SCHEMA: [&str; 11] = [
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value is an array of schemas.
pub(super) const SCHEMA_ARRAYS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
pub(super) const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
