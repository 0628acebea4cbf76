//! A refusal made before the request's body was read (a `401` of the
//! bearer layer) says `Connection: close`, so that a keep-alive client
//! does not write its next request on a connection the server closes; an
//! answer to a request whose body was read keeps the connection for the
//! next one. Read with a raw HTTP/1.1 client on one TCP connection.

use std::time::Duration;

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::{Action, FusionServer, ToolError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::connection::HttpServed;

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

/// A `tools/list` POST with a body of about `padding` bytes more, with
/// `Authorization: Bearer token` when given.
fn request(host: &str, token: Option<&str>, padding: usize) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"pad":"{}"}}}}}}"#,
        "a".repeat(padding)
    );
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         {auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The head of the next answer on `stream` (its body, of `Content-Length`
/// bytes, read and dropped), lowercased.
async fn answer_head(stream: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !seen.ends_with(b"\r\n\r\n") {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut byte))
            .await
            .expect("an answer within 10 s")
            .expect("the connection reads");
        assert_eq!(read, 1, "the connection closed mid-answer");
        seen.push(byte[0]);
    }
    let head = String::from_utf8(seen).unwrap().to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.unwrap();
    head
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_before_the_body_was_read_closes_the_connection_saying_so() {
    let server = FusionServer::builder("keep-alive", "1.0.0")
        .auth(StaticTokens::new().token("ada-token", "ada", Vec::<String>::new()))
        .tool(Action::new("a", ok))
        .build()
        .unwrap();
    let served = HttpServed::start(&server).await;
    let host = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let mut stream = TcpStream::connect(host).await.unwrap();

    // Read and answered (rmcp's 400: a 2025-06-18 request without a
    // session): the connection stays for the next request.
    stream
        .write_all(&request(host, Some("ada-token"), 10))
        .await
        .unwrap();
    let head = answer_head(&mut stream).await;
    assert!(head.starts_with("http/1.1 400"), "{head}");
    assert!(!head.contains("connection: close"), "{head}");
    // Refused before its 200 000-byte body was read: said to be closed.
    stream
        .write_all(&request(host, None, 200_000))
        .await
        .unwrap();
    let head = answer_head(&mut stream).await;
    assert!(head.starts_with("http/1.1 401"), "{head}");
    assert!(head.contains("\r\nconnection: close\r\n"), "{head}");
}
