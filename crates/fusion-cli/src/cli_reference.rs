//! `docs/guide/cli-reference.md` is generated from the clap definitions of
//! the default build (features `example` and `otel`): this test fails when
//! the checked-in page is not what they generate today, and rewrites it when
//! `FUSION_UPDATE_CLI_REFERENCE=1` is set.

use std::{env, fs, path::PathBuf};

use clap::{Command, CommandFactory};

use crate::Cli;

/// The page as the clap definitions generate it.
fn generated() -> String {
    let mut command = without_help_subcommands(Cli::command());
    // Subcommands are `defer`red: build them all before reading them.
    command.build();
    let command = named_as_typed(command);
    let options = clap_markdown::MarkdownOptions::new()
        .title("The `fusion` command".to_owned())
        .show_footer(false);
    let body = clap_markdown::help_markdown_command_custom(&command, &options);
    let body: Vec<String> = body.lines().map(escape_tags).map(usage_once).collect();
    let body = body.join("\n") + "\n";
    format!(
        "<!-- Generated from crates/fusion-cli's clap definitions by \
         `FUSION_UPDATE_CLI_REFERENCE=1 cargo test -p fusion-cli --bin fusion cli_reference`: \
         do not edit by hand. -->\n\n{body}"
    )
}

/// `line` with each `<` and `>` outside a code span written as an HTML
/// entity: help texts name envelopes (`print its <tool_error> envelope`),
/// which a Markdown renderer would take for an HTML tag and hide.
fn escape_tags(line: &str) -> String {
    let mut in_code = false;
    let mut escaped = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                escaped.push(c);
            }
            '<' if !in_code => escaped.push_str("&lt;"),
            '>' if !in_code => escaped.push_str("&gt;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// A usage line with its command's path once: the page writes the parent's
/// path before a usage clap already starts with the whole path
/// (`fusion envelope fusion envelope render` becomes `fusion envelope
/// render`).
fn usage_once(line: String) -> String {
    let Some(usage) = line.strip_prefix("**Usage:** `") else {
        return line;
    };
    let words: Vec<&str> = usage.split(' ').collect();
    let repeated = (1..=words.len() / 2).find(|&n| words[..n] == words[n..2 * n]);
    match repeated {
        Some(n) => format!("**Usage:** `{}", words[n..].join(" ")),
        None => line,
    }
}

/// `command` and its subcommands without the `help` subcommand clap adds
/// (the page documents `--help` once, on every command).
fn without_help_subcommands(command: Command) -> Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    names
        .iter()
        .fold(command.disable_help_subcommand(true), |command, name| {
            command.mut_subcommand(name, without_help_subcommands)
        })
}

/// Building names each subcommand after its path (`fusion-call`): give it
/// back the name a user types, which the page joins into the path itself.
fn named_as_typed(command: Command) -> Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| {
            let typed = sub.get_name().to_owned();
            named_as_typed(sub.display_name(typed))
        })
    })
}

#[test]
fn cli_reference_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/cli-reference.md");
    let page = generated();
    if env::var_os("FUSION_UPDATE_CLI_REFERENCE").is_some_and(|value| value == "1") {
        fs::write(&path, &page).expect("write docs/guide/cli-reference.md");
        return;
    }
    let checked_in = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == page,
        "docs/guide/cli-reference.md is not what the clap definitions generate; run \
         FUSION_UPDATE_CLI_REFERENCE=1 cargo test -p fusion-cli --bin fusion cli_reference"
    );
}

/// A flattened argument struct's doc comment would replace a deferred
/// subcommand's about (seen once: `serve` and `gateway` both read "The flags
/// of the server's signing keys"); every subcommand keeps its own.
#[test]
fn every_subcommand_has_its_own_about() {
    let mut command = Cli::command();
    command.build();
    let mut abouts: Vec<String> = command
        .get_subcommands()
        .filter(|sub| sub.get_name() != "help")
        .map(|sub| sub.get_about().map(ToString::to_string).unwrap_or_default())
        .collect();
    let count = abouts.len();
    abouts.sort();
    abouts.dedup();
    assert_eq!(
        abouts.len(),
        count,
        "two subcommands share an about: {abouts:#?}"
    );
    assert!(
        abouts.iter().all(|about| !about.is_empty()),
        "a subcommand without an about"
    );
}
