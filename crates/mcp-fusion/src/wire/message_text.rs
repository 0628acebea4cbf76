//! A client's JSON-RPC message as text, read before it is parsed: one walk
//! over the text, without building it, finds what the transports check
//! first (too many JSON values, a key repeated in one object) and the
//! message's `method`, so that a `tools/call` is then parsed straight into
//! rmcp's [`CallToolRequest`] instead of through the untagged
//! [`ClientJsonRpcMessage`], whose buffered tries of every request type
//! cost more than the rest of a failing call's reading.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, ClientJsonRpcMessage,
    ClientRequest, ConstString, JsonRpcRequest, JsonRpcVersion2_0, RequestId,
};
use serde::Deserialize;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// What one walk over a message's text found.
#[derive(Debug)]
pub(crate) struct MessageText<'t> {
    text: &'t [u8],
    max_values: usize,
    over_limit: bool,
    repeated_key: Option<String>,
    method: Option<Cow<'t, str>>,
    /// The top-level object has an `id` member.
    has_id: bool,
    /// The top-level object has a `result` or an `error` member.
    answer_member: bool,
    /// `params.cursor` is there and neither a string nor `null`.
    odd_cursor: bool,
}

impl<'t> MessageText<'t> {
    /// Walks `text` (one message) once. The walk stops at value
    /// `max_values + 1` (every object, array, string, number, boolean and
    /// `null`, at any depth, counts one; object keys do not), so it costs
    /// time in step with `max_values`, not with the text, and builds
    /// nothing. A text that is not JSON reads as within the limit with no
    /// repeated key: its parse reports it.
    pub(crate) fn read(text: &'t [u8], max_values: usize) -> Self {
        let walk = WalkState::new(max_values);
        let mut reader = serde_json::Deserializer::from_slice(text);
        // An error is either the budget spent (in `over`) or unreadable JSON.
        let _ = Walk {
            state: &walk,
            place: Place::Root,
        }
        .deserialize(&mut reader);
        let root = walk.root.get();
        Self {
            text,
            max_values,
            over_limit: walk.over.get(),
            repeated_key: walk.repeated.into_inner(),
            method: walk.method.into_inner(),
            has_id: root.id,
            answer_member: root.answer,
            odd_cursor: walk.odd_cursor.get(),
        }
    }

    /// The message's text.
    pub(crate) fn text(&self) -> &'t [u8] {
        self.text
    }

    /// The limit the walk counted against, in JSON values.
    pub(crate) fn max_values(&self) -> usize {
        self.max_values
    }

    /// The text holds more than [`Self::max_values`] JSON values.
    pub(crate) fn over_limit(&self) -> bool {
        self.over_limit
    }

    /// The first key that appears twice in one object (at any depth, escapes
    /// undone), when the walk got that far. RFC 8259 §4 leaves the meaning
    /// of a repeated name to each reader: serde_json keeps the last value, a
    /// proxy may read the first.
    pub(crate) fn repeated_key(&self) -> Option<&str> {
        self.repeated_key.as_deref()
    }

    /// The message's `params` has a `cursor` that is neither a string nor
    /// `null` (MCP "Pagination": a cursor is the opaque string a previous
    /// page gave), so a list request's text need be read again only then.
    pub(crate) fn odd_cursor(&self) -> bool {
        self.odd_cursor
    }

    /// The message, parsed by rmcp's types. A request whose `method` is
    /// `tools/call` (and which has an `id` and no `result` or `error`, the
    /// request shape JSON-RPC 2.0 §4 gives) is read straight into
    /// [`CallToolRequest`]'s types; anything else, or a `tools/call` that type
    /// refuses, through [`ClientJsonRpcMessage`], which gives the same
    /// message for every text the first way reads and its own error for
    /// the rest.
    ///
    /// # Errors
    /// serde_json's error when the text is not one of MCP's client messages.
    pub(crate) fn message(&self) -> Result<ClientJsonRpcMessage, serde_json::Error> {
        #[cfg(test)]
        PARSES.with(|count| count.set(count.get() + 1));
        if self.has_id
            && !self.answer_member
            && self.method.as_deref() == Some(CallToolRequestMethod::VALUE)
            && let Ok(call) = serde_json::from_slice::<CallLine>(self.text)
        {
            let mut params = call.params;
            // As rmcp reads a request: `_meta` goes to the extensions.
            let meta = params.meta.take();
            let mut request = CallToolRequest::new(params);
            if let Some(meta) = meta {
                request.extensions.insert(meta);
            }
            return Ok(ClientJsonRpcMessage::Request(JsonRpcRequest {
                jsonrpc: call.jsonrpc,
                id: call.id,
                request: ClientRequest::CallToolRequest(request),
            }));
        }
        serde_json::from_slice(self.text)
    }
}

