//! The search meta-tool of a server with tool search on
//! ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search)):
//! [`search_action`] is the `search_tools` action, built and called like
//! every action (guards, validation of its arguments, middleware, metrics);
//! its handler searches the tools as they are now ([`search`]) with the
//! filter `tools/list` uses.

use std::sync::{Arc, OnceLock};

use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;

use super::fusion_server::{FusionServer, WeakFusionServer};
use crate::capability::tool_search::{MAX_SEARCH_LIMIT, SEARCH_TOOL};
use crate::capability::{Action, RegisteredAction, Shown, ToolSearch};
use crate::error::ToolError;
use crate::handler::{CallContext, ToolOutput};
use crate::present::{SearchAnswer, search_result};

/// What the model reads of `search_tools` (`docs/wire-contract.md` §11).
pub(crate) const SEARCH_DESCRIPTION: &str = "Finds this server's tools by what they do: tools/list shows only a few of them. Give a few words of the task (what it acts on and what it does: \"refund invoice\", \"send email\") or a tool or parameter name; the answer lists the best matching tools, best first, each with its name, description and inputSchema. Call a tool it finds directly by its name: it is callable though tools/list does not show it.";

// The arguments of the search tool. Their doc comments are the schema's
// descriptions, which the model reads: one line each, no markup.
/// What to search for, and how many tools to answer.
#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// A few words of the task (what it acts on, what it does), or a tool or parameter name.
    #[schemars(length(min = 1, max = 500))]
    query: String,
    /// How many tools to answer, best first, 1 to 20 (without it: the server's default).
    #[schemars(range(min = 1, max = 20))]
    limit: Option<usize>,
}

/// The `search_tools` action of a server with `settings`, whose handler
/// searches the server `slot` holds once it is built (a weak handle: the
/// server holds the action).
pub(crate) fn search_action(
    settings: &ToolSearch,
    slot: Arc<OnceLock<WeakFusionServer>>,
) -> Action {
    let default_limit = settings.limit();
    Action::new(SEARCH_TOOL, move |ctx: CallContext, args: SearchArgs| {
        let server = slot.get().and_then(WeakFusionServer::upgrade);
        async move {
            let Some(server) = server else {
                return Err(ToolError::server_busy(
                    "The server is shutting down and searches no more tools.",
                )
                .retry_after(5));
            };
            let limit = args
                .limit
                .unwrap_or(default_limit)
                .clamp(1, MAX_SEARCH_LIMIT);
            Ok::<_, ToolError>(search(&server, &ctx, &args.query, limit).await)
        }
    })
    .description(SEARCH_DESCRIPTION)
    .read_only()
    .idempotent()
}

/// The answer to a search of `query` by the caller of `ctx`, at most
/// `limit` tools: the tools as they are now, after the hooks `tools/list`
/// awaits (a gateway's first connections, the states other replicas
/// moved), each action filtered as `tools/list` filters it and by whether
/// the caller may use it (`Visibility::found_by`), a group shown with the
/// actions the caller finds.
pub(crate) async fn search(
    server: &FusionServer,
    ctx: &CallContext,
    query: &str,
    limit: usize,
) -> ToolOutput {
    for hook in &server.inner.before_tools_list {
        hook(ctx.clone()).await;
    }
    let registry = server.registry();
    let Some(search) = &server.inner.tool_search else {
        return ToolOutput::text(
            "Tool search is off on this server: list the tools with tools/list.",
        );
    };
    let index = search.index.index_of(&registry);
    let shows = |action: &RegisteredAction| action.callable.visibility.found_by(ctx);
    let found = index.find(&registry, query, &shows);
    let tools: Vec<Tool> = found
        .iter()
        .take(limit)
        .filter_map(|&t| {
            let tool = &registry.tools()[t];
            match tool.listing_for(shows)? {
                Shown::Whole => Some(tool.listed.clone()),
                Shown::Part(listing) => Some(listing.to_tool()),
            }
        })
        .collect();
    let searchable = match found.is_empty() {
        true => registry
            .tools()
            .iter()
            .filter(|tool| tool.name != SEARCH_TOOL && tool.actions.iter().any(shows))
            .count(),
        false => 0,
    };
    ToolOutput::result(search_result(&SearchAnswer {
        query,
        tools,
        total: found.len(),
        max_limit: MAX_SEARCH_LIMIT,
        limit,
        searchable,
    }))
}
