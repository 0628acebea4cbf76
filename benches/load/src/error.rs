//! Why a run could not be made or finished (as opposed to calls that got
//! the wrong answer, which a [`crate::Tally`] counts).

/// A run that could not start or could not go on. The driver prints it and
/// exits with code 2.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The options do not describe a run (no server command, a bad URL).
    #[error("{0}")]
    Usage(String),
    /// The server process could not be started.
    #[error("cannot start the server `{command}`: {source}")]
    Start {
        /// The command line, as given.
        command: String,
        /// Why the operating system refused.
        source: std::io::Error,
    },
    /// The server process ended (or closed its stdout) before the run did.
    #[error("the server exited {when} ({status}){stderr}")]
    Exited {
        /// What the driver was doing, e.g. "before answering initialize".
        when: String,
        /// Its exit status, or that it is still running.
        status: String,
        /// The last lines it wrote on stderr, introduced by a newline; empty
        /// when it wrote none.
        stderr: String,
    },
    /// No answer within the timeout where one was needed to go on (the
    /// handshake).
    #[error("timed out after {after:?} {when}")]
    Timeout {
        /// What the driver was waiting for.
        when: String,
        /// How long it waited.
        after: std::time::Duration,
    },
    /// The server answered the handshake with something the driver cannot
    /// use (an error, no session, an HTTP error status).
    #[error("{0}")]
    Protocol(String),
    /// Reading from or writing to the server failed.
    #[error("{context}: {source}")]
    Io {
        /// What the driver was doing.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}
