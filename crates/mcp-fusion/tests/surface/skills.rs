//! Skills (SEP-2640) served from `examples/skills` through rmcp's
//! `SkillCatalog`: the exact wire of `skills/list`, `skills/get`,
//! `resources/directory/read` and `resources/read` of a skill's files
//! through rmcp's client in process (2025-11-25) and as raw 2026-07-28
//! requests over HTTP; a hidden file and an unknown skill; the skills merged
//! into `resources/list`; a scope the skills require refused like any
//! other; a reload telling clients the resources changed; a missing
//! directory refused at build.

use std::path::PathBuf;

use mcp_fusion::model::{GetSkillRequestParams, ReadResourceDirectoryRequestParams};
use mcp_fusion::{BuildError, FusionServer, Resource, Skills, StaticTokens};
use rmcp::model::{ErrorData, sha256_digest};
use serde_json::{Value, json};

use crate::connection::{
    ClientSetup, Connected, HttpServed, answer, connect, error_json, from_json,
};

/// `examples/skills`: `invoice-reminders` (with `templates/reminder.txt`
/// and a hidden `.drafts.md`) and the nested `invoice-reminders/refunds`.
fn example_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills")
}

/// The `{uri, digest, size}` of the example file at `path` (below
/// `examples/skills`), from its bytes on disk.
fn file_entry(path: &str) -> Value {
    let bytes = std::fs::read(example_dir().join(path)).unwrap();
    json!({
        "uri": format!("skill://{path}"),
        "digest": sha256_digest(&bytes),
        "size": bytes.len(),
    })
}

/// The text of the example file at `path`.
fn file_text(path: &str) -> String {
    std::fs::read_to_string(example_dir().join(path)).unwrap()
}

fn refunds() -> Value {
    json!({
        "uri": "skill://invoice-reminders/refunds/SKILL.md",
        "frontmatter": {
            "name": "refunds",
            "description": "Refund a paid invoice, in part or in full.",
        },
        "resources": [file_entry("invoice-reminders/refunds/SKILL.md")],
    })
}

fn invoice_reminders() -> Value {
    json!({
        "uri": "skill://invoice-reminders/SKILL.md",
        "frontmatter": {
            "name": "invoice-reminders",
            "description": "Write a polite payment reminder for an overdue invoice.",
        },
        "resources": [
            file_entry("invoice-reminders/SKILL.md"),
            file_entry("invoice-reminders/refunds/SKILL.md"),
            file_entry("invoice-reminders/templates/reminder.txt"),
        ],
    })
}

fn server() -> FusionServer {
    FusionServer::builder("docs", "1.0.0")
        .resource(Resource::text("docs://readme", "readme", "Read me first."))
        .skills_dir(example_dir())
        .build()
        .unwrap()
}

async fn read(connected: &Connected, uri: &str) -> Result<Value, ErrorData> {
    answer(
        connected
            .client
            .read_resource(from_json(json!({ "uri": uri })))
            .await,
    )
}

async fn get(connected: &Connected, uri: &str) -> Result<Value, ErrorData> {
    answer(
        connected
            .client
            .get_skill(GetSkillRequestParams::new(uri))
            .await,
    )
}

async fn directory(connected: &Connected, uri: &str) -> Result<Value, ErrorData> {
    answer(
        connected
            .client
            .read_resource_directory(ReadResourceDirectoryRequestParams::new(uri))
            .await,
    )
}

#[tokio::test]
async fn the_extension_is_declared_with_resources() {
    let connected = connect(&server()).await;
    let capabilities = connected.server_capabilities();
    assert_eq!(
        capabilities["extensions"],
        json!({"io.modelcontextprotocol/skills": {"directoryRead": true}})
    );
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    connected.close().await;
}

