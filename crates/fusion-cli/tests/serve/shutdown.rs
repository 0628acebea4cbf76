//! SIGTERM stops `fusion serve` cleanly: the call in progress finishes and
//! reaches its client, calls that arrive meanwhile are refused with
//! SERVER_BUSY, then the process exits 0.

use std::time::Duration;

use crate::support::*;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_the_call_in_progress_finish() {
    let db = TempDb::new("shutdown");
    let mut server = HttpServer::start_with(&db.0, &["--report-ms", "1500ms"]);
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str()))
            .await
            .expect("MCP handshake over HTTP");
    let serde_json::Value::Object(args) = json!({"action": "generate_report", "period": "day"})
    else {
        unreachable!()
    };
    // A second session, opened before the signal, calls during the shutdown.
    let late =
        ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str()))
            .await
            .expect("a second MCP handshake over HTTP");
    let call = client.call_tool(CallToolRequestParams::new("billing").with_arguments(args));
    let late_call = async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        let serde_json::Value::Object(args) = json!({"action": "list_invoices", "limit": 1}) else {
            unreachable!()
        };
        late.call_tool(CallToolRequestParams::new("billing").with_arguments(args))
            .await
    };
    let pid = server.pid();
    let terminate = async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        let status = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    };
    // Bounded, so that a lost response fails the test instead of hanging it.
    let (result, (), late_result) = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::join!(call, terminate, late_call)
    })
    .await
    .expect("the call in progress is answered");
    let refused = late_result.expect("a call during the shutdown is answered");
    assert_eq!(
        texts(&refused),
        [
            "<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>The server is shutting down and takes no new calls.</message>\n  <recovery>Call again in a few seconds: the server, or another instance of it, will answer once it is back.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
        ]
    );
    let result = result.expect("the call in progress gets its result");
    assert_eq!(result.is_error, Some(false), "{:?}", texts(&result));
    assert!(texts(&result)[0].starts_with("{\"period\":\"day\",\"totals\":["));
    let status = tokio::task::spawn_blocking(move || server.wait_exit())
        .await
        .unwrap();
    assert!(
        status.success(),
        "fusion serve exits 0 after SIGTERM: {status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_grace_a_call_is_stopped_with_a_result_and_stalled_clients_do_not_hold_the_exit() {
    let db = TempDb::new("shutdown-grace");
    let mut server =
        HttpServer::start_with(&db.0, &["--report-ms", "20s", "--shutdown-grace", "1s"]);
    let http = crate::raw::RawHttp::new(&server.url);
    let session = http.initialize().await;
    // A client that sends half its headers and then nothing.
    let mut stalled = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    std::io::Write::write_all(&mut stalled, b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .expect("write");
    let report = {
        let http = http.clone();
        let session = session.clone();
        tokio::spawn(async move {
            http.call(
                &session,
                2,
                "billing",
                json!({"action": "generate_report", "period": "day"}),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    tokio::time::sleep(Duration::from_millis(300)).await;
    // During the drain: no new session.
    let refused = http.send(None, &crate::raw::initialize_request(1)).await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("5"));
    let report = tokio::time::timeout(Duration::from_secs(30), report)
        .await
        .expect("the stopped call is answered")
        .expect("a task");
    assert_eq!(report.status, 200);
    let message = report.message();
    assert_eq!(
        message["result"]["content"][0]["text"],
        "<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>The server shut down before the call of billing finished; the call was stopped.</message>\n  <recovery>Call again in a few seconds: the server, or another instance of it, will answer once it is back. If the call changes something, check first whether the change was made.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
    );
    let status = tokio::task::spawn_blocking(move || server.wait_exit())
        .await
        .unwrap();
    assert!(status.success(), "{status:?}");
    drop(stalled);
}

/// A stdio client that goes away mid-call (its process ends: both pipes
/// close) cancels the call at once, and the server exits, rather than
/// waiting out the grace rmcp gives the calls of a closed stdin (5 s).
#[test]
fn a_stdio_client_that_goes_away_mid_call_stops_the_server_at_once() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::Instant;

    let db = TempDb::new("gone-stdio");
    let mut child = crate::raw::spawn_stdio(db.path(), &["--report-ms", "60s"]);
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut exchange = |message: serde_json::Value, answered: bool| {
        writeln!(stdin, "{message}").expect("write");
        let mut line = String::new();
        if answered {
            stdout.read_line(&mut line).expect("an answer");
        }
        line
    };
    assert!(exchange(crate::raw::initialize_request(1), true).contains("\"id\":1"));
    exchange(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let report = json!({"action": "generate_report", "period": "day"});
    exchange(crate::raw::call_request(2, "billing", report), false);
    // Answered while the report runs: the call was read before it.
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert!(exchange(ping, true).contains("\"id\":3"));

    drop((stdin, stdout));
    let gone = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            gone.elapsed() < Duration::from_secs(20),
            "still running 20 s after its client went away"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    assert!(
        gone.elapsed() < Duration::from_millis(2_500),
        "exited {:?} after its client went away",
        gone.elapsed()
    );
}
