//! Contracts and `fusion.lock` (`docs/contracts.md`): digests pinned to
//! values computed outside this code (`sha256sum` of the canonical JSON),
//! the lockfile's exact bytes, round trips, errors for unknown versions and
//! corrupt files, and the same contract from a built server and from its
//! `tools/list` over a real client.

use std::time::Duration;

use mcp_fusion::capability::Annotations;
use mcp_fusion::client::ClientOptions;
use mcp_fusion::contract::{
    ActionContract, Lockfile, LockfileError, ServerContract, ServerInfo, ToolContract,
};
use mcp_fusion::guard::RateLimitScope;
use mcp_fusion::{Action, CallContext, FusionServer, Group, Json, RateLimit, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

fn tiny() -> Lockfile {
    let action = ActionContract {
        name: "summary".into(),
        input_schema: json!({"type": "object"}),
        ..ActionContract::default()
    }
    .canonical();
    let tool = ToolContract {
        name: "reports".into(),
        description: Some("Reports.".into()),
        discriminator: Some("action".into()),
        actions: [("summary".to_owned(), action)].into(),
    };
    Lockfile::new(
        ServerContract {
            tools: [("reports".to_owned(), tool)].into(),
        },
        Some(ServerInfo {
            name: "reports".into(),
            version: "1.0.0".into(),
        }),
    )
}

/// `printf '%s' '{"annotations":{…},"guards":{},"inputSchema":{"type":"object"},"requiredScopes":[]}' | sha256sum`
const ACTION_DIGEST: &str =
    "sha256:f5088e93327d393601fb589f078149e67c1316da226e94cf956f6e1c8d73c9a3";
/// `printf '%s' '{"actions":{"summary":"<ACTION_DIGEST>"},"description":"Reports.","discriminator":"action"}' | sha256sum`
const TOOL_DIGEST: &str = "sha256:be5b5c4c60b17a04c00c587aa415ca084dd561161cddda4a4f63cba8b2166b5f";
/// `printf '%s' '{"reports":"<TOOL_DIGEST>"}' | sha256sum`
const SERVER_DIGEST: &str =
    "sha256:cb46277aa95afe6716a4a83b6a8e4ee1481a7307c46b14486f52cd515a29d0f9";

const TINY_TEXT: &str = r#"{
  "digest": "sha256:cb46277aa95afe6716a4a83b6a8e4ee1481a7307c46b14486f52cd515a29d0f9",
  "lockfileVersion": 1,
  "server": {
    "name": "reports",
    "version": "1.0.0"
  },
  "tools": {
    "reports": {
      "actions": {
        "summary": {
          "annotations": {
            "destructiveHint": false,
            "idempotentHint": false,
            "readOnlyHint": false
          },
          "digest": "sha256:f5088e93327d393601fb589f078149e67c1316da226e94cf956f6e1c8d73c9a3",
          "guards": {},
          "inputSchema": {
            "type": "object"
          },
          "requiredScopes": []
        }
      },
      "description": "Reports.",
      "digest": "sha256:be5b5c4c60b17a04c00c587aa415ca084dd561161cddda4a4f63cba8b2166b5f",
      "discriminator": "action"
    }
  }
}
"#;

#[test]
fn digests_per_action_tool_and_server() {
    let lock = tiny();
    let tool = &lock.contract.tools["reports"];
    // The digest below is `sha256sum` of this JSON written canonically:
    // `{"annotations":{"destructiveHint":false,"idempotentHint":false,"readOnlyHint":false},"guards":{},"inputSchema":{"type":"object"},"requiredScopes":[]}`.
    assert_eq!(
        tool.actions["summary"].to_json(),
        json!({
            "annotations": {"destructiveHint": false, "idempotentHint": false, "readOnlyHint": false},
            "guards": {},
            "inputSchema": {"type": "object"},
            "requiredScopes": []
        })
    );
    assert_eq!(tool.actions["summary"].digest(), ACTION_DIGEST);
    assert_eq!(tool.digest(), TOOL_DIGEST);
    assert_eq!(lock.contract.digest(), SERVER_DIGEST);
}

#[test]
fn the_lockfile_bytes_are_fixed() {
    assert_eq!(tiny().render(), TINY_TEXT);
}

