//! The stdio transport: newline-delimited JSON-RPC on a pair of byte streams
//! (stdin/stdout through rmcp's non-blocking `stdio_pipes()`), answering the
//! messages rmcp cannot read as JSON-RPC 2.0 §5 says (`crate::wire::jsonrpc`).
//!
//! A line is one message. A line longer than [`MAX_LINE_BYTES`] is discarded
//! (without buffering it) and answered with `-32600`; a line holding more
//! JSON values than [`StdioOptions::max_json_values`](super::StdioOptions)
//! is answered before it is parsed (a `tools/call` with a
//! `<validation_error>` tool result, another request with `-32600`); the
//! session goes on after every bad line.
//!
//! A request id may not be reused while its first use is in progress, nor
//! after it was cancelled (MCP basic/messages): the second request gets
//! `-32600` (its answer would be indistinguishable, and rmcp would drop one
//! of the two).
//!
//! `receive` is cancel-safe: rmcp's service loop drops a pending `receive`
//! whenever another event wins its `select!` (a response finished sending,
//! for one), so an answer of ours waits in the transport, not in the future,
//! until the writer holds it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::pin::Pin;
use std::sync::Arc;

use bytes::{Buf, BufMut, BytesMut};
use futures::{Sink, SinkExt, StreamExt};
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, RequestId,
    ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex;
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

use crate::envelope::{WritesEnvelopes, written_members};
use crate::server::listen::task_ids::{acknowledge_task_ids, error_answer, requested_task_ids};
use crate::wire::jsonrpc::{
    INVALID_REQUEST, duplicate_id_response, params_refusal, reject_unreadable, too_many_values,
};
use crate::wire::message_text::MessageText;

/// The longest line (one message) read, in bytes: 16 MiB, as rmcp's own
/// stdio transport.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How long closing waits for the client to read what is left to write:
/// 5 seconds (as long as rmcp lets the answers of a closed input be written).
const CLOSE_FLUSH: std::time::Duration = std::time::Duration::from_secs(5);

/// One line read, or the notice that an over-long one was dropped.
enum Line {
    Text(BytesMut),
    Oversized,
}

/// Splits a byte stream at `\n`, never holding more than `max` bytes of one
/// line: the rest of a longer line is skipped and reported once, as
/// [`Line::Oversized`], so that the stream goes on (tokio-util's own line
/// codecs end the stream on an over-long line).
struct Lines {
    max: usize,
    /// Bytes already searched for `\n` in the buffer.
    searched: usize,
    /// Inside an over-long line, skipping to its end.
    skipping: bool,
}

impl Decoder for Lines {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        let newline = buf[self.searched..].iter().position(|b| *b == b'\n');
        match newline {
            Some(offset) => {
                let end = self.searched + offset;
                self.searched = 0;
                if self.skipping || end > self.max {
                    self.skipping = false;
                    buf.advance(end + 1);
                    return Ok(Some(Line::Oversized));
                }
                let mut line = buf.split_to(end + 1);
                line.truncate(end);
                Ok(Some(Line::Text(line)))
            }
            None if self.skipping || buf.len() > self.max => {
                self.skipping = true;
                self.searched = 0;
                buf.clear();
                Ok(None)
            }
            None => {
                self.searched = buf.len();
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        if let Some(line) = self.decode(buf)? {
            return Ok(Some(line));
        }
        self.searched = 0;
        if std::mem::take(&mut self.skipping) {
            buf.clear();
            return Ok(Some(Line::Oversized));
        }
        // A last message without its newline is still a message.
        if buf.is_empty() {
            return Ok(None);
        }
        let len = buf.len();
        Ok(Some(Line::Text(buf.split_to(len))))
    }
}

/// What is written: a message from rmcp, or an error response of ours.
// Moved once into the encoder: boxing rmcp's message would cost an
// allocation per message on the hot path.
#[allow(clippy::large_enum_variant)]
enum Outgoing {
    Message(ServerJsonRpcMessage),
    /// One line of JSON, already serialized.
    Raw(String),
}

/// Writes each message as one line of JSON.
struct JsonLines;

impl Encoder<Outgoing> for JsonLines {
    type Error = std::io::Error;

