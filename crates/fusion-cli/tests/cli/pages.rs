//! `fusion tools` and `fusion lock` against `fusion serve --page-size 2`
//! (the conformance example): they follow `nextCursor` to the last page and
//! see exactly what an unpaginated server lists; a signing key shorter than
//! 32 bytes stops `fusion serve` with a message that names the flag and not
//! the key; two `fusion serve` a step apart in a key rotation read each
//! other's cursors.

use serde_json::Value;

use crate::run::{FUSION, fusion, fusion_with};

/// The `--cmd` of the conformance example over stdio in pages of `size`.
fn server(size: &str) -> String {
    format!("'{FUSION}' serve --stdio --example conformance --page-size {size}")
}

/// The tool names `fusion tools --json` prints for `cmd`.
fn listed(cmd: &str) -> Vec<String> {
    let run = fusion(&["tools", "--json", "--cmd", cmd]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools: Value = serde_json::from_str(&run.stdout).expect("JSON");
    tools
        .as_array()
        .expect("an array")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn fusion_tools_reads_every_page() {
    let whole = listed(&server("0"));
    assert!(whole.len() > 2, "{whole:?}");
    assert_eq!(listed(&server("2")), whole);
}

#[test]
fn fusion_lock_reads_every_page() {
    let dir = std::env::temp_dir();
    let paged = dir.join(format!("fusion-pages-{}-2.lock.json", std::process::id()));
    let whole = dir.join(format!("fusion-pages-{}-0.lock.json", std::process::id()));
    for (size, path) in [("2", &paged), ("0", &whole)] {
        let out = path.display().to_string();
        let run = fusion(&["lock", "--cmd", &server(size), "-o", &out]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let read = |path: &std::path::Path| std::fs::read_to_string(path).expect("the lockfile");
    let (paged_text, whole_text) = (read(&paged), read(&whole));
    let _ = std::fs::remove_file(&paged);
    let _ = std::fs::remove_file(&whole);
    assert_eq!(paged_text, whole_text);
    let lock: Value = serde_json::from_str(&whole_text).expect("JSON");
    assert!(lock["tools"].as_object().expect("tools").len() > 2);
}

#[test]
fn a_short_signing_key_stops_fusion_serve_without_printing_it() {
    let key = "short-secret";
    let run = fusion_with(
        &["serve", "--stdio", "--example", "conformance"],
        &[("FUSION_SIGNING_KEY", key)],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "fusion serve: --signing-key (FUSION_SIGNING_KEY) has 12 bytes; give at least 32, e.g. from `openssl rand -base64 48`, the same on every replica\n"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(key), "{}", run.stderr);
}

const OLD_KEY: &str = "the-old-key-of-at-least-thirty-two-bytes";
const NEW_KEY: &str = "the-new-key-of-at-least-thirty-two-bytes";

/// The `tools/list` result at `cursor` of `fusion serve --stdio` (the
/// conformance example in pages of 2) run with `env`, over raw JSON-RPC.
fn tools_page(env: &[(&str, &str)], cursor: Option<&str>) -> Value {
    let params = cursor.map_or_else(
        || serde_json::json!({}),
        |c| serde_json::json!({"cursor": c}),
    );
    let list =
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params});
    let input = format!(
        "{}\n{}\n{list}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pages","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let args = [
        "serve",
        "--stdio",
        "--example",
        "conformance",
        "--page-size",
        "2",
    ];
    let run = fusion_with(&args, env, input.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let last = run.stdout.lines().last().expect("an answer");
    let answer: Value = serde_json::from_str(last).expect("JSON");
    answer
}

#[test]
fn replicas_a_step_apart_in_a_key_rotation_read_each_others_cursors() {
    let accepted_new = format!("k2={NEW_KEY}");
    let accepted_old = format!("k1={OLD_KEY}");
    let behind = [
        ("FUSION_SIGNING_KEY", OLD_KEY),
        ("FUSION_SIGNING_KEY_ID", "k1"),
        ("FUSION_ACCEPTED_SIGNING_KEYS", accepted_new.as_str()),
    ];
    let ahead = [
        ("FUSION_SIGNING_KEY", NEW_KEY),
        ("FUSION_SIGNING_KEY_ID", "k2"),
        ("FUSION_ACCEPTED_SIGNING_KEYS", accepted_old.as_str()),
    ];
    let first = tools_page(&ahead, None);
    let cursor = first["result"]["nextCursor"].as_str().expect("a cursor");
    let second = tools_page(&behind, Some(cursor));
    assert_eq!(
        second["result"]["tools"].as_array().expect("tools").len(),
        2
    );
    let cursor = second["result"]["nextCursor"].as_str().expect("a cursor");
    let third = tools_page(&ahead, Some(cursor));
    assert!(third["result"]["tools"].is_array(), "{third}");
    // The old key dropped: what it signed is refused.
    let retired = [
        ("FUSION_SIGNING_KEY", NEW_KEY),
        ("FUSION_SIGNING_KEY_ID", "k2"),
    ];
    assert_eq!(tools_page(&retired, Some(cursor))["error"]["code"], -32602);
}

#[test]
fn an_accepted_key_is_checked_naming_its_id_and_never_printing_it() {
    let run = fusion_with(
        &["serve", "--stdio", "--example", "conformance"],
        &[
            ("FUSION_SIGNING_KEY", OLD_KEY),
            ("FUSION_ACCEPTED_SIGNING_KEYS", "k0=short-secret,nokey"),
        ],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "fusion serve: --accepted-signing-key (FUSION_ACCEPTED_SIGNING_KEYS) number 1 has 12 bytes; give at least 32, e.g. from `openssl rand -base64 48`, the same on every replica\n"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("short-secret"), "{}", run.stderr);
    // A base64 key given without `ID=` splits at its padding: neither part
    // is printed.
    let key = "q3Zr+8mN/2xPpLw7VtYb0cHs5eKfGjU1aRnXoW4iDdA=";
    let run = fusion_with(
        &["serve", "--stdio", "--example", "conformance"],
        &[
            ("FUSION_SIGNING_KEY", OLD_KEY),
            ("FUSION_ACCEPTED_SIGNING_KEYS", key),
        ],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!run.stderr.contains("q3Zr"), "{}", run.stderr);
    let run = fusion_with(
        &["serve", "--stdio", "--example", "conformance"],
        &[
            ("FUSION_SIGNING_KEY", OLD_KEY),
            ("FUSION_ACCEPTED_SIGNING_KEYS", "nokey"),
        ],
        b"",
    );
    assert!(
        run.stderr.ends_with(
            "fusion serve: --accepted-signing-key (FUSION_ACCEPTED_SIGNING_KEYS) number 1 is not ID=KEY; give each as its id, '=', then the key\n"
        ),
        "{}",
        run.stderr
    );
}
