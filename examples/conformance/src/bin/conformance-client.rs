//! The client the official MCP conformance suite runs in its `client` mode
//! (`conformance client --command "conformance-client" --requirements
//! 2026-07-28`, or `--scenario NAME`): a `FusionClient`, given the server URL
//! as its last argument, the scenario in `MCP_CONFORMANCE_SCENARIO`, the
//! revision to speak in `MCP_CONFORMANCE_PROTOCOL_VERSION` (`2025-11-25`, the
//! default, or `2026-07-28`) and the scenario's data in
//! `MCP_CONFORMANCE_CONTEXT` (JSON: `toolCalls` for the scenarios that name
//! the calls to make; `client_id` and `client_secret` for some `auth/*`
//! ones; `private_key_pem` and `signing_algorithm` for
//! `auth/client-credentials-jwt`; `idp_issuer`, `idp_token_endpoint`,
//! `idp_client_id` and `idp_id_token` for
//! `auth/enterprise-managed-authorization`).
//!
//! Every scenario runs the same way, the suite's mock server checking what
//! the client did:
//!
//! 1. connect (OAuth when the server answers `401`; on 2026-07-28
//!    `server/discover` and self-contained requests), declaring elicitation,
//!    sampling and roots: an elicitation is accepted with the requested
//!    schema's defaults (else the first enum value, `true`, `0` or `""`), a
//!    sampling request answered with a fixed text, `roots/list` with one
//!    root;
//! 2. list the tools;
//! 3. call the context's `toolCalls` when it gives some, else every listed
//!    tool (`add_numbers` with `{"a": 2, "b": 3}`, the others with `{}`);
//!    an input-required result is answered and retried by the client itself.
//!
//! Except: `json-schema-ref-no-deref` only lists (its server serves nothing
//! else), `json-schema-2020-12-preservation` calls `json_schema_echo` with
//! the `inputSchema` of `json_schema_2020_12_tool` as listed, and
//! `sse-retry` waits [`SSE_RETRY_SETTLE`] before its call: its mock server
//! takes any GET for the client's reconnection after the tool's stream
//! closes, the GET stream a 2025-11-25 client opens after `initialize`
//! (MCP 2025-11-25 basic/transports "Listening for Messages from the
//! Server") included, so that stream must be open before the call starts.
//!
//! The authorization URL is "opened" by a GET that follows redirects, so the
//! authorization server's redirect reaches the client's loopback listener
//! as a browser's would.
//!
//! Exit status: 0 when every step succeeded, 1 otherwise (the error on
//! stderr, with its causes).

// The suite's scenarios still exercise sampling and roots, deprecated by
// SEP-2577 (2026-07-28) in rmcp's types.
#![allow(deprecated)]

use std::process::ExitCode;
use std::time::Duration;

use mcp_fusion::client::{
    ClientAssertionAlgorithm, ClientAssertionKey, ClientOptions, ElicitationHandler,
    EnterpriseIdentity, FusionClient, OAuthOptions, ProtocolRevision, SamplingHandler, Target,
};
use mcp_fusion::model::{
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction, Root,
    SamplingMessage,
};
use serde_json::{Map, Value, json};

/// The Client ID Metadata Document URL the suite's `auth/basic-cimd`
/// authorization server accepts as a client id.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Below the suite's 30 s per scenario, so a hang fails here with a reason.
const LIMIT: Duration = Duration::from_secs(25);

/// How long `sse-retry` lets the client's GET stream open before the call:
/// rmcp's transport opens it on its own after `notifications/initialized`
/// and says nothing when it is open; 300 ms failed 1 run in 8 on a loaded
/// 2-core machine, 1 s leaves room for a slow start.
const SSE_RETRY_SETTLE: Duration = Duration::from_secs(1);

#[tokio::main]
async fn main() -> ExitCode {
    // The suite appends the server's URL to the command it was given.
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let revision = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        Ok(version) => match version.parse::<ProtocolRevision>() {
            Ok(revision) => revision,
            Err(error) => {
                eprintln!("conformance-client: MCP_CONFORMANCE_PROTOCOL_VERSION: {error}");
                return ExitCode::from(2);
            }
        },
        Err(_) => ProtocolRevision::V2025_11_25,
    };
    match tokio::time::timeout(LIMIT, run(&url, &scenario, &context, revision)).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(&*error);
            while let Some(cause) = source {
                text.push_str(&format!("\n  caused by: {cause}"));
                source = cause.source();
            }
            eprintln!("conformance-client ({scenario}): {text}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!(
                "conformance-client ({scenario}): no result within {} s",
                LIMIT.as_secs()
            );
            ExitCode::FAILURE
        }
    }
}

