//! # mcp-fusion-macros
//!
//! The attributes of `mcp-fusion`: `#[action]` makes an `async fn` an
//! action, its name the action's name and its doc comment the action's
//! description; `#[prompt]`, `#[resource(uri = "..")]` and
//! `#[resource_template(uri = "..")]` do the same for prompts, resources and
//! resource templates. Use them through the library (`mcp_fusion::action`,
//! …); they are documented on [`macro@action`], [`macro@prompt`],
//! [`macro@resource`] and [`macro@resource_template`].

#![warn(missing_docs)]

mod attrs;
mod errors;
mod expand;
mod function;
mod kind;
mod target;
mod values;

use target::Target;

/// Makes an `async fn` an action: the function stays exactly as written, and
/// a module of the same name is added next to it, holding one function,
/// `action()`, that returns the function's `mcp_fusion::Action`. The
/// function's name is the action's name and its doc comment the action's
/// description; the attribute's arguments are the builder's settings.
///
/// ```
/// use mcp_fusion::{CallContext, Group, ToolError, action};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// pub struct GetInvoice {
///     /// The invoice id, e.g. `inv_2`.
///     pub id: String,
/// }
///
/// /// Fetch one invoice by its id.
/// ///
/// /// Returns who owes what.
/// #[action(read_only, idempotent, timeout = "2s", requires_scopes("billing:read"))]
/// pub async fn get_invoice(_ctx: CallContext, args: GetInvoice) -> Result<String, ToolError> {
///     Ok(format!("{} owes 1250 cents", args.id))
/// }
///
/// # fn main() {
/// let billing = Group::new("billing").action(get_invoice::action());
/// # let _ = billing;
/// # }
/// ```
///
/// ## What it writes
///
/// The builder calls a user would write by hand, so that both forms make the
/// same contract. The example above adds, after `get_invoice`:
///
/// ```
/// # use mcp_fusion::{CallContext, ToolError};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # pub struct GetInvoice { pub id: String }
/// # pub async fn get_invoice(_ctx: CallContext, args: GetInvoice) -> Result<String, ToolError> {
/// #     Ok(format!("{} owes 1250 cents", args.id))
/// # }
/// /// The action of the function `get_invoice`: `get_invoice::action()`, made by `#[action]`.
/// pub mod get_invoice {
///     /// The action `get_invoice`, run by the function `get_invoice`, with its description and the settings of its `#[action]`.
///     pub fn action() -> ::mcp_fusion::Action {
///         ::mcp_fusion::Action::new("get_invoice", super::get_invoice)
///             .description("Fetch one invoice by its id.\n\nReturns who owes what.")
///             .read_only()
///             .idempotent()
///             .timeout(::std::time::Duration::from_millis(2000))
///             .requires_scopes(["billing:read"])
///     }
/// }
/// # fn main() {}
/// ```
///
/// A module and a function may share a name: modules live in the type
/// namespace, functions in the value namespace. `get_invoice(ctx, args)`
/// still calls the function; `get_invoice::action()` builds the action.
///
/// ## Attributes
///
/// Each is optional and given at most once (except `deprecated_field`);
/// each adds the `Action` builder call of the same name after
/// `.description(..)`, in the order written.
///
/// | attribute | meaning |
/// |---|---|
/// | `name = "other"` | the action's name instead of the function's (a raw identifier `r#type` names `type`) |
/// | `description = "..."` | the description instead of the doc comment |
/// | `read_only` | the action changes nothing (`readOnlyHint`) |
/// | `idempotent` | calling it twice with the same arguments has no further effect (`idempotentHint`) |
/// | `destructive` | it may destroy or irreversibly change data (`destructiveHint`) |
/// | `deprecated = "billing.void_invoice"` | deprecated in favour of that action: calls succeed with a `DEPRECATED` warning |
/// | `deprecated_field("old", "new")` | the input field `old` is deprecated in favour of `new`; repeatable |
/// | `timeout = "2s"` | a call running longer is cancelled with `TIMEOUT`; humantime syntax (`500ms`, `2s`, `1m 30s`), more than zero, whole milliseconds; read at compile time into `Duration::from_millis(..)` |
/// | `rate_limit = "2/min"` | at most N calls per period (`RATE_LIMITED`), written `N/PERIOD` with PERIOD `s`, `sec`, `second`, `min`, `minute`, `h` or `hour` as `RateLimit`'s `FromStr` reads it; read at compile time into `RateLimit::new(N, Duration::from_secs(..))` |
/// | `concurrency(max_active = 4, max_queue = 16)` | at most `max_active` (at least 1) calls run at once and `max_queue` wait (`SERVER_BUSY`) |
/// | `requires_scopes("billing:read", ..)` | the caller's credentials must carry every scope (`AUTH_REQUIRED`, `FORBIDDEN`) |
/// | `requires_auth` | the caller must present valid credentials, whatever their scopes |
/// | `allow_unknown_fields` | the input objects may carry keys their schema does not name |
/// | `narrowed_by("status", "limit")` | the input fields that make the result smaller, named when a result is cut |
/// | `returns = INVOICE` | the result, one value, is shown by that `Presenter` (a path or an expression, resolved as in the function's module: `.returns(&INVOICE)`) |
/// | `returns_many = INVOICE` | the result, a list, is shown by that `Presenter` (`.returns_many(&INVOICE)`) |
/// | `egress_limit = 65536` | the most bytes a successful result may have (`.egress_limit(..)`); a larger one is cut at whole items, lines or characters, with a notice (`docs/wire-contract.md` §9.2) |
/// | `serialize_by = "id"` | calls run one at a time per value of the argument `id` (`Action::serialize_by`) |
/// | `not_serialized` | calls run side by side, also when `destructive` (`Action::not_serialized`) |
///
/// ## The description
///
/// The `#[doc]` lines of the function (its `///` comment) joined with `\n`,
/// one leading space removed from each line, blanks trimmed at both ends. No
/// doc comment (or a blank one) adds no `.description(..)`, so the builder's
/// default applies. A doc attribute the macro cannot read
/// (`#[doc = include_str!(..)]`) is an error unless `description = ".."`
/// is given.
///
/// ## Visibility
///
/// The module has the function's visibility and `action()` reaches the same
/// modules: a private function gives `pub(super) fn action`, so that the
/// module which declares the function can call `name::action()`; `pub` gives
/// `pub`, `pub(crate)` gives `pub(crate)`. The function's `#[cfg(..)]`
/// attributes are put on the module too.
///
/// ## The handler
///
/// Its parameters and return type are not read: the path of the function is
/// handed to `Action::new`, so whatever handler `Action::new` accepts is
/// accepted, and its type errors point at the function's name. The function
/// must be declared where a module may be (at module level, not inside a
/// function body: in a doctest, write the `fn main` yourself), in a crate
/// that depends on `mcp-fusion` under its own name, and no other item of the
/// type namespace may have its name.
///
/// ## Compile errors
///
/// Every problem is a compile error pointing at its cause, all reported
/// together. An unknown attribute (the message lists the valid ones):
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(readonly)]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// An attribute given twice:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(read_only, read_only)]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A value of the wrong kind (`timeout` takes a string):
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(timeout = 2)]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A duration humantime cannot read, or zero:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(timeout = "2 parsecs")]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(timeout = "0s")]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A rate limit `RateLimit`'s `FromStr` would refuse:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action(rate_limit = "2/day")]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A function that is not `async`:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action]
/// fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A method:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// struct Billing;
///
/// impl Billing {
///     #[action]
///     async fn ping(&self, _ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///         Ok("pong".into())
///     }
/// }
/// # fn main() {}
/// ```
///
/// A generic function:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action]
/// async fn ping<T: Default>(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// A doc comment the macro cannot read, without `description = ".."`:
///
/// ```compile_fail
/// # use mcp_fusion::{CallContext, NoArgs, ToolError, action};
/// #[action]
/// #[doc = concat!("Answers ", "pong.")]
/// async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///     Ok("pong".into())
/// }
/// # fn main() { let _ = ping::action(); }
/// ```
///
/// And the visibility rule: the action of a private function is not
/// reachable from outside the module that declares it.
///
/// ```compile_fail
/// pub mod billing {
///     use mcp_fusion::{CallContext, NoArgs, ToolError, action};
///
///     #[action]
///     async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<String, ToolError> {
///         Ok("pong".into())
///     }
///
///     pub fn actions() -> Vec<mcp_fusion::Action> {
///         vec![ping::action()] // the declaring module may
///     }
/// }
///
/// fn main() {
///     let _ = billing::actions();
///     let _ = billing::ping::action(); // error[E0603]: module `ping` is private
/// }
/// ```
#[proc_macro_attribute]
pub fn action(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand::expand(Target::Action, args.into(), item.into()).into()
}

