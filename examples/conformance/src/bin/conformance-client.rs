//! The client the official MCP conformance suite runs in its `client` mode
//! (`conformance client --command "conformance-client" --scenario NAME`):
//! a `FusionClient` with OAuth, given the server URL as its last argument,
//! the scenario in `MCP_CONFORMANCE_SCENARIO` and its data in
//! `MCP_CONFORMANCE_CONTEXT` (JSON: `client_id` and `client_secret`, for
//! some; `private_key_pem` and `signing_algorithm` for
//! `auth/client-credentials-jwt`; `idp_issuer`, `idp_token_endpoint`,
//! `idp_client_id` and `idp_id_token` for
//! `auth/cross-app-access-complete-flow`).
//!
//! It connects, lists the tools and calls each one with `{}`; the suite's
//! mock authorization server and mock server check what it did. The
//! authorization URL is "opened" by a GET that follows redirects, so the
//! authorization server's redirect reaches the client's loopback listener
//! as a browser's would.
//!
//! Exit status: 0 when every step succeeded, 1 otherwise (the error on
//! stderr, with its causes).

use std::process::ExitCode;
use std::time::Duration;

use mcp_fusion::client::{
    ClientAssertionAlgorithm, ClientAssertionKey, ClientOptions, EnterpriseIdentity, FusionClient,
    OAuthOptions, Target,
};
use serde_json::{Value, json};

/// The Client ID Metadata Document URL the suite's `auth/basic-cimd`
/// authorization server accepts as a client id.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Below the suite's 30 s per scenario, so a hang fails here with a reason.
const LIMIT: Duration = Duration::from_secs(25);

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
    match tokio::time::timeout(LIMIT, run(&url, &scenario, &context)).await {
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
/// gives an IdP ID token (`auth/cross-app-access-complete-flow`), else the
/// authorization code grant (with the context's pre-registered client when it
/// gives one).
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
    // The backcompat suite's 2025-03-26 servers publish no metadata and
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

async fn run(
    url: &str,
    scenario: &str,
    context: &Value,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let options = ClientOptions::default()
        .connect_timeout(Duration::from_secs(10))
        .call_timeout(Duration::from_secs(10))
        .oauth(oauth_options(scenario, context));
    let client = FusionClient::connect(&Target::http(url), options).await?;
    let tools = client.list_tools().await?;
    for tool in &tools {
        let arguments = if tool.name == "add_numbers" {
            json!({"a": 2, "b": 3})
        } else {
            json!({})
        };
        client.call(&tool.name, arguments).await?;
    }
    client.close().await;
    Ok(())
}
