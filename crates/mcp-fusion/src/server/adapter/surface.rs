//! The MCP requests beside `tools/*`: prompts, resources, completion and
//! logging (MCP 2025-11-25 "Server features" and "Utilities"), answered
//! from the server's [`Catalog`](crate::capability::Catalog). A handler's
//! failure becomes a JSON-RPC error whose message is the envelope text the
//! same failure would give a tool call, and whose `data` is its JSON twin.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorCode as RpcCode, GetPromptResult,
    ReadResourceResult, Reference,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use super::connection::Connection;
use crate::capability::{
    Callable, Catalog, Completed, CompletionRequest, Place, Resolved, contents,
};
use crate::envelope::{envelope_and_meta, validation_envelope_and_meta};
use crate::error::{ErrorCode, ToolError, ValidationFailure};
use crate::handler::{CallContext, Capability, InputRounds, PromptMessages, ResourceData};
use crate::server::dispatch::{Guarded, guarded};

/// `-32602` with the `<validation_error>` of `failure` (wire contract §4).
fn invalid(failure: &ValidationFailure) -> rmcp::ErrorData {
    let (text, meta) = validation_envelope_and_meta(failure);
    rmcp::ErrorData::invalid_params(text, Some(meta))
}

/// The typed success of a guarded call of a prompt, resource or completer,
/// or its JSON-RPC error: the `<validation_error>` (-32602) or the
/// `<tool_error>` of its failure (see [`failed`]); `resource` says a
/// resource was read.
pub(super) fn answer<T>(
    outcome: Result<Guarded<T>, ToolError>,
    resource: bool,
) -> Result<T, rmcp::ErrorData> {
    match outcome {
        Ok(Guarded::Output(output)) => Ok(output),
        Ok(Guarded::Invalid(failure)) => Err(invalid(&failure)),
        // The adapter answers with the input-required result of the call's
        // rounds instead.
        Ok(Guarded::Stopped) => Err(rmcp::ErrorData::internal_error(
            "the call stopped for the client's input",
            None,
        )),
        Err(error) => Err(failed(&error, resource)),
    }
}

/// A handler's `ToolError` as a JSON-RPC error: `NOT_FOUND` of a resource is
/// -32002 (MCP "Resources", error handling), a problem with the arguments
/// -32602, anything else -32603; the message is the `<tool_error>` text.
fn failed(error: &ToolError, resource: bool) -> rmcp::ErrorData {
    let code = match error.code {
        ErrorCode::NotFound if resource => RpcCode::RESOURCE_NOT_FOUND,
        ErrorCode::NotFound | ErrorCode::ValidationError | ErrorCode::MissingRequiredField => {
            RpcCode::INVALID_PARAMS
        }
        _ => RpcCode::INTERNAL_ERROR,
    };
    let (text, meta) = envelope_and_meta(error);
    rmcp::ErrorData::new(code, text, Some(meta))
}

/// The answer to a name that is not there: the closest valid one and all of
/// them, as the unknown-tool error gives them, under `data.KEY` the name as
/// the answer repeats it (at most 100 characters).
fn unknown(
    what: &str,
    key: &str,
    name: &str,
    valid: Vec<String>,
    code: RpcCode,
) -> rmcp::ErrorData {
    let closest = crate::suggest::closest(name, valid.iter().map(String::as_str));
    let name = crate::text::cut_chars(name, 100, "…");
    let mut message = format!("There is no {what} named \"{name}\".");
    if let Some(closest) = closest {
        message.push_str(&format!(" Did you mean \"{closest}\"?"));
    }
    message.push_str(&match valid.len() {
        0 => String::from(" This server has none."),
        _ => format!(" Valid: {}.", valid.join(", ")),
    });
    let data = json!({ key: name.as_ref(), "closest": closest, "valid": valid });
    rmcp::ErrorData::new(code, message, Some(data))
}

