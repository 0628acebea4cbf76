//! The SEP-2549 caching hints a connection puts on its cacheable results
//! (MCP 2026-07-28 server/utilities/caching): the hint declared for the
//! method ([`ServerBuilder::cache_hint`](crate::ServerBuilder::cache_hint))
//! or the resource ([`Resource::cache_hint`](crate::Resource::cache_hint)),
//! `"private"` whenever the result depends on the caller, and only on a
//! 2026-07-28 request's complete result.
//!
//! How "depends on the caller" is decided: a list does when any item of
//! its kind (any action of any tool, for `tools/list`) is shown to some
//! callers only (`Visibility::is_for_everyone`: it needs credentials,
//! has a `visible_when` predicate or a state gate), whether or not this
//! caller sees it, since another caller's list differs; a read does when
//! its resource or template is. Such a result is sent `"private"` even
//! when `"public"` was declared.

use rmcp::model::{
    DiscoverResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, ProtocolVersion, ReadResourceResult,
};
use rmcp::service::{RequestContext, RoleServer};

use super::connection::Connection;
use crate::capability::{CacheHint, CacheableMethod, Resolved};

/// Whether the request speaks 2026-07-28 or later, whose cacheable results
/// carry hints (the same test rmcp makes before filling in its defaults).
pub(crate) fn carries_hints(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// A cacheable result's `ttlMs` and `cacheScope`.
pub(crate) trait Hinted {
    /// Sets `ttlMs` and `cacheScope` from `hint`.
    fn hint(&mut self, hint: CacheHint);
}

macro_rules! hinted {
    ($($result:ty),*) => {$(
        impl Hinted for $result {
            fn hint(&mut self, hint: CacheHint) {
                self.ttl_ms = Some(hint.ttl_ms());
                self.cache_scope = Some(hint.scope);
            }
        }
    )*};
}

hinted!(
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult
);

impl Hinted for DiscoverResult {
    fn hint(&mut self, hint: CacheHint) {
        self.ttl_ms = hint.ttl_ms();
        self.cache_scope = hint.scope;
    }
}

impl Connection {
    /// The hint of `method`'s list (or of `server/discover`), `"private"`
    /// when the list depends on the caller (see the module's doc).
    pub(crate) fn list_hint(&self, method: CacheableMethod) -> CacheHint {
        let declared = self.server.inner.cache_hints.of(method);
        if declared == CacheHint::NONE {
            return declared;
        }
        let catalog = self.server.catalog();
        let per_caller = match method {
            CacheableMethod::ToolsList => self.server.registry().placed().any(|(_, tool)| {
                tool.actions
                    .iter()
                    .any(|a| !a.callable.visibility.is_for_everyone())
            }),
            CacheableMethod::PromptsList => catalog
                .prompts
                .iter()
                .any(|p| !p.callable.visibility.is_for_everyone()),
            CacheableMethod::ResourcesList => {
                catalog
                    .resources
                    .iter()
                    .any(|r| !r.callable.visibility.is_for_everyone())
                    || catalog
                        .skills
                        .as_ref()
                        .is_some_and(|s| !s.callable.visibility.is_for_everyone())
            }
            CacheableMethod::ResourceTemplatesList => catalog
                .templates
                .iter()
                .any(|t| !t.callable.visibility.is_for_everyone()),
            _ => false,
        };
        declared.for_result(per_caller)
    }

    /// The hint of a read of `resolved`: its own, else the server's for
    /// `resources/read`; `"private"` when the resource depends on the
    /// caller.
    pub(crate) fn read_hint(&self, resolved: &Resolved) -> CacheHint {
        let declared = resolved.cache_hint().unwrap_or_else(|| {
            self.server
                .inner
                .cache_hints
                .of(CacheableMethod::ResourcesRead)
        });
        declared.for_result(!resolved.callable().visibility.is_for_everyone())
    }
}

/// `result` with `hint` when the request carries hints (2026-07-28); as it
/// is otherwise (rmcp then fills in `ttlMs: 0`, `"private"` on 2026-07-28
/// and sends nothing on 2025-11-25).
pub(crate) fn hinted<R: Hinted>(
    mut result: R,
    hint: CacheHint,
    context: &RequestContext<RoleServer>,
) -> R {
    if carries_hints(context) {
        result.hint(hint);
    }
    result
}
