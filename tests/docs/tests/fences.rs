//! Every code block of the documentation says its language, and no `rust`
//! block is skipped: rustdoc compiles a block without a language as Rust and
//! skips one marked `ignore`, so either would let a snippet rot unseen.

use std::fs;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

/// The attributes rustdoc reads on a Rust block; any other word names a
/// language, which makes the block not Rust.
const RUSTDOC_WORDS: [&str; 9] = [
    "rust",
    "no_run",
    "should_panic",
    "compile_fail",
    "ignore",
    "test_harness",
    "standalone_crate",
    "edition2021",
    "edition2024",
];

// The pages build.rs found: `PAGES`.
include!(concat!(env!("OUT_DIR"), "/page_paths.rs"));

/// What is wrong with one block's info string, if anything.
fn problem(kind: &CodeBlockKind) -> Option<&'static str> {
    let CodeBlockKind::Fenced(info) = kind else {
        return Some(
            "an indented code block (rustdoc compiles it as Rust): fence it and name its language",
        );
    };
    let words: Vec<&str> = info
        .split([',', ' '])
        .filter(|word| !word.is_empty())
        .collect();
    if words.is_empty() {
        return Some("a fenced block without a language (rustdoc compiles it as Rust)");
    }
    let rust = words
        .iter()
        .all(|word| RUSTDOC_WORDS.contains(word) || word.starts_with("ignore-"));
    let skipped = words
        .iter()
        .any(|word| *word == "ignore" || word.starts_with("ignore-"));
    (rust && skipped).then_some("a `rust` block marked `ignore`: make it compile (hide set-up lines with `# `), or `no_run`")
}

#[test]
fn every_block_names_its_language_and_no_rust_block_is_skipped() {
    let mut problems = Vec::new();
    for page in PAGES {
        let text = fs::read_to_string(page).expect("read a page");
        for (event, range) in Parser::new(&text).into_offset_iter() {
            if let Event::Start(Tag::CodeBlock(kind)) = event
                && let Some(problem) = problem(&kind)
            {
                let line = text[..range.start].lines().count() + 1;
                problems.push(format!("{page}:{line}: {problem}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