    fn encode(&mut self, item: Outgoing, buf: &mut BytesMut) -> Result<(), std::io::Error> {
        match item {
            Outgoing::Message(message) => message_into(&message, buf)?,
            Outgoing::Raw(line) => buf.put_slice(line.as_bytes()),
        }
        buf.put_u8(b'\n');
        Ok(())
    }
}

/// Writes `message` as JSON into `buf`. The answer to a `tools/call` whose
/// result the call path made as text ([`written_members`], asked for with
/// [`WritesEnvelopes`]) gets that text between its JSON-RPC members, the
/// bytes serde_json writes for the same result; anything else is
/// serialized.
fn message_into(message: &ServerJsonRpcMessage, buf: &mut BytesMut) -> serde_json::Result<()> {
    if let ServerJsonRpcMessage::Response(response) = message
        && let ServerResult::CallToolResult(result) = &response.result
        && let Some(members) = written_members(result)
    {
        buf.put_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        serde_json::to_writer(buf.writer(), &response.id)?;
        buf.put_slice(b",\"result\":{");
        if let Some(result_type) = &result.result_type {
            buf.put_slice(b"\"resultType\":");
            serde_json::to_writer(buf.writer(), result_type)?;
            buf.put_u8(b',');
        }
        buf.put_slice(members.as_bytes());
        buf.put_slice(b"}}");
        return Ok(());
    }
    serde_json::to_writer(buf.writer(), message)
}

type Writer<W> = Arc<Mutex<Option<FramedWrite<W, JsonLines>>>>;

/// The ids of the requests read and not yet answered.
#[derive(Default)]
struct RequestIds {
    in_flight: HashSet<RequestId>,
    /// Cancelled requests, oldest first: rmcp drops their answers, so their
    /// ids never come back through `send`. They stay in use (MCP forbids
    /// reusing an id in a session anyway; freeing one early would let rmcp
    /// mistake the cancelled call's late answer for the new request's), the
    /// oldest freed past [`MAX_CANCELLED`].
    cancelled: VecDeque<RequestId>,
    /// The `subscriptions/listen` requests naming tasks whose
    /// acknowledgement is not yet written, with those task ids (see
    /// `crate::server::listen::task_ids`).
    listening: HashMap<RequestId, Vec<String>>,
}

/// How many cancelled request ids are remembered.
const MAX_CANCELLED: usize = 4096;

impl RequestIds {
    /// `false` when `id` is already in use.
    fn start(&mut self, id: &RequestId) -> bool {
        self.in_flight.insert(id.clone())
    }

    fn answered(&mut self, id: &RequestId) {
        self.in_flight.remove(id);
    }

    fn cancelled(&mut self, id: &RequestId) {
        if !self.in_flight.contains(id) {
            return;
        }
        self.cancelled.push_back(id.clone());
        if self.cancelled.len() > MAX_CANCELLED
            && let Some(oldest) = self.cancelled.pop_front()
        {
            self.in_flight.remove(&oldest);
        }
    }
}

type SharedIds = Arc<std::sync::Mutex<RequestIds>>;

fn ids(shared: &SharedIds) -> std::sync::MutexGuard<'_, RequestIds> {
    // The sets stay consistent even if a holder panicked.
    shared
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `item` as written: the acknowledgement of a `subscriptions/listen` that
/// named tasks with those ids added as `notifications.taskIds` (rmcp's
/// leaves them out), anything else as it is.
fn acknowledged(shared: &SharedIds, item: ServerJsonRpcMessage) -> Outgoing {
    let ServerJsonRpcMessage::Notification(notification) = &item else {
        return Outgoing::Message(item);
    };
    if !matches!(
        notification.notification,
        ServerNotification::SubscriptionsAcknowledgedNotification(_)
    ) {
        return Outgoing::Message(item);
    }
    let Ok(mut text) = serde_json::to_value(&item) else {
        return Outgoing::Message(item);
    };
    let subscription = text
        .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    let task_ids = subscription.and_then(|id| ids(shared).listening.remove(&id));
    match task_ids {
        Some(task_ids) if acknowledge_task_ids(&mut text, &task_ids) => {
            Outgoing::Raw(text.to_string())
        }
        _ => Outgoing::Message(item),
    }
}

/// The stdio transport of [`FusionServer::serve_stdio`](crate::FusionServer::serve_stdio).
pub(crate) struct StdioTransport<R, W> {
    lines: FramedRead<R, Lines>,
    writer: Writer<W>,
    /// An answer of ours read but not yet handed to the writer.
    unsent: Option<String>,
    /// An answer of ours handed to the writer and perhaps not yet flushed.
    unflushed: bool,
    ids: SharedIds,
    /// The most JSON values one line may hold.
    max_json_values: usize,
}

impl<R: AsyncRead, W: AsyncWrite> StdioTransport<R, W> {
    pub fn new(read: R, write: W, max_json_values: usize) -> Self {
        StdioTransport {
            lines: FramedRead::new(
                read,
                Lines {
                    max: MAX_LINE_BYTES,
                    searched: 0,
                    skipping: false,
                },
            ),
            writer: Arc::new(Mutex::new(Some(FramedWrite::new(write, JsonLines)))),
            unsent: None,
            unflushed: false,
            ids: SharedIds::default(),
            max_json_values,
        }
    }
}

impl<R, W: AsyncWrite + Unpin> StdioTransport<R, W> {
    /// Writes and flushes the answer of ours still waiting, if any; `false`
    /// when the output is closed. Cancel-safe: each step leaves its progress
    /// in `self` (the line stays in `unsent` until the writer has taken it).
    async fn write_answers(&mut self) -> bool {
        if self.unsent.is_none() && !self.unflushed {
            return true;
        }
        let mut writer = self.writer.lock().await;
        let Some(framed) = writer.as_mut() else {
            return false;
        };
        if self.unsent.is_some() {
            let ready = futures::future::poll_fn(|cx| Pin::new(&mut *framed).poll_ready(cx));
            if ready.await.is_err() {
                return false;
            }
            let line = self.unsent.take().expect("checked above");
            if Pin::new(&mut *framed)
                .start_send(Outgoing::Raw(line))
                .is_err()
            {
                return false;
            }
            self.unflushed = true;
        }
        if framed.flush().await.is_err() {
            return false;
        }
        self.unflushed = false;
        true
    }
}
/// The answer to a line longer than [`MAX_LINE_BYTES`].
fn oversized_answer() -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": INVALID_REQUEST,
            "message": format!("Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes"),
        },
    })
    .to_string()
}

