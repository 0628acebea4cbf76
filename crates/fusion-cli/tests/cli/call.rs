//! `fusion call` and `fusion tools`, run as a user would run them (mistakes
//! included: no server, a URL without `http://`, JSON without quotes, a
//! mistyped `fusion serve --db`), against:
//!
//! - the billing example, started over stdio as `fusion serve --stdio`;
//! - foreign servers built with the official TypeScript SDK
//!   (`tests/interop/`, installed with `scripts/npm-install tests/interop`) and
//!   `@modelcontextprotocol/server-everything` in stdio mode.
//!
//! The foreign-server tests skip, saying why on stderr, when `node` is not
//! installed; with node present and the packages missing they fail with the
//! command to run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::interop_server::{PlainErrorsHttp, interop_dir};
use crate::run::{FUSION, Run, fusion, fusion_with};

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A billing database of its own for each test, removed at the end.
struct BillingDb(PathBuf);

impl BillingDb {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("fusion-call-cli-{}-{name}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        BillingDb(path)
    }

    fn cmd(&self) -> String {
        format!("'{FUSION}' serve --stdio --db '{}'", self.0.display())
    }
}

impl Drop for BillingDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn help_documents_targets_and_exit_codes() {
    for command in ["call", "tools"] {
        let run = fusion(&[command, "--help"]);
        assert_eq!(run.code, 0);
        assert!(
            run.stdout.contains("--cmd 'COMMAND ARGS'"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("Exit codes:"), "{}", run.stdout);
        assert!(run.stdout.contains("0  success"));
        // `tools` lists; only `call` runs a tool that may fail.
        assert_eq!(
            run.stdout.contains("1  the tool reported an error"),
            command == "call",
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains("2  usage error, connection error, or protocol error")
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let cases: [(&[&str], &str); 7] = [
        (&["call"], "required"),
        (
            &["call", "billing.get_invoice"],
            "missing the tool NAME after the URL",
        ),
        (
            &["call", "fusion serve --stdio", "x"],
            "for a server spoken to over stdio use --cmd 'fusion serve --stdio'",
        ),
        (
            &["call", "--cmd", "x", "name", "{not json"],
            "the arguments are not valid JSON",
        ),
        (
            &["call", "--cmd", "x", "name", "[1,2]"],
            "must be a JSON object",
        ),
        (&["call", "--cmd", "x 'open", "name"], "unbalanced quotes"),
        (&["tools"], "no target"),
    ];
    for (args, expected) in cases {
        let run = fusion(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn connection_errors_exit_2() {
    let run = fusion(&["call", "--cmd", "/nonexistent/mcp-server --flag", "x"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "error: could not connect to /nonexistent/mcp-server --flag: cannot start `/nonexistent/mcp-server`"
        ),
        "{}",
        run.stderr
    );
    let run = fusion(&["tools", "http://127.0.0.1:9/mcp", "--timeout", "10"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("could not connect to http://127.0.0.1:9/mcp"),
        "{}",
        run.stderr
    );
    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        "sh -c 'echo database is locked >&2; exit 1'",
        "x",
    ]);
    assert_eq!(run.code, 2);
    let out = json_of(&run.stdout);
    assert_eq!(out["error"]["kind"], "connect");
    assert_eq!(out["error"]["server_stderr"], "database is locked");
}

/// A local port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// A contract lockfile of the billing server, for `fusion diff OLD.lock URL`.
fn billing_lockfile(db: &BillingDb) -> PathBuf {
    let path = db.0.with_extension("lock");
    let run = fusion(&["lock", "--cmd", &db.cmd(), "-o", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    path
}

#[test]
fn nothing_listening_says_connection_refused_and_how_to_start_a_server() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let expected = format!(
        "error: could not connect to {url}: connection refused: nothing is listening on \
         127.0.0.1:{port} (is the server running?)\n\
         \x20 hint: start one with `fusion serve` (it listens on http://127.0.0.1:8080/mcp), \
         or check the URL's host and port\n"
    );
    for args in [
        vec![
            "call",
            url.as_str(),
            "billing.get_invoice",
            r#"{"id": "inv_1"}"#,
        ],
        vec!["tools", url.as_str()],
    ] {
        let run = fusion(&args);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, expected.as_str()),
            "{args:?}"
        );
        assert_eq!(run.stdout, "");
    }
    // `lock` and `diff` print a progress line first, then the same error.
    let db = BillingDb::new("refused-diff");
    let lock = billing_lockfile(&db);
    for args in [
        vec!["lock", url.as_str()],
        vec!["diff", lock.to_str().unwrap(), url.as_str()],
    ] {
        let run = fusion(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!("fusion: connecting to {url}…\n{expected}"),
            "{args:?}"
        );
    }
    let _ = std::fs::remove_file(lock);

    let run = fusion(&["call", "--json", url.as_str(), "billing.get_invoice"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        json_of(&run.stdout),
        json!({"error": {
            "kind": "connect",
            "target": url,
            "message": format!("connection refused: nothing is listening on 127.0.0.1:{port} (is the server running?)"),
            "cause": "refused"
        }})
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn a_url_typed_without_http_gets_the_http_url_suggested() {
    for (typed, expected) in [
        (
            "127.0.0.1:8080/mcp",
            "error: `127.0.0.1:8080/mcp` has no scheme: did you mean `http://127.0.0.1:8080/mcp`? \
             A URL starts with http:// or https://.\n",
        ),
        (
            "localhost:8080/mcp",
            "error: `localhost:8080/mcp` has no scheme: did you mean `http://localhost:8080/mcp`? \
             A URL starts with http:// or https://.\n",
        ),
        (
            "localhost:8080",
            "error: `localhost:8080` has no scheme: did you mean `http://localhost:8080`? \
             (the endpoint of `fusion serve` is http://localhost:8080/mcp) \
             A URL starts with http:// or https://.\n",
        ),
    ] {
        let expected = format!("{expected}\nFor more information, try '--help'.\n");
        for args in [
            vec!["call", typed, "billing.get_invoice", r#"{"id": "inv_1"}"#],
            vec!["tools", typed],
            vec!["lock", typed],
            vec!["diff", "fusion.lock", typed],
        ] {
            let run = fusion(&args);
            assert_eq!(
                (run.code, run.stderr.as_str()),
                (2, expected.as_str()),
                "{args:?}"
            );
        }
    }
    // A command line is still told about --cmd.
    let run = fusion(&["call", "node server.js", "x"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: `node server.js` is not an http:// or https:// URL; for a server spoken to over \
         stdio use --cmd 'node server.js'\n\nFor more information, try '--help'.\n"
    );
}

#[test]
fn json_arguments_typed_without_quotes_get_the_fix() {
    // What the shell makes of: fusion call URL billing.get_invoice {"id": "inv_1"}
    let run = fusion(&[
        "call",
        "http://127.0.0.1:8080/mcp",
        "billing.get_invoice",
        "{id:",
        "inv_1}",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: expected one JSON argument after billing.get_invoice, got 2 words: `{id:` \
         `inv_1}`. The arguments must be ONE JSON object in single quotes (without them the \
         shell splits it into words at its spaces and removes its double quotes), e.g.\n  \
         fusion call http://127.0.0.1:8080/mcp billing.get_invoice '{\"id\": \"inv_1\"}'\n\
         \nFor more information, try '--help'.\n"
    );
    let run = fusion(&[
        "call",
        "--cmd",
        "fusion serve --stdio",
        "billing.get_invoice",
        "{id:",
        "inv_1,",
        "n:",
        "2}",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "error: expected one JSON argument after billing.get_invoice, got 4 words: `{id:` `inv_1,` `n:` `2}`."
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("\n  fusion call --cmd 'fusion serve --stdio' billing.get_invoice '{\"id\": \"inv_1\"}'\n"),
        "{}",
        run.stderr
    );
    // ... and of {"id":"inv_1"} without spaces: one word, no double quotes.
    let run = fusion(&[
        "call",
        "http://127.0.0.1:8080/mcp",
        "billing.get_invoice",
        "{id:inv_1}",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: the arguments are not valid JSON (key must be a string at line 1 column 2): \
         {id:inv_1}; put the JSON object in single quotes, e.g. '{\"id\": \"inv_1\"}'\n\
         \nFor more information, try '--help'.\n"
    );
    // A URL after --cmd is named as such.
    let run = fusion(&[
        "call",
        "--cmd",
        "x",
        "http://127.0.0.1:8080/mcp",
        "tool",
        "{}",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "error: both --cmd and a URL (`http://127.0.0.1:8080/mcp`) were given; use one of them\n"
        ),
        "{}",
        run.stderr
    );
}

/// Text the server sends back that a terminal would obey, and that a JSON
/// reader must still read: DEL, C1 controls (NEL, CSI), an 8-bit and a 7-bit
/// escape sequence, BEL, a lone-surrogate look-alike.
const HOSTILE: &str = "del\u{7f} nel\u{85} csi\u{9b}[2J esc\u{1b}]0;pwned\u{7} \\ud800 \u{202e}end";

/// Every control character of `text` other than LF.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect()
}

/// Whether python3 (a second, independent JSON reader) reads `text`;
/// `None` when python3 is not installed.
fn python_reads_json(text: &str) -> Option<bool> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .args(["-c", "import json,sys; json.load(sys.stdin)"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    Some(child.wait().ok()?.success())
}

fn assert_valid_inert_json(run: &Run) -> Value {
    let value = json_of(&run.stdout);
    assert_eq!(
        raw_controls(&run.stdout),
        Vec::<char>::new(),
        "{:?}",
        run.stdout
    );
    if let Some(ok) = python_reads_json(&run.stdout) {
        assert!(ok, "python3 cannot read: {:?}", run.stdout);
    }
    value
}

#[test]
fn json_and_raw_print_valid_json_whatever_the_server_sends() {
    let db = BillingDb::new("hostile-json");
    // A success whose output holds the text (the description of a new invoice).
    let create = json!({
        "customer_email": "eve@example.com", "amount_cents": 100, "currency": "USD",
        "items": [{"description": HOSTILE, "quantity": 1, "unit_price_cents": 100}]
    })
    .to_string();
    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        &db.cmd(),
        "billing.create_invoice",
        &create,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = assert_valid_inert_json(&run);
    assert_eq!(out["result"]["items"][0]["description"], HOSTILE);
    assert!(
        run.stdout
            .contains(r"del\u007f nel\u0085 csi\u009b[2J esc\u001b]0;pwned\u0007 \\ud800"),
        "{}",
        run.stdout
    );
    let id = out["result"]["id"].as_str().expect("the new id").to_owned();

    let run = fusion(&[
        "call",
        "--raw",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        &json!({"id": id}).to_string(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let raw = assert_valid_inert_json(&run);
    let text = raw["content"][0]["text"].as_str().expect("a text block");
    assert_eq!(json_of(text)["items"][0]["description"], HOSTILE);

    // A failure whose envelope holds the text (the value sent, in the field line).
    let sent = "\u{7f}\u{85}\u{9b}[2J";
    let args = json!({"id": sent}).to_string();
    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        &args,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = assert_valid_inert_json(&run);
    assert_eq!(
        out["error"]["fields"][0]["message"],
        format!(
            "Does not match the pattern. You sent: '{sent}'. Expected a string matching the pattern '^inv_[0-9]+$'."
        )
    );
    let run = fusion(&[
        "call",
        "--raw",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        &args,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let raw = assert_valid_inert_json(&run);
    assert!(raw["content"][0]["text"].as_str().unwrap().contains(sent));

    // The human-readable form shows the controls instead of obeying them.
    let run = fusion(&["call", "--cmd", &db.cmd(), "billing.get_invoice", &args]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        raw_controls(&run.stdout),
        Vec::<char>::new(),
        "{:?}",
        run.stdout
    );
    assert!(
        run.stdout.contains(r"You sent: '\u{7f}\u{85}\u{9b}[2J'."),
        "{}",
        run.stdout
    );
}

// ---------------------------------------------------------------- serve --db

#[test]
fn serve_db_in_a_missing_folder_exits_2_and_creates_nothing() {
    let base = std::env::temp_dir().join(format!("fusion-missing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let db = base.join("mistyped/x.db");
    let run = fusion(&["serve", "--stdio", "--db", db.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "fusion serve: cannot create the database {}: the folder {} does not exist ({} is \
             already missing). Check the path, or add --create-dirs to create the folder.\n",
            db.display(),
            base.join("mistyped").display(),
            base.display()
        )
    );
    assert!(!base.exists(), "{} was created", base.display());

    // Asked to, it creates the folders and serves.
    let cmd = format!(
        "'{FUSION}' serve --stdio --create-dirs --db '{}'",
        db.display()
    );
    let run = fusion(&[
        "call",
        "--cmd",
        &cmd,
        "billing.get_invoice",
        r#"{"id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout)["id"], "inv_1");
    assert!(db.is_file());

    // A path through a file is no folder.
    let through_file = db.join("y.db");
    let run = fusion(&["serve", "--stdio", "--db", through_file.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "fusion serve: cannot create the database {}: {} is not a folder. Check the path.\n",
            through_file.display(),
            db.display()
        )
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn serve_default_database_still_creates_its_folder() {
    let data = std::env::temp_dir().join(format!("fusion-xdg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let cmd = format!("'{FUSION}' serve --stdio");
    let run = fusion_with(
        &[
            "call",
            "--cmd",
            &cmd,
            "billing.get_invoice",
            r#"{"id": "inv_1"}"#,
        ],
        &[("XDG_DATA_HOME", data.to_str().unwrap())],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout)["id"], "inv_1");
    assert!(data.join("mcp-fusion/billing.db").is_file());
    let _ = std::fs::remove_dir_all(&data);
}

// ---------------------------------------------------------------- billing

/// What `fusion call` prints for `billing.get_invoice {"id": "inv_9999"}`:
/// the billing example's NOT_FOUND envelope, read the same on every protocol
/// revision.
const INV_9999_NOT_FOUND: &str = "tool error NOT_FOUND (severity: error)\n\
     \x20 message:           No invoice with that ID\n\
     \x20 recovery:          List invoices first, then retry with a real ID\n\
     \x20 available actions: billing.list_invoices\n\
     \x20 details:           requestedId = inv_9999\n";

#[test]
fn billing_success() {
    let db = BillingDb::new("success");
    let run = fusion(&[
        "call",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        r#"{"id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let invoice = json_of(&run.stdout);
    assert_eq!(invoice["id"], "inv_1");
    assert_eq!(invoice["customer_email"], "ada@example.com");

    let run = fusion(&["call", "--json", "--cmd", &db.cmd(), "billing_health"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout)["warnings"], json!([]));
}

#[test]
fn billing_over_2026_07_28() {
    let db = BillingDb::new("2026-07-28");
    // server/discover, then self-contained requests; the envelope of a
    // failure reads the same as on 2025-11-25.
    let get_invoice = |arguments: &str| {
        fusion(&[
            "call",
            "--protocol-version",
            "2026-07-28",
            "--cmd",
            &db.cmd(),
            "billing.get_invoice",
            arguments,
        ])
    };
    let run = get_invoice(r#"{"id": "inv_1"}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout)["customer_email"], "ada@example.com");
    let run = get_invoice(r#"{"id": "inv_9999"}"#);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, INV_9999_NOT_FOUND);

    let run = fusion(&[
        "call",
        "--protocol-version",
        "2025-06-18",
        "--cmd",
        &db.cmd(),
        "x",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "unknown MCP protocol revision `2025-06-18` (expected 2025-11-25, 2026-07-28 or auto)"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn billing_not_found_with_details_and_actions() {
    let db = BillingDb::new("not-found");
    let run = fusion(&[
        "call",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        r#"{"id": "inv_9999"}"#,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, INV_9999_NOT_FOUND);

    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        r#"{"id": "inv_9999"}"#,
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(
        json_of(&run.stdout),
        json!({"error": {
            "kind": "tool",
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID",
            "recovery": "List invoices first, then retry with a real ID",
            "available_actions": ["billing.list_invoices"],
            "details": {"requestedId": "inv_9999"},
            "source": "meta"
        }})
    );

    let run = fusion(&[
        "call",
        "--raw",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        r#"{"id": "inv_9999"}"#,
    ]);
    assert_eq!(run.code, 1);
    let raw = json_of(&run.stdout);
    assert_eq!(raw["isError"], true);
    assert_eq!(raw["_meta"]["mcp-fusion/error"]["code"], "NOT_FOUND");
    assert!(
        raw["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<tool_error code=\"NOT_FOUND\" severity=\"error\">")
    );
}

#[test]
fn billing_validation_failure_lists_fields() {
    let db = BillingDb::new("validation");
    let args = r#"{"customer_email": "not-an-email", "amount_cents": 100, "currency": "USD", "items": [], "emial": "x"}"#;
    let run = fusion(&["call", "--cmd", &db.cmd(), "billing.create_invoice", args]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("tool error VALIDATION_ERROR (severity: error)\n  action:            billing.create_invoice\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\n  fields:\n    "), "{}", run.stdout);
    assert!(run.stdout.contains("\n    emial: "), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "  recovery:          Fix the fields below and call billing again. Do not explain the error.\n"
        ),
        "{}",
        run.stdout
    );

    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        &db.cmd(),
        "billing.create_invoice",
        args,
    ]);
    assert_eq!(run.code, 1);
    let error = &json_of(&run.stdout)["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert_eq!(error["action"], "billing.create_invoice");
    let fields = error["fields"].as_array().expect("fields");
    assert!(fields.iter().any(|f| f["path"] == "emial"), "{fields:?}");
    assert!(
        fields
            .iter()
            .all(|f| f["message"].as_str().is_some_and(|m| !m.is_empty()))
    );
}

#[test]
fn billing_unknown_tool_and_missing_action() {
    let db = BillingDb::new("unknown");
    // The billing server answers an unknown tool with a JSON-RPC error
    // (-32602, naming the valid tools); should it switch to a tool result,
    // the name must still reach the user, with exit code 1.
    let run = fusion(&["call", "--cmd", &db.cmd(), "nope"]);
    match run.code {
        2 => {
            assert!(
                run.stderr.contains(
                    "error: the server answered with a JSON-RPC error -32602: Unknown tool \"nope\""
                ),
                "{}",
                run.stderr
            );
            assert!(run.stderr.contains("billing_health"), "{}", run.stderr);
            assert!(run.stderr.contains("hint: `fusion tools` lists the tools"));
        }
        1 => assert!(run.stdout.contains("nope"), "{}", run.stdout),
        other => panic!("exit code {other}: {}{}", run.stdout, run.stderr),
    }
    let run = fusion(&["call", "--json", "--cmd", &db.cmd(), "nope"]);
    let error = &json_of(&run.stdout)["error"];
    if run.code == 2 {
        assert_eq!(error["kind"], "jsonrpc");
        assert_eq!(error["code"], -32602);
        assert_eq!(error["data"]["tool"], "nope");
    }

    let run = fusion(&["call", "--cmd", &db.cmd(), "billing.refund_invoice", "{}"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("tool error UNKNOWN_ACTION (severity: error)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("billing.list_invoices"));

    let run = fusion(&["call", "--cmd", &db.cmd(), "billing"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.starts_with("tool error MISSING_DISCRIMINATOR"),
        "{}",
        run.stdout
    );
}

#[test]
fn billing_warning_goes_to_stderr() {
    let db = BillingDb::new("warning");
    let run = fusion(&[
        "call",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice_legacy",
        r#"{"id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout)["id"], "inv_1");
    assert!(
        run.stderr
            .contains("warning DEPRECATED (severity: warning)"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("tool_error"));
}

#[test]
fn billing_tools_lists_actions_and_required_fields() {
    let db = BillingDb::new("tools");
    let run = fusion(&["tools", "--cmd", &db.cmd()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("mcp-fusion-billing "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n  billing.list_invoices\n"),
        "{}",
        run.stdout
    );
    let get = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("billing.get_invoice "))
        .expect("get_invoice line");
    assert!(get.ends_with("requires: id"), "{get}");

    let run = fusion(&["tools", "--json", "--cmd", &db.cmd()]);
    assert_eq!(run.code, 0);
    let tools = json_of(&run.stdout);
    let billing = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "billing")
        .expect("billing tool");
    assert!(
        billing["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "get_invoice" && a["required"] == json!(["id"]))
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let db = BillingDb::new("colour");
    let args = [
        "call",
        "--cmd",
        &db.cmd(),
        "billing.get_invoice",
        r#"{"id": "inv_9999"}"#,
    ];
    let plain = fusion(&args);
    assert!(!plain.stdout.contains('\x1b'));
    let mut coloured: Vec<&str> = args.to_vec();
    coloured.extend(["--color", "always"]);
    let run = fusion_with(&coloured, &[("NO_COLOR", "1")], b"");
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("\x1b[1;31mNOT_FOUND\x1b[0m"),
        "{}",
        run.stdout
    );
}

/// On a terminal (a pseudo-terminal made by util-linux `script`), colour is on
/// unless NO_COLOR is set. Skipped when `script` is not installed.
#[test]
fn colour_on_a_terminal_honours_no_color() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: util-linux `script` is not installed, no pseudo-terminal to test with");
        return;
    }
    let db = BillingDb::new("tty");
    let line = format!(
        "'{FUSION}' call --cmd \"{}\" billing.get_invoice '{{\"id\": \"inv_9999\"}}'",
        db.cmd()
    );
    let on_tty = |no_color: Option<&str>| {
        let mut command = Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::null());
        match no_color {
            Some(value) => command.env("NO_COLOR", value),
            None => command.env_remove("NO_COLOR"),
        };
        let out = command.output().expect("run script");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = on_tty(None);
    if !coloured.contains("NOT_FOUND") {
        eprintln!("SKIPPED: `script` could not run fusion on a pseudo-terminal: {coloured:?}");
        return;
    }
    assert!(
        coloured.contains("\x1b[1;31mNOT_FOUND\x1b[0m"),
        "{coloured:?}"
    );
    let plain = on_tty(Some("1"));
    assert!(
        plain.contains("tool error NOT_FOUND (severity: error)"),
        "{plain:?}"
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
}

// ------------------------------------------------------- foreign servers

fn node_cmd(dir: &Path, script: &str) -> String {
    format!("node '{}'", dir.join(script).display())
}

fn everything_cmd(dir: &Path) -> String {
    format!(
        "node '{}' stdio",
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .display()
    )
}

#[test]
fn foreign_plain_text_errors() {
    let Some(dir) = interop_dir() else { return };
    let cmd = node_cmd(&dir, "plain-errors.mjs");

    let run = fusion(&["call", "--cmd", &cmd, "echo", r#"{"message": "hi"}"#]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "Echo: hi\n"),
        "{}",
        run.stderr
    );

    let run = fusion(&["call", "--cmd", &cmd, "fail_plain"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "tool error UNKNOWN (severity: error)\n\
         \x20 message:           Database connection refused: db.internal:5432\n\
         \x20 (plain text from the server: it sent no mcp-fusion envelope)\n"
    );

    let run = fusion(&["call", "--json", "--cmd", &cmd, "fail_multi"]);
    assert_eq!(run.code, 1);
    let error = &json_of(&run.stdout)["error"];
    assert_eq!(error["code"], "UNKNOWN");
    assert_eq!(
        error["message"],
        "first line of the failure\nsecond line of the failure"
    );

    let run = fusion(&["call", "--json", "--cmd", &cmd, "fail_envelope"]);
    assert_eq!(run.code, 1);
    let error = &json_of(&run.stdout)["error"];
    assert_eq!(error["code"], "RATE_LIMITED");
    assert_eq!(error["retry_after_seconds"], 7);
    assert_eq!(
        error["available_actions"],
        json!(["reports.export", "reports.status"])
    );

    let run = fusion(&["call", "--cmd", &cmd, "nope"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "error: the server answered with a JSON-RPC error -32602: MCP error -32602: Unknown tool: nope"
        ),
        "{}",
        run.stderr
    );

    let run = fusion(&["call", "--cmd", &cmd, "warn"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "{\n  \"done\": true\n}\n");
    assert!(
        run.stderr
            .contains("warning DEPRECATED (severity: warning)")
    );
    assert!(run.stderr.contains("warn is deprecated"));

    let run = fusion(&["call", "--cmd", &cmd, "--retry", "3", "flaky"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "served on call 2\n"));

    let run = fusion(&[
        "call",
        "--cmd",
        &cmd,
        "group.show",
        r#"{"action": "x", "n": 1}"#,
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(json_of(&run.stdout), json!({"action": "show", "n": 1}));

    let run = fusion(&["tools", "--cmd", &cmd]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.starts_with("plain-errors 1.0.0 (10 tools)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\n  group.list\n"));
}

#[test]
fn foreign_server_over_streamable_http() {
    let Some(dir) = interop_dir() else { return };
    let server = PlainErrorsHttp::start(&dir);
    let url = server.url.as_str();

    let run = fusion(&["call", url, "echo", r#"{"message": "over http"}"#]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "Echo: over http\n"),
        "{}",
        run.stderr
    );
    let run = fusion(&["call", url, "fail_plain"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("Database connection refused: db.internal:5432")
    );
    let run = fusion(&["call", url, "nope"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("Unknown tool: nope"), "{}", run.stderr);
}

#[test]
fn foreign_structured_content_errors() {
    let Some(dir) = interop_dir() else { return };
    let cmd = node_cmd(&dir, "structured-errors.mjs");
    let run = fusion(&["call", "--cmd", &cmd, "get_user", r#"{"id": "u1"}"#]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(json_of(&run.stdout), json!({"id": "u1", "name": "Ada"}));

    let run = fusion(&["call", "--cmd", &cmd, "get_user", r#"{"id": "u2"}"#]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("  message:           User u2 does not exist\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            r#"  structured content: {"error":{"kind":"not_found","id":"u2","hint":"try u1"}}"#
        ),
        "{}",
        run.stdout
    );

    let run = fusion(&[
        "call",
        "--json",
        "--cmd",
        &cmd,
        "get_user",
        r#"{"id": "u2"}"#,
    ]);
    let error = &json_of(&run.stdout)["error"];
    assert_eq!(error["message"], "User u2 does not exist");
    assert_eq!(error["structured_content"]["error"]["hint"], "try u1");
}

#[test]
fn foreign_server_everything() {
    let Some(dir) = interop_dir() else { return };
    let cmd = everything_cmd(&dir);

    let run = fusion(&["call", "--cmd", &cmd, "echo", r#"{"message": "hello"}"#]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "Echo: hello\n"),
        "{}",
        run.stderr
    );

    let run = fusion(&["call", "--cmd", &cmd, "get-sum", r#"{"a": 2, "b": 3}"#]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains('5'), "{}", run.stdout);

    let run = fusion(&["call", "--cmd", &cmd, "echo", "{}"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.starts_with(
            "tool error UNKNOWN (severity: error)\n  message:           MCP error -32602: Input validation error"
        ),
        "{}",
        run.stdout
    );

    let run = fusion(&["call", "--cmd", &cmd, "no_such_tool"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("MCP error -32602: Tool no_such_tool not found"),
        "{}",
        run.stdout
    );

    let run = fusion(&["call", "--cmd", &cmd, "get-tiny-image"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("[image image/png, "), "{}", run.stdout);

    let run = fusion(&["tools", "--cmd", &cmd]);
    assert_eq!(run.code, 0);
    let echo = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("echo "))
        .nth(1)
        .expect("a line after echo");
    assert_eq!(echo.trim(), "required: message");
}

// ------------------------------- the library against the billing server

mod library_against_billing {
    use std::time::{Duration, Instant};

    use mcp_fusion::ErrorCode;
    use mcp_fusion::client::{
        BatchMode, ClientOptions, FusionClient, FusionClientError, RetryPolicy, ServerStderr,
        Target, ToolCall,
    };
    use serde_json::json;

    use super::{BillingDb, FUSION};

    async fn billing(db: &BillingDb, extra: &[&str], options: ClientOptions) -> FusionClient {
        let mut args = vec![
            "serve".to_owned(),
            "--stdio".to_owned(),
            "--db".to_owned(),
            db.0.display().to_string(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        FusionClient::connect(
            &Target::stdio(FUSION, args),
            options.stderr(ServerStderr::Capture),
        )
        .await
        .expect("connect to fusion serve --stdio")
    }

    #[tokio::test]
    async fn typed_errors_and_batches() {
        let db = BillingDb::new("lib-batch");
        let client = billing(&db, &[], ClientOptions::default()).await;
        let outcomes = client
            .call_many(
                [
                    ToolCall::new("billing.get_invoice", json!({"id": "inv_1"})),
                    ToolCall::new("billing.get_invoice", json!({"id": "inv_9999"})),
                    ToolCall::new("billing.get_invoice", json!({"id": "bad id"})),
                    ToolCall::new("nope", json!({})),
                ],
                BatchMode::concurrent(),
            )
            .await;
        assert_eq!(outcomes.len(), 4);
        assert_eq!(outcomes[0].as_ref().unwrap().value()["id"], "inv_1");
        let not_found = outcomes[1].as_ref().unwrap_err().as_tool().unwrap();
        assert_eq!(not_found.code, ErrorCode::NotFound);
        assert_eq!(not_found.available_actions, ["billing.list_invoices"]);
        assert_eq!(
            not_found.details,
            [("requestedId".to_owned(), "inv_9999".to_owned())]
        );
        let invalid = outcomes[2].as_ref().unwrap_err().as_tool().unwrap();
        assert_eq!(invalid.code, ErrorCode::ValidationError);
        assert_eq!(invalid.action.as_deref(), Some("billing.get_invoice"));
        assert_eq!(invalid.fields[0].path, "id");
        assert!(matches!(
            outcomes[3],
            Err(FusionClientError::JsonRpc { code: -32602, .. }) | Err(FusionClientError::Tool(_))
        ));
        client.close().await;
    }

    #[tokio::test]
    async fn rate_limited_calls_are_retried_after_retry_after() {
        let db = BillingDb::new("lib-retry");
        let plain = billing(&db, &["--rate-limit", "1/s"], ClientOptions::default()).await;
        let args = json!({"id": "inv_1"});
        plain
            .call_checked("billing.get_invoice", args.clone())
            .await
            .expect("first call within the limit");
        let limited = plain
            .call_checked("billing.get_invoice", args.clone())
            .await
            .unwrap_err();
        let limited = limited.as_tool().expect("a tool failure");
        assert_eq!(limited.code, ErrorCode::RateLimited);
        assert_eq!(limited.retry_after, Some(1));
        plain.close().await;

        let retrying = billing(
            &db,
            &["--rate-limit", "1/s"],
            ClientOptions::default().retry(RetryPolicy::new(3).with_jitter(0.0)),
        )
        .await;
        retrying
            .call_checked("billing.get_invoice", args.clone())
            .await
            .expect("first call");
        let started = Instant::now();
        let ok = retrying
            .call_checked("billing.get_invoice", args)
            .await
            .expect("retried after retry_after");
        assert_eq!(ok.value()["id"], "inv_1");
        assert!(started.elapsed() >= Duration::from_millis(900));
        retrying.close().await;
    }
}
