//! Tool search for large catalogs: with [`ToolSearch`] on
//! ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search)),
//! `tools/list` shows the [`SEARCH_TOOL`] meta-tool (and the tools marked
//! always visible) instead of every tool, and the model finds the others by
//! what they do. The ranking is BM25 (the `bm25` crate, its English
//! tokenizer: stop words, Snowball stemming) over each action's names,
//! descriptions and parameter names, identifiers split into words
//! (`words.rs`); the index is built from one table of tools and made again
//! when the tools change (`cache.rs`).
//!
//! What a caller may find is what `tools/list` would show it without
//! search: the same visibility decision (auth, scopes, `visible_when`, the
//! session's state), action by action.

mod cache;
mod index;
mod settings;
mod state;
mod words;

pub use settings::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TOOL, ToolSearch};
pub(crate) use state::ToolSearchState;
