//! `fusion gateway` end to end, with real upstream processes: the billing
//! example (`fusion serve`, over stdio and over Streamable HTTP), the
//! official reference server `@modelcontextprotocol/server-everything` and
//! the TypeScript SDK servers of `tests/interop` (installed by
//! `scripts/npm-install tests/interop`; their tests skip, saying so, without node): mounting, the
//! `HANDOFF_*` codes, upstreams killed and restarted, the gateway's guards.
//! Each test drives the gateway with rmcp's client.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::gateway::{
    Gateway, HttpGateway, MISMATCH_RECOVERY, billing_command, call_on, code_of, direct_billing,
    handoff_envelope, interop_dir, server_everything,
};
use crate::support::{FUSION, HttpServer, TempDb, assert_failure, free_port, meta_of, texts};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::json;

#[tokio::test]
async fn billing_over_stdio_is_mounted_under_its_namespace() {
    let db = TempDb::new("gateway-mount");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n",
        billing_command(&db)
    );
    let gateway = Gateway::start("mount", &config, &[]).await;
    assert_eq!(
        gateway.tool_names().await,
        ["finance.billing", "finance.billing_health"]
    );

    // A success and an upstream envelope pass through unchanged.
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let through = gateway.call("finance.billing", args.clone()).await;
    let direct = direct_billing(&db, args).await;
    assert_eq!(through, direct);
    assert_eq!(through.is_error, Some(false));
    let args = json!({"action": "get_invoice", "id": "inv_404"});
    let through = gateway.call("finance.billing", args.clone()).await;
    assert_eq!(code_of(&through).as_deref(), Some("NOT_FOUND"));
    assert_eq!(through, direct_billing(&db, args).await);

    // A namespace that is not mounted.
    let (text, meta) = handoff_envelope(
        "HANDOFF_NAMESPACE_MISMATCH",
        "error",
        "There is no tool named \"crm.find\": no tools are mounted under \"crm\".",
        MISMATCH_RECOVERY,
        &["finance.billing", "finance.billing_health"],
        None,
    );
    assert_failure(
        &gateway.call("crm.find", json!({})).await,
        &text,
        &meta,
        true,
    );

    // An upstream envelope's own name for its tool (`billing.list_invoices`,
    // from NOT_FOUND's available actions): the namespaced tool is named.
    let (text, meta) = handoff_envelope(
        "HANDOFF_NAMESPACE_MISMATCH",
        "error",
        "There is no tool named \"billing.list_invoices\": no tools are mounted under \"billing\". Mounted tools are called with their namespace: did you mean \"finance.billing\"?",
        MISMATCH_RECOVERY,
        &["finance.billing", "finance.billing_health"],
        None,
    );
    assert_failure(
        &gateway.call("billing.list_invoices", json!({})).await,
        &text,
        &meta,
        true,
    );

    // A name with no namespace: MCP's unknown tool, naming the mounted tools.
    let unknown = gateway
        .client
        .call_tool(CallToolRequestParams::new("finance"))
        .await
        .expect_err("an unknown tool");
    assert!(
        unknown.to_string().contains(
            "Unknown tool \"finance\". Valid tools: finance.billing, finance.billing_health."
        ),
        "{unknown}"
    );

    // A mounted tool called by its upstream's own name: the namespaced one.
    let unknown = gateway
        .client
        .call_tool(CallToolRequestParams::new("billing"))
        .await
        .expect_err("an unknown tool");
    assert!(
        unknown
            .to_string()
            .contains("Unknown tool \"billing\". Did you mean \"finance.billing\"?"),
        "{unknown}"
    );

    // A tool the upstream does not have.
    let (text, meta) = handoff_envelope(
        "HANDOFF_NAMESPACE_MISMATCH",
        "error",
        "The finance tools have no tool named \"refund\".",
        MISMATCH_RECOVERY,
        &["finance.billing", "finance.billing_health"],
        None,
    );
    assert_failure(
        &gateway.call("finance.refund", json!({})).await,
        &text,
        &meta,
        true,
    );
    gateway.close().await;
}

