//! [`CallContext`]: what a handler and every middleware know about the call in
//! progress, and who is calling ([`Peer`], [`Principal`]).

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// What a handler and every middleware know about the call in progress.
///
/// Cheap to clone (reference-counted inside).
#[derive(Debug, Clone)]
pub struct CallContext {
    pub(crate) inner: Arc<ContextInner>,
    pub(crate) cancellation: CancellationToken,
}

/// Which kind of capability a call uses: what the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// `tools/call` of an action.
    Tool,
    /// `prompts/get`.
    Prompt,
    /// `resources/read` of a resource or a resource template.
    Resource,
    /// `completion/complete` of a prompt argument or a template variable.
    Completion,
    /// `skills/list`, `skills/get` or `resources/directory/read` of a skill
    /// (SEP-2640); a read of a skill's file is a [`Resource`](Self::Resource)
    /// read.
    Skill,
}

impl Capability {
    /// The MCP name of the capability: `tool`, `prompt`, `resource`,
    /// `completion`, `skill`.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Tool => "tool",
            Capability::Prompt => "prompt",
            Capability::Resource => "resource",
            Capability::Completion => "completion",
            Capability::Skill => "skill",
        }
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug)]
pub(crate) struct ContextInner {
    pub(crate) capability: Capability,
    pub(crate) tool: String,
    pub(crate) action: Option<String>,
    pub(crate) name: String,
    pub(crate) request_id: RequestIdText,
    pub(crate) expose_internal_errors: bool,
    pub(crate) http: Option<http::request::Parts>,
    pub(crate) peer: Peer,
    /// Who is calling, as a key for per-caller state (see [`CallContext::caller`]).
    pub(crate) caller: Arc<str>,
    pub(crate) principal: Option<Principal>,
    pub(crate) states: Arc<super::States>,
    /// The connection the call came on (progress, logging, sampling,
    /// elicitation); `None` in-process.
    pub(crate) client: Option<super::client::SharedChannel>,
    /// Cancelled when the connection the call came on ends (an HTTP
    /// session deleted): the call's cancellation fires then.
    pub(crate) ended: Option<CancellationToken>,
}

/// The JSON-RPC id of a request, written as text only when it is read
/// ([`CallContext::request_id`]).
#[derive(Debug, Clone)]
pub(crate) struct RequestIdText {
    id: Option<rmcp::model::RequestId>,
    text: std::sync::OnceLock<String>,
}

impl RequestIdText {
    /// The id of a JSON-RPC request.
    pub(crate) fn of(id: rmcp::model::RequestId) -> Self {
        RequestIdText {
            id: Some(id),
            text: std::sync::OnceLock::new(),
        }
    }

    /// A fixed text, for a call that came with no JSON-RPC request.
    pub(crate) fn fixed(text: &str) -> Self {
        RequestIdText {
            id: None,
            text: std::sync::OnceLock::from(text.to_owned()),
        }
    }

    fn as_str(&self) -> &str {
        self.text.get_or_init(|| {
            self.id
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        })
    }
}

/// Where a call came from, as the transport tells it. An anonymous caller of
/// a per-caller rate limit is counted by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Peer {
    /// Over Streamable HTTP from this address: the TCP peer, or with
    /// `HttpOptions::trust_forwarded_for` the last `X-Forwarded-For` address
    /// (what the proxy in front saw). `None` when the router was served
    /// without connection info (`into_make_service_with_connect_info`).
    Http(Option<IpAddr>),
    /// Over stdio, or any transport without HTTP: one client per connection.
    Stdio,
    /// In-process, through `FusionServer::call` (tests, embedding).
    Local,
}

impl std::fmt::Display for Peer {
    /// The address (`203.0.113.9`), `http` when it is unknown, `stdio` or
    /// `in-process`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Peer::Http(Some(ip)) => write!(f, "{ip}"),
            Peer::Http(None) => f.write_str("http"),
            Peer::Stdio => f.write_str("stdio"),
            Peer::Local => f.write_str("in-process"),
        }
    }
}

/// The caller key of in-process calls ([`CallContext::caller`]).
pub(crate) const LOCAL_CALLER: &str = "in-process";

/// The MCP session of an HTTP request's head: its `Mcp-Session-Id`, unless
/// the request speaks the stateless 2026-07-28 protocol.
pub(crate) fn session_header(parts: &http::request::Parts) -> Option<&str> {
    let headers = &parts.headers;
    let version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if version >= "2026-07-28" {
        return None;
    }
    headers.get("mcp-session-id")?.to_str().ok()
}

/// Who is calling, as the server's token verifier established it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The caller's stable identity (a JWT's `sub`, a static token's subject).
    pub subject: String,
    /// The permissions the credentials carry (e.g. `billing:write`).
    pub scopes: BTreeSet<String>,
}

impl Principal {
    /// A principal with `subject` and `scopes`.
    pub fn new<I, S>(subject: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Principal {
            subject: subject.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }
}

impl CallContext {
    /// Which kind of capability is called ([`Capability::Tool`] for an
    /// action).
    pub fn capability(&self) -> Capability {
        self.inner.capability
    }

