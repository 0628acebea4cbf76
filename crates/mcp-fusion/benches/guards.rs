//! Guard speed: how fast the concurrency guard sheds under a storm, and what
//! the guards cost a call that passes them.
//!
//! Run: `cargo bench -p mcp-fusion --bench guards`. Prints the shed latency
//! p50/p99 (microseconds) of a 1 000-call storm against `max_active` 5 and
//! `max_queue` 20 (handlers held, so 975 calls are shed), and the mean time of
//! a call with no guard and with every guard (auth excluded), over 20 000
//! in-process calls each.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_fusion::guard::RateLimit;
use mcp_fusion::{Action, CallContext, FusionServer, NoArgs, ToolError};
use serde_json::json;
use tokio::sync::Semaphore;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

async fn storm() {
    let gate = Arc::new(Semaphore::new(0));
    let held = Arc::clone(&gate);
    let hold = move |_ctx: CallContext, _args: NoArgs| {
        let gate = Arc::clone(&held);
        async move {
            let _permit = gate.acquire().await.map_err(ToolError::internal)?;
            Ok::<_, ToolError>("done")
        }
    };
    let server = FusionServer::builder("bench", "1")
        .tool(Action::new("hold", hold).concurrency(5, 20))
        .build()
        .expect("valid server");
    let tasks: Vec<_> = (0..1_000)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let result = server.call("hold", json!({})).await.expect("known tool");
                (started.elapsed(), result.is_error == Some(true))
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    gate.add_permits(1_000);
    let mut shed = Vec::new();
    for task in tasks {
        let (took, is_error) = task.await.expect("task");
        if is_error {
            shed.push(took);
        }
    }
    shed.sort();
    println!(
        "shed latency under a 1000-call storm (max_active 5, max_queue 20): {} calls shed, p50 {} µs, p99 {} µs",
        shed.len(),
        percentile(&shed, 50.0).as_micros(),
        percentile(&shed, 99.0).as_micros()
    );
}

async fn mean_call(server: &FusionServer, calls: u32) -> Duration {
    for _ in 0..1_000 {
        server.call("ping", json!({})).await.expect("known tool");
    }
    let started = Instant::now();
    for _ in 0..calls {
        let result = server.call("ping", json!({})).await.expect("known tool");
        assert_eq!(result.is_error, Some(false));
    }
    started.elapsed() / calls
}

async fn overhead() {
    async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("pong")
    }
    let bare = FusionServer::builder("bench", "1")
        .tool(Action::new("ping", ping))
        .build()
        .expect("valid server");
    let guarded = FusionServer::builder("bench", "1")
        .tool(
            Action::new("ping", ping)
                .concurrency(64, 64)
                .rate_limit(RateLimit::per_second(1_000_000_000))
                .timeout(Duration::from_secs(30)),
        )
        .build()
        .expect("valid server");
    let calls = 20_000;
    let bare_mean = mean_call(&bare, calls).await;
    let guarded_mean = mean_call(&guarded, calls).await;
    println!(
        "call without guards: {:.2} µs; with concurrency + rate limit + timeout: {:.2} µs; guard overhead: {:.2} µs per call",
        bare_mean.as_secs_f64() * 1e6,
        guarded_mean.as_secs_f64() * 1e6,
        (guarded_mean.as_secs_f64() - bare_mean.as_secs_f64()) * 1e6
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // else either: both just run the measurement.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        storm().await;
        overhead().await;
    });
}
