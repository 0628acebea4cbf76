//! [`CacheHint`]: the SEP-2549 caching hints (`ttlMs`, `cacheScope`) a
//! 2026-07-28 server sends on its cacheable results (MCP 2026-07-28
//! server/utilities/caching), and [`CacheableMethod`], the methods whose
//! results carry them.

use std::time::Duration;

use rmcp::model::CacheScope;

/// How long a cacheable result may be considered fresh, and who may cache it
/// (SEP-2549; MCP 2026-07-28 server/utilities/caching, "Cacheable Model").
///
/// On the wire: `ttlMs`, [`fresh_for`](Self::fresh_for) in milliseconds
/// (whole milliseconds, rounded down), and `cacheScope`, `"public"` (the
/// result holds no user-specific data: any client, gateway or proxy may
/// serve it to any user) or `"private"` (only within the authorization
/// context that received it). [`CacheHint::NONE`] (`ttlMs: 0`,
/// `"private"`: immediately stale) is what every cacheable result carries
/// unless a hint is declared.
///
/// Hints are sent only to 2026-07-28 requests (2025-11-25 has no caching
/// hints), only on complete results (never on an input-required one, nor
/// on an error). A `"public"` hint is sent as `"private"` where the result
/// depends on the caller: a list of which some item is shown to some
/// callers only (it needs credentials, has a `visible_when` predicate or a
/// state gate), or a read of a resource that does.
///
/// ```
/// use std::time::Duration;
/// use mcp_fusion::capability::{CacheHint, CacheableMethod};
/// use mcp_fusion::{FusionServer, Resource};
///
/// let server = FusionServer::builder("docs", "1.0.0")
///     // tools/list: the same for everyone, fresh for 5 minutes.
///     .cache_hint(CacheableMethod::ToolsList, CacheHint::public(Duration::from_secs(300)))
///     // This resource's reads: `ttlMs: 60000`, `cacheScope: "public"`.
///     .resource(
///         Resource::text("docs://readme", "readme", "Read me first.")
///             .cache_hint(CacheHint::public(Duration::from_secs(60))),
///     )
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result may be considered fresh after it is received
    /// (`ttlMs`, sent in whole milliseconds). [`Duration::ZERO`]: stale at once.
    pub fresh_for: Duration,
    /// Who may cache it (`cacheScope`).
    pub scope: CacheScope,
}

impl CacheHint {
    /// `ttlMs: 0`, `cacheScope: "private"`: immediately stale, the default
    /// of every cacheable result (what rmcp fills in).
    pub const NONE: CacheHint = CacheHint {
        fresh_for: Duration::ZERO,
        scope: CacheScope::Private,
    };

    /// Fresh for `fresh_for`, cacheable by anyone (`cacheScope: "public"`):
    /// for a result that is the same for every caller.
    pub fn public(fresh_for: Duration) -> CacheHint {
        CacheHint {
            fresh_for,
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `fresh_for`, cacheable only within the authorization
    /// context that received it (`cacheScope: "private"`).
    pub fn private(fresh_for: Duration) -> CacheHint {
        CacheHint {
            fresh_for,
            scope: CacheScope::Private,
        }
    }

    /// `ttlMs`: [`fresh_for`](Self::fresh_for) in whole milliseconds
    /// (saturating at `u64::MAX`).
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.fresh_for.as_millis()).unwrap_or(u64::MAX)
    }

    /// This hint for a result that depends on the caller when
    /// `per_caller`: its scope `"private"` then, whatever was declared.
    pub(crate) fn for_result(self, per_caller: bool) -> CacheHint {
        if per_caller {
            CacheHint {
                scope: CacheScope::Private,
                ..self
            }
        } else {
            self
        }
    }
}

impl Default for CacheHint {
    /// [`CacheHint::NONE`].
    fn default() -> Self {
        CacheHint::NONE
    }
}

/// A method whose complete results carry caching hints (MCP 2026-07-28
/// server/utilities/caching, "Cacheable Results"). `tools/call`,
/// `prompts/get` and `completion/complete` results are not cacheable, so
/// no hint is declared for them (or for a tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheableMethod {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourceTemplatesList,
    /// `resources/read`, for the resources and templates that declare no
    /// hint of their own (`Resource::cache_hint`).
    ResourcesRead,
}

impl CacheableMethod {
    /// The method's name on the wire, e.g. `tools/list`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CacheableMethod::Discover => "server/discover",
            CacheableMethod::ToolsList => "tools/list",
            CacheableMethod::PromptsList => "prompts/list",
            CacheableMethod::ResourcesList => "resources/list",
            CacheableMethod::ResourceTemplatesList => "resources/templates/list",
            CacheableMethod::ResourcesRead => "resources/read",
        }
    }
}

/// The hint declared for each cacheable method
/// (`ServerBuilder::cache_hint`); [`CacheHint::NONE`] for the others.
#[derive(Debug, Clone, Default)]
pub(crate) struct CacheHints {
    declared: Vec<(CacheableMethod, CacheHint)>,
}

impl CacheHints {
    /// Declares `hint` for `method`, replacing an earlier one.
    pub(crate) fn set(&mut self, method: CacheableMethod, hint: CacheHint) {
        self.declared.retain(|(m, _)| *m != method);
        self.declared.push((method, hint));
    }

    /// The hint declared for `method`, else [`CacheHint::NONE`].
    pub(crate) fn of(&self, method: CacheableMethod) -> CacheHint {
        self.declared
            .iter()
            .find(|(m, _)| *m == method)
            .map_or(CacheHint::NONE, |(_, hint)| *hint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_is_sent_in_whole_milliseconds() {
        assert_eq!(CacheHint::public(Duration::from_secs(90)).ttl_ms(), 90_000);
        assert_eq!(CacheHint::private(Duration::from_micros(1_999)).ttl_ms(), 1);
        assert_eq!(CacheHint::public(Duration::MAX).ttl_ms(), u64::MAX);
    }

    #[test]
    fn a_result_per_caller_is_never_public() {
        let public = CacheHint::public(Duration::from_secs(5));
        assert_eq!(
            public.for_result(true),
            CacheHint::private(Duration::from_secs(5))
        );
        assert_eq!(public.for_result(false), public);
    }

    #[test]
    fn an_undeclared_method_has_no_hint_and_a_later_declaration_wins() {
        let mut hints = CacheHints::default();
        assert_eq!(hints.of(CacheableMethod::ToolsList), CacheHint::NONE);
        hints.set(
            CacheableMethod::ToolsList,
            CacheHint::public(Duration::from_secs(1)),
        );
        hints.set(
            CacheableMethod::ToolsList,
            CacheHint::private(Duration::from_secs(2)),
        );
        assert_eq!(
            hints.of(CacheableMethod::ToolsList),
            CacheHint::private(Duration::from_secs(2))
        );
        assert_eq!(hints.of(CacheableMethod::PromptsList), CacheHint::NONE);
    }
}