/// Each mounted tool is a tool of the gateway: its calls are counted under
/// its own name; the calls of namespaced names that are no tool, which the
/// gateway's fallback answers, under `gateway`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounted_calls_are_counted_under_their_own_names() {
    let db = TempDb::new("gateway-metrics");
    let gateway = HttpGateway::start_with(
        "metrics",
        &format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n",
            billing_command(&db)
        ),
        &["--metrics"],
    );
    let client = gateway.client().await;
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let mut through = call_on(&client, "finance.billing", args.clone()).await;
    for _ in 0..120 {
        if code_of(&through).as_deref() != Some("HANDOFF_CONNECTING") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        through = call_on(&client, "finance.billing", args.clone()).await;
    }
    assert_eq!(through.is_error, Some(false));
    let missing = call_on(&client, "crm.find", json!({})).await;
    assert_eq!(
        code_of(&missing).as_deref(),
        Some("HANDOFF_NAMESPACE_MISMATCH")
    );
    let metrics = gateway.url.replace("/mcp", "/metrics");
    let text = reqwest::get(&metrics)
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("a body");
    for series in [
        r#"mcp_fusion_tool_calls_total{tool="finance.billing",action="",outcome="ok",code=""} 1"#,
        r#"mcp_fusion_tool_calls_total{tool="gateway",action="",outcome="error",code="HANDOFF_NAMESPACE_MISMATCH"} 1"#,
    ] {
        assert!(text.lines().any(|line| line == series), "{series}\n{text}");
    }
    let _ = client.cancel().await;
}

#[tokio::test]
async fn the_gateway_guards_run_before_a_call_is_forwarded() {
    let db = TempDb::new("gateway-guards");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n",
        billing_command(&db)
    );
    // A second namespace, for handoffs: the handoff tool is guarded too.
    let config = format!(
        "{config}[[upstream]]\nnamespace = \"ledger\"\ncommand = {}\nexposure = \"handoff\"\n",
        billing_command(&db)
    );
    let gateway = Gateway::start("guards", &config, &["--rate-limit", "1/min"]).await;
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let first = gateway.call("finance.billing", args.clone()).await;
    assert_eq!(first.is_error, Some(false));
    let second = gateway.call("finance.billing", args).await;
    assert_eq!(code_of(&second).as_deref(), Some("RATE_LIMITED"));
    assert_eq!(second.is_error, Some(true));
    // Named as the model called it, not as the action forwarding it.
    assert_eq!(
        meta_of(&second).map(|m| m["message"].clone()),
        Some(json!(
            "Too many calls to finance.billing: the limit is 1 per minute."
        ))
    );
    // Each mounted tool has its own budget.
    let health = gateway.call("finance.billing_health", json!({})).await;
    assert_eq!(health.is_error, Some(false));
    let handoff = json!({"namespace": "ledger"});
    let first = gateway.call("handoff", handoff.clone()).await;
    assert_eq!(code_of(&first).as_deref(), Some("HANDOFF_CONNECTING"));
    let second = gateway.call("handoff", handoff).await;
    assert_eq!(code_of(&second).as_deref(), Some("RATE_LIMITED"));
    gateway.close().await;
}

