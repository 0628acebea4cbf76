//! SEP-2549 caching hints on the wire (MCP 2026-07-28
//! server/utilities/caching): declared per method (`ServerBuilder::cache_hint`)
//! and per resource (`Resource::cache_hint`), in milliseconds; `"private"`
//! whenever the list or read depends on the caller, though `"public"` was
//! declared; `ttlMs: 0`, `"private"` where nothing was declared; none on an
//! input-required result, none on an error, none on 2025-11-25.

use std::time::Duration;

use mcp_fusion::capability::{CacheHint, CacheableMethod};
use mcp_fusion::model::{ElicitationSchema, ReadResourceRequestParams};
use mcp_fusion::{Action, CallContext, FusionServer, Prompt, Resource, ToolError};
use serde_json::{Value, json};

use crate::connection::{HttpServed, connect, to_json};
use crate::stateless::post;

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

async fn secret(ctx: CallContext) -> Result<String, ToolError> {
    let schema = ElicitationSchema::builder()
        .required_string("code")
        .build()
        .map_err(ToolError::internal)?;
    ctx.elicit("The access code?", schema).await?;
    Ok(String::from("opened"))
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn server() -> FusionServer {
    FusionServer::builder("hinted", "1.0.0")
        .tool(Action::new("a", ok))
        .prompt(Prompt::new("mine", ok).visible_when(|_| true))
        .resource(
            Resource::text("test://doc", "doc", "Doc.").cache_hint(CacheHint::public(secs(90))),
        )
        .resource(
            Resource::text("test://per-caller", "per-caller", "Yours.")
                .visible_when(|_| true)
                .cache_hint(CacheHint::public(secs(90))),
        )
        .resource(Resource::text("test://plain", "plain", "Plain."))
        .resource(Resource::new("vault://secret", "secret", secret))
        .cache_hint(CacheableMethod::Discover, CacheHint::public(secs(3_600)))
        .cache_hint(CacheableMethod::ToolsList, CacheHint::public(secs(300)))
        .cache_hint(CacheableMethod::PromptsList, CacheHint::public(secs(60)))
        .cache_hint(
            CacheableMethod::ResourcesRead,
            CacheHint::private(Duration::from_millis(2_500)),
        )
        .build()
        .unwrap()
}

/// The JSON-RPC response to a 2026-07-28 `method` request with `params`
/// (a JSON body, or the `data:` line of an SSE stream); a read's URI in
/// the `Mcp-Name` header.
async fn answer(url: &str, method: &str, params: Value) -> Value {
    let name = params["uri"].as_str().unwrap_or("").to_owned();
    let header = [("mcp-name", name.as_str())];
    let headers: &[(&str, &str)] = if name.is_empty() { &[] } else { &header };
    let response = post(url, 1, method, params, headers).await;
    let body = response.text().await.unwrap();
    let json = body
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The `result` of a 2026-07-28 `method` request with `params`.
async fn result(url: &str, method: &str, params: Value) -> Value {
    let mut whole = answer(url, method, params).await;
    assert!(whole.get("error").is_none(), "{whole}");
    whole["result"].take()
}

/// `ttlMs` and `cacheScope` of `result`.
fn hints(result: &Value) -> Value {
    json!({"ttlMs": result["ttlMs"], "cacheScope": result["cacheScope"]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_method_and_resource_sends_the_hint_declared_for_it() {
    let served = HttpServed::start(&server()).await;
    let url = &served.url;
    let tools = result(url, "tools/list", json!({})).await;
    assert_eq!(
        hints(&tools),
        json!({"ttlMs": 300_000, "cacheScope": "public"})
    );
    assert_eq!(tools["resultType"], "complete");
    assert_eq!(tools["tools"][0]["name"], "a");
    assert_eq!(
        hints(&result(url, "server/discover", json!({})).await),
        json!({"ttlMs": 3_600_000, "cacheScope": "public"})
    );
    // Its one prompt is shown to some callers only: never public.
    assert_eq!(
        hints(&result(url, "prompts/list", json!({})).await),
        json!({"ttlMs": 60_000, "cacheScope": "private"})
    );
    // Nothing declared: what every result carried before.
    assert_eq!(
        hints(&result(url, "resources/list", json!({})).await),
        json!({"ttlMs": 0, "cacheScope": "private"})
    );
    let doc = result(url, "resources/read", json!({"uri": "test://doc"})).await;
    assert_eq!(
        doc,
        json!({
            "resultType": "complete",
            "ttlMs": 90_000,
            "cacheScope": "public",
            "contents": [{"uri": "test://doc", "text": "Doc."}]
        })
    );
    assert_eq!(
        hints(&result(url, "resources/read", json!({"uri": "test://per-caller"})).await),
        json!({"ttlMs": 90_000, "cacheScope": "private"})
    );
    // No hint of its own: the server's for resources/read.
    assert_eq!(
        hints(&result(url, "resources/read", json!({"uri": "test://plain"})).await),
        json!({"ttlMs": 2_500, "cacheScope": "private"})
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neither_an_input_required_result_nor_an_error_carries_hints() {
    let served = HttpServed::start(&server()).await;
    let mut params = json!({"uri": "vault://secret"});
    params["_meta"] = crate::stateless::meta();
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let asked = result(&served.url, "resources/read", params).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert_eq!(hints(&asked), json!({"ttlMs": null, "cacheScope": null}));
    let refused = answer(
        &served.url,
        "resources/read",
        json!({"uri": "test://missing"}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused.get("result"), None);
    served.stop().await;
}

#[tokio::test]
async fn a_2025_11_25_client_gets_no_hints() {
    let connected = connect(&server()).await;
    assert_eq!(connected.protocol_version(), "2025-11-25");
    let tools = to_json(&connected.client.list_tools(None).await.unwrap());
    assert_eq!(tools.get("ttlMs"), None, "{tools}");
    assert_eq!(tools.get("cacheScope"), None, "{tools}");
    let read = connected
        .client
        .read_resource(ReadResourceRequestParams::new("test://doc"))
        .await
        .unwrap();
    assert_eq!(
        to_json(&read),
        json!({"contents": [{"uri": "test://doc", "text": "Doc."}]})
    );
    connected.close().await;
}
