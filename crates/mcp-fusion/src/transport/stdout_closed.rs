//! [`stdout_closed`]: noticing that a stdio client went away, when the end
//! of the server's stdout it read from closes (the client exited, or closed
//! its pipe), so that the calls still running are cancelled at once.
//!
//! The end of stdin alone does not say the client went away: a client that
//! pipes its requests in (`printf … | server`) closes stdin at once and
//! still reads the answers, which rmcp gives the calls in progress up to
//! 5 s to write. Only a closed reader means nobody will read them.

/// Resolves once the reader of this process's stdout (fd 1) has closed its
/// end: the kernel reports an error condition (`POLLERR`) on the write end of
/// a pipe whose reader is gone. Never resolves when stdout cannot be watched
/// that way (not a pipe, or a platform other than Linux).
pub(crate) async fn stdout_closed() {
    #[cfg(target_os = "linux")]
    if let Ok(stdout) = watched_stdout() {
        // An error condition is reported however the pipe is registered.
        if stdout.ready(tokio::io::Interest::ERROR).await.is_ok() {
            return;
        }
    }
    std::future::pending::<()>().await
}

/// fd 1 opened again through `/proc/self/fd` (as rmcp's `stdio_pipes` does):
/// a file description of its own, so that the non-blocking mode tokio sets
/// on it stays off the process's stdout.
///
/// # Errors
/// When fd 1 is not a pipe, or has no reader already.
#[cfg(target_os = "linux")]
fn watched_stdout() -> std::io::Result<tokio::net::unix::pipe::Sender> {
    tokio::net::unix::pipe::OpenOptions::new().open_sender("/proc/self/fd/1")
}