/// Makes an `async fn` a prompt, as [`macro@action`] makes an action: the
/// function stays exactly as written, and a module of the same name is added
/// next to it, holding `prompt()`, which returns the function's
/// `mcp_fusion::Prompt`. The function's name is the prompt's name and its doc
/// comment the prompt's description; the handler is an `async fn` of
/// extractors then, optionally, the prompt's arguments type.
///
/// ```
/// use mcp_fusion::{FusionServer, ToolError, prompt};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// pub struct Review {
///     /// The code to review.
///     pub code: String,
/// }
///
/// /// Asks for a code review.
/// #[prompt(title = "Code review")]
/// pub async fn code_review(args: Review) -> Result<String, ToolError> {
///     Ok(format!("Please review this code:\n{}", args.code))
/// }
///
/// # fn main() {
/// let server = FusionServer::builder("billing", "1.0.0").prompt(code_review::prompt()).build();
/// # server.unwrap();
/// # }
/// ```
///
/// adds, after `code_review`:
///
/// ```
/// # use mcp_fusion::ToolError;
/// # #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # pub struct Review { pub code: String }
/// # pub async fn code_review(args: Review) -> Result<String, ToolError> { Ok(args.code) }
/// /// The prompt of the function `code_review`: `code_review::prompt()`, made by `#[prompt]`.
/// pub mod code_review {
///     /// The prompt `code_review`, run by the function `code_review`, with its description and the settings of its `#[prompt]`.
///     pub fn prompt() -> ::mcp_fusion::Prompt {
///         ::mcp_fusion::Prompt::new("code_review", super::code_review)
///             .description("Asks for a code review.")
///             .title("Code review")
///     }
/// }
/// # fn main() {}
/// ```
///
/// ## Attributes
///
/// Each is optional and given at most once.
///
/// | attribute | meaning |
/// |---|---|
/// | `name = "other"` | the prompt's name instead of the function's |
/// | `title = "..."` | a human-readable name (`.title(..)`) |
/// | `description = "..."` | the description instead of the doc comment |
/// | `timeout = "2s"` | the time limit of a call (`.timeout(..)`; `ms`, `s`, `m`, `h`) |
/// | `rate_limit = "2/min"` | the call rate limit (`.rate_limit(..)`) |
/// | `concurrency(max_active = 4, max_queue = 16)` | at most that many calls at once and waiting (`.concurrency(..)`) |
/// | `requires_scopes("a", "b")` | the credentials must carry these scopes (`.requires_scopes(..)`) |
/// | `requires_auth` | the caller must present valid credentials (`.requires_auth()`) |
///
/// The description, the visibility, the `cfg`, what the handler may be and
/// the compile errors are as for [`macro@action`]; an attribute it does not
/// take is an error naming the ones it does:
///
/// ```compile_fail
/// # use mcp_fusion::{ToolError, prompt};
/// #[prompt(read_only)]
/// async fn greeting() -> Result<String, ToolError> {
///     Ok("Hello!".into())
/// }
/// # fn main() { let _ = greeting::prompt(); }
/// ```
#[proc_macro_attribute]
pub fn prompt(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand::expand(Target::Prompt, args.into(), item.into()).into()
}

