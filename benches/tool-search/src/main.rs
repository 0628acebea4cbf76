//! Tool search on a gateway of 2 000 tools (issue 38 item 5).
//!
//! An upstream server of this process serves N generated tools over
//! Streamable HTTP on a local port (40 business objects × 50 operations,
//! each with a description and 2–4 parameters); two gateways mount it, one
//! plain and one with `[search]` on, and a `FusionClient` connects to each
//! in memory. Printed: the model-facing catalog (the JSON of every tool
//! `tools/list` gives, as a host hands it to the model) in o200k_base
//! tokens and bytes, with and without search; the first search (which
//! builds the index) and the p50/p90/p99 of a search round trip through
//! the client, in µs.
//!
//! `cargo run --release -p tool-search-bench [-- N SEARCHES]` (default
//! 2000 tools, 1000 searches).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_fusion::capability::ToolSearch;
use mcp_fusion::client::Target;
use mcp_fusion::gateway::{Gateway, GatewayConfig, UpstreamConfig};
use mcp_fusion::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, ClientOptions, FusionClient, FusionServer, ToolError, ToolOutput};
use serde_json::{Value, json};

const OBJECTS: [&str; 40] = [
    "invoice",
    "customer",
    "order",
    "shipment",
    "ticket",
    "refund",
    "payment",
    "subscription",
    "product",
    "warehouse",
    "supplier",
    "contract",
    "employee",
    "timesheet",
    "expense",
    "budget",
    "campaign",
    "lead",
    "opportunity",
    "quote",
    "coupon",
    "review",
    "return",
    "carrier",
    "repository",
    "branch",
    "deployment",
    "incident",
    "alert",
    "dashboard",
    "report",
    "calendar",
    "meeting",
    "document",
    "folder",
    "email",
    "message",
    "channel",
    "webhook",
    "api_key",
];

const OPERATIONS: [(&str, &str); 50] = [
    ("create", "Creates a new"),
    ("get", "Fetches one"),
    ("list", "Lists every"),
    ("update", "Changes the fields of a"),
    ("delete", "Deletes a"),
    ("archive", "Archives a"),
    ("restore", "Restores an archived"),
    ("search", "Searches by keyword for a"),
    ("export", "Exports as CSV each"),
    ("import", "Imports from CSV each"),
    ("assign", "Assigns an owner to a"),
    ("unassign", "Removes the owner of a"),
    ("approve", "Approves a pending"),
    ("reject", "Rejects a pending"),
    ("comment", "Adds a comment to a"),
    ("tag", "Adds a tag to a"),
    ("untag", "Removes a tag from a"),
    ("merge", "Merges two records of a"),
    ("split", "Splits in two a"),
    ("duplicate", "Makes a copy of a"),
    ("lock", "Locks against changes a"),
    ("unlock", "Unlocks a locked"),
    ("share", "Shares with a teammate a"),
    ("unshare", "Stops sharing a"),
    ("notify", "Sends a notification about a"),
    ("schedule", "Schedules for a later date a"),
    ("cancel", "Cancels a scheduled"),
    ("validate", "Checks for problems a"),
    ("summarize", "Writes a short summary of a"),
    ("translate", "Translates the text of a"),
    ("audit", "Lists the change history of a"),
    ("count", "Counts matching records of each"),
    ("sync", "Syncs with the external system a"),
    ("link", "Links to another record a"),
    ("unlink", "Removes a link from a"),
    ("escalate", "Raises the priority of a"),
    ("close", "Closes an open"),
    ("reopen", "Reopens a closed"),
    ("pin", "Pins to the top of the list a"),
    ("unpin", "Unpins a pinned"),
    ("rate", "Gives a score from 1 to 5 to a"),
    ("print", "Prints a PDF of a"),
    ("sign", "Signs electronically a"),
    ("verify", "Verifies the signature of a"),
    ("publish", "Publishes for customers a"),
    ("unpublish", "Hides from customers a"),
    ("forecast", "Forecasts next month's figures of each"),
    ("compare", "Compares two versions of a"),
    ("rename", "Renames a"),
    ("watch", "Subscribes to the changes of a"),
];

/// The `i`-th generated tool: `<operation>_<object>`, with a description
/// and a few parameters.
fn tool(i: usize) -> Tool {
    let object = OBJECTS[i % OBJECTS.len()];
    let (operation, phrase) = OPERATIONS[(i / OBJECTS.len()) % OPERATIONS.len()];
    let round = i / (OBJECTS.len() * OPERATIONS.len());
    let name = match round {
        0 => format!("{operation}_{object}"),
        n => format!("{operation}_{object}_v{}", n + 1),
    };
    let spoken = object.replace('_', " ");
    let mut properties = serde_json::Map::new();
    properties.insert(
        format!("{object}_id"),
        json!({"type": "string", "description": format!("The id of the {spoken}.")}),
    );
    properties.insert(
        "note".into(),
        json!({"type": "string", "description": "Why, in one sentence, for the audit log."}),
    );
    if i.is_multiple_of(2) {
        properties.insert(
            "limit".into(),
            json!({"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many."}),
        );
    }
    if i.is_multiple_of(3) {
        properties.insert(
            "dry_run".into(),
            json!({"type": "boolean", "description": "Check only; change nothing."}),
        );
    }
    let schema =
        json!({"type": "object", "properties": properties, "required": [format!("{object}_id")]});
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(
        name,
        format!(
            "{phrase} {spoken}. Returns the {spoken} as JSON; fails with NOT_FOUND when there is none."
        ),
        Arc::new(schema),
    )
}

