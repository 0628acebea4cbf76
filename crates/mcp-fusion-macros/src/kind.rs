//! [`Kind`]: one argument an attribute of the crate knows, and how it is
//! written, in the messages that refuse a wrong one.

use quote::ToTokens;

/// One argument an attribute of the crate knows; [`Target::kinds`] says
/// which attribute takes which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Uri,
    Name,
    Title,
    Description,
    MimeType,
    ReadOnly,
    Idempotent,
    Destructive,
    Deprecated,
    DeprecatedField,
    Timeout,
    RateLimit,
    Concurrency,
    RequiresScopes,
    RequiresAuth,
    AllowUnknownFields,
    NarrowedBy,
    Returns,
    ReturnsMany,
    EgressLimit,
    SerializeBy,
    NotSerialized,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Uri => "uri",
            Kind::Name => "name",
            Kind::Title => "title",
            Kind::Description => "description",
            Kind::MimeType => "mime_type",
            Kind::ReadOnly => "read_only",
            Kind::Idempotent => "idempotent",
            Kind::Destructive => "destructive",
            Kind::Deprecated => "deprecated",
            Kind::DeprecatedField => "deprecated_field",
            Kind::Timeout => "timeout",
            Kind::RateLimit => "rate_limit",
            Kind::Concurrency => "concurrency",
            Kind::RequiresScopes => "requires_scopes",
            Kind::RequiresAuth => "requires_auth",
            Kind::AllowUnknownFields => "allow_unknown_fields",
            Kind::NarrowedBy => "narrowed_by",
            Kind::Returns => "returns",
            Kind::ReturnsMany => "returns_many",
            Kind::EgressLimit => "egress_limit",
            Kind::SerializeBy => "serialize_by",
            Kind::NotSerialized => "not_serialized",
        }
    }

    /// How it is written.
    pub(crate) fn form(self) -> &'static str {
        match self {
            Kind::Uri => "uri = \"...\"",
            Kind::Name => "name = \"...\"",
            Kind::Title => "title = \"...\"",
            Kind::Description => "description = \"...\"",
            Kind::MimeType => "mime_type = \"text/plain\"",
            Kind::ReadOnly => "read_only",
            Kind::Idempotent => "idempotent",
            Kind::Destructive => "destructive",
            Kind::Deprecated => "deprecated = \"replacement.action\"",
            Kind::DeprecatedField => "deprecated_field(\"old\", \"new\")",
            Kind::Timeout => "timeout = \"2s\"",
            Kind::RateLimit => "rate_limit = \"2/min\"",
            Kind::Concurrency => "concurrency(max_active = 4, max_queue = 16)",
            Kind::RequiresScopes => "requires_scopes(\"a\", \"b\")",
            Kind::RequiresAuth => "requires_auth",
            Kind::AllowUnknownFields => "allow_unknown_fields",
            Kind::NarrowedBy => "narrowed_by(\"status\", \"limit\")",
            Kind::Returns => "returns = PRESENTER",
            Kind::ReturnsMany => "returns_many = PRESENTER",
            Kind::EgressLimit => "egress_limit = 65536",
            Kind::SerializeBy => "serialize_by = \"id\"",
            Kind::NotSerialized => "not_serialized",
        }
    }

    /// What value it takes.
    pub(crate) fn takes(self) -> &'static str {
        match self {
            Kind::ReadOnly
            | Kind::Idempotent
            | Kind::Destructive
            | Kind::RequiresAuth
            | Kind::AllowUnknownFields
            | Kind::NotSerialized => "no value",
            Kind::Uri
            | Kind::Name
            | Kind::Title
            | Kind::Description
            | Kind::MimeType
            | Kind::Deprecated
            | Kind::Timeout
            | Kind::RateLimit
            | Kind::SerializeBy => "a string",
            Kind::DeprecatedField => "two strings",
            Kind::RequiresScopes | Kind::NarrowedBy => "one or more strings",
            Kind::Returns | Kind::ReturnsMany => "a presenter (a path or an expression)",
            Kind::Concurrency => "two whole numbers",
            Kind::EgressLimit => "a whole number of bytes",
        }
    }

    /// Whether it may be given more than once.
    pub(crate) fn repeatable(self) -> bool {
        self == Kind::DeprecatedField
    }

    /// The error for `meta` written in the wrong form.
    pub(crate) fn misused(self, meta: &impl ToTokens) -> syn::Error {
        syn::Error::new_spanned(
            meta,
            format!(
                "`{}` takes {}: write `{}`",
                self.name(),
                self.takes(),
                self.form()
            ),
        )
    }
}