/// Makes an `async fn` a resource, as [`macro@action`] makes an action: the
/// function stays exactly as written, and a module of the same name is added
/// next to it, holding `resource()`, which returns the function's
/// `mcp_fusion::Resource` at `uri`. The function's name is the resource's
/// name and its doc comment the resource's description; the handler is an
/// `async fn` of extractors only, returning the contents (text or bytes).
///
/// ```
/// use mcp_fusion::{FusionServer, ToolError, resource};
///
/// /// The project's read-me.
/// #[resource(uri = "docs://readme", mime_type = "text/markdown")]
/// pub async fn readme() -> Result<&'static str, ToolError> {
///     Ok("# Billing\n\nRead me first.")
/// }
///
/// # fn main() {
/// let server = FusionServer::builder("billing", "1.0.0").resource(readme::resource()).build();
/// # server.unwrap();
/// # }
/// ```
///
/// adds, after `readme`:
///
/// ```
/// # use mcp_fusion::ToolError;
/// # pub async fn readme() -> Result<&'static str, ToolError> { Ok("") }
/// /// The resource of the function `readme`: `readme::resource()`, made by `#[resource]`.
/// pub mod readme {
///     /// The resource `readme`, run by the function `readme`, with its description and the settings of its `#[resource]`.
///     pub fn resource() -> ::mcp_fusion::Resource {
///         ::mcp_fusion::Resource::new("docs://readme", "readme", super::readme)
///             .description("The project's read-me.")
///             .mime_type("text/markdown")
///     }
/// }
/// # fn main() {}
/// ```
///
/// ## Attributes
///
/// `uri` is required; the others are optional. Each is given at most once.
///
/// | attribute | meaning |
/// |---|---|
/// | `uri = "docs://readme"` | the resource's URI |
/// | `name = "other"` | the name it is listed as instead of the function's |
/// | `title = "..."` | a human-readable name (`.title(..)`) |
/// | `description = "..."` | the description instead of the doc comment |
/// | `mime_type = "text/plain"` | the media type of the contents (`.mime_type(..)`) |
/// | `timeout = "2s"` | the time limit of a call (`.timeout(..)`; `ms`, `s`, `m`, `h`) |
/// | `rate_limit = "2/min"` | the call rate limit (`.rate_limit(..)`) |
/// | `concurrency(max_active = 4, max_queue = 16)` | at most that many calls at once and waiting (`.concurrency(..)`) |
/// | `requires_scopes("a", "b")` | the credentials must carry these scopes (`.requires_scopes(..)`) |
/// | `requires_auth` | the caller must present valid credentials (`.requires_auth()`) |
///
/// The description, the visibility, the `cfg`, what the handler may be and
/// the compile errors are as for [`macro@action`]; without `uri`:
///
/// ```compile_fail
/// # use mcp_fusion::{ToolError, resource};
/// #[resource(name = "readme")]
/// async fn readme() -> Result<&'static str, ToolError> {
///     Ok("Read me first.")
/// }
/// # fn main() { let _ = readme::resource(); }
/// ```
#[proc_macro_attribute]
pub fn resource(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand::expand(Target::Resource, args.into(), item.into()).into()
}