#[cfg(test)]
thread_local! {
    /// How many messages [`MessageText::message`] parsed on this thread.
    pub(crate) static PARSES: Cell<usize> = const { Cell::new(0) };
}

/// A `tools/call` request's members, each read straight into its type
/// (rmcp's own reading buffers the members it flattens); other members are
/// skipped, as rmcp skips them.
#[derive(Deserialize)]
struct CallLine {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(rename = "method")]
    _method: CallToolRequestMethod,
    params: CallToolRequestParams,
}

/// The top-level members the walk notes.
#[derive(Debug, Clone, Copy, Default)]
struct RootMembers {
    id: bool,
    answer: bool,
}

/// What the walk has found so far, shared by every level of it.
struct WalkState<'de> {
    /// Values the walk may still meet.
    left: Cell<usize>,
    /// It met one more.
    over: Cell<bool>,
    repeated: RefCell<Option<String>>,
    method: RefCell<Option<Cow<'de, str>>>,
    root: Cell<RootMembers>,
    /// `params.cursor` was met as something other than a string or `null`.
    odd_cursor: Cell<bool>,
}

impl WalkState<'_> {
    /// A walk that may meet `max_values` values.
    fn new(max_values: usize) -> Self {
        Self {
            left: Cell::new(max_values),
            over: Cell::new(false),
            repeated: RefCell::new(None),
            method: RefCell::new(None),
            root: Cell::new(RootMembers::default()),
            odd_cursor: Cell::new(false),
        }
    }
}

/// Where the value being walked sits.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// The message itself.
    Root,
    /// The top-level `method` member: a string is kept.
    Method,
    /// The top-level `params` member.
    Params,
    /// `params.cursor`: anything but a string or `null` is noted.
    Cursor,
    /// Anywhere else.
    Inner,
}

/// Walks one JSON value through serde without building it: spends one
/// value of the budget per value met (stopping once it is spent) and notes
/// the first repeated key of any object.
struct Walk<'a, 'de> {
    state: &'a WalkState<'de>,
    place: Place,
}

impl<'a, 'de> Walk<'a, 'de> {
    fn inner(&self) -> Walk<'a, 'de> {
        Walk {
            state: self.state,
            place: Place::Inner,
        }
    }

    /// Notes a value that is not a string or `null` where a cursor sits.
    fn not_text(&self) {
        if self.place == Place::Cursor {
            self.state.odd_cursor.set(true);
        }
    }

    fn spend<E: serde::de::Error>(&self) -> Result<(), E> {
        match self.state.left.get().checked_sub(1) {
            Some(left) => {
                self.state.left.set(left);
                Ok(())
            }
            None => {
                self.state.over.set(true);
                Err(E::custom("too many values"))
            }
        }
    }

