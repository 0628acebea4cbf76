//! Running the real `fusion` binary: its exit code and both outputs, in an
//! environment cleaned of what would change them (colour, backtraces, a
//! log level, a token or OAuth client from the caller's shell).

use std::io::Write;
use std::process::{Command, Stdio};

pub const FUSION: &str = env!("CARGO_BIN_EXE_fusion");

/// What one run of `fusion` gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `fusion args` in the cleaned environment, not started (for a test that
/// reads its output as it comes).
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(FUSION);
    command.args(args);
    for name in [
        "NO_COLOR",
        "RUST_BACKTRACE",
        "RUST_LIB_BACKTRACE",
        "RUST_LOG",
        "FUSION_BEARER",
        "FUSION_OAUTH_CLIENT_ID",
        "FUSION_OAUTH_CLIENT_SECRET",
        "FUSION_CURSOR_KEY",
    ] {
        command.env_remove(name);
    }
    command
}

/// Runs `fusion args` with no input (the modules that start `fusion serve`).
#[cfg(feature = "example")]
pub fn fusion(args: &[&str]) -> Run {
    fusion_with(args, &[], b"")
}

/// Runs `fusion args` with `env` set and `stdin` as its input. Its stdout is
/// a pipe: colour there is a defect unless the arguments ask for it
/// (`always`).
pub fn fusion_with(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Run {
    let mut command = command(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fusion");
    let mut input = child.stdin.take().expect("fusion's stdin");
    if !stdin.is_empty() {
        input.write_all(stdin).expect("write fusion's stdin");
    }
    drop(input);
    let out = child.wait_with_output().expect("wait for fusion");
    let run = Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    };
    assert!(
        !run.stdout.contains('\x1b') || args.contains(&"always"),
        "colour on a pipe: {}",
        run.stdout
    );
    run
}