#[tokio::test]
async fn skills_list_and_get_give_each_skill_with_its_files() {
    let connected = connect(&server()).await;
    let listed = answer(connected.client.list_skills(None).await).unwrap();
    assert_eq!(listed, json!({"skills": [invoice_reminders(), refunds()]}));
    assert_eq!(
        get(&connected, "skill://invoice-reminders/refunds/SKILL.md")
            .await
            .unwrap(),
        json!({"skill": refunds()})
    );
    let unknown = get(&connected, "skill://invoices/SKILL.md")
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&unknown),
        json!({"code": -32602, "message": "unknown skill skill://invoices/SKILL.md", "data": null})
    );
    connected.close().await;
}

#[tokio::test]
async fn a_directory_of_a_skill_lists_its_children() {
    let connected = connect(&server()).await;
    assert_eq!(
        directory(&connected, "skill://invoice-reminders")
            .await
            .unwrap(),
        json!({"resources": [
            {
                "uri": "skill://invoice-reminders/SKILL.md",
                "name": "SKILL.md",
                "mimeType": "text/markdown",
                "size": file_text("invoice-reminders/SKILL.md").len(),
            },
            {
                "uri": "skill://invoice-reminders/refunds",
                "name": "refunds",
                "mimeType": "inode/directory",
            },
            {
                "uri": "skill://invoice-reminders/templates",
                "name": "templates",
                "mimeType": "inode/directory",
            },
        ]})
    );
    let file = directory(&connected, "skill://invoice-reminders/SKILL.md")
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&file),
        json!({"code": -32602, "message": "not a directory: skill://invoice-reminders/SKILL.md", "data": null})
    );
    connected.close().await;
}