/// `-32602` for a `completion/complete` argument its prompt or template
/// does not have: the closest name, the valid ones (MCP 2025-11-25,
/// server/utilities/completion, "Error Handling": invalid arguments).
fn unknown_argument(
    owner_kind: &str,
    owner: &str,
    name: &str,
    valid: Vec<String>,
) -> rmcp::ErrorData {
    let closest = crate::suggest::closest(name, valid.iter().map(String::as_str));
    let name = crate::text::cut_chars(name, 100, "…");
    let mut message = format!("{owner_kind} \"{owner}\" has no argument named \"{name}\".");
    if let Some(closest) = closest {
        message.push_str(&format!(" Did you mean \"{closest}\"?"));
    }
    message.push_str(&match valid.len() {
        0 => String::from(" It takes none."),
        _ => format!(" Valid: {}.", valid.join(", ")),
    });
    let data = json!({ "argument": name.as_ref(), "closest": closest, "valid": valid });
    rmcp::ErrorData::new(RpcCode::INVALID_PARAMS, message, Some(data))
}

/// The prompts the caller of `viewer` sees, each with its place in the list.
pub(crate) fn list_prompts(
    connection: &Connection,
    viewer: &CallContext,
) -> Vec<(Place, rmcp::model::Prompt)> {
    connection
        .server
        .catalog()
        .prompts
        .iter()
        .filter(|p| p.callable.visibility.shows_to(viewer))
        .map(|p| (p.place, p.prompt.to_rmcp()))
        .collect()
}

pub(crate) async fn get_prompt(
    connection: &Connection,
    name: &str,
    arguments: Option<Map<String, Value>>,
    context: &RequestContext<RoleServer>,
    rounds: Option<Arc<InputRounds>>,
) -> Result<GetPromptResult, rmcp::ErrorData> {
    let catalog = connection.server.catalog();
    let ctx = connection.surface_context(Capability::Prompt, name, context, rounds);
    let Some(prompt) = catalog.prompt(name) else {
        let valid = catalog
            .prompts
            .iter()
            .filter(|p| p.callable.visibility.shows_to(&ctx))
            .map(|p| p.prompt.name.clone())
            .collect();
        return Err(unknown(
            "prompt",
            "prompt",
            name,
            valid,
            RpcCode::INVALID_PARAMS,
        ));
    };
    let args = Value::Object(arguments.unwrap_or_default());
    let messages: PromptMessages = answer(guarded(&prompt.callable, &ctx, args).await, false)?;
    let mut result = GetPromptResult::new(messages.0);
    result.description = prompt.prompt.description.clone();
    Ok(result)
}

/// The resources the caller of `viewer` sees, each with its place in the
/// list: the server's own, then the skills' `SKILL.md` files.
pub(crate) fn list_resources(
    connection: &Connection,
    viewer: &CallContext,
) -> Vec<(Place, rmcp::model::Resource)> {
    let catalog = connection.server.catalog();
    let mut listed: Vec<(Place, rmcp::model::Resource)> = catalog
        .resources
        .iter()
        .filter(|r| r.callable.visibility.shows_to(viewer))
        .map(|r| (r.place, r.resource.to_rmcp()))
        .collect();
    if let Some(skills) = catalog.skills_shown_to(viewer) {
        listed.extend(skills.listed().iter().cloned());
    }
    listed
}

/// The resource templates the caller of `viewer` sees, each with its place
/// in the list.
pub(crate) fn list_templates(
    connection: &Connection,
    viewer: &CallContext,
) -> Vec<(Place, rmcp::model::ResourceTemplate)> {
    connection
        .server
        .catalog()
        .templates
        .iter()
        .filter(|t| t.callable.visibility.shows_to(viewer))
        .map(|t| (t.place, t.template.to_rmcp()))
        .collect()
}

/// The -32002 answer for a URI no resource or template serves, naming
/// those the caller of `viewer` sees.
fn no_resource(connection: &Connection, uri: &str, viewer: &CallContext) -> rmcp::ErrorData {
    let catalog = connection.server.catalog();
    let valid = catalog
        .resources
        .iter()
        .filter(|r| r.callable.visibility.shows_to(viewer))
        .map(|r| r.resource.uri.clone())
        .chain(
            catalog
                .skills_shown_to(viewer)
                .into_iter()
                .flat_map(|skills| {
                    skills
                        .listed()
                        .iter()
                        .map(|(_, r)| r.uri.clone())
                        .collect::<Vec<_>>()
                }),
        )
        .chain(
            catalog
                .templates
                .iter()
                .filter(|t| t.callable.visibility.shows_to(viewer))
                .map(|t| t.template.uri_template.clone()),
        )
        .collect();
    // `data.uri`: MCP 2026-07-28 server/resources, "Error Handling"
    // (SEP-2164).
    unknown("resource", "uri", uri, valid, RpcCode::RESOURCE_NOT_FOUND)
}

