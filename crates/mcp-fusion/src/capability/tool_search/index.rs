//! [`SearchIndex`]: BM25 over the actions of one table of tools.

use bm25::{Document, SearchEngine, SearchEngineBuilder};

use super::words::Words;
use crate::capability::{RegisteredAction, RegisteredTool, Registry};

/// The BM25 index of the actions of one [`Registry`] (the one it was built
/// from: its tool and action indexes are that table's). One document per
/// action: its tool's name, its key (a group's action), the group's own
/// description, its description and its top-level parameter names. A
/// group's actions are apart so that a hidden action's words never bring
/// its group up.
pub(crate) struct SearchIndex {
    engine: SearchEngine<u32, u32, Words>,
    /// `(tool, action)` of each document id.
    keys: Vec<(usize, usize)>,
}

/// The indexed text of `action` of `tool`.
fn document(tool: &RegisteredTool, action: &RegisteredAction) -> String {
    let mut text = tool.name.clone();
    for part in [action.key.as_deref(), tool.description.as_deref()]
        .into_iter()
        .flatten()
        .chain([action.description.as_str()])
        .chain(action.fields.iter().map(String::as_str))
    {
        text.push(' ');
        text.push_str(part);
    }
    text
}

impl SearchIndex {
    /// The index of every action of `registry` but those of the tool named
    /// `skip` (the search tool itself).
    pub(crate) fn of(registry: &Registry, skip: &str) -> Self {
        let mut keys = Vec::new();
        let mut documents = Vec::new();
        for (t, tool) in registry.tools().iter().enumerate() {
            if tool.name == skip {
                continue;
            }
            for (a, action) in tool.actions.iter().enumerate() {
                let id = u32::try_from(keys.len()).unwrap_or(u32::MAX);
                documents.push(Document::new(id, document(tool, action)));
                keys.push((t, a));
            }
        }
        let engine = SearchEngineBuilder::<u32, u32, Words>::with_tokenizer_and_documents(
            Words::new(),
            documents,
        )
        .build();
        SearchIndex { engine, keys }
    }

    /// The tools (indexes in `registry`, the table it was built from) with
    /// an action that matches `query` and that `shows` lets the caller see,
    /// best first: a tool ranks by its best such action; equal scores keep
    /// the list's order.
    pub(crate) fn find(
        &self,
        registry: &Registry,
        query: &str,
        shows: &dyn Fn(&RegisteredAction) -> bool,
    ) -> Vec<usize> {
        let mut hits = self.engine.search(query, None);
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.document.id.cmp(&b.document.id))
        });
        let tools = registry.tools();
        let mut found: Vec<usize> = Vec::new();
        for hit in hits.iter().filter(|hit| hit.score > 0.0) {
            let Some(&(t, a)) = self.keys.get(hit.document.id as usize) else {
                continue;
            };
            if !found.contains(&t) && tools.get(t).is_some_and(|tool| shows(&tool.actions[a])) {
                found.push(t);
            }
        }
        found
    }
}