    /// The MCP tool name that was called (`billing`); for a prompt its name,
    /// for a resource the URI read, for a completer the prompt or template
    /// it completes an argument of. A call a server's
    /// [fallback](crate::ServerBuilder::fallback) answers has the name the
    /// caller sent here and in [`name`](Self::name).
    pub fn tool(&self) -> &str {
        &self.inner.tool
    }

    /// The action key inside a group (`get_invoice`); `None` for a plain tool.
    pub fn action(&self) -> Option<&str> {
        self.inner.action.as_deref()
    }

    /// The dotted name used in errors and logs: `billing.get_invoice`, or the
    /// tool name for a plain tool.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The JSON-RPC id of the `tools/call` request, as text.
    pub fn request_id(&self) -> &str {
        self.inner.request_id.as_str()
    }

    /// Cancelled, at once, when the client cancels the call or goes away:
    /// - `notifications/cancelled` naming the call;
    /// - on MCP 2026-07-28 over Streamable HTTP, the call's response stream
    ///   closed (basic/patterns/cancellation: the disconnect is the
    ///   cancellation);
    /// - its Streamable HTTP session ended (`DELETE`, expiry, ended on
    ///   another replica);
    /// - over stdio, the reader of stdout gone (the client exited or closed
    ///   its pipe; Linux, with stdout a pipe: over a socket, or elsewhere,
    ///   the end of stdin is seen, after the grace below); a dropped or
    ///   closed in-memory client.
    ///
    /// Not on a 2025-11-25 session's dropped stream: that revision says a
    /// disconnection is not a cancellation (basic/transports), and the answer
    /// can still be read from the stream again. Nor when stdin alone closes:
    /// a client that pipes its requests in still reads the answers, which
    /// get up to 5 seconds to be written. A task's call
    /// ([`TaskSupport`](crate::TaskSupport)) has a token of its own, which
    /// `tasks/cancel` fires; it outlives the connection that started it.
    ///
    /// The pipeline already drops the handler's future then; use the token
    /// to stop work spawned elsewhere.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The HTTP request head (method, URI, headers) when the call came over
    /// Streamable HTTP; `None` over stdio.
    pub fn http(&self) -> Option<&http::request::Parts> {
        self.inner.http.as_ref()
    }

    /// The application state of type `T` given with `ServerBuilder::state`
    /// (cloned), or `None`. Handlers usually take it as a
    /// [`State<T>`](super::State) parameter instead.
    pub fn state<T: super::StateType>(&self) -> Option<T> {
        self.inner.states.get::<T>()
    }

    /// Where the call came from (see [`Peer`]).
    pub fn peer(&self) -> Peer {
        self.inner.peer
    }

    /// The verified caller: the principal of the bearer token the server's
    /// token verifier accepted for this request (over Streamable HTTP, at
    /// the edge, before any JSON-RPC was read), the same for every kind of
    /// capability; `None` without credentials, over stdio, or without a
    /// token verifier.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.principal.as_ref()
    }

    /// The MCP session (`Mcp-Session-Id` header) of a Streamable HTTP call made
    /// with the 2025-11-25 handshake — a session the transport issued and
    /// checked; `None` over stdio and in the stateless 2026-07-28 protocol,
    /// where the header is the client's word only.
    pub fn session_id(&self) -> Option<&str> {
        session_header(self.http()?)
    }

    /// Who is calling, as a key for state kept per caller (a gateway's
    /// handoffs): `session:<Mcp-Session-Id>` for a Streamable HTTP call in a
    /// session, `connection:<n>` for a stdio connection, `address:<ip>`
    /// (or `address:http` when unknown) for a stateless HTTP call, and
    /// `in-process` for [`FusionServer::call`](crate::FusionServer::call).
    /// Never shown to the model.
    pub fn caller(&self) -> &str {
        &self.inner.caller
    }

    /// Whether `INTERNAL_ERROR` envelopes include the internal error text
    /// (a development setting, off by default; wire contract §6).
    pub fn exposes_internal_errors(&self) -> bool {
        self.inner.expose_internal_errors
    }

    /// A context for calling a pipeline outside a server (tests, benches).
    pub fn detached(tool: &str, action: Option<&str>) -> Self {
        let name = match action {
            Some(action) => format!("{tool}.{action}"),
            None => tool.to_owned(),
        };
        CallContext {
            inner: Arc::new(ContextInner {
                capability: Capability::Tool,
                tool: tool.to_owned(),
                action: action.map(str::to_owned),
                name,
                request_id: RequestIdText::fixed("0"),
                expose_internal_errors: false,
                http: None,
                peer: Peer::Local,
                caller: Arc::from(LOCAL_CALLER),
                principal: None,
                states: Arc::default(),
                client: None,
                ended: None,
            }),
            cancellation: CancellationToken::new(),
        }
    }
}