#[test]
fn a_schema_change_changes_every_digest_up_the_tree() {
    let mut lock = tiny();
    let action = lock
        .contract
        .tools
        .get_mut("reports")
        .unwrap()
        .actions
        .get_mut("summary")
        .unwrap();
    // A type change inside the schema: invisible to a digest of required names.
    action.input_schema = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
    let before = tiny();
    assert_ne!(
        lock.contract.tools["reports"].actions["summary"].digest(),
        ACTION_DIGEST
    );
    assert_ne!(lock.contract.tools["reports"].digest(), TOOL_DIGEST);
    assert_ne!(lock.contract.digest(), before.contract.digest());
    let mut other = lock.clone();
    other
        .contract
        .tools
        .get_mut("reports")
        .unwrap()
        .actions
        .get_mut("summary")
        .unwrap()
        .input_schema = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    assert_ne!(other.contract.digest(), lock.contract.digest());
}

#[test]
fn key_order_and_whole_floats_do_not_change_the_contract() {
    let a = ActionContract {
        name: "a".into(),
        description: Some(" ".into()),
        input_schema: serde_json::from_str(
            r#"{"type": "object", "properties": {"n": {"maximum": 10.0, "type": "number"}}}"#,
        )
        .unwrap(),
        deprecated: Some("".into()),
        required_scopes: vec!["b".into(), "a".into(), "b".into()],
        guards: json!(null),
        ..ActionContract::default()
    }
    .canonical();
    let b = ActionContract {
        name: "a".into(),
        input_schema: serde_json::from_str(
            r#"{"properties": {"n": {"type": "number", "maximum": 10}}, "type": "object"}"#,
        )
        .unwrap(),
        required_scopes: vec!["a".into(), "b".into()],
        ..ActionContract::default()
    }
    .canonical();
    assert_eq!(a, b);
    assert_eq!(a.digest(), b.digest());
    assert_eq!(a.required_scopes, ["a", "b"]);
}

#[test]
fn round_trip_through_text_and_file() {
    let lock = tiny();
    assert_eq!(Lockfile::parse(&lock.render()).unwrap(), lock);
    let path = std::env::temp_dir().join(format!("helper-contract-{}.lock", std::process::id()));
    lock.write(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), TINY_TEXT);
    assert_eq!(Lockfile::read(&path).unwrap(), lock);
    std::fs::remove_file(&path).unwrap();
    // Without server information.
    let anonymous = Lockfile::new(lock.contract.clone(), None);
    let text = anonymous.render();
    assert!(!text.contains("\"server\""));
    assert_eq!(Lockfile::parse(&text).unwrap(), anonymous);
}

