//! [`ClientOptions`]: how a [`FusionClient`](super::FusionClient) connects,
//! calls and answers the server.

// Sampling and roots, deprecated by SEP-2577 (2026-07-28) in rmcp's types,
// are still client features of both revisions: the client answers them.
#![allow(deprecated)]

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Root;
use secrecy::SecretString;

use super::features::{ElicitationHandler, Roots, SamplingHandler};
use super::oauth::OAuthOptions;
use super::response_cache::ResponseCache;
use super::retry::RetryPolicy;
use super::revision::ProtocolRevision;
use crate::tool_meta::DEFAULT_DISCRIMINATOR;

/// What to do with a stdio server's stderr (its logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ServerStderr {
    /// Pass it through to this process's stderr (the default).
    #[default]
    Inherit,
    /// Throw it away.
    Discard,
    /// Keep its last 8 KiB, shown in [`FusionClientError::Connect`](super::FusionClientError::Connect) when the
    /// server fails to start and available from
    /// [`FusionClient::server_stderr`](super::FusionClient::server_stderr).
    Capture,
}

/// How a [`FusionClient`](super::FusionClient) behaves. `ClientOptions::default()` is: discriminator
/// `action`, no retry, no call time limit, 30 s to connect, stderr inherited;
/// the setters below change one setting each.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The argument key a grouped tool reads its action from (dotted names,
    /// see [`FusionClient::route`](super::FusionClient::route)). Default `action`.
    pub discriminator: String,
    /// Retries for [`FusionClient::call_checked`](super::FusionClient::call_checked) and
    /// [`FusionClient::call_many`](super::FusionClient::call_many); `None` (the default) never retries.
    pub retry: Option<RetryPolicy>,
    /// The longest one `tools/call` may take; `None` (the default) waits as
    /// long as the server does. On expiry the request is cancelled and
    /// [`FusionClientError::Timeout`](super::FusionClientError::Timeout) is returned.
    pub call_timeout: Option<Duration>,
    /// The longest the connection and MCP handshake may take. Default 30 s.
    pub connect_timeout: Duration,
    /// A stdio server's stderr. Default [`ServerStderr::Inherit`].
    pub stderr: ServerStderr,
    /// A bearer token sent as `Authorization: Bearer …` on every HTTP request
    /// (ignored over stdio); `Debug` prints it as `[REDACTED]`. Default `None`.
    /// A token with a character an HTTP header value cannot carry (RFC 9110
    /// §5.5: a line break or another control character) fails
    /// [`FusionClient::connect`](super::FusionClient::connect) before anything is sent.
    pub bearer: Option<SecretString>,
    /// Over Streamable HTTP, how to obtain a token when the server answers
    /// `401` (MCP "Authorization"); ignored over stdio and when
    /// [`bearer`](Self::bearer) is set. `None` (the default): a `401` fails
    /// the connection with [`ConnectCause::Unauthorized`](super::ConnectCause::Unauthorized). Once the client
    /// has started to authorize, the
    /// [`connect_timeout`](Self::connect_timeout) is extended (once) by
    /// [`OAuthOptions::redirect_timeout`], the user's time in the browser.
    pub oauth: Option<OAuthOptions>,
    /// Called on each `notifications/tools/list_changed` from the server
    /// (MCP 2025-11-25 "List Changed Notification"). Default `None`.
    pub on_tools_changed: Option<ToolsChangedHook>,
    /// The MCP revision spoken: the `initialize` handshake of 2025-11-25 (the
    /// default, see [`ProtocolRevision`] for why), 2026-07-28's
    /// `server/discover` and self-contained requests, or a probe that picks
    /// one of them.
    pub protocol: ProtocolRevision,
    /// Answers the server's elicitation requests; given, the client declares
    /// the `elicitation` capability (form and URL mode). Default `None`: not
    /// declared, and a server must not ask.
    pub elicitation: Option<ElicitationHandler>,
    /// Answers the server's sampling requests; given, the client declares
    /// the `sampling` capability. Default `None`.
    pub sampling: Option<SamplingHandler>,
    /// The roots answered to `roots/list`; given (even empty), the client
    /// declares the `roots` capability. Default `None`.
    pub roots: Option<Roots>,
    /// Where the results a 2026-07-28 server declares cacheable (SEP-2549
    /// `ttlMs`, `cacheScope`) are kept, and for which partition. Default
    /// [`ResponseCache::memory`]: rmcp's cache of the connection.
    pub response_cache: ResponseCache,
}

/// A function called when the server says its tools changed
/// ([`ClientOptions::on_tools_changed`]). It must return quickly (e.g. send
/// on a channel): it runs on the connection's task.
#[derive(Clone)]
pub struct ToolsChangedHook(pub Arc<dyn Fn() + Send + Sync>);

impl fmt::Debug for ToolsChangedHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolsChangedHook")
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            discriminator: DEFAULT_DISCRIMINATOR.to_owned(),
            retry: None,
            call_timeout: None,
            connect_timeout: Duration::from_secs(30),
            stderr: ServerStderr::Inherit,
            bearer: None,
            oauth: None,
            on_tools_changed: None,
            protocol: ProtocolRevision::default(),
            elicitation: None,
            sampling: None,
            roots: None,
            response_cache: ResponseCache::default(),
        }
    }
}

impl ClientOptions {
    /// Sets [`discriminator`](Self::discriminator).
    pub fn discriminator(mut self, key: impl Into<String>) -> Self {
        self.discriminator = key.into();
        self
    }

    /// Sets [`retry`](Self::retry).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Sets [`call_timeout`](Self::call_timeout).
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = Some(limit);
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// Sets [`stderr`](Self::stderr).
    pub fn stderr(mut self, stderr: ServerStderr) -> Self {
        self.stderr = stderr;
        self
    }

    /// Sets [`on_tools_changed`](Self::on_tools_changed).
    pub fn on_tools_changed(mut self, hook: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_tools_changed = Some(ToolsChangedHook(Arc::new(hook)));
        self
    }

    /// Sets [`protocol`](Self::protocol).
    pub fn protocol(mut self, revision: ProtocolRevision) -> Self {
        self.protocol = revision;
        self
    }

    /// Sets [`elicitation`](Self::elicitation).
    pub fn elicitation(mut self, handler: ElicitationHandler) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Sets [`sampling`](Self::sampling).
    pub fn sampling(mut self, handler: SamplingHandler) -> Self {
        self.sampling = Some(handler);
        self
    }

    /// Sets [`roots`](Self::roots).
    pub fn roots(mut self, roots: impl IntoIterator<Item = Root>) -> Self {
        self.roots = Some(Arc::new(roots.into_iter().collect()));
        self
    }

    /// Sets [`response_cache`](Self::response_cache).
    pub fn response_cache(mut self, cache: ResponseCache) -> Self {
        self.response_cache = cache;
        self
    }

    /// Sets [`oauth`](Self::oauth).
    pub fn oauth(mut self, oauth: OAuthOptions) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sets [`bearer`](Self::bearer): the token, without the `Bearer ` prefix.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(SecretString::from(token.into()));
        self
    }
}