    fn note_repeated(&self, key: &str) {
        let mut repeated = self.state.repeated.borrow_mut();
        if repeated.is_none() {
            *repeated = Some(key.to_owned());
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, 'de> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.not_text();
        self.spend()
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.not_text();
        self.spend()
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.not_text();
        self.spend()
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.not_text();
        self.spend()
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<(), E> {
        if self.place == Place::Method {
            *self.state.method.borrow_mut() = Some(Cow::Borrowed(s));
        }
        self.spend()
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        if self.place == Place::Method {
            *self.state.method.borrow_mut() = Some(Cow::Owned(s.to_owned()));
        }
        self.spend()
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        self.not_text();
        self.spend()?;
        while items.next_element_seed(self.inner())?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        self.not_text();
        self.spend()?;
        // Most objects have a few keys: a linear search of the keys seen
        // (borrowed from the text unless escaped) costs less than hashing
        // them; past `LINEAR_KEYS` keys a set takes over.
        const LINEAR_KEYS: usize = 16;
        let mut seen: Vec<Cow<'de, str>> = Vec::new();
        let mut set: Option<std::collections::HashSet<Cow<'de, str>>> = None;
        let mut root = self.state.root.get();
        while let Some(Key(key)) = entries.next_key::<Key<'de>>()? {
            let place = match (self.place, key.as_ref()) {
                (Place::Root, "method") => Place::Method,
                (Place::Root, "params") => Place::Params,
                (Place::Params, "cursor") => Place::Cursor,
                (Place::Root, "id") => {
                    root.id = true;
                    Place::Inner
                }
                (Place::Root, "result" | "error") => {
                    root.answer = true;
                    Place::Inner
                }
                _ => Place::Inner,
            };
            entries.next_value_seed(Walk {
                state: self.state,
                place,
            })?;
            let repeated = match &mut set {
                Some(set) => !set.insert(key.clone()),
                None if seen.contains(&key) => true,
                None if seen.len() == LINEAR_KEYS => {
                    let mut all: std::collections::HashSet<_> = seen.drain(..).collect();
                    all.insert(key.clone());
                    set = Some(all);
                    false
                }
                None => {
                    seen.push(key.clone());
                    false
                }
            };
            if repeated {
                self.note_repeated(&key);
            }
        }
        if self.place == Place::Root {
            self.state.root.set(root);
        }
        Ok(())
    }
}

/// An object key, borrowed from the text unless it holds an escape (serde's
/// own `Cow<str>` always copies).
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        reader.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(key)))
    }

    fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(key.to_owned())))
    }

    fn visit_string<E>(self, key: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(text: &str, max: usize) -> bool {
        MessageText::read(text.as_bytes(), max).over_limit()
    }

    fn repeated(text: &str) -> Option<String> {
        MessageText::read(text.as_bytes(), 10_000)
            .repeated_key()
            .map(str::to_owned)
    }

    #[test]
    fn values_are_counted_at_any_depth_and_the_walk_stops_past_the_limit() {
        // An object, its 2 values, the array's 3 items and the inner object's 1.
        let text = r#"{"a":[1,"x",{"b":null}],"c":true}"#;
        assert!(!over(text, 7));
        assert!(over(text, 6));
        assert!(!over("[]", 1));
        assert!(over("[[]]", 1));
        assert!(!over("not JSON", 0));
        assert!(!over(r#"{"a":1,"a""#, 100));
        // Keys are not values.
        assert!(!over(r#"{"k1":{},"k2":{},"k3":{}}"#, 4));
        // A repeated key does not stop the count.
        assert!(over(r#"{"a":1,"a":2,"b":[1,2,3]}"#, 6));
    }

    #[test]
    fn a_cursor_that_is_not_a_string_is_noted_only_in_params() {
        let odd = |text: &str| MessageText::read(text.as_bytes(), 100).odd_cursor();
        let list = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#)
        };
        for cursor in ["5", "true", "[]", "{}", "1.5", "-1"] {
            assert!(odd(&list(&format!(r#"{{"cursor":{cursor}}}"#))), "{cursor}");
        }
        for params in [r#"{"cursor":"abc"}"#, r#"{"cursor":null}"#, "{}", "null"] {
            assert!(!odd(&list(params)), "{params}");
        }
        // A `cursor` anywhere else is not the page's.
        assert!(!odd(&list(r#"{"arguments":{"cursor":5}}"#)));
        assert!(!odd(r#"{"jsonrpc":"2.0","id":1,"method":"x","cursor":5}"#));
        assert!(!odd(r#"{"params":[{"cursor":5}]}"#));
    }

    #[test]
    fn the_walk_reads_no_further_than_the_limit() {
        // What the budget spends bounds the walk: past `max + 1` values
        // nothing more is read, however long the text (a million items).
        let text = format!("[{}]", vec!["{}"; 1_000_000].join(","));
        let state = WalkState::new(10);
        let read = Cell::new(0usize);
        let counted = CountingReader {
            text: text.as_bytes(),
            read: &read,
        };
        let mut reader = serde_json::Deserializer::from_reader(counted);
        let walked = Walk {
            state: &state,
            place: Place::Root,
        }
        .deserialize(&mut reader);
        assert!(walked.is_err());
        assert!(state.over.get());
        // The walk stopped at the 11th value: the array and 9 items spent
        // the budget, item 10's `{` starts at byte 28, and serde_json reads
        // on only to close what it entered (`}`, then `,{` peeked): 32
        // bytes of 3 000 001.
        assert_eq!(read.get(), 32);
    }

    /// A reader that counts the bytes taken from it.
    struct CountingReader<'a> {
        text: &'a [u8],
        read: &'a Cell<usize>,
    }

    impl std::io::Read for CountingReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = std::io::Read::read(&mut self.text, buf)?;
            self.read.set(self.read.get() + n);
            Ok(n)
        }
    }

    #[test]
    fn repeated_keys_are_found_at_any_depth_and_under_escapes() {
        assert_eq!(
            repeated(r#"{"a":1,"b":{"c":[{"d":1,"d":2}]}}"#),
            Some("d".into())
        );
        assert_eq!(repeated(r#"{"a":1,"\u0061":2}"#), Some("a".into()));
        assert_eq!(
            repeated(r#"{"a":{"x":1},"b":{"x":1},"c":[1,"x",null,true,-2.5]}"#),
            None
        );
        // The first repeat in the text's order is the one named.
        assert_eq!(repeated(r#"{"a":{"y":1,"y":2},"a":3}"#), Some("y".into()));
        assert_eq!(repeated(r#"{"a":1,"a""#), None);
        assert_eq!(repeated("not JSON"), None);
        // Past the linear search's keys, the set still finds a repeat.
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        assert_eq!(repeated(&format!("{{{}}}", many.join(","))), None);
        assert_eq!(
            repeated(&format!("{{{},\"k3\":0}}", many.join(","))),
            Some("k3".into())
        );
        assert_eq!(
            repeated(&format!("{{{},\"k39\":0}}", many.join(","))),
            Some("k39".into())
        );
    }

    /// The message as [`ClientJsonRpcMessage`] alone reads it, and as
    /// [`MessageText::message`] does, compared through their JSON (which
    /// writes a request's `_meta` back from its extensions).
    fn both_ways(text: &str) -> (Result<String, String>, Result<String, String>) {
        let show = |message: Result<ClientJsonRpcMessage, serde_json::Error>| {
            message
                .map(|m| serde_json::to_string(&m).expect("serializes"))
                .map_err(|e| e.to_string())
        };
        let direct = show(MessageText::read(text.as_bytes(), 10_000).message());
        let untagged = show(serde_json::from_slice::<ClientJsonRpcMessage>(
            text.as_bytes(),
        ));
        (direct, untagged)
    }

    #[test]
    fn a_tools_call_reads_as_the_untagged_message_reads() {
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":3.0,"b":[1,-2,"x"],"c":{"d":null}}}}"#,
            r#"{"method":"tools/call","params":{"arguments":{},"name":"t","_meta":{"progressToken":"p"}},"id":"s","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"\u0074"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"extra":true}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{"ttl":60000}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":7,"io.x/y":[1]},"name":"t","requestState":"s","inputResponses":{}}}"#,
        ] {
            let (direct, untagged) = both_ways(text);
            assert!(direct.is_ok(), "{text}: {direct:?}");
            assert_eq!(direct, untagged, "{text}");
        }
    }

    #[test]
    fn a_tools_call_the_direct_reading_refuses_gets_the_untagged_answer() {
        for text in [
            // A response member besides `method`: not a request.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"error":{}}"#,
            // No `id`: a notification of an unknown method.
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
            // Malformed params, a wrong version, a repeated member.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        ] {
            let (direct, untagged) = both_ways(text);
            assert_eq!(direct, untagged, "{text}");
        }
    }

    #[test]
    fn other_messages_read_as_the_untagged_message_reads() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            "[1]",
        ] {
            let (direct, untagged) = both_ways(text);
            assert_eq!(direct, untagged, "{text}");
        }
    }
}