/// A `finance.billing` `generate_report` call (slow: its upstream runs with
/// `--report-ms`), a second after it started.
async fn slow_report_running(gateway: &Arc<Gateway>) -> tokio::task::JoinHandle<CallToolResult> {
    let call = {
        let gateway = Arc::clone(gateway);
        tokio::spawn(async move {
            gateway
                .call(
                    "finance.billing",
                    json!({"action": "generate_report", "period": "month"}),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(1000)).await;
    call
}

#[tokio::test]
async fn the_gateway_sheds_mounted_calls_beyond_max_active() {
    let db = TempDb::new("gateway-busy");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"{FUSION}\", \"serve\", \"--stdio\", \"--db\", \"{}\", \"--report-ms\", \"3s\"]\n",
        db.path()
    );
    let gateway =
        Arc::new(Gateway::start("busy", &config, &["--max-active", "1", "--max-queue", "0"]).await);
    assert_eq!(
        gateway.tool_names().await,
        ["finance.billing", "finance.billing_health"]
    );
    let slow = slow_report_running(&gateway).await;
    let shed = gateway
        .call(
            "finance.billing",
            json!({"action": "get_invoice", "id": "inv_1"}),
        )
        .await;
    assert_eq!(code_of(&shed).as_deref(), Some("SERVER_BUSY"));
    assert_eq!(shed.is_error, Some(true));
    assert_eq!(
        meta_of(&shed).map(|m| m["message"].clone()),
        Some(json!(
            "finance.billing is at capacity: it shares its slots with the other mounted tools; its only slot is taken and it keeps no queue."
        ))
    );
    let done = slow.await.expect("the slow call answers");
    assert_eq!(done.is_error, Some(false));
    if let Ok(gateway) = Arc::try_unwrap(gateway) {
        gateway.close().await;
    }
}

#[tokio::test]
async fn a_slow_upstream_is_connecting_then_answers() {
    let db = TempDb::new("gateway-slow");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"sh\", \"-c\", \"sleep 5; exec {FUSION} serve --stdio --db {}\"]\n",
        db.path()
    );
    let gateway = Gateway::start("slow", &config, &[]).await;
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    // Called at once, without listing the tools first (a listing waits for
    // the first connection).
    let first = gateway.call("finance.billing", args.clone()).await;
    let (text, meta) = handoff_envelope(
        "HANDOFF_CONNECTING",
        "warning",
        "The finance tools are still connecting; the call was not made.",
        "Wait 2 seconds, then call the same tool again with the same arguments.",
        &[],
        Some(2),
    );
    assert_failure(&first, &text, &meta, false);
    let later = gateway
        .call_until_not("HANDOFF_CONNECTING", "finance.billing", args.clone())
        .await;
    assert_eq!(later, direct_billing(&db, args).await);
    gateway.close().await;
}

/// Kills the `finance` upstream of `gateway` (with `kill`) during a slow
/// call, then lets it start again (with `restart`, whose value is kept until
/// the end): the call in flight and a call while it is down are
/// `HANDOFF_UPSTREAM_UNAVAILABLE`, with one answer each, and the gateway
/// recovers by itself.
async fn killed_then_recovered<R>(
    gateway: Gateway,
    kill: impl FnOnce(),
    restart: impl FnOnce() -> R,
) {
    let gateway = Arc::new(gateway);
    // The listing waits for the first connection.
    assert_eq!(
        gateway.tool_names().await,
        ["finance.billing", "finance.billing_health"]
    );
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let before = gateway.call("finance.billing", args.clone()).await;
    assert_eq!(before.is_error, Some(false));

    // A call in flight when the upstream dies: one answer, unavailable.
    let in_flight = slow_report_running(&gateway).await;
    kill();
    let died = in_flight.await.expect("the in-flight call answers");
    let (text, meta) = handoff_envelope(
        "HANDOFF_UPSTREAM_UNAVAILABLE",
        "error",
        "The finance tools stopped answering during the call of finance.billing; it may or may not have been done.",
        "Tell the user the finance tools are unavailable for now, or call again in 1 second. If the call changes something, check first whether it was done.",
        &[],
        Some(1),
    );
    assert_failure(&died, &text, &meta, true);

    // Later calls, while it is down.
    let (text, meta) = handoff_envelope(
        "HANDOFF_UPSTREAM_UNAVAILABLE",
        "error",
        "The finance tools are unavailable right now; finance.billing was not called.",
        "Tell the user the finance tools are unavailable for now, or call again in 1 second.",
        &[],
        Some(1),
    );
    assert_failure(
        &gateway.call("finance.billing", args.clone()).await,
        &text,
        &meta,
        true,
    );

    // Back: the same gateway recovers by itself.
    let _restarted = restart();
    let after = gateway
        .call_until_not("HANDOFF_UPSTREAM_UNAVAILABLE", "finance.billing", args)
        .await;
    assert_eq!(after, before);
    if let Ok(gateway) = Arc::try_unwrap(gateway) {
        gateway.close().await;
    }
}

#[tokio::test]
async fn an_http_upstream_killed_and_restarted_is_unavailable_then_back() {
    let db = TempDb::new("gateway-restart");
    let port = free_port();
    let mut upstream = HttpServer::start_on(&db.0, port, &["--report-ms", "3s"]);
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\nurl = \"{}\"\nreconnect_initial = \"1s\"\nreconnect_max = \"1s\"\n",
        upstream.url
    );
    let gateway = Gateway::start("restart", &config, &[]).await;
    // Restarted where it was.
    killed_then_recovered(
        gateway,
        || upstream.kill(),
        || HttpServer::start_on(&db.0, port, &[]),
    )
    .await;
}

