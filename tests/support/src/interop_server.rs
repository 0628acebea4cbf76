//! The foreign servers of `tests/interop/` (built with the official
//! TypeScript SDK; installed with `scripts/npm-install tests/interop`), for
//! the tests that run them: mcp-fusion's `client` program and fusion-cli's
//! `cli` program.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// `tests/interop`, with its packages installed; `None` (the test skips,
/// saying why on stderr) when `node` is not installed. With node present and
/// the packages missing, the test fails with the command to run.
pub fn interop_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../interop");
    if Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        eprintln!(
            "SKIPPED: `node` is not installed, so the TypeScript SDK interop servers cannot run"
        );
        return None;
    }
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the interop servers' packages are missing: run `scripts/npm-install {}` from the repository root",
        dir.display()
    );
    Some(dir.canonicalize().expect("tests/interop exists"))
}

/// `plain-errors.mjs --http` (a 2025-11-25 server over Streamable HTTP) as a
/// child process, killed when dropped.
pub struct PlainErrorsHttp {
    child: Child,
    /// Its MCP endpoint, the URL it prints as `LISTENING URL`.
    pub url: String,
}

impl PlainErrorsHttp {
    /// Starts the server from `dir` (see [`interop_dir`]) and waits for its
    /// `LISTENING URL` line, so that it is listening when this returns.
    pub fn start(dir: &Path) -> Self {
        let mut child = Command::new("node")
            .arg(dir.join("plain-errors.mjs"))
            .arg("--http")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start node");
        let stdout = child.stdout.take().expect("piped stdout");
        // Owned before the first line is read, so that a failure kills it.
        let mut server = PlainErrorsHttp {
            child,
            url: String::new(),
        };
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server prints its URL");
        server.url = line
            .trim()
            .strip_prefix("LISTENING ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        server
    }
}

impl Drop for PlainErrorsHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
