//! The errors of starting a server as `fn main() -> Result<(), Box<dyn Error>>`
//! prints them (`Error: ` and the error's `Debug`): a `BuildError` prints its
//! sentence, not its variant's fields; a `ServeError` its sentence, then each
//! cause beneath it on a `caused by: …` line, a cause the sentence already
//! ends with not repeated.

use std::error::Error;
use std::fmt;
use std::net::{Ipv4Addr, TcpListener};

use mcp_fusion::transport::{HttpOptions, ServeError};
use mcp_fusion::{Action, FusionServer, NoArgs, State, ToolError};

/// What `main` prints after `Error: ` when it returns `err`.
fn as_main_prints(err: impl Error + 'static) -> String {
    let boxed: Box<dyn Error> = Box::new(err);
    format!("{boxed:?}")
}

/// A state the server below is not given.
#[derive(Clone)]
struct Notes;

async fn boom(_notes: State<Notes>, _args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("boom")
}

async fn ok(_args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("ok")
}

#[test]
fn a_build_error_prints_its_sentence() {
    let err = FusionServer::builder("notes", "1.0.0")
        .tool(Action::new("boom", boom))
        .build()
        .expect_err("State<Notes> is missing");
    assert_eq!(
        as_main_prints(err.clone()),
        "boom: the handler takes State<server::startup_errors::Notes>, but the server has no such state: add it with ServerBuilder::state"
    );
    assert_eq!(format!("{err:?}"), err.to_string());
}

#[tokio::test]
async fn a_bind_error_prints_its_sentence_once() {
    let taken = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a free port");
    let addr = taken.local_addr().expect("its address");
    // The operating system's words for the same failure.
    let os = TcpListener::bind(addr).expect_err("the port is taken");
    let server = FusionServer::builder("notes", "1.0.0")
        .tool(Action::new("ok", ok))
        .build()
        .expect("a server");
    let err = server
        .serve_http(addr, HttpOptions::default())
        .await
        .expect_err("the port is taken");
    assert!(matches!(err, ServeError::Bind { .. }), "{err}");
    // The sentence ends with the io::Error's text: no `caused by` line.
    assert_eq!(
        as_main_prints(err),
        format!("cannot listen on {addr}: {os}")
    );
}

/// A cause with a cause of its own.
#[derive(Debug)]
struct Broken(Reset);

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the first message could not be read")
    }
}

impl Error for Broken {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.0)
    }
}

#[derive(Debug)]
struct Reset;

impl fmt::Display for Reset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("connection reset by peer")
    }
}

impl Error for Reset {}

#[test]
fn a_transport_error_prints_its_causes_on_their_own_lines() {
    let err = ServeError::Transport(Box::new(Broken(Reset)));
    assert_eq!(
        err.to_string(),
        "transport error: the first message could not be read"
    );
    assert_eq!(
        as_main_prints(err),
        "transport error: the first message could not be read\ncaused by: connection reset by peer"
    );
}

#[test]
fn the_cause_chain_walks_to_the_real_error() {
    let err = ServeError::Transport(Box::new(Broken(Reset)));
    let source = err.source().expect("the transport's error");
    assert!(source.is::<Broken>());
    let root = source.source().expect("its cause");
    assert!(root.is::<Reset>());
}
