//! What one run measured, and the server's memory.

use serde::Serialize;

use crate::calls::CallPath;
use crate::check::Tally;

/// The result of one run: one JSON object with `--json`, else one line.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The server's name given with `--label` (empty when none).
    pub label: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// The call repeated: `fail` or `ok`.
    pub path: CallPath,
    /// Calls kept in flight: in all over stdio, per connection over HTTP.
    pub workers: u32,
    /// HTTP connections (MCP sessions); 1 over stdio.
    pub connections: u32,
    /// The length of the measured part, in seconds.
    pub seconds: f64,
    /// Calls answered during the measured part.
    pub calls: u64,
    /// `calls / seconds`.
    pub calls_per_s: f64,
    /// Median latency of the calls sent and answered during the measured
    /// part, in microseconds (`null` when none).
    pub p50_us: Option<f64>,
    /// 99th percentile latency (nearest rank) of the same calls, in
    /// microseconds.
    pub p99_us: Option<f64>,
    /// Every answer of the run, warm-up included, by kind.
    pub outcomes: Tally,
    /// The server's resident memory (VmRSS) once the handshake is done and
    /// before the first call, in MiB (`null` when it cannot be read: no
    /// `--pid` over HTTP, not Linux).
    pub rss_idle_mib: Option<f64>,
    /// The server's resident memory after the last answer, in MiB.
    pub rss_after_mib: Option<f64>,
}

impl Report {
    /// One readable line, e.g. `fusion stdio fail w=32: 45012 calls/s,
    /// p50 640.1 µs, p99 1210.4 µs; ok 0, tool errors 90312, …`.
    pub fn line(&self) -> String {
        let us = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1} µs"));
        let mib = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1} MiB"));
        let label = if self.label.is_empty() {
            String::new()
        } else {
            format!("{} ", self.label)
        };
        let shape = if self.transport == "http" {
            format!("k={} w={}", self.connections, self.workers)
        } else {
            format!("w={}", self.workers)
        };
        let o = &self.outcomes;
        format!(
            "{label}{} {} {shape}: {:.0} calls/s ({} calls in {:.2} s), p50 {}, p99 {}; answers with warm-up and drain: ok {}, tool errors {}, JSON-RPC errors {}, unexpected {}, missing {}; RSS idle {}, after {}",
            self.transport,
            self.path.name(),
            self.calls_per_s,
            self.calls,
            self.seconds,
            us(self.p50_us),
            us(self.p99_us),
            o.ok,
            o.tool_error,
            o.rpc_error,
            o.unexpected,
            o.missing,
            mib(self.rss_idle_mib),
            mib(self.rss_after_mib),
        )
    }
}

/// Calls per second: `calls` over `seconds`, 0 for an empty interval.
pub fn rate(calls: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        calls as f64 / seconds
    } else {
        0.0
    }
}

/// The resident memory (VmRSS) of process `pid`, in MiB, read from
/// `/proc/<pid>/status`; `None` when it cannot be read.
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    vm_rss_kib(&status).map(|kib| kib as f64 / 1024.0)
}

/// The `VmRSS:` value of a `/proc/<pid>/status` text, in KiB.
pub fn vm_rss_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let value = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::vm_rss_kib;

    #[test]
    fn reads_vm_rss() {
        let status = "Name:\tfusion\nVmHWM:\t   12000 kB\nVmRSS:\t    5120 kB\nThreads:\t3\n";
        assert_eq!(vm_rss_kib(status), Some(5120));
        assert_eq!(vm_rss_kib("Name:\tkthreadd\n"), None);
    }
}
