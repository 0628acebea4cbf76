//! [`ToolSearch`]: whether and how a server lists its tools through a
//! search meta-tool.

use serde::Deserialize;

/// The name of the search meta-tool `tools/list` shows when tool search is
/// on (the 2026-07-28 client guide's advice for large catalogs: one tool
/// that finds the others).
pub const SEARCH_TOOL: &str = "search_tools";

/// How many tools one search answers when the call gives no `limit`,
/// unless [`ToolSearch::default_limit`] says otherwise: 5.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most tools one search may answer (the `maximum` of its `limit`
/// argument): 20.
pub const MAX_SEARCH_LIMIT: usize = 20;

/// Tool search for a server with many tools
/// ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search);
/// a gateway's `[search]` table). With it on:
///
/// - `tools/list` shows the [`SEARCH_TOOL`] meta-tool first, then the tools
///   named in [`always_visible`](Self::always_visible) (those the caller
///   may see), and no other;
/// - `search_tools` takes `{"query": string, "limit"?: 1..=20}` and answers
///   the best matching tools (BM25 over names, descriptions and parameter
///   names), each as `{"name", "description", "inputSchema"}`, best first
///   (`docs/wire-contract.md` §11);
/// - every tool stays callable by its name, listed or not;
/// - a tool the caller may not see in `tools/list` without search (auth,
///   scopes, `visible_when`, hidden by its session's state) is never found.
///
/// ```
/// use mcp_fusion::capability::ToolSearch;
///
/// let search = ToolSearch::new()
///     .always_visible(["billing_health"])
///     .default_limit(3);
/// assert!(search.lists("search_tools"));
/// assert!(search.lists("billing_health"));
/// assert!(!search.lists("billing_refund"));
/// assert_eq!(search.limit(), 3);
/// ```
///
/// In a gateway's TOML file:
///
/// ```toml
/// [search]
/// always_visible = ["handoff"]
/// default_limit = 5
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolSearch {
    /// The tools (plain tools' or groups' names; a gateway's
    /// `namespace.tool`) listed beside the search tool. Default none.
    always_visible: Vec<String>,
    /// How many tools a search without `limit` answers, 1 to
    /// [`MAX_SEARCH_LIMIT`]. Default [`DEFAULT_SEARCH_LIMIT`].
    default_limit: usize,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch {
            always_visible: Vec::new(),
            default_limit: DEFAULT_SEARCH_LIMIT,
        }
    }
}

impl ToolSearch {
    /// Tool search with the defaults: only the search tool listed, 5 tools
    /// an answer.
    pub fn new() -> Self {
        ToolSearch::default()
    }

    /// Lists the tools named in `names` (plain tools or groups) beside the
    /// search tool, to the callers who may see them; adds to those given
    /// before. A name the server has no tool of lists nothing.
    pub fn always_visible<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.always_visible
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// How many tools a search without `limit` answers: `limit` taken into
    /// 1 ..= [`MAX_SEARCH_LIMIT`].
    pub fn default_limit(mut self, limit: usize) -> Self {
        self.default_limit = limit.clamp(1, MAX_SEARCH_LIMIT);
        self
    }

    /// How many tools a search without `limit` answers.
    pub fn limit(&self) -> usize {
        self.default_limit
    }

    /// The tools listed beside the search tool.
    pub fn always_visible_names(&self) -> &[String] {
        &self.always_visible
    }

    /// Whether `tools/list` shows the tool named `name`: the search tool,
    /// or one named in [`always_visible`](Self::always_visible).
    pub fn lists(&self, name: &str) -> bool {
        name == SEARCH_TOOL || self.always_visible.iter().any(|n| n == name)
    }

    /// Why the settings cannot work (a `default_limit` out of 1 ..=
    /// [`MAX_SEARCH_LIMIT`], as a configuration file may give), or `None`.
    pub fn problem(&self) -> Option<String> {
        (!(1..=MAX_SEARCH_LIMIT).contains(&self.default_limit)).then(|| {
            format!(
                "default_limit must be 1 to {MAX_SEARCH_LIMIT}, not {}",
                self.default_limit
            )
        })
    }
}
