//! The user crate's server, from outside the library: one contract whichever
//! way it is declared, and the behaviour its types promise.

use fusion_user_crate::{Notes, with_builder, with_macro};
use mcp_fusion::contract::{Lockfile, ServerContract};
use mcp_fusion::{ErrorCode, FusionServer};
use serde_json::{Value, json};

fn lockfile(server: &FusionServer) -> Value {
    Lockfile::new(ServerContract::from_listings(&server.listings()), None).to_json()
}

#[test]
fn the_macro_and_the_builder_make_one_contract() {
    let made = lockfile(&with_macro(Notes::default()));
    let built = lockfile(&with_builder(Notes::default()));
    assert_eq!(made["digest"], built["digest"]);
    assert_eq!(made, built);
}

#[test]
fn typed_outputs_are_output_schemas() {
    let server = with_macro(Notes::default());
    let notes = &server.listings()[0];
    let get = notes
        .actions
        .iter()
        .find(|a| a.name == "get")
        .expect("notes.get");
    let schema = get.output_schema.as_ref().expect("an outputSchema");
    assert_eq!(schema["required"], json!(["id", "text"]));
    let list = notes
        .actions
        .iter()
        .find(|a| a.name == "list")
        .expect("notes.list");
    assert_eq!(
        list.output_schema.as_ref().expect("a schema")["type"],
        "array"
    );
}

#[tokio::test]
async fn state_outputs_and_errors_from_a_user_crate() {
    let server = with_macro(Notes::default());
    let added = server
        .call("notes", json!({"action": "add", "text": "buy milk"}))
        .await
        .expect("a result");
    assert_eq!(added.is_error, Some(false));
    assert_eq!(
        added.structured_content,
        Some(json!({"id": 1, "text": "buy milk"}))
    );
    let listed = server
        .call("notes", json!({"action": "list"}))
        .await
        .expect("a result");
    assert_eq!(
        listed.structured_content,
        Some(json!([{"id": 1, "text": "buy milk"}]))
    );
    let missing = server
        .call("notes", json!({"action": "get", "id": 7}))
        .await
        .expect("a result");
    assert_eq!(missing.is_error, Some(true));
    let text = &missing.content[0].as_text().expect("text").text;
    assert_eq!(
        text,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>There is no note 7.</message>\n  <recovery>List the notes first, then use one of their ids.</recovery>\n  <available_actions>\n    <action>notes.list</action>\n  </available_actions>\n  <details>\n    <detail key=\"requestedId\">7</detail>\n  </details>\n</tool_error>"
    );
    let parsed = mcp_fusion::envelope::parse(text).expect("an envelope");
    assert_eq!(parsed.code(), ErrorCode::NotFound);
}
