//! A burst of list changes: a client that reads gets the list_changed
//! notifications of a burst coalesced (never a queue of hundreds), over a
//! connection as over a 2026-07-28 `subscriptions/listen` stream, which the
//! burst leaves open; one that reads nothing never holds up the server's
//! changes, and after 30 seconds of not reading it is dropped.

use std::time::Duration;

use mcp_fusion::transport::StdioOptions;
use mcp_fusion::{Action, FusionServer, ToolError};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::connection::{HttpServed, connect};
use crate::stateless::{Messages, post};

const TOOLS_CHANGED: &str = "notifications/tools/list_changed";

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

fn server() -> FusionServer {
    FusionServer::builder("bursts", "1.0.0")
        .tool(Action::new("ping", ping))
        .build()
        .unwrap()
}

/// Adds and removes the tool `extra` `times` times.
async fn burst(server: &FusionServer, times: usize) {
    for _ in 0..times {
        server.add_tool(Action::new("extra", ping)).await.unwrap();
        assert!(server.remove_tool("extra").await);
    }
}

#[tokio::test]
async fn a_reading_client_gets_a_burst_of_changes_coalesced() {
    let server = server();
    let connected = connect(&server).await;
    // 600 changes, made without yielding to the connection's task (one
    // thread): they are owed as one.
    burst(&server, 300).await;
    assert_eq!(connected.recorder.wait_for(TOOLS_CHANGED, 1).await.len(), 1);
    connected.settle().await;
    assert_eq!(connected.recorder.seen_of(TOOLS_CHANGED).len(), 1);
    // A change after the burst is told again.
    assert_eq!(server.notify_tool_list_changed().await, 1);
    assert_eq!(connected.recorder.wait_for(TOOLS_CHANGED, 2).await.len(), 2);
    connected.close().await;
}

#[tokio::test]
async fn a_change_made_outside_the_connections_runtime_is_told() {
    let server = server();
    let connected = connect(&server).await;
    // A thread of its own, no tokio runtime at all: the change is owed to
    // the connection's task, which runs where the connection is served.
    let elsewhere = server.clone();
    std::thread::spawn(move || {
        futures::executor::block_on(elsewhere.add_tool(Action::new("extra", ping))).unwrap();
    })
    .join()
    .unwrap();
    assert_eq!(connected.recorder.wait_for(TOOLS_CHANGED, 1).await.len(), 1);
    assert!(server.remove_tool("extra").await);
    assert_eq!(connected.recorder.wait_for(TOOLS_CHANGED, 2).await.len(), 2);
    connected.close().await;
}

#[tokio::test(start_paused = true)]
async fn a_client_that_reads_nothing_holds_up_no_change_and_is_dropped_after_30_s() {
    let server = server();
    // A pipe of 1 KiB: a few notifications fill it.
    let (client, server_side) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server_side);
    let serving = tokio::spawn(server.clone().serve_streams(
        read,
        write,
        StdioOptions::default(),
        std::future::pending(),
    ));
    let (client_read, mut client_write) = tokio::io::split(client);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "still", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    client_write
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(client_read).lines();
    let answer = lines
        .next_line()
        .await
        .unwrap()
        .expect("the initialize answer");
    assert!(answer.contains("\"id\":0"), "{answer}");
    client_write
        .write_all(format!("{initialized}\n").as_bytes())
        .await
        .unwrap();
    // A round trip so that the connection's peer is recorded.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    client_write
        .write_all(format!("{ping}\n").as_bytes())
        .await
        .unwrap();
    lines
        .next_line()
        .await
        .unwrap()
        .expect("the tools/list answer");
    // From now on the client reads nothing. Each change owes it one more
    // notification than the pipe holds; the changes go on regardless.
    let changes = async {
        for _ in 0..20 {
            burst(&server, 50).await;
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), changes)
        .await
        .expect("the changes are not held up by a client that reads nothing");
    assert_eq!(server.notify_tool_list_changed().await, 1);
    // 30 s with a notification unwritten: the client is dropped, its
    // connection closed (the serving task ends with the client still
    // connected, reading nothing), and told no more.
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(server.notify_tool_list_changed().await, 0);
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the connection is closed")
        .expect("the serving task ends")
        .expect("served");
    drop(client_write);
    drop(lines);
}

#[tokio::test]
async fn a_burst_of_list_changes_is_told_once_and_keeps_the_listen_stream_open() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let listen = post(
        &served.url,
        11,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        &[],
    )
    .await;
    assert_eq!(listen.status(), 200);
    let mut stream = Messages::of(listen);
    assert_eq!(
        stream.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    // 600 changes without yielding (one thread): ten times the stream's
    // queue, owed as one notification.
    for _ in 0..300 {
        server.add_tool(Action::new("extra", ping)).await.unwrap();
        assert!(server.remove_tool("extra").await);
    }
    assert_eq!(
        stream.next().await["method"],
        "notifications/tools/list_changed"
    );
    // Still open, and told the next change.
    assert_eq!(server.notify_tool_list_changed().await, 1);
    assert_eq!(
        stream.next().await["method"],
        "notifications/tools/list_changed"
    );
}