#[tokio::test]
async fn skill_files_are_read_as_resources_and_hidden_ones_are_not() {
    let connected = connect(&server()).await;
    assert_eq!(
        read(&connected, "skill://invoice-reminders/SKILL.md")
            .await
            .unwrap(),
        json!({"contents": [{
            "uri": "skill://invoice-reminders/SKILL.md",
            "mimeType": "text/markdown",
            "text": file_text("invoice-reminders/SKILL.md"),
        }]})
    );
    assert_eq!(
        read(
            &connected,
            "skill://invoice-reminders/templates/reminder.txt"
        )
        .await
        .unwrap(),
        json!({"contents": [{
            "uri": "skill://invoice-reminders/templates/reminder.txt",
            "mimeType": "text/plain",
            "text": file_text("invoice-reminders/templates/reminder.txt"),
        }]})
    );
    let hidden = read(&connected, "skill://invoice-reminders/.drafts.md")
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&hidden),
        json!({
            "code": -32002,
            "message": "There is no resource named \"skill://invoice-reminders/.drafts.md\". Did you mean \"skill://invoice-reminders/SKILL.md\"? Valid: docs://readme, skill://invoice-reminders/SKILL.md, skill://invoice-reminders/refunds/SKILL.md.",
            "data": {
                "uri": "skill://invoice-reminders/.drafts.md",
                "closest": "skill://invoice-reminders/SKILL.md",
                "valid": [
                    "docs://readme",
                    "skill://invoice-reminders/SKILL.md",
                    "skill://invoice-reminders/refunds/SKILL.md",
                ],
            },
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn resources_list_shows_each_skill_md_after_the_servers_own() {
    let connected = connect(&server()).await;
    let listed = answer(connected.client.list_resources(None).await).unwrap();
    assert_eq!(
        listed,
        json!({"resources": [
            {"uri": "docs://readme", "name": "readme"},
            {
                "uri": "skill://invoice-reminders/SKILL.md",
                "name": "invoice-reminders",
                "description": "Write a polite payment reminder for an overdue invoice.",
                "mimeType": "text/markdown",
                "size": file_text("invoice-reminders/SKILL.md").len(),
            },
            {
                "uri": "skill://invoice-reminders/refunds/SKILL.md",
                "name": "refunds",
                "description": "Refund a paid invoice, in part or in full.",
                "mimeType": "text/markdown",
                "size": file_text("invoice-reminders/refunds/SKILL.md").len(),
            },
        ]})
    );
    connected.close().await;
}

#[tokio::test]
async fn a_missing_directory_is_a_build_error_naming_it() {
    let error = FusionServer::builder("docs", "1.0.0")
        .skills_dir("/nonexistent/skills")
        .build()
        .unwrap_err();
    assert!(
        matches!(&error, BuildError::SkillsDirectory { path, .. } if path == "/nonexistent/skills"),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "the skills directory /nonexistent/skills cannot be read: cannot read /nonexistent/skills: No such file or directory (os error 2)"
    );
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fusion-skills-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_skill(root: &std::path::Path, name: &str, description: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

#[tokio::test]
async fn a_reload_picks_up_changes_and_tells_clients() {
    let root = temp_dir("reload");
    write_skill(&root, "alpha", "First.");
    let server = FusionServer::builder("docs", "1.0.0")
        .skills_dir(&root)
        .build()
        .unwrap();
    let connected = connect(&server).await;
    assert!(!server.reload_skills().await.unwrap(), "nothing changed");
    connected.settle().await;
    assert!(
        connected
            .recorder
            .seen_of("notifications/resources/list_changed")
            .is_empty()
    );
    write_skill(&root, "beta", "Second.");
    assert!(server.reload_skills().await.unwrap());
    connected
        .recorder
        .wait_for("notifications/resources/list_changed", 1)
        .await;
    let listed = answer(connected.client.list_skills(None).await).unwrap();
    let uris: Vec<&str> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
    // A directory gone: the skills read before keep being served.
    std::fs::remove_dir_all(&root).unwrap();
    let error = server.reload_skills().await.unwrap_err();
    assert!(
        matches!(&error, BuildError::SkillsDirectory { .. }),
        "{error}"
    );
    assert_eq!(
        get(&connected, "skill://beta/SKILL.md").await.unwrap()["skill"]["frontmatter"],
        json!({"name": "beta", "description": "Second."})
    );
    connected.close().await;
}

// ---------------------------------------------------------------------------
// Over HTTP: scopes, and MCP 2026-07-28

fn scoped_server() -> FusionServer {
    FusionServer::builder("docs", "1.0.0")
        .auth(
            StaticTokens::new()
                .token("alice-token", "alice", ["skills:read"])
                .token("bob-token", "bob", Vec::<String>::new()),
        )
        .allow_anonymous(true)
        .resource(Resource::text("docs://readme", "readme", "Open to all."))
        .skills(Skills::dir(example_dir()).requires_scopes(["skills:read"]))
        .build()
        .unwrap()
}

/// The URIs `connected` is shown in `resources/list`, and the skills in
/// `skills/list`.
async fn shown(connected: &Connected) -> (Vec<String>, usize) {
    let resources = connected.client.list_resources(None).await.unwrap();
    let skills = connected.client.list_skills(None).await;
    (
        resources
            .resources
            .into_iter()
            .map(|r| r.uri.clone())
            .collect(),
        skills.map(|s| s.skills.len()).unwrap_or(usize::MAX),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_the_skills_scope_is_forbidden_naming_it() {
    let served = HttpServed::start(&scoped_server()).await;
    let alice = served.connect_as("alice-token").await;
    assert_eq!(
        shown(&alice).await,
        (
            vec![
                String::from("docs://readme"),
                String::from("skill://invoice-reminders/SKILL.md"),
                String::from("skill://invoice-reminders/refunds/SKILL.md"),
            ],
            2
        )
    );
    assert_eq!(
        get(&alice, "skill://invoice-reminders/refunds/SKILL.md")
            .await
            .unwrap(),
        json!({"skill": refunds()})
    );
    let bob = served.connect_as("bob-token").await;
    let message = |name: &str| {
        format!("{name} needs the scope \"skills:read\", which these credentials do not have.")
    };
    let recovery = "Do not retry: the same credentials will be refused again. Tell the user the token lacks the scope \"skills:read\" and ask for one that has it.";
    let refusals = [
        (
            "skills/list",
            answer(bob.client.list_skills(None).await).unwrap_err(),
        ),
        (
            "skill://invoice-reminders/SKILL.md",
            get(&bob, "skill://invoice-reminders/SKILL.md")
                .await
                .unwrap_err(),
        ),
        (
            "skill://invoice-reminders",
            directory(&bob, "skill://invoice-reminders")
                .await
                .unwrap_err(),
        ),
        (
            "skill://invoice-reminders/templates/reminder.txt",
            read(&bob, "skill://invoice-reminders/templates/reminder.txt")
                .await
                .unwrap_err(),
        ),
        // A skill or folder that does not exist is refused the same way:
        // the guards run first, so a refused caller learns no names.
        (
            "skill://nope/SKILL.md",
            get(&bob, "skill://nope/SKILL.md").await.unwrap_err(),
        ),
        (
            "skill://nope",
            directory(&bob, "skill://nope").await.unwrap_err(),
        ),
    ];
    for (name, error) in refusals {
        let message = message(name);
        assert_eq!(
            error_json(&error),
            json!({
                "code": -32603,
                "message": format!(
                    "<tool_error code=\"FORBIDDEN\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"missing_scopes\">skills:read</detail>\n  </details>\n</tool_error>"
                ),
                "data": {
                    "code": "FORBIDDEN",
                    "severity": "error",
                    "message": message,
                    "recovery": recovery,
                    "details": {"missing_scopes": "skills:read"},
                },
            }),
            "{name}"
        );
    }
    // An anonymous caller is not shown the skills at all.
    let anonymous = served.connect_with(ClientSetup::default()).await;
    assert_eq!(
        shown(&anonymous).await,
        (vec![String::from("docs://readme")], 0)
    );
    for connected in [alice, bob, anonymous] {
        connected.client.cancel().await.unwrap();
    }
    served.stop().await;
}

/// The one JSON-RPC message of a 2026-07-28 answer (a JSON body or an SSE
/// stream of one message).
async fn only_message(response: reqwest::Response) -> Value {
    crate::stateless::Messages::of(response).next().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_served_on_2026_07_28() {
    use fusion_test_support::stateless::post;
    let served = HttpServed::start(&server()).await;
    let listed = only_message(post(&served.url, 1, "skills/list", json!({}), &[]).await).await;
    assert_eq!(
        listed["result"]["skills"],
        json!([invoice_reminders(), refunds()])
    );
    let got = only_message(
        post(
            &served.url,
            2,
            "skills/get",
            json!({"uri": "skill://invoice-reminders/refunds/SKILL.md"}),
            &[],
        )
        .await,
    )
    .await;
    assert_eq!(got["result"]["skill"], refunds());
    let children = only_message(
        post(
            &served.url,
            3,
            "resources/directory/read",
            json!({"uri": "skill://invoice-reminders/templates"}),
            &[],
        )
        .await,
    )
    .await;
    assert_eq!(
        children["result"]["resources"],
        json!([{
            "uri": "skill://invoice-reminders/templates/reminder.txt",
            "name": "reminder.txt",
            "mimeType": "text/plain",
            "size": file_text("invoice-reminders/templates/reminder.txt").len(),
        }])
    );
    let file = only_message(
        post(
            &served.url,
            4,
            "resources/read",
            json!({"uri": "skill://invoice-reminders/refunds/SKILL.md"}),
            &[("mcp-name", "skill://invoice-reminders/refunds/SKILL.md")],
        )
        .await,
    )
    .await;
    assert_eq!(
        file["result"]["contents"],
        json!([{
            "uri": "skill://invoice-reminders/refunds/SKILL.md",
            "mimeType": "text/markdown",
            "text": file_text("invoice-reminders/refunds/SKILL.md"),
        }])
    );
    served.stop().await;
}

// ---------------------------------------------------------------------------
// FusionClient, and the layers around the skills

#[tokio::test]
async fn fusion_client_lists_gets_and_reads_directories() {
    use mcp_fusion::ClientOptions;
    let client = server()
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap();
    let skills = client.list_skills().await.unwrap();
    assert_eq!(
        serde_json::to_value(&skills).unwrap(),
        json!([invoice_reminders(), refunds()])
    );
    let skill = client
        .get_skill("skill://invoice-reminders/refunds/SKILL.md")
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(&skill).unwrap(), refunds());
    let children = client
        .read_resource_directory("skill://invoice-reminders/refunds")
        .await
        .unwrap();
    assert_eq!(
        children.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(),
        ["skill://invoice-reminders/refunds/SKILL.md"]
    );
    let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "JSON-RPC error -32602: unknown skill skill://nope/SKILL.md"
    );
    client.close().await;
}

#[tokio::test]
async fn a_layer_sees_each_skills_request_and_may_refuse_it() {
    use std::sync::{Arc, Mutex};

    use mcp_fusion::{Call, Next, ToolError, from_fn};
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let log = Arc::clone(&seen);
    let layer = from_fn(move |call: Call, next: Next| {
        log.lock().unwrap().push(json!({
            "capability": call.ctx.capability().as_str(),
            "name": call.ctx.name(),
            "args": call.args.clone(),
        }));
        async move {
            if call.args["uri"] == "skill://invoice-reminders/refunds/SKILL.md" {
                return Err(ToolError::new(
                    mcp_fusion::ErrorCode::Forbidden,
                    "Refunds are closed today.",
                ));
            }
            next.run(call).await
        }
    });
    let server = FusionServer::builder("docs", "1.0.0")
        .skills(Skills::dir(example_dir()).layer(layer))
        .build()
        .unwrap();
    let connected = connect(&server).await;
    answer(connected.client.list_skills(None).await).unwrap();
    get(&connected, "skill://invoice-reminders/SKILL.md")
        .await
        .unwrap();
    directory(&connected, "skill://invoice-reminders")
        .await
        .unwrap();
    read(
        &connected,
        "skill://invoice-reminders/templates/reminder.txt",
    )
    .await
    .unwrap();
    let refused = read(&connected, "skill://invoice-reminders/refunds/SKILL.md")
        .await
        .unwrap_err();
    assert_eq!(refused.code.0, -32603);
    assert_eq!(refused.data.unwrap()["code"], "FORBIDDEN");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            json!({"capability": "skill", "name": "skills/list",
                   "args": {"method": "skills/list", "uri": null}}),
            json!({"capability": "skill", "name": "skill://invoice-reminders/SKILL.md",
                   "args": {"method": "skills/get", "uri": "skill://invoice-reminders/SKILL.md"}}),
            json!({"capability": "skill", "name": "skill://invoice-reminders",
                   "args": {"method": "resources/directory/read", "uri": "skill://invoice-reminders"}}),
            json!({"capability": "resource", "name": "skill://invoice-reminders/templates/reminder.txt",
                   "args": {"method": "resources/read", "uri": "skill://invoice-reminders/templates/reminder.txt"}}),
            json!({"capability": "resource", "name": "skill://invoice-reminders/refunds/SKILL.md",
                   "args": {"method": "resources/read", "uri": "skill://invoice-reminders/refunds/SKILL.md"}}),
        ]
    );
    connected.close().await;
}

#[tokio::test]
async fn skill_md_files_are_paged_with_the_servers_resources() {
    let server = FusionServer::builder("docs", "1.0.0")
        .resource(Resource::text("docs://readme", "readme", "Read me first."))
        .skills_dir(example_dir())
        .page_size(2)
        .build()
        .unwrap();
    let connected = connect(&server).await;
    let first = connected.client.list_resources(None).await.unwrap();
    assert_eq!(
        first
            .resources
            .iter()
            .map(|r| r.uri.as_str())
            .collect::<Vec<_>>(),
        ["docs://readme", "skill://invoice-reminders/SKILL.md"]
    );
    let cursor = first.next_cursor.expect("a second page");
    let second = connected
        .client
        .list_resources(Some(from_json(json!({ "cursor": cursor }))))
        .await
        .unwrap();
    assert_eq!(
        second
            .resources
            .iter()
            .map(|r| r.uri.as_str())
            .collect::<Vec<_>>(),
        ["skill://invoice-reminders/refunds/SKILL.md"]
    );
    assert_eq!(second.next_cursor, None);
    connected.close().await;
}
