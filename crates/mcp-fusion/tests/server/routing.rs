//! The server runtime end to end: routing through `FusionServer::call`, in
//! process, with the exact text the model reads. A group's `action`
//! discriminator absent, empty, of the wrong type or naming no action, and
//! unknown tool names (wire contract §1, §5). Every test asserts the whole
//! envelope, `isError` and `_meta`.

use std::sync::atomic::Ordering;

use mcp_fusion::server::UnknownToolError;
use serde_json::{Value, json};

use crate::server::{call, fixture};
use crate::support::assert_error;

/// What the model reads about `render`'s actions when no near one is known:
/// the next step before the envelope (wire contract §2.1) and the recovery.
const RENDER_STEP: &str = "Set \"action\" to an action from available_actions, keep your other arguments, and call render again.";
const RENDER_PICK: &str = "Use an action from available_actions, without the \"render.\" prefix (e.g. \"action\": \"pdf\").";

/// The next step and the recovery naming `near` (`fits`: the fields sent fit it).
fn near_texts(near: &str, fits: bool) -> (String, String) {
    let fit = if fits {
        " The fields you sent fit it."
    } else {
        ""
    };
    (
        format!("Set \"action\" to \"{near}\", keep your other arguments, and call render again."),
        format!(
            "Did you mean \"{near}\"?{fit} Use an action from available_actions, without the \"render.\" prefix."
        ),
    )
}

fn render_actions_xml() -> &'static str {
    "  <available_actions>\n    <action>render.pdf</action>\n    <action>render.png</action>\n    <action>render.svg</action>\n  </available_actions>\n"
}

fn routing_envelope(code: &str, message: &str, (step, recovery): (&str, &str)) -> (String, Value) {
    let text = format!(
        "{step}\n<tool_error code=\"{code}\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n{}</tool_error>",
        render_actions_xml()
    );
    let meta = json!({
        "code": code,
        "severity": "error",
        "message": message,
        "next_step": step,
        "recovery": recovery,
        "available_actions": ["render.pdf", "render.png", "render.svg"],
    });
    (text, meta)
}

#[tokio::test]
async fn unknown_action_lists_every_dotted_action() {
    let (server, calls) = fixture();
    let result = call(&server, "render", json!({"action": "export", "title": "x"})).await;
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"export\".",
        (RENDER_STEP, RENDER_PICK),
    );
    assert_error(&result, &text, &meta);
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn unknown_action_near_a_real_one_names_it_first_in_the_recovery() {
    let (server, _) = fixture();
    let result = call(&server, "render", json!({"action": "svgg"})).await;
    let (step, recovery) = near_texts("svg", false);
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"svgg\".",
        (&step, &recovery),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn dotted_action_name_as_the_value_names_the_action_in_the_recovery() {
    let (server, calls) = fixture();
    let result = call(&server, "render", json!({"action": "render.png"})).await;
    let (step, recovery) = near_texts("png", false);
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"render.png\".",
        (&step, &recovery),
    );
    assert_error(&result, &text, &meta);
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn absent_or_empty_discriminator_is_missing_discriminator() {
    let (server, calls) = fixture();
    let message = "The field \"action\" is missing: render needs it to know which action to run.";
    let (text, meta) =
        routing_envelope("MISSING_DISCRIMINATOR", message, (RENDER_STEP, RENDER_PICK));
    for args in [
        json!({}),
        json!({"title": "x"}),
        json!({"action": ""}),
        json!({"action": "   "}),
        Value::Null,
    ] {
        let result = call(&server, "render", args.clone()).await;
        assert_error(&result, &text, &meta);
    }
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn discriminator_of_the_wrong_type_names_the_type_sent() {
    let (server, calls) = fixture();
    for (sent, kind) in [
        (json!(3), "a number"),
        (json!(null), "a null"),
        (json!({"name": "pdf"}), "an object"),
        (json!(["pdf"]), "an array"),
        (json!(true), "a boolean"),
    ] {
        let result = call(&server, "render", json!({"action": sent})).await;
        let message = format!(
            "The field \"action\" must be a string naming an action of render, but {kind} was sent."
        );
        let (text, meta) = routing_envelope(
            "MISSING_DISCRIMINATOR",
            &message,
            (RENDER_STEP, RENDER_PICK),
        );
        assert_error(&result, &text, &meta);
    }
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn unknown_tool_is_an_error_naming_the_closest_tool_and_every_valid_one() {
    let (server, _) = fixture();
    let valid = "report, invoices, render, orders, big, empty_message, cleared_message, crash, io_fail, wrapped, wrapped_io, control, warn";
    let valid_list: Vec<&str> = valid.split(", ").collect();

    let err: UnknownToolError = server.call("reprot", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"reprot\". Did you mean \"report\"? Valid tools: {valid}.")
    );
    assert_eq!(
        err.data,
        json!({"tool": "reprot", "valid_tools": valid_list, "closest": "report"})
    );

    // A dotted action name sent as a tool name says how to call the action.
    let err = server.call("render.pdf", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "Unknown tool \"render.pdf\": the action render.pdf is called through the tool \"render\" with \"action\": \"pdf\" in its arguments. Valid tools: {valid}."
        )
    );
    // A huge name is echoed cut to 100 characters.
    let err = server
        .call(&"x".repeat(100_000), json!({}))
        .await
        .unwrap_err();
    let echoed = format!("{}…", "x".repeat(99));
    assert_eq!(
        err.message,
        format!("Unknown tool \"{echoed}\". Valid tools: {valid}.")
    );
    assert_eq!(err.data["tool"], json!(echoed));
    // A dotted name whose action does not exist points to the group only.
    let err = server.call("render.gif", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"render.gif\". Did you mean \"render\"? Valid tools: {valid}.")
    );

    let err = server.call("zzzzzzzz", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"zzzzzzzz\". Valid tools: {valid}.")
    );
    assert_eq!(
        err.data,
        json!({"tool": "zzzzzzzz", "valid_tools": valid_list})
    );
}

#[tokio::test]
async fn missing_action_names_the_one_action_the_sent_fields_fit() {
    let (server, calls) = fixture();
    // `title` and `width` are both fields of render.png only.
    let result = call(&server, "render", json!({"title": "x", "width": 3})).await;
    let (step, recovery) = near_texts("png", true);
    let (text, meta) = routing_envelope(
        "MISSING_DISCRIMINATOR",
        "The field \"action\" is missing: render needs it to know which action to run.",
        (&step, &recovery),
    );
    assert_error(&result, &text, &meta);
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn unknown_action_is_matched_by_shape_and_by_description() {
    let (server, _) = fixture();
    for (sent, near) in [("render_pdf", "pdf"), ("overwrite", "svg")] {
        let result = call(&server, "render", json!({"action": sent})).await;
        let (step, recovery) = near_texts(near, false);
        let (text, meta) = routing_envelope(
            "UNKNOWN_ACTION",
            &format!("render has no action \"{sent}\"."),
            (&step, &recovery),
        );
        assert_error(&result, &text, &meta);
    }
}