#[test]
fn unknown_version_is_named() {
    let text = TINY_TEXT.replace("\"lockfileVersion\": 1", "\"lockfileVersion\": 2");
    let err = Lockfile::parse(&text).unwrap_err();
    assert!(
        matches!(&err, LockfileError::UnsupportedVersion { found, supported: 1 } if found == "2"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the lockfile has \"lockfileVersion\": 2, but this version of mcp-fusion reads only version 1; regenerate it with `fusion lock`"
    );
    let text = TINY_TEXT.replace("\"lockfileVersion\": 1", "\"lockfileVersion\": \"1\"");
    assert!(matches!(
        Lockfile::parse(&text),
        Err(LockfileError::UnsupportedVersion { found, .. }) if found == "\"1\""
    ));
    let text = TINY_TEXT.replace("  \"lockfileVersion\": 1,\n", "");
    let err = Lockfile::parse(&text).unwrap_err();
    assert!(matches!(err, LockfileError::MissingVersion), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the lockfile has no \"lockfileVersion\" member; is it a fusion.lock file?"
    );
}

#[test]
fn corrupt_files_are_named_errors() {
    // Cut in the middle.
    let err = Lockfile::parse(&TINY_TEXT[..200]).unwrap_err();
    let LockfileError::Json { line, .. } = &err else {
        panic!("{err:?}");
    };
    // The text ends on line 9, inside the action.
    assert_eq!(*line, 9);
    assert!(
        err.to_string()
            .starts_with("the lockfile is not valid JSON (line 9, column "),
        "{err}"
    );
    // Not an object.
    assert!(matches!(
        Lockfile::parse("[1]"),
        Err(LockfileError::Malformed { at, .. }) if at == "(root)"
    ));
    // A member of the wrong type names its dotted path.
    let text = TINY_TEXT.replace(
        "\"inputSchema\": {\n            \"type\": \"object\"\n          },",
        "\"inputSchema\": \"object\",",
    );
    let err = Lockfile::parse(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the lockfile is malformed at tools.reports.actions.summary: \"inputSchema\" must be a JSON object"
    );
    let err = Lockfile::parse(r#"{"lockfileVersion": 1, "digest": "x"}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the lockfile is malformed at tools: is missing"
    );
}

#[test]
fn an_edit_by_hand_is_caught_by_the_digests() {
    let text = TINY_TEXT.replace("\"type\": \"object\"", "\"type\": \"array\"");
    let err = Lockfile::parse(&text).unwrap_err();
    let LockfileError::DigestMismatch { at, stored, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(at, "tools.reports.actions.summary.digest");
    assert_eq!(stored, ACTION_DIGEST);
    assert!(err.to_string().contains("regenerate it with `fusion lock`"));
    let text = TINY_TEXT.replace("\"Reports.\"", "\"Other.\"");
    assert!(matches!(
        Lockfile::parse(&text),
        Err(LockfileError::DigestMismatch { at, .. }) if at == "tools.reports.digest"
    ));
    let text = TINY_TEXT.replacen("sha256:cb46", "sha256:0000", 1);
    assert!(matches!(
        Lockfile::parse(&text),
        Err(LockfileError::DigestMismatch { at, .. }) if at == "digest"
    ));
}

#[test]
fn a_missing_file_names_the_path() {
    let path = std::path::Path::new("/nonexistent/helper/fusion.lock");
    let err = Lockfile::read(path).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read the lockfile /nonexistent/helper/fusion.lock: "),
        "{err}"
    );
}

// ---- The same contract from the built server and from tools/list.

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Query {
    /// The id.
    #[schemars(length(min = 3))]
    id: String,
    limit: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Answer {
    total: u64,
}

async fn answer(_ctx: CallContext, _args: Query) -> Result<&'static str, ToolError> {
    Ok("ok")
}

async fn answer_typed(_args: Query) -> Result<Json<Answer>, ToolError> {
    Ok(Json(Answer { total: 1 }))
}

fn rich_server() -> FusionServer {
    FusionServer::builder("rich", "3.1.4")
        .group(
            Group::new("rich")
                .description("Everything a contract holds.")
                .timeout(Duration::from_secs(2))
                .action(
                    Action::new("get", answer_typed)
                        .description("Read one.")
                        .read_only()
                        .idempotent(),
                )
                .action(
                    Action::new("old_get", answer)
                        .deprecated("rich.get")
                        .concurrency(2, 5)
                        .rate_limit(RateLimit::per_minute(10).scope(RateLimitScope::Global)),
                ),
        )
        .tool(Action::new("wipe", answer).destructive())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_server_and_its_tools_list_give_the_same_contract() {
    let server = rich_server();
    let built = ServerContract::of_server(&server);

    let client = server
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    let listed = ServerContract::from_tools(&client.list_tools().await.unwrap()).unwrap();
    client.close().await;

    assert_eq!(listed, built);
    assert_eq!(listed.digest(), built.digest());
    let rich = &built.tools["rich"];
    assert_eq!(rich.discriminator.as_deref(), Some("action"));
    let get = &rich.actions["get"];
    assert_eq!(get.description.as_deref(), Some("Read one."));
    assert!(get.annotations.read_only && get.annotations.idempotent);
    assert_eq!(get.guards, json!({"timeoutMs": 2000}));
    assert_eq!(get.input_schema["properties"]["id"]["minLength"], 3);
    assert_eq!(
        get.output_schema.as_ref().unwrap()["properties"]["total"]["type"],
        "integer"
    );
    let old_get = &rich.actions["old_get"];
    assert_eq!(old_get.deprecated.as_deref(), Some("rich.get"));
    assert_eq!(
        old_get.guards,
        json!({"maxActive": 2, "maxQueue": 5, "rateLimit": {"calls": 10, "periodMs": 60000, "scope": "global"}, "timeoutMs": 2000})
    );
    let wipe = &built.tools["wipe"];
    assert_eq!(wipe.discriminator, None);
    assert!(wipe.actions["wipe"].annotations.destructive);
}

#[test]
fn a_foreign_tool_is_one_action_with_mcp_default_annotations() {
    let tools = vec![
        json!({
            "name": "echo",
            "description": "Echo a message.",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
        }),
        json!({
            "name": "sum",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "title": "Sum"},
        }),
    ];
    let contract = ServerContract::from_tools_json(&tools).unwrap();
    let echo = &contract.tools["echo"];
    assert_eq!(echo.description.as_deref(), Some("Echo a message."));
    assert_eq!(echo.actions.len(), 1);
    let action = &echo.actions["echo"];
    assert_eq!(action.description.as_deref(), Some("Echo a message."));
    assert_eq!(
        action.annotations,
        Annotations {
            read_only: false,
            destructive: true,
            idempotent: false
        }
    );
    assert!(contract.tools["sum"].actions["sum"].annotations.read_only);
    assert!(!contract.tools["sum"].actions["sum"].annotations.destructive);
}

#[test]
fn malformed_tools_list_entries_are_named() {
    let err = ServerContract::from_tools_json(&[json!({"name": "t", "inputSchema": {}, "_meta": {"mcp-fusion/actions": [{"inputSchema": {}}]}})])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool \"t\", action 0 of _meta[\"mcp-fusion/actions\"]: has no name"
    );
    let err = ServerContract::from_tools_json(&[
        json!({"name": "t", "inputSchema": {}}),
        json!({"name": "t", "inputSchema": {}}),
    ])
    .unwrap_err();
    assert_eq!(err.to_string(), "the tool \"t\" is listed twice");
    let err =
        ServerContract::from_tools_json(&[json!({"name": "t", "inputSchema": 3})]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool \"t\": \"inputSchema\" must be a JSON object"
    );
}

