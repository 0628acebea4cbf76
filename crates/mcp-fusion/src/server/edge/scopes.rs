//! What scopes the server's capabilities need, asked by the HTTP edge
//! before a request runs: every scope any capability names (RFC 9728
//! `scopes_supported`), the scopes of its read-only capabilities (the
//! default `scope` of a 401 challenge that names no operation), what one
//! request's capability needs (the `scope` of its 401: MCP authorization,
//! "Scope Selection Strategy"), and the scopes it needs that a principal
//! lacks (the 403 `insufficient_scope` challenge, "Runtime Insufficient
//! Scope Errors").

use std::collections::BTreeSet;

use crate::capability::Callable;
use crate::handler::Principal;
use crate::server::FusionServer;
use crate::server::dispatch::request::Lookup;

/// A request whose capability may need scopes, as the edge reads it.
pub(crate) enum Operation<'a> {
    /// `tools/call`, looked up once (a plain tool, or a group whose
    /// discriminator names the action): the call's one lookup, which the
    /// edge hands on to dispatch. A dotted `group.action` name reaches no
    /// action: the router runs no call of it (a caller with credentials
    /// gets the unknown-tool error naming how to call the action).
    Tool(Lookup),
    /// `prompts/get`.
    Prompt(&'a str),
    /// `resources/read` or `resources/subscribe` of a resource or a
    /// template's URI.
    Resource(&'a str),
    /// `completion/complete` of a prompt's argument (the prompt's name).
    PromptCompletion(&'a str),
    /// `completion/complete` of a template's variable (the template's URI
    /// template, or a URI it matches).
    TemplateCompletion(&'a str),
}

/// What one operation's capability needs of its caller.
pub(crate) struct Needs {
    /// The name of what it calls (`billing.void_invoice`, a prompt's name,
    /// a URI).
    pub name: String,
    /// The scopes it needs, in the capability's order, without
    /// `offline_access`.
    pub scopes: Vec<String>,
    /// Whether a caller without credentials is refused.
    pub credentials: bool,
}

/// The scope every `offline_access` request is about: never asked for by a
/// resource server (MCP authorization 2026-07-28, "Refresh Tokens").
const OFFLINE_ACCESS: &str = "offline_access";

fn callables(server: &FusionServer, mut each: impl FnMut(&Callable)) {
    for tool in server.registry().tools() {
        for action in &tool.actions {
            each(&action.callable);
        }
    }
    let catalog = server.catalog();
    for prompt in &catalog.prompts {
        each(&prompt.callable);
    }
    for resource in &catalog.resources {
        each(&resource.callable);
    }
    for template in &catalog.templates {
        each(&template.callable);
    }
    if let Some(skills) = &catalog.skills {
        each(&skills.callable);
    }
}

/// Every scope a capability of the server needs, sorted, without
/// `offline_access`.
pub(crate) fn scopes_supported(server: &FusionServer) -> Vec<String> {
    let mut scopes = BTreeSet::new();
    callables(server, |callable| {
        scopes.extend(callable.visibility.auth.scopes.iter().cloned());
    });
    scopes.remove(OFFLINE_ACCESS);
    scopes.into_iter().collect()
}

/// The capability `operation` calls, with the name it goes by (the
/// dotted name of an action, a prompt's name, a URI), handed to `each`;
/// `None` when the request names nothing the server has.
fn with_callable<T>(
    server: &FusionServer,
    operation: &Operation<'_>,
    each: impl FnOnce(&str, &Callable) -> Option<T>,
) -> Option<T> {
    match operation {
        Operation::Tool(lookup) => {
            let action = lookup.action()?;
            each(&action.dotted, &action.callable)
        }
        Operation::Prompt(name) => server
            .catalog()
            .prompt(name)
            .and_then(|p| each(name, &p.callable)),
        // Only when the server completes anything (else it answers
        // `completion/complete` -32601, whatever the token).
        Operation::PromptCompletion(name) => {
            let catalog = server.catalog();
            if !catalog.completes() {
                return None;
            }
            catalog.prompt(name).and_then(|p| each(name, &p.callable))
        }
        Operation::TemplateCompletion(uri) => {
            let catalog = server.catalog();
            if !catalog.completes() {
                return None;
            }
            let template = catalog
                .template(uri)
                .or_else(|| catalog.template_matching(uri))?;
            each(&template.template.uri_template, &template.callable)
        }
        Operation::Resource(uri) => match server.catalog().resolve(uri) {
            Some(Ok(resolved)) => each(uri, resolved.callable()),
            _ => None,
        },
    }
}

/// The scopes the server's read-only capabilities need, sorted, without
/// `offline_access`: the actions marked read-only (MCP `readOnlyHint`),
/// every prompt, resource, resource template and the skills (which only
/// read).
pub(crate) fn read_only_scopes(server: &FusionServer) -> Vec<String> {
    let mut scopes = BTreeSet::new();
    for tool in server.registry().tools() {
        for (action, listing) in tool.actions.iter().zip(&tool.listing.actions) {
            if listing.annotations.read_only {
                scopes.extend(action.callable.visibility.auth.scopes.iter().cloned());
            }
        }
    }
    let catalog = server.catalog();
    let callables = catalog
        .prompts
        .iter()
        .map(|p| &p.callable)
        .chain(catalog.resources.iter().map(|r| &r.callable))
        .chain(catalog.templates.iter().map(|t| &t.callable))
        .chain(catalog.skills.iter().map(|s| &s.callable));
    for callable in callables {
        scopes.extend(callable.visibility.auth.scopes.iter().cloned());
    }
    scopes.remove(OFFLINE_ACCESS);
    scopes.into_iter().collect()
}

/// What `operation`'s capability needs (the 401 challenge of a caller
/// without credentials names its scopes); `None` when the request names
/// nothing the server has.
pub(crate) fn operation_needs(server: &FusionServer, operation: &Operation<'_>) -> Option<Needs> {
    with_callable(server, operation, |name, callable| {
        let auth = &callable.visibility.auth;
        Some(Needs {
            name: name.to_owned(),
            scopes: auth
                .scopes
                .iter()
                .filter(|s| s.as_str() != OFFLINE_ACCESS)
                .cloned()
                .collect(),
            credentials: auth.needs_credentials(),
        })
    })
}

/// The name of what `operation` calls (`billing.void_invoice`, a
/// prompt's name, a URI) and the scopes it needs that `principal` lacks
/// (a broader granted scope covers a narrower one, see the guard's
/// rule), in the capability's order; `None` when it needs none more, or
/// when the request names nothing the server has (its own answer then
/// says so).
pub(crate) fn missing_scopes(
    server: &FusionServer,
    operation: &Operation<'_>,
    principal: &Principal,
) -> Option<(String, Vec<String>)> {
    with_callable(server, operation, |name, callable| {
        let scopes: Vec<String> = callable
            .visibility
            .auth
            .missing_scopes(principal)
            .into_iter()
            .filter(|s| s.as_str() != OFFLINE_ACCESS)
            .cloned()
            .collect();
        (!scopes.is_empty()).then(|| (name.to_owned(), scopes))
    })
}
