//! The rules of the field-level diff: what kind each change is, and how
//! severe it is for the input or the output of an action (the table of
//! `docs/contracts.md`), plus the keyword families the rules group.

use crate::error::ChangeSeverity;

/// Which schema is compared: what callers send (input) or what they get back
/// (output). An output change hurts in the mirror direction: a value the
/// server may now send that it did not before is the risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

/// The kind of a change; [`Kind::severity`] gives its severity per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A field is gone.
    Removed { required: bool },
    /// A field is new.
    Added { required: bool },
    /// An existing field became required.
    BecameRequired,
    /// A required field became optional.
    BecameOptional,
    /// A removed and an added field of the same parent and type.
    Renamed,
    /// The type changed to one that does not accept every old value.
    TypeChanged,
    /// The type now accepts more (every old type is still accepted).
    TypeWidened,
    /// Enum values were removed.
    EnumRemoved,
    /// Enum values were added.
    EnumAdded,
    /// The field is newly restricted to a list of values (`enum` or `const`).
    Restricted,
    /// The field is no longer restricted to a list of values.
    Unrestricted,
    /// A bound tightened (or was added): fewer values are accepted.
    Tightened,
    /// A bound loosened (or was removed): more values are accepted.
    Loosened,
    /// A pattern, format or `multipleOf` was replaced by another one.
    Restated,
    /// The field became deprecated.
    Deprecated,
    /// The field is no longer deprecated.
    Undeprecated,
    /// Description, title or examples.
    Text,
    /// Anything else (a default, an unhandled keyword, the alternatives of a
    /// union of another length).
    Other,
}

impl Kind {
    pub(crate) fn severity(self, side: Side) -> ChangeSeverity {
        use ChangeSeverity::{Breaking, Cosmetic, Risky, Safe};
        match (self, side) {
            (Kind::Removed { required: true }, _) => Breaking,
            (Kind::Removed { required: false }, _) => Risky,
            (Kind::Added { required: true }, Side::Input) => Breaking,
            (Kind::Added { .. }, _) => Safe,
            (Kind::BecameRequired, Side::Input) => Breaking,
            (Kind::BecameRequired, Side::Output) => Safe,
            (Kind::BecameOptional, Side::Input) => Safe,
            (Kind::BecameOptional, Side::Output) => Risky,
            (Kind::Renamed, _) => Risky,
            (Kind::TypeChanged, _) => Breaking,
            (Kind::TypeWidened, Side::Input) => Safe,
            (Kind::TypeWidened, Side::Output) => Risky,
            (Kind::EnumRemoved, Side::Input) => Breaking,
            (Kind::EnumRemoved, Side::Output) => Safe,
            (Kind::EnumAdded, Side::Input) => Safe,
            (Kind::EnumAdded, Side::Output) => Risky,
            (Kind::Restricted, Side::Input) => Breaking,
            (Kind::Restricted, Side::Output) => Safe,
            (Kind::Unrestricted, Side::Input) => Safe,
            (Kind::Unrestricted, Side::Output) => Risky,
            (Kind::Tightened, Side::Input) => Risky,
            (Kind::Tightened, Side::Output) => Safe,
            (Kind::Loosened, Side::Input) => Safe,
            (Kind::Loosened, Side::Output) => Risky,
            (Kind::Restated, _) => Risky,
            (Kind::Deprecated, _) => Risky,
            (Kind::Undeprecated, _) => Safe,
            (Kind::Text, _) => Cosmetic,
            (Kind::Other, _) => Risky,
        }
    }
}

/// Keywords of a lower bound: a larger value accepts less.
pub(crate) const LOWER_BOUNDS: [&str; 5] = [
    "minLength",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "minProperties",
];
/// Keywords of an upper bound: a smaller value accepts less.
pub(crate) const UPPER_BOUNDS: [&str; 5] = [
    "maxLength",
    "maximum",
    "exclusiveMaximum",
    "maxItems",
    "maxProperties",
];
/// Keywords that say what a valid value looks like, replaced as a whole.
pub(crate) const SHAPES: [&str; 3] = ["pattern", "format", "multipleOf"];
/// Keywords that are text for people (and models), not rules.
pub(crate) const TEXTS: [&str; 3] = ["description", "title", "examples"];
/// Keywords compared by dedicated rules, or not compared at all.
pub(crate) const HANDLED: [&str; 22] = [
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "uniqueItems",
    "deprecated",
    "default",
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "$comment",
    "pattern",
    "format",
    "multipleOf",
];