#[test]
fn a_lockfile_without_the_results_slots_loads_with_none() {
    let lock = Lockfile::parse(TINY_TEXT).unwrap();
    let action = &lock.contract.tools["reports"].actions["summary"];
    assert_eq!(action.results, json!({}));
    assert_eq!(action.digest(), ACTION_DIGEST);
}

#[test]
fn the_results_slots_round_trip_and_change_the_digest() {
    let mut lock = tiny();
    let action = lock
        .contract
        .tools
        .get_mut("reports")
        .unwrap()
        .actions
        .get_mut("summary")
        .unwrap();
    action.results = json!({
        "egressLimitBytes": 65536,
        "freshness": {"maxAgeSeconds": 30},
        "invalidates": ["invoices.*"],
        "reads": ["invoices"]
    });
    assert_ne!(action.digest(), ACTION_DIGEST);
    let lock = Lockfile::new(lock.contract.clone(), lock.server.clone());
    let text = lock.render();
    assert!(text.contains("\"egressLimitBytes\": 65536"), "{text}");
    assert_eq!(Lockfile::parse(&text).unwrap(), lock);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_results_slots_are_the_same_built_and_listed() {
    async fn list() -> Result<&'static str, ToolError> {
        Ok("[]")
    }
    async fn pay() -> Result<&'static str, ToolError> {
        Ok("paid")
    }
    let server = FusionServer::builder("billing", "1.0.0")
        .group(
            Group::new("billing")
                .action(
                    Action::new("list_invoices", list)
                        .reads("invoices")
                        .freshness(mcp_fusion::present::Freshness::Seconds(30))
                        .egress_limit(65_536),
                )
                .action(Action::new("pay_invoice", pay).invalidates("invoices.*")),
        )
        .build()
        .unwrap();
    let built = ServerContract::of_server(&server);
    let actions = &built.tools["billing"].actions;
    assert_eq!(
        actions["list_invoices"].results,
        json!({"egressLimitBytes": 65536, "freshness": {"maxAgeSeconds": 30}, "reads": ["invoices"]})
    );
    assert_eq!(
        actions["pay_invoice"].results,
        json!({"invalidates": ["invoices.*"]})
    );
    let client = server
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    let listed = ServerContract::from_tools(&client.list_tools().await.unwrap()).unwrap();
    client.close().await;
    assert_eq!(listed, built);
}