/// The billing example over stdio, started through `sh`: it records its
/// pid (to be killed) and refuses to start while a `down` file exists.
struct StdioBilling {
    dir: PathBuf,
    db: TempDb,
}

impl StdioBilling {
    fn new(test: &str) -> StdioBilling {
        let dir =
            std::env::temp_dir().join(format!("fusion-gateway-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        StdioBilling {
            dir,
            db: TempDb::new(test),
        }
    }

    /// The `[[upstream]]` mounting it under `finance`, reconnected every second.
    fn config(&self) -> String {
        let script = format!(
            "if [ -e {down} ]; then exit 1; fi; echo $$ > {pid}; exec {FUSION} serve --stdio --db {db} --report-ms 3s",
            down = self.dir.join("down").display(),
            pid = self.dir.join("pid").display(),
            db = self.db.path(),
        );
        format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"sh\", \"-c\", '{script}']\nreconnect_initial = \"1s\"\nreconnect_max = \"1s\"\n"
        )
    }

    /// The pid of the process running now.
    fn pid(&self) -> String {
        let pid = std::fs::read_to_string(self.dir.join("pid")).expect("the upstream's pid");
        pid.trim().to_owned()
    }

    /// Kills the running process with SIGKILL.
    fn kill(&self) {
        let pid = self.pid();
        let killed = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status()
            .expect("kill");
        assert!(killed.success(), "kill -9 {pid}");
    }

    /// Whether it may start again.
    fn startable(&self, yes: bool) {
        let down = self.dir.join("down");
        if yes {
            std::fs::remove_file(down).expect("mark the upstream up");
        } else {
            std::fs::write(down, "").expect("mark the upstream down");
        }
    }
}

impl Drop for StdioBilling {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test]
async fn a_stdio_upstream_killed_is_unavailable_then_started_again() {
    let upstream = StdioBilling::new("gateway-stdio-restart");
    let gateway = Gateway::start("stdio-restart", &upstream.config(), &[]).await;
    let kill = || {
        upstream.startable(false);
        upstream.kill();
    };
    // The gateway starts the command again by itself once it may start.
    killed_then_recovered(gateway, kill, || upstream.startable(true)).await;
}