/// Makes an `async fn` a resource template, as [`macro@action`] makes an
/// action: the function stays exactly as written, and a module of the same
/// name is added next to it, holding `resource_template()`, which returns
/// the function's `mcp_fusion::ResourceTemplate` for the URI template `uri`.
/// The function's name is the template's name and its doc comment the
/// template's description; the handler is an `async fn` of extractors then
/// the type holding the template's variables. It takes the attributes of
/// [`macro@resource`] (`uri` required, `name`, `title`, `description`,
/// `mime_type`, and the guards: `timeout`, `rate_limit`, `concurrency`,
/// `requires_scopes`, `requires_auth`), with `uri` an RFC 6570 template
/// (`{id}`, `{+path}`).
///
/// ```
/// use mcp_fusion::{FusionServer, ToolError, resource_template};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// pub struct InvoiceUri {
///     pub id: String,
/// }
///
/// /// One invoice, as JSON.
/// #[resource_template(uri = "billing://invoices/{id}", mime_type = "application/json")]
/// pub async fn invoice(vars: InvoiceUri) -> Result<String, ToolError> {
///     Ok(format!("{{\"id\":\"{}\"}}", vars.id))
/// }
///
/// # fn main() {
/// let server = FusionServer::builder("billing", "1.0.0")
///     .resource_template(invoice::resource_template())
///     .build();
/// # server.unwrap();
/// # }
/// ```
///
/// adds, after `invoice`:
///
/// ```
/// # use mcp_fusion::ToolError;
/// # #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # pub struct InvoiceUri { pub id: String }
/// # pub async fn invoice(vars: InvoiceUri) -> Result<String, ToolError> { Ok(vars.id) }
/// /// The resource template of the function `invoice`: `invoice::resource_template()`, made by `#[resource_template]`.
/// pub mod invoice {
///     /// The resource template `invoice`, run by the function `invoice`, with its description and the settings of its `#[resource_template]`.
///     pub fn resource_template() -> ::mcp_fusion::ResourceTemplate {
///         ::mcp_fusion::ResourceTemplate::new("billing://invoices/{id}", "invoice", super::invoice)
///             .description("One invoice, as JSON.")
///             .mime_type("application/json")
///     }
/// }
/// # fn main() {}
/// ```
///
/// A `uri` of the wrong kind says how to write it:
///
/// ```compile_fail
/// # use mcp_fusion::{ToolError, resource_template};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # pub struct InvoiceUri { pub id: String }
/// #[resource_template(uri("billing://invoices/{id}"))]
/// async fn invoice(vars: InvoiceUri) -> Result<String, ToolError> {
///     Ok(vars.id)
/// }
/// # fn main() { let _ = invoice::resource_template(); }
/// ```
#[proc_macro_attribute]
pub fn resource_template(
    args: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand::expand(Target::ResourceTemplate, args.into(), item.into()).into()
}
