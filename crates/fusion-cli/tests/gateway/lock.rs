//! `fusion lock` against `fusion gateway`: the lockfile holds the mounted
//! contracts under their namespaces (handoff upstreams with
//! `--list-every-upstream`), and `--check` catches an upstream's breaking
//! change.

use crate::gateway::{TempFile, billing_command, config_file};
use crate::support::{FUSION, TempDb};
use serde_json::Value;

/// `fusion ARGS`, its exit code and stdout.
fn fusion(args: &[&str]) -> (Option<i32>, String) {
    let out = std::process::Command::new(FUSION)
        .args(args)
        .env("RUST_LOG", "error")
        .env("NO_COLOR", "1")
        .output()
        .expect("run fusion");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The command that serves `config` over stdio, with `flags`.
fn gateway_cmd(config: &TempFile, flags: &str) -> String {
    format!(
        "{FUSION} gateway --stdio {flags} --config {}",
        config.0.display()
    )
}

/// `fusion lock --cmd <cmd> -o <lock>`, which must succeed; the tool names
/// the lockfile holds.
fn locked_tools(cmd: &str, lock: &TempFile) -> Vec<String> {
    let lock_path = lock.0.display().to_string();
    let (code, report) = fusion(&["lock", "--cmd", cmd, "-o", &lock_path]);
    assert_eq!(code, Some(0), "{report}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&lock.0).expect("the lockfile"))
            .expect("JSON");
    written["tools"]
        .as_object()
        .expect("tools")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_gateway_lockfile_catches_a_breaking_upstream_change() {
    let db = TempDb::new("gateway-lock");
    let before = config_file(
        "lock-before",
        &format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\n",
            billing_command(&db)
        ),
    );
    // The same namespace, now served by the bench example (no `billing` group).
    let after = config_file(
        "lock-after",
        &format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"{FUSION}\", \"serve\", \"--example\", \"bench\", \"--stdio\"]\n"
        ),
    );
    let lock = TempFile(
        std::env::temp_dir().join(format!("fusion-gateway-lock-{}.json", std::process::id())),
    );
    assert_eq!(
        locked_tools(&gateway_cmd(&before, ""), &lock),
        ["finance.billing", "finance.billing_health"]
    );
    let check = |config: &TempFile| {
        fusion(&[
            "lock",
            "--check",
            "--cmd",
            &gateway_cmd(config, ""),
            "--lock",
            &lock.0.display().to_string(),
        ])
    };
    assert_eq!(check(&before).0, Some(0), "unchanged");
    let (code, report) = check(&after);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("BREAKING  (tool)  Tool \"finance.billing\" was removed."),
        "{report}"
    );
}

#[test]
fn the_gateway_lockfile_holds_handoff_upstreams_listed_for_it() {
    let db = TempDb::new("gateway-lock-handoff");
    let config = config_file(
        "lock-handoff",
        &format!(
            "[[upstream]]\nnamespace = \"finance\"\ncommand = {}\nexposure = \"handoff\"\n",
            billing_command(&db)
        ),
    );
    let lock = TempFile(std::env::temp_dir().join(format!(
        "fusion-gateway-lock-handoff-{}.json",
        std::process::id()
    )));
    assert_eq!(
        locked_tools(&gateway_cmd(&config, "--list-every-upstream"), &lock),
        ["finance.billing", "finance.billing_health", "handoff"]
    );
}
