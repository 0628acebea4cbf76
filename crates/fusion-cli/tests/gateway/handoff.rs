//! `fusion gateway` handoffs end to end: a caller handed over to a handoff
//! upstream sees its tools until `return_to_triage`, per HTTP session, with
//! the reason and state carried to the upstream; a handoff that cannot
//! connect is told on the next call.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::gateway::{
    Gateway, HttpGateway, NOT_ACTIVE_RECOVERY, billing_command, call_on, code_of, direct_billing,
    handoff_envelope, interop_dir, names_of,
};
use crate::support::{TempDb, assert_failure, meta_of, texts};
use serde_json::{Value, json};

#[tokio::test]
async fn a_handoff_shows_the_specialist_until_return_to_triage() {
    let db = TempDb::new("gateway-handoff");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\nexposure = \"handoff\"\ndescription = \"Invoices: read, create, pay.\"\n",
        billing_command(&db)
    );
    let gateway = Gateway::start("handoff", &config, &[]).await;
    assert_eq!(gateway.tool_names().await, ["handoff"]);

    // Not handed over yet.
    let (text, meta) = handoff_envelope(
        "HANDOFF_NAMESPACE_MISMATCH",
        "error",
        "The finance tools are not active in this conversation, so \"finance.billing\" cannot be called.",
        NOT_ACTIVE_RECOVERY,
        &["handoff"],
        None,
    );
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    assert_failure(
        &gateway.call("finance.billing", args.clone()).await,
        &text,
        &meta,
        true,
    );

    let ack = gateway
        .call(
            "handoff",
            json!({"namespace": "finance", "reason": "The user asks about an invoice"}),
        )
        .await;
    assert_eq!(ack.is_error, Some(false));
    let (warning, meta) = handoff_envelope(
        "HANDOFF_CONNECTING",
        "warning",
        "Handing over to the finance tools (The user asks about an invoice). Your tools are being updated.",
        "Wait for the tools list to refresh, then go on with the finance.* tools; call finance.return_to_triage when the user's request is done.",
        &[],
        Some(2),
    );
    assert_eq!(
        texts(&ack),
        [String::from("Handed over to the finance tools."), warning]
    );
    assert_eq!(meta_of(&ack), Some(meta));

    let through = gateway
        .call_until_not("HANDOFF_CONNECTING", "finance.billing", args.clone())
        .await;
    assert_eq!(through, direct_billing(&db, args).await);
    assert!(
        gateway.changes.load(Ordering::SeqCst) >= 1,
        "tools/list_changed sent"
    );
    assert_eq!(
        gateway.tool_names().await,
        [
            "handoff",
            "finance.billing",
            "finance.billing_health",
            "finance.return_to_triage"
        ]
    );

    let back = gateway.call("finance.return_to_triage", json!({})).await;
    assert_eq!(
        texts(&back),
        [
            "The handoff to the finance tools has ended; they are gone from your tools list and the triage tools remain."
        ]
    );
    assert_eq!(back.is_error, Some(false));
    assert_eq!(gateway.tool_names().await, ["handoff"]);
    gateway.close().await;
}