#[tokio::test]
async fn an_upstream_gone_while_idle_is_started_again_before_a_call() {
    let upstream = StdioBilling::new("gateway-idle-restart");
    let gateway = Gateway::start("idle-restart", &upstream.config(), &[]).await;
    // The listing waits for the first connection.
    assert_eq!(
        gateway.tool_names().await,
        ["finance.billing", "finance.billing_health"]
    );
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let before = gateway.call("finance.billing", args.clone()).await;
    assert_eq!(before.is_error, Some(false));
    let first = upstream.pid();
    let changes = gateway.changes.load(Ordering::SeqCst);
    upstream.kill();
    // Reconnected in the background: every caller is told its tools
    // changed (bounded wait: 60 s).
    for _ in 0..240 {
        if gateway.changes.load(Ordering::SeqCst) > changes {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(
        gateway.changes.load(Ordering::SeqCst) > changes,
        "no reconnection"
    );
    assert_ne!(upstream.pid(), first, "a new process");
    // The first call after it answers.
    assert_eq!(gateway.call("finance.billing", args).await, before);
    gateway.close().await;
}

#[tokio::test]
async fn server_everything_and_billing_behind_one_gateway() {
    let Some(script) = server_everything() else {
        return;
    };
    let db = TempDb::new("gateway-everything");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n\n[[upstream]]\nnamespace = \"everything\"\ncommand = [\"node\", \"{}\", \"stdio\"]\nconnect_timeout = \"30s\"\n",
        billing_command(&db),
        script.display()
    );
    let gateway = Gateway::start("everything", &config, &[]).await;
    let names = gateway.tool_names().await;
    assert_eq!(&names[..2], ["finance.billing", "finance.billing_health"]);
    assert!(
        names.contains(&String::from("everything.echo")),
        "{names:?}"
    );
    assert!(names.iter().skip(2).all(|n| n.starts_with("everything.")));

    let echo = gateway
        .call("everything.echo", json!({"message": "hello"}))
        .await;
    assert_eq!(texts(&echo), ["Echo: hello"]);
    assert_eq!(echo.is_error, None, "as server-everything sent it");
    let sum = gateway
        .call("everything.get-sum", json!({"a": 2, "b": 3}))
        .await;
    assert_eq!(texts(&sum), ["The sum of 2 and 3 is 5."]);

    // A foreign server's plain-text error passes through unchanged.
    let failed = gateway.call("everything.echo", json!({})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(meta_of(&failed), None);
    let text = &texts(&failed)[0];
    assert!(
        text.starts_with("MCP error -32602: Input validation error"),
        "{text}"
    );
    gateway.close().await;
}

#[tokio::test]
async fn an_upstreams_list_changed_refreshes_the_gateways_tools() {
    let Some(dir) = interop_dir() else {
        return;
    };
    let script = dir.join("changing-tools.mjs");
    let config = format!(
        "[[upstream]]\nnamespace = \"dyn\"\ncommand = [\"node\", \"{}\"]\nconnect_timeout = \"30s\"\n",
        script.display()
    );
    let gateway = Gateway::start("list-changed", &config, &[]).await;
    assert_eq!(gateway.tool_names().await, ["dyn.grow", "dyn.meta"]);
    let seen = gateway.changes.load(Ordering::SeqCst);
    assert_eq!(texts(&gateway.call("dyn.grow", json!({})).await), ["grown"]);
    // The upstream's list_changed reaches the gateway, which lists its tools
    // again and tells its own client (bounded wait, not a timing assertion).
    // The notification is written by its own task: it may reach the client
    // after a tools/list that already shows the change, so both are waited
    // for.
    let mut names = gateway.tool_names().await;
    for _ in 0..120 {
        if names.len() > 2 && gateway.changes.load(Ordering::SeqCst) > seen {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
        names = gateway.tool_names().await;
    }
    assert_eq!(names, ["dyn.grow", "dyn.meta", "dyn.extra"]);
    assert!(
        gateway.changes.load(Ordering::SeqCst) > seen,
        "list_changed sent"
    );
    assert_eq!(
        texts(&gateway.call("dyn.extra", json!({})).await),
        ["extra here"]
    );
    gateway.close().await;
}

#[tokio::test]
async fn an_upstreams_unusable_names_and_internal_errors_stay_behind_the_gateway() {
    let Some(dir) = interop_dir() else {
        return;
    };
    let script = dir.join("raw-upstream.mjs");
    let config = format!(
        "[[upstream]]\nnamespace = \"raw\"\ncommand = [\"node\", \"{}\"]\nexposure = \"handoff\"\n",
        script.display()
    );
    let gateway = Gateway::start("raw", &config, &[]).await;
    let ack = gateway.call("handoff", json!({"namespace": "raw"})).await;
    assert_eq!(ack.is_error, Some(false));
    let fine = gateway
        .call_until_not("HANDOFF_CONNECTING", "raw.echo", json!({}))
        .await;
    assert_eq!(texts(&fine), ["ok echo"]);
    // Empty, blank and repeated names are left out; the handoff's own
    // return tool shadows the upstream's.
    assert_eq!(
        gateway.tool_names().await,
        [
            "handoff",
            "raw.fail",
            "raw.refuse",
            "raw.refuse_long",
            "raw.echo",
            "raw.return_to_triage"
        ]
    );
    // Invalid params: the upstream's words, as plain text.
    let refused = gateway.call("raw.refuse", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(texts(&refused), ["refuse takes no arguments"]);
    // Cut to 2 000 characters.
    let long = gateway.call("raw.refuse_long", json!({})).await;
    assert_eq!(texts(&long), [format!("{}…", "x".repeat(1999))]);
    // Any other JSON-RPC error: unavailable, its text only in the log.
    let (text, meta) = handoff_envelope(
        "HANDOFF_UPSTREAM_UNAVAILABLE",
        "error",
        "The raw tools failed on the call of raw.fail; it may or may not have been done.",
        "Tell the user the raw tools are unavailable for now, or call again in 1 second, or call raw.return_to_triage. If the call changes something, check first whether it was done.",
        &[],
        Some(1),
    );
    assert_failure(
        &gateway.call("raw.fail", json!({})).await,
        &text,
        &meta,
        true,
    );
    gateway.close().await;
}
