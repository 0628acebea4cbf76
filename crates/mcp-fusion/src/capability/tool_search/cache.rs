//! [`IndexCache`]: the search index of the tools as they are now, made
//! again when they change.

use std::sync::{Arc, Mutex, PoisonError};

use super::index::SearchIndex;
use super::settings::SEARCH_TOOL;
use crate::capability::Registry;

/// The index of the last table of tools searched. A change of the tools
/// puts a new table in place (`FusionServer::update_tools`); the first
/// search that reads it builds its index (once: searches wait for it), so
/// that a gateway adding 2 000 tools one upstream at a time builds no index
/// in between. Holds that table until the next change is searched.
#[derive(Default)]
pub(crate) struct IndexCache {
    last: Mutex<Option<(Arc<Registry>, Arc<SearchIndex>)>>,
}

impl IndexCache {
    /// The index of `registry`, built now unless it is the last one's.
    pub(crate) fn index_of(&self, registry: &Arc<Registry>) -> Arc<SearchIndex> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((table, index)) = &*last
            && Arc::ptr_eq(table, registry)
        {
            return Arc::clone(index);
        }
        let index = Arc::new(SearchIndex::of(registry, SEARCH_TOOL));
        *last = Some((Arc::clone(registry), Arc::clone(&index)));
        index
    }
}
