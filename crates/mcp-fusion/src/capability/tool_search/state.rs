//! [`ToolSearchState`]: tool search on a built server.

use super::cache::IndexCache;
use super::settings::ToolSearch;

/// Tool search on a built server: its settings and the index of its tools.
pub(crate) struct ToolSearchState {
    /// What `tools/list` shows, and the default limit.
    pub settings: ToolSearch,
    /// The index of the tools as they are now.
    pub index: IndexCache,
}

impl ToolSearchState {
    /// Tool search with `settings`, no index built yet.
    pub(crate) fn new(settings: ToolSearch) -> Self {
        ToolSearchState {
            settings,
            index: IndexCache::default(),
        }
    }
}