pub(crate) async fn read_resource(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
    rounds: Option<Arc<InputRounds>>,
) -> Result<ReadResourceResult, rmcp::ErrorData> {
    let ctx = connection.surface_context(Capability::Resource, uri, context, rounds);
    let resolved = match connection.server.catalog().resolve(uri) {
        None => return Err(no_resource(connection, uri, &ctx)),
        Some(Err(reason)) => return Err(rmcp::ErrorData::invalid_params(reason, None)),
        Some(Ok(resolved)) => resolved,
    };
    let args = match &resolved {
        Resolved::Fixed(_) => Value::Object(Map::new()),
        Resolved::Skill(..) => crate::capability::skills::request_args("resources/read", Some(uri)),
        Resolved::Template(template, variables) => template.template.arguments(variables.clone()),
    };
    let data: ResourceData = answer(guarded(resolved.callable(), &ctx, args).await, true)?;
    if let Resolved::Skill(_, read) = resolved {
        // The catalog's bytes, as its manifest describes them.
        return Ok(*read);
    }
    let result = ReadResourceResult::new(vec![contents(
        uri,
        resolved.mime_type(),
        data,
        resolved.contents_meta(),
    )]);
    let hint = connection.read_hint(&resolved);
    Ok(super::cache_hints::hinted(result, hint, context))
}

