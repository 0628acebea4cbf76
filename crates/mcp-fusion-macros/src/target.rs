//! [`Target`]: what an attribute makes of the function (an action, a
//! prompt, a resource, a resource template), and the names that follow.

use crate::kind::Kind;

/// The thing an attribute of the crate makes: it names the attribute, the
/// library type built, the function of the generated module, and the
/// attribute's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `#[action]`: an `Action`.
    Action,
    /// `#[prompt]`: a `Prompt`.
    Prompt,
    /// `#[resource(uri = "..")]`: a `Resource`.
    Resource,
    /// `#[resource_template(uri = "..")]`: a `ResourceTemplate`.
    ResourceTemplate,
}

impl Target {
    /// The attribute's name, which is also the name of the function of the
    /// generated module (`get_invoice::action()`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Target::Action => "action",
            Target::Prompt => "prompt",
            Target::Resource => "resource",
            Target::ResourceTemplate => "resource_template",
        }
    }

    /// The attribute as written in messages: `#[action]`.
    pub(crate) fn attribute(self) -> String {
        format!("#[{}]", self.name())
    }

    /// The library type built, at the root of `mcp_fusion`.
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Target::Action => "Action",
            Target::Prompt => "Prompt",
            Target::Resource => "Resource",
            Target::ResourceTemplate => "ResourceTemplate",
        }
    }

    /// What is made, in prose: `action`, `resource template`.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Target::Action => "action",
            Target::Prompt => "prompt",
            Target::Resource => "resource",
            Target::ResourceTemplate => "resource template",
        }
    }

    /// The noun with its article: `an action`, `a prompt`.
    pub(crate) fn a_noun(self) -> String {
        let article = if self == Target::Action { "an" } else { "a" };
        format!("{article} {}", self.noun())
    }

    /// The arguments the attribute takes, in the order its documentation
    /// lists them. `uri`, where taken, is required.
    pub(crate) fn kinds(self) -> &'static [Kind] {
        match self {
            Target::Action => &[
                Kind::Name,
                Kind::Description,
                Kind::ReadOnly,
                Kind::Idempotent,
                Kind::Destructive,
                Kind::Deprecated,
                Kind::DeprecatedField,
                Kind::Timeout,
                Kind::RateLimit,
                Kind::Concurrency,
                Kind::RequiresScopes,
                Kind::RequiresAuth,
                Kind::AllowUnknownFields,
                Kind::NarrowedBy,
                Kind::Returns,
                Kind::ReturnsMany,
                Kind::EgressLimit,
                Kind::SerializeBy,
                Kind::NotSerialized,
            ],
            Target::Prompt => &[
                Kind::Name,
                Kind::Title,
                Kind::Description,
                Kind::Timeout,
                Kind::RateLimit,
                Kind::Concurrency,
                Kind::RequiresScopes,
                Kind::RequiresAuth,
            ],
            Target::Resource | Target::ResourceTemplate => &[
                Kind::Uri,
                Kind::Name,
                Kind::Title,
                Kind::Description,
                Kind::MimeType,
                Kind::Timeout,
                Kind::RateLimit,
                Kind::Concurrency,
                Kind::RequiresScopes,
                Kind::RequiresAuth,
            ],
        }
    }
}
