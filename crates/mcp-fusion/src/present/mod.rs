//! Results written for the model (wire contract §9.1): a [`Presenter<T>`]
//! says how an action's result is shown — only the fields `T`'s JSON Schema
//! declares, secrets replaced by [`REDACTED`], a list cut to an agent limit
//! with a summary, domain rules and suggested next calls computed from the
//! data, embedded presenters for nested values, and an optional `_select`
//! argument ([`SELECT`]) with which the model picks top-level fields.
//!
//! Attach one with [`Action::returns`](crate::Action::returns) or
//! [`Action::returns_many`](crate::Action::returns_many); from an rmcp
//! `#[tool]`, call [`present`] or [`present_many`]. A successful result's
//! `content` is then the data (compact JSON, the same value as
//! `structuredContent`), the guidance block (`<result_limit>`,
//! `<domain_rules>`, `<next_actions>`, only when there is something to
//! say), then any warnings. Error results are not presented.

mod fields;
mod guidance;
mod observed;
mod presentation;
mod presenter;
mod secrets;
mod standalone;
mod suggestion;

pub(crate) use fields::top_level as top_level_fields;
pub(crate) use guidance::CallTarget;
pub use guidance::{Cut, Guidance, MAX_SUGGESTIONS, Suggested, is_guidance};
pub(crate) use observed::{observe, observing};
pub use presentation::SELECT;
pub(crate) use presentation::{Hidden, Presentation, output_schema};
pub(crate) use presenter::Present;
pub use presenter::Presenter;
pub use secrets::REDACTED;
pub use standalone::{output_schema_of, present, present_many};
pub use suggestion::Suggestion;