impl<R, W> StdioTransport<R, W> {
    /// The message of one line read, for the server; `None` when the line
    /// is blank or answered here (too many JSON values, a repeated key, a
    /// request id in use, an unreadable message: the answer left in
    /// `unsent`).
    fn read_line(&mut self, line: &[u8]) -> Option<ClientJsonRpcMessage> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let text = MessageText::read(line, self.max_json_values);
        if let Some(refused) = too_many_values(&text, true) {
            tracing::debug!(
                max = self.max_json_values,
                "a message with too many JSON values"
            );
            if !refused.notification {
                self.unsent = Some(refused.answer);
            }
            return None;
        }
        let message = text.message();
        if let Ok(message) = &message
            && let Some(refused) = params_refusal(message, &text)
        {
            self.unsent = Some(refused.answer);
            return None;
        }
        match message {
            Ok(ClientJsonRpcMessage::Request(request)) if !ids(&self.ids).start(&request.id) => {
                self.unsent = Some(duplicate_id_response(&request.id));
            }
            Ok(message) => return self.admit(message, line),
            Err(e) => {
                tracing::debug!("unreadable message: {e}");
                let unreadable = reject_unreadable(line, text.repeated_key());
                if !unreadable.notification {
                    self.unsent = Some(unreadable.answer);
                }
            }
        }
        None
    }

    /// A readable `message` (read from `line`) made ready for the server:
    /// a `tools/call` marked for envelopes written as text, the task ids a
    /// `subscriptions/listen` names in its extensions, a cancelled request
    /// remembered; `None` when it is answered here (task ids it may not
    /// name).
    fn admit(
        &mut self,
        mut message: ClientJsonRpcMessage,
        line: &[u8],
    ) -> Option<ClientJsonRpcMessage> {
        // This transport writes envelope results as the call
        // path made them (`message_into`).
        if let ClientJsonRpcMessage::Request(request) = &mut message
            && let ClientRequest::CallToolRequest(call) = &mut request.request
        {
            call.extensions.insert(WritesEnvelopes);
        }
        // A `subscriptions/listen` naming tasks: their ids reach
        // the server in the request's extensions.
        match requested_task_ids(&message, line) {
            Ok(Some(task_ids)) => {
                if let ClientJsonRpcMessage::Request(request) = &mut message {
                    ids(&self.ids)
                        .listening
                        .insert(request.id.clone(), task_ids.0.clone());
                    request.request.extensions_mut().insert(task_ids);
                }
            }
            Ok(None) => {}
            Err((id, error)) => {
                ids(&self.ids).answered(&id);
                self.unsent = Some(error_answer(&id, &error));
                return None;
            }
        }
        if let ClientJsonRpcMessage::Notification(notification) = &message
            && let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            && let Some(id) = &cancelled.params.request_id
        {
            ids(&self.ids).cancelled(id);
        }
        Some(message)
    }
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        let answered = match &item {
            ServerJsonRpcMessage::Response(response) => Some(&response.id),
            ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            let mut ids = ids(&self.ids);
            ids.answered(id);
            // A listen refused or ended before its acknowledgement.
            ids.listening.remove(id);
        }
        let outgoing = acknowledged(&self.ids, item);
        async move {
            match writer.lock().await.as_mut() {
                Some(framed) => framed.send(outgoing).await,
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the stdio transport is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if !self.write_answers().await {
                return None;
            }
            let line = match self.lines.next().await? {
                Ok(Line::Text(line)) => line,
                Ok(Line::Oversized) => {
                    tracing::debug!(max = MAX_LINE_BYTES, "discarded an over-long message");
                    self.unsent = Some(oversized_answer());
                    continue;
                }
                Err(e) => {
                    tracing::error!("cannot read stdin: {e}");
                    return None;
                }
            };
            if let Some(message) = self.read_line(&line) {
                return Some(message);
            }
        }
    }

    /// Flushes and closes the output, unless a write in progress holds it
    /// (a client that stopped reading: that write never ends, and the
    /// output is dropped with it), for at most [`CLOSE_FLUSH`].
    async fn close(&mut self) -> Result<(), std::io::Error> {
        let Ok(mut writer) = self.writer.try_lock() else {
            return Ok(());
        };
        if let Some(mut framed) = writer.take() {
            drop(writer);
            if let Ok(closed) = tokio::time::timeout(CLOSE_FLUSH, framed.close()).await {
                closed?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(max: usize, input: &[u8]) -> Vec<Option<String>> {
        lines_in_pieces(max, 3, input)
    }

    /// The lines `input` reads as when a pipe delivers it `piece` bytes at
    /// a time: each `Some(text)`, or `None` for an over-long one.
    fn lines_in_pieces(max: usize, piece: usize, input: &[u8]) -> Vec<Option<String>> {
        let mut codec = Lines {
            max,
            searched: 0,
            skipping: false,
        };
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            buf.extend_from_slice(chunk);
            while let Some(line) = codec.decode(&mut buf).expect("no error") {
                out.push(match line {
                    Line::Text(text) => Some(String::from_utf8_lossy(&text).into_owned()),
                    Line::Oversized => None,
                });
            }
        }
        while let Some(line) = codec.decode_eof(&mut buf).expect("no error") {
            out.push(match line {
                Line::Text(text) => Some(String::from_utf8_lossy(&text).into_owned()),
                Line::Oversized => None,
            });
        }
        out
    }

    #[test]
    fn splits_at_newlines_and_keeps_a_last_unterminated_line() {
        assert_eq!(
            lines(100, b"ab\ncd\n\nef"),
            [
                Some("ab".into()),
                Some("cd".into()),
                Some(String::new()),
                Some("ef".into())
            ]
        );
    }

    /// `input` split at `\n` at once (a last piece without one kept unless
    /// empty), each piece longer than `max` as `None`.
    fn split_at_once(max: usize, input: &[u8]) -> Vec<Option<String>> {
        let mut pieces: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
        if pieces.last().is_some_and(|p| p.is_empty()) {
            pieces.pop();
        }
        pieces
            .into_iter()
            .map(|p| (p.len() <= max).then(|| String::from_utf8_lossy(p).into_owned()))
            .collect()
    }

    proptest::proptest! {
        /// Any bytes (invalid UTF-8, long lines, no last newline), in
        /// pieces of any size, are framed as if read at once.
        #[test]
        fn any_input_in_any_pieces_is_framed_as_read_at_once(
            input in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(b'\n'), proptest::arbitrary::any::<u8>()],
                0..200,
            ),
            max in 0usize..12,
            piece in 1usize..9,
        ) {
            proptest::prop_assert_eq!(
                lines_in_pieces(max, piece, &input),
                split_at_once(max, &input)
            );
        }
    }

    #[test]
    fn an_over_long_line_is_reported_once_and_the_next_one_is_read() {
        assert_eq!(lines(4, b"0123456789abc\nok\n"), [None, Some("ok".into())]);
        assert_eq!(lines(4, b"01234\nok"), [None, Some("ok".into())]);
        assert_eq!(lines(4, b"0123456789"), [None]);
    }

    /// The answer carrying a result the call path made as text is the line
    /// serde_json writes for the same answer with the result itself, with
    /// and without `resultType`, for either kind of id.
    #[test]
    fn a_written_result_is_the_line_of_its_result() {
        use crate::envelope::written_result;
        use crate::envelope::{to_call_tool_result, validation_result, written_validation_result};
        use crate::error::{FieldError, ValidationFailure};
        let err = crate::ToolError::conflict("Invoice \"inv_1\" <already> paid & done.")
            .suggest("Call billing.list.");
        let failure = ValidationFailure::new(
            "get_invoice",
            vec![FieldError::new("amount", "Too small. You sent: 0.")],
        );
        let pairs = [
            (written_result(&err), to_call_tool_result(&err)),
            (
                written_validation_result(&failure),
                validation_result(&failure),
            ),
        ];
        for (written, real) in pairs {
            for id in [RequestId::Number(7), RequestId::String("call-\"1\"".into())] {
                for keep_type in [true, false] {
                    let answer = |mut result: rmcp::model::CallToolResult| {
                        if !keep_type {
                            result.result_type = None;
                        }
                        ServerJsonRpcMessage::response(
                            ServerResult::CallToolResult(result),
                            id.clone(),
                        )
                    };
                    let mut line = BytesMut::new();
                    message_into(&answer(written.clone()), &mut line).expect("written");
                    let expected = serde_json::to_vec(&answer(real.clone())).expect("serialized");
                    assert_eq!(
                        String::from_utf8_lossy(&line),
                        String::from_utf8_lossy(&expected)
                    );
                }
            }
        }
    }

    /// Over stdio a `tools/call` line is parsed once, into the message
    /// dispatch takes, and the call reads the tools and looks its name up
    /// once; so is a list request whose cursor is a string (read again only
    /// when the cursor is not one).
    #[tokio::test]
    async fn a_line_is_parsed_once_and_a_call_looked_up_once() {
        use crate::capability::finds;
        use crate::server::registry_reads;
        use crate::wire::message_text::PARSES;
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        async fn ping(
            _ctx: crate::CallContext,
            _args: crate::handler::NoArgs,
        ) -> Result<&'static str, crate::ToolError> {
            Ok("pong")
        }
        let server = crate::FusionServer::builder("once", "1.0.0")
            .tool(crate::Action::new("ping", ping))
            .build()
            .expect("a valid server");
        let (mut client, server_read) = tokio::io::duplex(4096);
        let (server_write, client_read) = tokio::io::duplex(4096);
        let serving = tokio::spawn(server.serve_streams(
            server_read,
            server_write,
            crate::transport::StdioOptions::default(),
            std::future::pending(),
        ));
        let mut answers = BufReader::new(client_read).lines();
        client
            .write_all(concat!(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n",
            ).as_bytes())
            .await
            .expect("write");
        answers
            .next_line()
            .await
            .expect("read")
            .expect("initialized");
        let mut exchange = async |line: &str| {
            client
                .write_all(format!("{line}\n").as_bytes())
                .await
                .expect("write");
            answers.next_line().await.expect("read").expect("an answer")
        };
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#;
        // The first call also lets the server take `initialized`: not counted.
        exchange(call).await;
        let before = (PARSES.get(), registry_reads(), finds());
        let answer = exchange(call).await;
        assert!(answer.contains(r#""text":"pong""#), "{answer}");
        let after = (PARSES.get(), registry_reads(), finds());
        assert_eq!(
            (after.0 - before.0, after.1 - before.1, after.2 - before.2),
            (1, 1, 1)
        );
        let listed =
            exchange(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}"#)
                .await;
        assert!(listed.contains(r#""id":2"#), "{listed}");
        assert_eq!(PARSES.get() - after.0, 1, "the list line's parses");
        drop(client);
        serving.await.expect("joined").expect("served");
    }

    /// rmcp drops a `receive` whose `select!` arm loses; an answer of ours
    /// being written at that moment must still reach the client.
    #[tokio::test]
    async fn an_answer_survives_a_dropped_receive() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (mut client, server_read) = tokio::io::duplex(1024);
        let (server_write, client_read) = tokio::io::duplex(1024);
        let mut transport = StdioTransport::new(
            server_read,
            server_write,
            crate::transport::DEFAULT_MAX_JSON_VALUES,
        );
        client.write_all(b"hello\n").await.expect("write");

        // The writer is busy (a response of rmcp's being sent), and the
        // receive is dropped while it waits.
        let busy = Arc::clone(&transport.writer).lock_owned().await;
        let dropped = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            Transport::<RoleServer>::receive(&mut transport),
        )
        .await;
        assert!(dropped.is_err(), "the receive waits for the writer");
        drop(busy);

        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
            .await
            .expect("write");
        let message = Transport::<RoleServer>::receive(&mut transport).await;
        assert!(message.is_some(), "the ping is read");
        let mut answer = String::new();
        let mut client_read = BufReader::new(client_read);
        let read = client_read.read_line(&mut answer);
        tokio::time::timeout(std::time::Duration::from_secs(5), read)
            .await
            .expect("the answer to `hello` is written")
            .expect("read");
        assert_eq!(
            answer,
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: the message cannot be read as JSON (expected value at line 1 column 1)\"}}\n"
        );
    }
}
