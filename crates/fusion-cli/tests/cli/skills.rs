//! `fusion skills` and `fusion skill` against `fusion serve --example
//! conformance --skills examples/skills` over stdio (`--cmd`): the table and
//! `--json` of the skills, one skill fetched (its files, its `SKILL.md`
//! checked against its digest), an unknown skill (exit 2), and a server
//! without skills (`-32601`, exit 2).

use serde_json::{Value, json};

use crate::run::{FUSION, Run, fusion};

/// `examples/skills`, from the repository root.
fn skills_dir() -> String {
    format!("{}/../../examples/skills", env!("CARGO_MANIFEST_DIR"))
}

/// `fusion COMMAND --cmd 'fusion serve --stdio … --skills DIR' WORDS…`.
fn over_stdio(command: &str, words: &[&str]) -> Run {
    let cmd = format!(
        "'{FUSION}' serve --stdio --example conformance --skills '{}'",
        skills_dir()
    );
    let mut args = vec![command, "--cmd", &cmd];
    args.extend_from_slice(words);
    fusion(&args)
}

fn file(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", skills_dir())).unwrap()
}

#[test]
fn skills_are_a_table_of_uri_name_files_and_description() {
    let run = over_stdio("skills", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "mcp-fusion-conformance {} (2 skills)\n\n\
             URI                                         NAME               FILES  DESCRIPTION\n\
             skill://invoice-reminders/SKILL.md          invoice-reminders  3      Write a polite payment reminder for an overdue invoice.\n\
             skill://invoice-reminders/refunds/SKILL.md  refunds            1      Refund a paid invoice, in part or in full.\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let run = over_stdio("skills", &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let listed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        listed[1]["frontmatter"],
        json!({"name": "refunds", "description": "Refund a paid invoice, in part or in full."})
    );
}

#[test]
fn a_skill_is_fetched_with_its_files_and_its_text() {
    let run = over_stdio("skill", &["skill://invoice-reminders/SKILL.md"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let size = |path: &str| file(path).len();
    assert_eq!(
        run.stdout,
        format!(
            "invoice-reminders (skill://invoice-reminders/SKILL.md)\n\
             Write a polite payment reminder for an overdue invoice.\n\n\
             Files (3):\n\
             {:>10} bytes  skill://invoice-reminders/SKILL.md\n\
             {:>10} bytes  skill://invoice-reminders/refunds/SKILL.md\n\
             {:>10} bytes  skill://invoice-reminders/templates/reminder.txt\n\n\
             --- SKILL.md\n{}",
            size("invoice-reminders/SKILL.md"),
            size("invoice-reminders/refunds/SKILL.md"),
            size("invoice-reminders/templates/reminder.txt"),
            file("invoice-reminders/SKILL.md"),
        )
    );
    let run = over_stdio(
        "skill",
        &["--json", "skill://invoice-reminders/refunds/SKILL.md"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let fetched: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        fetched["skillMd"],
        file("invoice-reminders/refunds/SKILL.md")
    );
    assert_eq!(
        fetched["skill"]["uri"],
        "skill://invoice-reminders/refunds/SKILL.md"
    );
}

#[test]
fn an_unknown_skill_and_a_server_without_skills_exit_2() {
    let run = over_stdio("skill", &["skill://invoices/SKILL.md"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: the server answered with a JSON-RPC error -32602: unknown skill skill://invoices/SKILL.md\n  \
         hint: `fusion skills` lists the skills this server serves\n"
    );
    let cmd = format!("'{FUSION}' serve --stdio --example conformance");
    let run = fusion(&["skills", "--cmd", &cmd]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: the server answered with a JSON-RPC error -32601: skills/list\n  \
         hint: `fusion skills` lists the skills this server serves\n"
    );
}
