//! `#[mcp_fusion::prompt]`, `#[mcp_fusion::resource]` and
//! `#[mcp_fusion::resource_template]` against the builders: a server made
//! with the macros and the same server written by hand list the same prompts,
//! resources and templates, and serve them the same.
//!
//! `Prompt`, `Resource` and `ResourceTemplate` show only their name or URI,
//! so both servers are served in-process (`serve_streams` over an in-memory
//! pipe) and asked, as a client would ask, for `prompts/list`,
//! `resources/list`, `resources/templates/list`, `prompts/get` and
//! `resources/read`; the JSON-RPC results are compared.

use mcp_fusion::{
    FusionServer, Prompt, Resource, ResourceTemplate, ToolError, prompt, resource,
    resource_template,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Review {
    /// The code to review.
    pub code: String,
}

/// Asks for a code review.
///
/// Of one snippet.
#[prompt(title = "Code review")]
pub async fn code_review(args: Review) -> Result<String, ToolError> {
    Ok(format!("Please review this code:\n{}", args.code))
}

/// Not this text.
#[prompt(name = "greeting", description = "Says hello.")]
async fn hello() -> Result<&'static str, ToolError> {
    Ok("Hello!")
}

/// The project's read-me.
#[resource(uri = "docs://readme", mime_type = "text/markdown", title = "Read me")]
pub(crate) async fn readme() -> Result<&'static str, ToolError> {
    Ok("# Billing\n\nRead me first.")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct InvoiceUri {
    /// The invoice id.
    pub id: String,
}

/// One invoice, as JSON.
#[resource_template(
    uri = "billing://invoices/{id}",
    name = "invoice",
    mime_type = "application/json"
)]
async fn invoice_json(vars: InvoiceUri) -> Result<String, ToolError> {
    Ok(format!("{{\"id\":\"{}\"}}", vars.id))
}

fn by_macros() -> FusionServer {
    FusionServer::builder("billing", "1.0.0")
        .prompt(code_review::prompt())
        .prompt(hello::prompt())
        .resource(readme::resource())
        .resource_template(invoice_json::resource_template())
        .build()
        .expect("the server builds")
}

fn by_hand() -> FusionServer {
    FusionServer::builder("billing", "1.0.0")
        .prompt(
            Prompt::new("code_review", code_review)
                .description("Asks for a code review.\n\nOf one snippet.")
                .title("Code review"),
        )
        .prompt(Prompt::new("greeting", hello).description("Says hello."))
        .resource(
            Resource::new("docs://readme", "readme", readme)
                .description("The project's read-me.")
                .mime_type("text/markdown")
                .title("Read me"),
        )
        .resource_template(
            ResourceTemplate::new("billing://invoices/{id}", "invoice", invoice_json)
                .description("One invoice, as JSON.")
                .mime_type("application/json"),
        )
        .build()
        .expect("the server builds")
}

/// The requests a client sends after the handshake.
fn requests() -> Vec<Value> {
    vec![
        json!({"method": "prompts/list"}),
        json!({"method": "resources/list"}),
        json!({"method": "resources/templates/list"}),
        json!({"method": "prompts/get", "params": {"name": "code_review", "arguments": {"code": "fn main() {}"}}}),
        json!({"method": "prompts/get", "params": {"name": "greeting"}}),
        json!({"method": "resources/read", "params": {"uri": "docs://readme"}}),
        json!({"method": "resources/read", "params": {"uri": "billing://invoices/inv_2"}}),
    ]
}

/// The result (or error) of each of [`requests`], served by `server` over an
/// in-memory pipe.
async fn answers(server: FusionServer) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.serve_streams(
        server_read,
        server_write,
        mcp_fusion::transport::StdioOptions::default(),
        std::future::pending(),
    ));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        client_write
            .write_all(line.as_bytes())
            .await
            .expect("write");
    };

    send(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "surface_macros", "version": "0"}
        }
    }))
    .await;
    let mut pending = Vec::new();
    let requests = requests();
    for (id, mut request) in (1..).zip(requests.iter().cloned()) {
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(id);
        pending.push(request);
    }
    let mut by_id: Vec<Option<Value>> = vec![None; requests.len() + 1];
    let mut initialized = false;
    while by_id.iter().any(Option::is_none) {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), lines.next_line())
            .await
            .expect("an answer within 20s")
            .expect("read")
            .expect("the server answers every request");
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        let Some(id) = message["id"].as_u64() else {
            continue; // a notification
        };
        let answer = message
            .get("result")
            .or_else(|| message.get("error"))
            .cloned()
            .expect("a result or an error");
        by_id[usize::try_from(id).expect("a small id")] = Some(answer);
        if !initialized {
            initialized = true;
            send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
            for request in pending.drain(..) {
                send(request).await;
            }
        }
    }
    client_write.shutdown().await.expect("close the pipe");
    drop(client_write);
    serving.abort();
    by_id.into_iter().skip(1).map(Option::unwrap).collect()
}

#[tokio::test]
async fn the_macros_list_and_serve_what_the_builders_do() {
    let made = answers(by_macros()).await;
    let written = answers(by_hand()).await;
    for ((request, made), written) in requests().iter().zip(&made).zip(&written) {
        assert_eq!(made, written, "{request}");
    }

    // Not two equal nothings: the listings carry the doc comments and the
    // attributes' settings.
    assert_eq!(
        made[0]["prompts"],
        json!([
            {
                "name": "code_review",
                "title": "Code review",
                "description": "Asks for a code review.\n\nOf one snippet.",
                "arguments": [{"name": "code", "description": "The code to review.", "required": true}]
            },
            {"name": "greeting", "description": "Says hello."}
        ]),
        "{}",
        made[0]
    );
    assert_eq!(
        made[1]["resources"],
        json!([{
            "uri": "docs://readme",
            "name": "readme",
            "title": "Read me",
            "description": "The project's read-me.",
            "mimeType": "text/markdown"
        }]),
        "{}",
        made[1]
    );
    assert_eq!(
        made[2]["resourceTemplates"],
        json!([{
            "uriTemplate": "billing://invoices/{id}",
            "name": "invoice",
            "description": "One invoice, as JSON.",
            "mimeType": "application/json"
        }]),
        "{}",
        made[2]
    );
    assert_eq!(
        made[6]["contents"][0]["text"],
        json!("{\"id\":\"inv_2\"}"),
        "{}",
        made[6]
    );
}

#[test]
fn the_builders_are_named_as_the_attributes_say() {
    assert_eq!(code_review::prompt().name(), "code_review");
    assert_eq!(hello::prompt().name(), "greeting");
    assert_eq!(readme::resource().uri(), "docs://readme");
    assert_eq!(
        invoice_json::resource_template().uri_template(),
        "billing://invoices/{id}"
    );
}

/// The functions stay callable as written.
#[tokio::test]
async fn the_functions_are_unchanged() {
    assert_eq!(readme().await.unwrap(), "# Billing\n\nRead me first.");
    assert_eq!(hello().await.unwrap(), "Hello!");
    let review = code_review(Review { code: "x".into() }).await.unwrap();
    assert_eq!(review, "Please review this code:\nx");
    let invoice = invoice_json(InvoiceUri { id: "a".into() }).await.unwrap();
    assert_eq!(invoice, "{\"id\":\"a\"}");
}