/// `resources/subscribe`: the URI must name a resource or match a
/// template (else -32002), whose credentials the caller must have, as
/// for reading it (else its `AUTH_REQUIRED` or `FORBIDDEN`, so that
/// updates of what a caller may not read never reach it); a connection
/// holds at most [`MAX_SUBSCRIPTIONS`](crate::server::MAX_SUBSCRIPTIONS)
/// (else -32602).
pub(crate) fn subscribe(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<(), rmcp::ErrorData> {
    subscribable(connection, uri, context)?;
    connection.session.bind(&context.peer);
    if !connection.session.subscribe(uri) {
        return Err(rmcp::ErrorData::invalid_params(
            format!(
                "This connection is already subscribed to {} resources, the most it may be; unsubscribe from one (resources/unsubscribe) before subscribing to \"{uri}\".",
                crate::server::MAX_SUBSCRIPTIONS
            ),
            None,
        ));
    }
    Ok(())
}

/// `resources/unsubscribe`: `{}` for a URI this connection is subscribed
/// to (also one removed since); for any other URI, `{}` only where
/// `resources/subscribe` would have accepted it (so unsubscribing twice
/// from a resource that exists is harmless; from one removed, the second is
/// `-32002`), else its error: an unknown resource, a caller it is refused
/// to, variables its template refuses.
pub(crate) fn unsubscribe(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<(), rmcp::ErrorData> {
    if connection.session.unsubscribe(uri) {
        return Ok(());
    }
    subscribable(connection, uri, context)
}

/// Whether the caller of `context` may subscribe to `uri`: a resource or a
/// template's URI it may read, with variables the template accepts.
///
/// # Errors
/// `-32002` for an unknown resource, the refusal of a caller without the
/// credentials or scopes it needs, and a URI its template's variables refuse
/// (the `<validation_error>` a read of it gets).
fn subscribable(
    connection: &Connection,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<(), rmcp::ErrorData> {
    match connection.server.catalog().resolve(uri) {
        None => {
            let viewer = connection.viewer(Capability::Resource, context);
            Err(no_resource(connection, uri, &viewer))
        }
        Some(Err(reason)) => Err(rmcp::ErrorData::invalid_params(reason, None)),
        Some(Ok(resolved)) => {
            let ctx = connection.surface_context(Capability::Resource, uri, context, None);
            if let Some(refused) = resolved.callable().visibility.auth.refusal(&ctx) {
                return Err(failed(&refused, true));
            }
            // A URI its template's variables refuse names no resource to
            // hear of: the `<validation_error>` a read of it gets.
            resolved.check_variables(uri).map_err(|f| invalid(&f))
        }
    }
}

/// `completion/complete` for a prompt argument or a template variable.
pub(crate) async fn complete(
    connection: &Connection,
    request: CompleteRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CompleteResult, rmcp::ErrorData> {
    let catalog = connection.server.catalog();
    if !catalog.completes() {
        // The `completions` capability was not advertised.
        return Err(rmcp::ErrorData::method_not_found::<
            rmcp::model::CompleteRequestMethod,
        >());
    }
    let owner = owner_of(connection, &catalog, &request.r#ref, context)?;
    let ctx = connection.surface_context(Capability::Completion, &owner.name, context, None);
    let Some(completer) = owner.completers.get(&request.argument.name) else {
        return without_completer(&owner, &request.argument.name, &ctx);
    };
    let completion = CompletionRequest {
        argument: request.argument.name,
        value: request.argument.value,
        arguments: request
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default(),
    };
    let args = serde_json::to_value(completion)
        .map_err(|e| rmcp::ErrorData::internal_error(e.to_string(), None))?;
    let values: Vec<String> = answer(guarded(completer, &ctx, args).await, false)?;
    let done = Completed::of(values);
    let total = u32::try_from(done.total).unwrap_or(u32::MAX);
    let info = CompletionInfo::with_pagination(done.values, Some(total), done.has_more)
        .map_err(|e| rmcp::ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

/// What a `completion/complete` completes an argument of: a prompt or a
/// resource template of the catalog.
struct Owner<'c> {
    /// `Prompt` or `Resource template`, as an unknown argument's error
    /// names it.
    kind: &'static str,
    /// The prompt's name or the template's text.
    name: String,
    /// The owner's own guarded path (whose auth decides who is told).
    path: &'c Callable,
    completers: &'c HashMap<String, Callable>,
    /// The names of its arguments or variables.
    names: Vec<String>,
}

/// The prompt or template `reference` names; `-32602` naming those the
/// caller sees when there is none, or for a reference of another kind.
fn owner_of<'c>(
    connection: &Connection,
    catalog: &'c Catalog,
    reference: &Reference,
    context: &RequestContext<RoleServer>,
) -> Result<Owner<'c>, rmcp::ErrorData> {
    let viewer = connection.viewer(Capability::Completion, context);
    match reference {
        Reference::Prompt(prompt) => match catalog.prompt(&prompt.name) {
            Some(found) => Ok(Owner {
                kind: "Prompt",
                name: found.prompt.name.clone(),
                path: &found.callable,
                completers: &found.completers,
                names: found.prompt.argument_names(),
            }),
            None => {
                let valid = catalog
                    .prompts
                    .iter()
                    .filter(|p| p.callable.visibility.shows_to(&viewer))
                    .map(|p| p.prompt.name.clone())
                    .collect();
                Err(unknown(
                    "prompt",
                    "prompt",
                    &prompt.name,
                    valid,
                    RpcCode::INVALID_PARAMS,
                ))
            }
        },
        Reference::Resource(reference) => match catalog
            .template(&reference.uri)
            .or_else(|| catalog.template_matching(&reference.uri))
        {
            Some(found) => Ok(Owner {
                kind: "Resource template",
                name: found.template.uri_template.clone(),
                path: &found.callable,
                completers: &found.completers,
                names: found.template.variable_names(),
            }),
            None => {
                let valid = catalog
                    .templates
                    .iter()
                    .filter(|t| t.callable.visibility.shows_to(&viewer))
                    .map(|t| t.template.uri_template.clone())
                    .collect();
                Err(unknown(
                    "resource template",
                    "resource_template",
                    &reference.uri,
                    valid,
                    RpcCode::INVALID_PARAMS,
                ))
            }
        },
        other => Err(rmcp::ErrorData::invalid_params(
            format!("completion/complete cannot complete a reference of this kind: {other:?}"),
            None,
        )),
    }
}

/// The answer for an `argument` of `owner` that has no completer, once the
/// caller of `ctx` may use `owner` (else its `AUTH_REQUIRED` or
/// `FORBIDDEN`: the names of its arguments are not told to anyone else): a
/// name it does not have is a mistake in the request (a typo), `-32602`
/// naming the valid ones; one of its own gets no values.
fn without_completer(
    owner: &Owner<'_>,
    argument: &str,
    ctx: &CallContext,
) -> Result<CompleteResult, rmcp::ErrorData> {
    if let Some(refused) = owner.path.visibility.auth.refusal(ctx) {
        return Err(failed(&refused, false));
    }
    if !owner.names.iter().any(|name| name == argument) {
        return Err(unknown_argument(
            owner.kind,
            &owner.name,
            argument,
            owner.names.clone(),
        ));
    }
    let info = CompletionInfo::with_pagination(Vec::new(), Some(0), false)
        .map_err(|e| rmcp::ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}