/// The OAuth options for `scenario`: client credentials for the
/// `auth/client-credentials-*` scenarios (`private_key_jwt` when the context
/// gives a private key), enterprise-managed authorization when the context
/// gives an IdP ID token, else the authorization code grant (with the
/// context's pre-registered client when it gives one).
fn oauth_options(scenario: &str, context: &Value) -> OAuthOptions {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut options = if let Some(pem) = text("private_key_pem") {
        let algorithm = text("signing_algorithm")
            .and_then(|name| name.parse().ok())
            .unwrap_or(ClientAssertionAlgorithm::Es256);
        OAuthOptions::client_credentials_jwt(
            text("client_id").unwrap_or_default(),
            ClientAssertionKey::new(pem, algorithm),
        )
    } else if let Some(id_token) = text("idp_id_token") {
        let identity = EnterpriseIdentity::new(
            text("idp_issuer").unwrap_or_default(),
            text("idp_token_endpoint").unwrap_or_default(),
            text("idp_client_id").unwrap_or_default(),
            id_token,
        );
        let mut options =
            OAuthOptions::enterprise_managed(identity, text("client_id").unwrap_or_default());
        if let Some(secret) = text("client_secret") {
            options = options.client_secret(secret);
        }
        options
    } else if scenario.starts_with("auth/client-credentials") {
        OAuthOptions::client_credentials(
            text("client_id").unwrap_or_default(),
            text("client_secret").unwrap_or_default(),
        )
    } else {
        let mut options = OAuthOptions::authorization_code()
            .client_metadata_url(CLIENT_METADATA_URL)
            .client_name("mcp-fusion conformance client");
        if let Some(id) = text("client_id") {
            options = options.client_id(id);
        }
        if let Some(secret) = text("client_secret") {
            options = options.client_secret(secret);
        }
        options
    };
    // The backcompat scenarios' 2025-03-26 servers publish no metadata and
    // serve the default endpoints at their origin.
    options = options
        .legacy_endpoints(true)
        .redirect_timeout(Duration::from_secs(10))
        .on_authorization_url(|url| {
            let url = url.to_owned();
            tokio::spawn(async move {
                if let Err(error) = reqwest::get(&url).await {
                    eprintln!("conformance-client: opening the authorization URL failed: {error}");
                }
            });
        });
    options
}

/// The value a user accepting `property` (one property of an elicitation's
/// `requestedSchema`) without typing anything gives: its `default`, else its
/// first `enum` value, else one of its type.
fn accepted_value(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    if let Some(first) = property
        .get("oneOf")
        .and_then(Value::as_array)
        .and_then(|options| options.first())
        .and_then(|option| option.get("const"))
    {
        return first.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("boolean") => json!(true),
        Some("integer" | "number") => json!(0),
        Some("array") => json!([]),
        _ => json!(""),
    }
}

/// Accepts a form elicitation with [`accepted_value`] for each property,
/// and a URL elicitation as opened.
fn elicitation() -> ElicitationHandler {
    ElicitationHandler::new(|request: ElicitRequestParams| async move {
        match request {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => {
                let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
                let content: Map<String, Value> = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|properties| {
                        properties
                            .iter()
                            .map(|(name, property)| (name.clone(), accepted_value(property)))
                            .collect()
                    })
                    .unwrap_or_default();
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            _ => ElicitResult::new(ElicitationAction::Accept),
        }
    })
}

/// Answers every sampling request with one fixed assistant text.
fn sampling() -> SamplingHandler {
    SamplingHandler::new(|_request| async move {
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("This is a response from the conformance client."),
            String::from("conformance-client"),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    })
}

/// The calls the context names (`toolCalls`: `[{name, arguments}]`).
fn context_calls(context: &Value) -> Option<Vec<(String, Value)>> {
    let calls = context.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|call| {
                let name = call.get("name")?.as_str()?.to_owned();
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Some((name, arguments))
            })
            .collect(),
    )
}

async fn run(
    url: &str,
    scenario: &str,
    context: &Value,
    revision: ProtocolRevision,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let options = ClientOptions::default()
        .protocol(revision)
        .connect_timeout(Duration::from_secs(10))
        .call_timeout(Duration::from_secs(10))
        .elicitation(elicitation())
        .sampling(sampling())
        .roots([Root::new("file:///tmp/conformance").with_name("conformance")])
        .oauth(oauth_options(scenario, context));
    let client = FusionClient::connect(&Target::http(url), options).await?;
    let tools = client.list_tools().await?;
    match scenario {
        "json-schema-ref-no-deref" => {}
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            let schema = Value::Object(focal.input_schema.as_ref().clone());
            client
                .call("json_schema_echo", json!({ "schema": schema }))
                .await?;
        }
        _ => {
            if scenario == "sse-retry" {
                tokio::time::sleep(SSE_RETRY_SETTLE).await;
            }
            let calls = context_calls(context).unwrap_or_else(|| {
                tools
                    .iter()
                    .map(|tool| {
                        let arguments = if tool.name == "add_numbers" {
                            json!({"a": 2, "b": 3})
                        } else {
                            json!({})
                        };
                        (tool.name.to_string(), arguments)
                    })
                    .collect()
            });
            for (name, arguments) in calls {
                client.call(&name, arguments).await?;
            }
        }
    }
    client.close().await;
    Ok(())
}