#[tokio::test]
async fn a_handoff_that_cannot_connect_is_told_on_the_next_call() {
    let missing = Path::new("/nonexistent/fusion-gateway-upstream");
    let config = format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"{}\"]\nexposure = \"handoff\"\nreconnect_initial = \"1s\"\nreconnect_max = \"1s\"\n",
        missing.display()
    );
    let gateway = Gateway::start("handoff-fails", &config, &[]).await;
    let ack = gateway
        .call("handoff", json!({"namespace": "finance"}))
        .await;
    assert_eq!(ack.is_error, Some(false));
    assert_eq!(code_of(&ack).as_deref(), Some("HANDOFF_CONNECTING"));
    // The activation, then the failure, each send tools/list_changed.
    for _ in 0..120 {
        if gateway.changes.load(Ordering::SeqCst) >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (text, meta) = handoff_envelope(
        "HANDOFF_UPSTREAM_UNAVAILABLE",
        "error",
        "The handoff to the finance tools could not connect them; finance.billing was not called.",
        "Tell the user the finance tools are unavailable for now, or call again in 1 second, or call finance.return_to_triage.",
        &[],
        Some(1),
    );
    assert_failure(
        &gateway.call("finance.billing", json!({})).await,
        &text,
        &meta,
        true,
    );
    // Told once; then the upstream is simply unavailable.
    let again = gateway.call("finance.billing", json!({})).await;
    assert_eq!(
        meta_of(&again).map(|m| m["message"].clone()),
        Some(json!(
            "The finance tools are unavailable right now; finance.billing was not called."
        ))
    );
    // A new handoff is refused until the upstream is back.
    let (text, meta) = handoff_envelope(
        "HANDOFF_UPSTREAM_UNAVAILABLE",
        "error",
        "The finance tools are unavailable right now, so the conversation was not handed over.",
        "Tell the user the finance tools are unavailable for now, or call again in 1 second.",
        &[],
        Some(1),
    );
    assert_failure(
        &gateway
            .call("handoff", json!({"namespace": "finance"}))
            .await,
        &text,
        &meta,
        true,
    );
    gateway.close().await;
}

#[tokio::test]
async fn handoffs_are_kept_per_http_session() {
    let db = TempDb::new("gateway-sessions");
    let gateway = HttpGateway::start(
        "sessions",
        &format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\nexposure = \"handoff\"\n",
            billing_command(&db)
        ),
    );
    let alice = gateway.client().await;
    let bob = gateway.client().await;
    let ack = call_on(&alice, "handoff", json!({"namespace": "finance"})).await;
    assert_eq!(code_of(&ack).as_deref(), Some("HANDOFF_CONNECTING"));
    let args = json!({"action": "get_invoice", "id": "inv_1"});
    let mut through = call_on(&alice, "finance.billing", args.clone()).await;
    for _ in 0..120 {
        if code_of(&through).as_deref() != Some("HANDOFF_CONNECTING") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        through = call_on(&alice, "finance.billing", args.clone()).await;
    }
    assert_eq!(through.is_error, Some(false));
    assert_eq!(
        names_of(&alice).await,
        [
            "handoff",
            "finance.billing",
            "finance.billing_health",
            "finance.return_to_triage"
        ]
    );
    // Bob, in another session, was not handed over.
    assert_eq!(names_of(&bob).await, ["handoff"]);
    let (text, meta) = handoff_envelope(
        "HANDOFF_NAMESPACE_MISMATCH",
        "error",
        "The finance tools are not active in this conversation, so \"finance.billing\" cannot be called.",
        NOT_ACTIVE_RECOVERY,
        &["handoff"],
        None,
    );
    assert_failure(
        &call_on(&bob, "finance.billing", args).await,
        &text,
        &meta,
        true,
    );
    let _ = alice.cancel().await;
    let _ = bob.cancel().await;
}

#[tokio::test]
async fn a_handoff_carries_its_reason_to_the_upstream() {
    let Some(dir) = interop_dir() else {
        return;
    };
    let config = format!(
        "[[upstream]]\nnamespace = \"dyn\"\ncommand = [\"node\", \"{}\"]\nexposure = \"handoff\"\nconnect_timeout = \"30s\"\n",
        dir.join("changing-tools.mjs").display()
    );
    let gateway = Gateway::start("carry", &config, &[]).await;
    let ack = gateway
        .call(
            "handoff",
            json!({"namespace": "dyn", "reason": "Needs the meta tool"}),
        )
        .await;
    assert_eq!(ack.is_error, Some(false));
    let meta = gateway
        .call_until_not("HANDOFF_CONNECTING", "dyn.meta", json!({}))
        .await;
    // rmcp's client adds its own progressToken beside it.
    let sent: Value = serde_json::from_str(&texts(&meta)[0]).expect("the _meta as JSON");
    assert_eq!(
        sent["mcp-fusion/handoff"],
        json!({"reason": "Needs the meta tool", "state": null})
    );
    gateway.close().await;
}
