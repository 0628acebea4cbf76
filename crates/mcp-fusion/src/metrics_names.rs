//! The names of the metrics the crate records (through the `metrics` facade),
//! their label keys and descriptions: one place per string. Every recording
//! site imports its name from here.
//!
//! Recording is cheap without a recorder (the facade's no-op) and allocates
//! no label text per call: tool and action names are shared strings built
//! once per action ([`ActionLabels`]), outcomes and the codes that are
//! [`ErrorCode`](crate::ErrorCode) variants are `&'static str`.

use std::sync::Arc;

use metrics::SharedString;

/// Counter: finished `tools/call`s, by `tool`, `action`, `outcome`, `code`.
pub(crate) const TOOL_CALLS_TOTAL: &str = "mcp_fusion_tool_calls_total";
/// Histogram: how long a `tools/call` took once routed (guards, validation,
/// middleware, handler), in seconds, by `tool`, `action`.
pub(crate) const TOOL_CALL_DURATION_SECONDS: &str = "mcp_fusion_tool_call_duration_seconds";
/// Gauge: calls running inside a concurrency guard, by `tool`, `action`.
pub(crate) const GUARD_ACTIVE: &str = "mcp_fusion_guard_active";
/// Gauge: calls waiting for a concurrency guard's slot, by `tool`, `action`.
pub(crate) const GUARD_QUEUED: &str = "mcp_fusion_guard_queued";
/// Counter: calls shed with `SERVER_BUSY` by a concurrency guard.
pub(crate) const SHEDS_TOTAL: &str = "mcp_fusion_sheds_total";
/// Counter: calls refused with `RATE_LIMITED`.
pub(crate) const RATE_LIMITED_TOTAL: &str = "mcp_fusion_rate_limited_total";
/// Counter: calls stopped with `TIMEOUT` by their time limit.
pub(crate) const TIMEOUTS_TOTAL: &str = "mcp_fusion_timeouts_total";
#[cfg(feature = "http")]
/// Gauge: MCP sessions held by the Streamable HTTP transport (live and parked).
pub(crate) const SESSIONS_OPEN: &str = "mcp_fusion_sessions_open";
#[cfg(feature = "http")]
/// Gauge: sessions with a running session worker.
pub(crate) const SESSIONS_LIVE: &str = "mcp_fusion_sessions_live";
#[cfg(feature = "http")]
/// Gauge: sessions kept as their handshake only (worker stopped).
pub(crate) const SESSIONS_PARKED: &str = "mcp_fusion_sessions_parked";

/// Label key: the tool's name.
pub(crate) const TOOL: &str = "tool";
/// Label key: the action key inside a group, `""` for a plain tool.
pub(crate) const ACTION: &str = "action";
/// Label key: [`OK`], [`ERROR`] or [`WARNING`].
pub(crate) const OUTCOME: &str = "outcome";
/// Label key: the error code (`NOT_FOUND`), the first warning's code, or `""`.
pub(crate) const CODE: &str = "code";

/// Outcome: a success without warnings.
pub(crate) const OK: &str = "ok";
/// Outcome: a failure (`isError: true`), validation failures included.
pub(crate) const ERROR: &str = "error";
/// Outcome: a success carrying warnings (`DEPRECATED`, …).
pub(crate) const WARNING: &str = "warning";

#[cfg(feature = "metrics")]
/// The bucket bounds of [`TOOL_CALL_DURATION_SECONDS`], in seconds: 1 ms to
/// 60 s.
pub(crate) const DURATION_BUCKETS_SECONDS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

/// The `tool` and `action` labels of one action, built once when the server
/// is built and cloned (a reference count) into every recording.
#[derive(Debug, Clone)]
pub(crate) struct ActionLabels {
    /// The tool's name.
    pub tool: SharedString,
    /// The action key, `""` for a plain tool.
    pub action: SharedString,
}

impl ActionLabels {
    /// The labels of action `action` (`None`: a plain tool) of tool `tool`.
    pub fn new(tool: &str, action: Option<&str>) -> Self {
        ActionLabels {
            tool: SharedString::from_shared(Arc::<str>::from(tool)),
            action: match action {
                Some(action) => SharedString::from_shared(Arc::<str>::from(action)),
                None => SharedString::const_str(""),
            },
        }
    }

    /// The same tool with no action: a call that named no action of it.
    pub fn tool_only(&self) -> Self {
        ActionLabels {
            tool: self.tool.clone(),
            action: SharedString::const_str(""),
        }
    }
}

#[cfg(feature = "metrics")]
/// Gives every metric its description and unit, for recorders that show
/// them (Prometheus' `# HELP`). Called once, when an exporter is installed.
pub(crate) fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        TOOL_CALLS_TOTAL,
        Unit::Count,
        "Finished tools/call requests, by tool, action, outcome (ok, error, warning) and error code."
    );
    describe_histogram!(
        TOOL_CALL_DURATION_SECONDS,
        Unit::Seconds,
        "How long a routed tools/call took (guards, validation, middleware, handler), in seconds."
    );
    describe_gauge!(
        GUARD_ACTIVE,
        Unit::Count,
        "Calls running inside a concurrency guard."
    );
    describe_gauge!(
        GUARD_QUEUED,
        Unit::Count,
        "Calls waiting for a slot of a concurrency guard."
    );
    describe_counter!(
        SHEDS_TOTAL,
        Unit::Count,
        "Calls shed with SERVER_BUSY by a concurrency guard."
    );
    describe_counter!(
        RATE_LIMITED_TOTAL,
        Unit::Count,
        "Calls refused with RATE_LIMITED."
    );
    describe_counter!(
        TIMEOUTS_TOTAL,
        Unit::Count,
        "Calls stopped with TIMEOUT by their time limit."
    );
    describe_gauge!(
        SESSIONS_OPEN,
        Unit::Count,
        "MCP sessions held by the Streamable HTTP transport, live and parked."
    );
    describe_gauge!(
        SESSIONS_LIVE,
        Unit::Count,
        "MCP sessions with a running session worker."
    );
    describe_gauge!(
        SESSIONS_PARKED,
        Unit::Count,
        "MCP sessions kept as their handshake only, their worker stopped."
    );
}