async fn answer(args: JsonObject) -> Result<ToolOutput, ToolError> {
    let text = Value::Object(args).to_string();
    Ok(ToolOutput::result(CallToolResult::success(vec![
        ContentBlock::text(text),
    ])))
}

/// The upstream with `count` tools, served over Streamable HTTP: its URL.
async fn upstream(count: usize) -> String {
    let mut builder = FusionServer::builder("catalog", "1.0.0").page_size(500);
    for i in 0..count {
        builder = builder.tool(Action::from_tool(tool(i), answer));
    }
    let server = builder.build().expect("the generated tools build");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server.serve_http_on(listener, HttpOptions::default(), std::future::pending()));
    url
}

/// A gateway mounting `url` under `biz`, with tool search when `search`,
/// and a client connected to it in memory.
async fn gateway(url: &str, search: bool) -> FusionClient {
    let mut config = GatewayConfig::new().upstream(UpstreamConfig::new(
        "biz",
        Target::Http {
            url: url.to_owned(),
        },
    ));
    if search {
        config = config.tool_search(ToolSearch::new());
    }
    let gateway = Gateway::new(config).expect("a valid configuration");
    let server = gateway
        .install(FusionServer::builder("gateway", "1.0.0").page_size(10_000))
        .build()
        .expect("the gateway builds");
    server
        .connect_in_memory(ClientOptions::default())
        .await
        .expect("the client connects")
}

/// The catalog the model reads: the JSON of the listed tools as a host
/// hands them to the model (`name`, `description`, `inputSchema`; the
/// annotations and `_meta` are the host's), as o200k_base tokens and bytes;
/// and the tokens of the whole `tools` JSON as sent.
fn catalog_size(tools: &[Tool]) -> (usize, usize, usize) {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let shown: Vec<Value> = tools
        .iter()
        .map(|tool| json!({"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}))
        .collect();
    let text = serde_json::to_string(&shown).unwrap();
    let whole = serde_json::to_string(tools).unwrap();
    (
        bpe.encode_with_special_tokens(&text).len(),
        text.len(),
        bpe.encode_with_special_tokens(&whole).len(),
    )
}

fn percentile(sorted: &[Duration], p: f64) -> u128 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_micros()
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(2000, |n| n.parse().expect("N tools"));
    let searches: usize = args.next().map_or(1000, |n| n.parse().expect("SEARCHES"));
    let url = upstream(count).await;

    let plain = gateway(&url, false).await;
    let all = plain.list_tools().await.unwrap();
    let (all_tokens, all_bytes, all_sent) = catalog_size(&all);
    println!(
        "tools/list without search: {} tools, {all_tokens} tokens ({all_bytes} bytes) the model reads, {all_sent} tokens sent",
        all.len()
    );
    plain.close().await;

    let searching = gateway(&url, true).await;
    let listed = searching.list_tools().await.unwrap();
    let (tokens, bytes, sent) = catalog_size(&listed);
    println!(
        "tools/list with search:    {} tools, {tokens} tokens ({bytes} bytes) the model reads, {sent} tokens sent",
        listed.len()
    );

    let started = Instant::now();
    let first = searching
        .call("search_tools", json!({"query": "refund an invoice"}))
        .await
        .unwrap();
    println!(
        "first search (builds the index of {count} tools): {} µs",
        started.elapsed().as_micros()
    );
    let (answer_tokens, _) = {
        let text = first.content[0].as_text().unwrap().text.clone();
        let bpe = tiktoken_rs::o200k_base().unwrap();
        (bpe.encode_with_special_tokens(&text).len(), ())
    };
    println!("a search's answer (5 tools): {answer_tokens} tokens");

    let queries: Vec<String> = (0..searches)
        .map(|i| {
            let (operation, _) = OPERATIONS[(i * 7) % OPERATIONS.len()];
            let object = OBJECTS[(i * 13) % OBJECTS.len()].replace('_', " ");
            format!("{operation} a {object}")
        })
        .collect();
    let mut took = Vec::with_capacity(searches);
    for query in &queries {
        let started = Instant::now();
        let result = searching
            .call("search_tools", json!({"query": query}))
            .await
            .unwrap();
        took.push(started.elapsed());
        assert_eq!(result.is_error, Some(false));
    }
    took.sort();
    println!(
        "search round trip through the in-memory client ({searches} searches): p50 {} µs, p90 {} µs, p99 {} µs",
        percentile(&took, 0.5),
        percentile(&took, 0.9),
        percentile(&took, 0.99)
    );
    searching.close().await;
}
