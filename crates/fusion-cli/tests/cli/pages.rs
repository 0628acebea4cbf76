//! `fusion tools` and `fusion lock` against `fusion serve --page-size 2`
//! (the conformance example): they follow `nextCursor` to the last page and
//! see exactly what an unpaginated server lists; a cursor key shorter than
//! 32 bytes stops `fusion serve` with a message that names the flag and not
//! the key.

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
fn a_short_cursor_key_stops_fusion_serve_without_printing_it() {
    let key = "short-secret";
    let run = fusion_with(
        &["serve", "--stdio", "--example", "conformance"],
        &[("FUSION_CURSOR_KEY", key)],
        b"",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "fusion serve: --cursor-key (FUSION_CURSOR_KEY) has 12 bytes; give at least 32, e.g. from `openssl rand -base64 48`, the same on every replica\n"
        ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(key), "{}", run.stderr);
}
