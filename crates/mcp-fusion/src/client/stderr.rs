//! Keeping the tail of a spawned server's stderr, to explain a failed start.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::task::JoinHandle;

/// How much of the server's stderr is kept: the last 8 KiB.
const TAIL_BYTES: usize = 8 * 1024;

/// The last [`TAIL_BYTES`] a child wrote on stderr, read by a background task.
#[derive(Debug)]
pub(crate) struct StderrTail {
    buffer: Arc<Mutex<Vec<u8>>>,
    reader: Mutex<Option<JoinHandle<()>>>,
}

impl StderrTail {
    /// Starts reading `stderr` in the background.
    pub(crate) fn spawn(mut stderr: ChildStderr) -> Self {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&buffer);
        let reader = tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                let Ok(mut buf) = sink.lock() else { break };
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > TAIL_BYTES {
                    let cut = buf.len() - TAIL_BYTES;
                    buf.drain(..cut);
                }
            }
        });
        StderrTail {
            buffer,
            reader: Mutex::new(Some(reader)),
        }
    }

    /// What has been read so far, as lossy UTF-8, trimmed; `None` when empty.
    pub(crate) fn text(&self) -> Option<String> {
        let buf = self.buffer.lock().ok()?;
        let text = String::from_utf8_lossy(&buf).trim().to_owned();
        (!text.is_empty()).then_some(text)
    }

    /// Waits up to `limit` for the child to close its stderr (it exited), then
    /// returns [`text`](Self::text).
    pub(crate) async fn settle(&self, limit: Duration) -> Option<String> {
        let reader = self.reader.lock().ok().and_then(|mut r| r.take());
        if let Some(reader) = reader {
            let _ = tokio::time::timeout(limit, reader).await;
        }
        self.text()
    }
}
