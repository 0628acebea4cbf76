//! `fusion lock`, `fusion lock --check`, `fusion diff` and `fusion serve
//! --lock`, run as the real binary against `fusion serve --stdio` over a
//! temporary database, and against lockfiles edited (through the library,
//! so that their digests stay valid) to differ from the server.

use mcp_fusion::contract::Lockfile;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use crate::run::{FUSION, fusion};

/// A directory of its own for each test (database and lockfiles), removed
/// at the end.
struct Workdir(PathBuf);

impl Workdir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("fusion-contract-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Workdir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    fn arg(&self, file: &str) -> String {
        self.path(file).display().to_string()
    }

    /// The billing server over this directory's database, for `--cmd`.
    fn serve(&self, extra: &str) -> String {
        format!(
            "'{FUSION}' serve --stdio --db '{}'{extra}",
            self.path("billing.db").display()
        )
    }

    /// `fusion lock` into `file`, checked to succeed.
    fn lock(&self, file: &str) -> Lockfile {
        let run = fusion(&["lock", "--cmd", &self.serve(""), "-o", &self.arg(file)]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        Lockfile::read(&self.path(file)).expect("the written lockfile reads back")
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `lock` with `get_invoice`'s `id` called `invoice_id` and without
/// `void_invoice`: against it, the server renamed a field (RISKY) and added
/// an action (SAFE).
fn older(lock: &Lockfile) -> Lockfile {
    let mut lock = lock.clone();
    let billing = lock.contract.tools.get_mut("billing").unwrap();
    billing
        .actions
        .remove("void_invoice")
        .expect("void_invoice");
    let get = billing.actions.get_mut("get_invoice").unwrap();
    let properties = get.input_schema["properties"].as_object_mut().unwrap();
    let id = properties.remove("id").unwrap();
    properties.insert("invoice_id".into(), id);
    get.input_schema["required"] = json!(["invoice_id"]);
    lock
}

/// `lock` with an action `refund_invoice` the server does not have: against
/// it, the server removed an action (BREAKING).
fn with_refund(lock: &Lockfile) -> Lockfile {
    let mut lock = lock.clone();
    let billing = lock.contract.tools.get_mut("billing").unwrap();
    let mut refund = billing.actions["pay_invoice"].clone();
    refund.name = "refund_invoice".into();
    billing.actions.insert("refund_invoice".into(), refund);
    lock
}

#[test]
fn lock_writes_a_stable_lockfile_and_check_passes() {
    let dir = Workdir::new("lock");
    let run = fusion(&[
        "lock",
        "--cmd",
        &dir.serve(""),
        "-o",
        &dir.arg("fusion.lock"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lock = Lockfile::read(&dir.path("fusion.lock")).unwrap();
    assert_eq!(
        run.stdout,
        format!(
            "wrote {}: 2 tools, 8 actions ({})\n",
            dir.arg("fusion.lock"),
            lock.contract.digest()
        )
    );
    // The progress lines (stderr is not a terminal here: plain lines).
    assert!(
        run.stderr.contains("fusion: connecting to "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("fusion: listing the tools of mcp-fusion-billing "),
        "{}",
        run.stderr
    );
    let server = lock.server.as_ref().unwrap();
    assert_eq!(server.name, "mcp-fusion-billing");
    let get = &lock.contract.tools["billing"].actions["get_invoice"];
    assert_eq!(
        get.input_schema["properties"]["id"]["pattern"],
        "^inv_[0-9]+$"
    );
    assert!(get.annotations.read_only);
    assert_eq!(
        lock.contract.tools["billing"].actions["get_invoice_legacy"]
            .deprecated
            .as_deref(),
        Some("billing.get_invoice")
    );

    // Same contract, same bytes.
    let first = std::fs::read(dir.path("fusion.lock")).unwrap();
    dir.lock("again.lock");
    assert_eq!(std::fs::read(dir.path("again.lock")).unwrap(), first);

    let run = fusion(&[
        "lock",
        "--check",
        "--cmd",
        &dir.serve(""),
        "--lock",
        &dir.arg("fusion.lock"),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "ok: {} is up to date: 2 tools, 8 actions ({})\n",
            dir.arg("fusion.lock"),
            lock.contract.digest()
        )
    );
}

#[test]
fn check_exits_1_with_a_readable_diff() {
    let dir = Workdir::new("check");
    let lock = dir.lock("fusion.lock");
    older(&lock).write(&dir.path("old.lock")).unwrap();
    let run = fusion(&[
        "lock",
        "--check",
        "--cmd",
        &dir.serve(""),
        "--lock",
        &dir.arg("old.lock"),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let title = format!(
        "Contract changes: {} → {FUSION} serve --stdio --db {}\n",
        dir.arg("old.lock"),
        dir.arg("billing.db")
    );
    assert_eq!(
        run.stdout,
        format!(
            "{title}\
             2 changes: 1 RISKY, 1 SAFE\n\
             \n\
             billing.get_invoice\n  \
             RISKY     invoice_id  Field \"invoice_id\" was renamed to \"id\".\n                        \
             before: string\n                        \
             now:    string\n\
             \n\
             billing.void_invoice\n  \
             SAFE      (action)    Action \"billing.void_invoice\" was added.\n                        \
             now:    id (required): string; reason: one of string | null\n\
             \n\
             changed: {} is out of date: 2 changes, the most severe RISKY. Review them, then run `fusion lock` to update it.\n",
            dir.arg("old.lock")
        )
    );
}

#[test]
fn diff_of_two_lockfiles_as_a_table_and_as_json() {
    let dir = Workdir::new("diff");
    let lock = dir.lock("new.lock");
    older(&lock).write(&dir.path("old.lock")).unwrap();

    let run = fusion(&["diff", &dir.arg("old.lock"), &dir.arg("new.lock")]);
    assert_eq!(
        run.code, 0,
        "no BREAKING change: {}{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.starts_with(&format!(
            "Contract changes: {} → {}\n2 changes: 1 RISKY, 1 SAFE\n",
            dir.arg("old.lock"),
            dir.arg("new.lock")
        )),
        "{}",
        run.stdout
    );

    let run = fusion(&[
        "diff",
        &dir.arg("old.lock"),
        &dir.arg("new.lock"),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0);
    let value: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        value,
        json!({
            "old": dir.arg("old.lock"),
            "new": dir.arg("new.lock"),
            "changes": 2,
            "max_severity": "RISKY",
            "counts": {"BREAKING": 0, "RISKY": 1, "SAFE": 1, "COSMETIC": 0},
            "deltas": [
                {"tool": "billing", "action": "get_invoice", "field": "invoice_id", "severity": "RISKY",
                 "old": "string", "new": "string", "description": "Field \"invoice_id\" was renamed to \"id\"."},
                {"tool": "billing", "action": "void_invoice", "field": "(action)", "severity": "SAFE",
                 "old": null, "new": "id (required): string; reason: one of string | null", "description": "Action \"billing.void_invoice\" was added."},
            ],
        })
    );

    // The same lockfile on both sides.
    let run = fusion(&["diff", &dir.arg("new.lock"), &dir.arg("new.lock")]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.ends_with("No contract changes.\n"),
        "{}",
        run.stdout
    );

    // Colour only when asked (stdout is a pipe here).
    let run = fusion(&[
        "diff",
        &dir.arg("old.lock"),
        &dir.arg("new.lock"),
        "--color",
        "always",
    ]);
    assert!(run.stdout.contains("\x1b[1;33mRISKY"), "{}", run.stdout);
}

#[test]
fn diff_exits_1_when_anything_is_breaking() {
    let dir = Workdir::new("breaking");
    let lock = dir.lock("fusion.lock");
    with_refund(&lock).write(&dir.path("old.lock")).unwrap();

    // Against the live server, with --cmd.
    let run = fusion(&["diff", &dir.arg("old.lock"), "--cmd", &dir.serve("")]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "billing.refund_invoice\n  BREAKING  (action)  Action \"billing.refund_invoice\" was removed.\n"
        ),
        "{}",
        run.stdout
    );
    let run = fusion(&[
        "diff",
        &dir.arg("old.lock"),
        "--cmd",
        &dir.serve(""),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 1);
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(value["max_severity"], "BREAKING");
    assert_eq!(value["deltas"][0]["action"], "refund_invoice");

    // --check says so too, with exit 1.
    let run = fusion(&[
        "lock",
        "--check",
        "--cmd",
        &dir.serve(""),
        "--lock",
        &dir.arg("old.lock"),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("the most severe BREAKING"),
        "{}",
        run.stdout
    );
}

#[test]
fn unreadable_lockfiles_and_usage_errors_exit_2() {
    let dir = Workdir::new("errors");
    let missing = dir.arg("missing.lock");
    let run = fusion(&[
        "lock",
        "--check",
        "--cmd",
        &dir.serve(""),
        "--lock",
        &missing,
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "error: {missing}: cannot read the lockfile {missing}: "
        )),
        "{}",
        run.stderr
    );

    std::fs::write(
        dir.path("v9.lock"),
        "{\"lockfileVersion\": 9, \"tools\": {}}",
    )
    .unwrap();
    let run = fusion(&["diff", &dir.arg("v9.lock"), &dir.arg("v9.lock")]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: the lockfile has \"lockfileVersion\": 9, but this version of mcp-fusion reads only version 1; regenerate it with `fusion lock`\n",
            dir.arg("v9.lock")
        )
    );

    std::fs::write(dir.path("bad.lock"), "{\"lockfileVersion\": 1,").unwrap();
    let run = fusion(&["diff", &dir.arg("bad.lock"), &dir.arg("bad.lock")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the lockfile is not valid JSON (line 1, column "),
        "{}",
        run.stderr
    );

    dir.lock("fusion.lock");
    let run = fusion(&["diff", &dir.arg("fusion.lock")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("error: missing NEW"),
        "{}",
        run.stderr
    );

    let run = fusion(&["lock", "--check", "-o", "x.lock", "--cmd", "true"]);
    assert_eq!(run.code, 2, "--check and -o conflict: {}", run.stderr);

    // A server that cannot be started.
    let run = fusion(&[
        "lock",
        "--cmd",
        "/nonexistent/server",
        "-o",
        &dir.arg("x.lock"),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!Path::new(&dir.path("x.lock")).exists());
}

/// `fusion call`'s readable output of a validation failure shows its
/// `<contract_awareness>` section (§4.1): what changed since the lockfile.
#[test]
fn call_shows_contract_awareness_readably() {
    let dir = Workdir::new("awareness");
    let lock = dir.lock("fusion.lock");
    older(&lock).write(&dir.path("old.lock")).unwrap();
    let server = dir.serve(&format!(" --lock '{}'", dir.arg("old.lock")));
    let run = fusion(&[
        "call",
        "--cmd",
        &server,
        "billing.get_invoice",
        r#"{"invoice_id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "tool error VALIDATION_ERROR (severity: error)\n  \
         action:            billing.get_invoice\n  \
         message:           The arguments for billing.get_invoice are not valid (2 problems).\n  \
         recovery:          Fix the fields below and call billing again. Do not explain the error.\n  \
         fields:\n    \
         id: Missing required field. You sent: (missing). Expected a string matching the pattern '^inv_[0-9]+$'.\n    \
         invoice_id: Unrecognized field \"invoice_id\". You sent: 'inv_1'. Did you mean \"id\"?\n  \
         contract changes:  billing.get_invoice changed since the lockfile: 1 change, most severe RISKY\n                     \
         RISKY invoice_id: Field \"invoice_id\" was renamed to \"id\". Before: string. Now: string.\n"
    );
}

#[test]
fn serve_with_a_lockfile_adds_contract_awareness() {
    let dir = Workdir::new("serve");
    let lock = dir.lock("fusion.lock");
    older(&lock).write(&dir.path("old.lock")).unwrap();
    let server = dir.serve(&format!(" --lock '{}'", dir.arg("old.lock")));

    // A model calibrated on the old contract sends `invoice_id`.
    let run = fusion(&[
        "call",
        "--raw",
        "--cmd",
        &server,
        "billing.get_invoice",
        r#"{"invoice_id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let result: Value = serde_json::from_str(&run.stdout).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.ends_with(
            "  <contract_awareness action=\"billing.get_invoice\" changes=\"1\" max_severity=\"RISKY\">\n    \
             <delta severity=\"RISKY\" field=\"invoice_id\">Field \"invoice_id\" was renamed to \"id\". Before: string. Now: string.</delta>\n  \
             </contract_awareness>\n</validation_error>"
        ),
        "{text}"
    );

    // Another action's failure carries nothing: its contract did not change.
    let run = fusion(&[
        "call",
        "--raw",
        "--cmd",
        &server,
        "billing.pay_invoice",
        "{}",
    ]);
    assert_eq!(run.code, 1);
    assert!(!run.stdout.contains("contract_awareness"), "{}", run.stdout);

    // A valid call is untouched.
    let run = fusion(&[
        "call",
        "--cmd",
        &server,
        "billing.get_invoice",
        r#"{"id": "inv_1"}"#,
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("contract"), "{}", run.stdout);

    // A corrupt lockfile stops the server with a clear message.
    std::fs::write(dir.path("broken.lock"), "not json").unwrap();
    let run = fusion(&[
        "serve",
        "--stdio",
        "--db",
        &dir.arg("billing.db"),
        "--lock",
        &dir.arg("broken.lock"),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("fusion serve: the lockfile is not valid JSON (line 1, column 2)"),
        "{}",
        run.stderr
    );
}

#[test]
fn lock_without_check_refuses_lock_instead_of_overwriting_fusion_lock() {
    let dir = Workdir::new("lock-flag");
    let run = fusion(&[
        "lock",
        "--lock",
        &dir.arg("x.lock"),
        "--cmd",
        &dir.serve(""),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--check"),
        "the error names --check: {}",
        run.stderr
    );
    assert!(!dir.path("x.lock").exists());
}
