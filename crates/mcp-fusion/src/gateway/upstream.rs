//! [`Upstream`]: one mounted server's connection, kept by a background task
//! that connects, lists its tools (again on its `list_changed`), and after
//! a failure reconnects with exponential backoff.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::sync::{Notify, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::config::UpstreamConfig;
use rmcp::model::Tool;

use crate::client::{ClientOptions, FusionClient, FusionClientError, ServerStderr};

/// What the background task tells the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// The upstream at this index connected (or reconnected) and listed its tools.
    Connected(usize),
    /// A connection attempt failed.
    ConnectFailed(usize),
    /// Its tools list changed (its `notifications/tools/list_changed`).
    ToolsChanged(usize),
}

/// Puts the tools an upstream listed (its index, its usable tools) on the
/// server; awaited after each listing, before calls and lists see them.
pub(crate) type OnListed =
    Arc<dyn Fn(usize, Arc<Vec<Tool>>) -> BoxFuture<'static, ()> + Send + Sync>;

/// The connection as calls see it.
#[derive(Clone)]
pub(crate) enum Link {
    /// Not wanted yet (a handoff upstream before its first handoff).
    Idle,
    /// A connection attempt in progress; `first` for the very first one.
    Connecting {
        /// No attempt succeeded before this one.
        first: bool,
    },
    /// Connected, with its tools as last listed.
    Ready {
        client: Arc<FusionClient>,
        tools: Arc<Vec<Tool>>,
    },
    /// Not connected; the next attempt is at `retry_at`.
    Down { retry_at: Instant },
    /// The upstream refused the gateway's credentials (HTTP 401 or 403, or
    /// the OAuth token request failed): calls are answered `UNAUTHORIZED`.
    /// The next attempt is at `retry_at`, a whole
    /// [`reconnect_max`](UpstreamConfig::reconnect_max) later, so that a
    /// refusing upstream is asked at most once per `reconnect_max` (its
    /// operator may fix its side; the gateway's own configuration is read
    /// only at start-up). The link stays refused during that attempt.
    Refused { retry_at: Instant },
}

/// One upstream: its settings and its connection.
pub(crate) struct Upstream {
    pub config: UpstreamConfig,
    pub(crate) index: usize,
    link: Mutex<Link>,
    /// Wakes the task: a failure seen by a call, or a tools change.
    wake: Arc<Notify>,
    /// A `list_changed` arrived and the tools are to be listed again.
    refresh: AtomicBool,
    /// Bumped each time a connection attempt ends.
    settled: watch::Sender<u64>,
    started: AtomicBool,
    /// Cancelled when the upstream is dropped: its task ends, its
    /// connection closes.
    stop: CancellationToken,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Upstream {
    /// The upstream at `index` of the configuration.
    pub(crate) fn new(index: usize, config: UpstreamConfig) -> Arc<Self> {
        Arc::new(Upstream {
            config,
            index,
            link: Mutex::new(Link::Idle),
            wake: Arc::new(Notify::new()),
            refresh: AtomicBool::new(false),
            settled: watch::Sender::new(0),
            started: AtomicBool::new(false),
            stop: CancellationToken::new(),
        })
    }

    /// The connection now.
    pub(crate) fn link(&self) -> Link {
        self.link
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, link: Link) {
        *self.link.lock().unwrap_or_else(PoisonError::into_inner) = link;
    }

    /// Whether it is connected, its tools listed.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(
            *self.link.lock().unwrap_or_else(PoisonError::into_inner),
            Link::Ready { .. }
        )
    }

    /// Starts the background task once (inside a tokio runtime); later calls
    /// do nothing. `on_listed` puts its tools on the server each time they
    /// are listed, before the link is ready.
    pub(crate) fn start(
        self: &Arc<Self>,
        events: mpsc::UnboundedSender<Event>,
        on_listed: OnListed,
    ) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        self.set(Link::Connecting { first: true });
        let stop = self.stop.clone();
        let task = supervise(Arc::downgrade(self), events, on_listed);
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = task => {}
            }
        });
    }

    /// Whether the task was started.
    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::SeqCst)
    }

    /// Waits (at most its connect time limit, plus a second) for the first
    /// connection attempt to end, when it is still in progress.
    pub(crate) async fn first_attempt(&self) {
        // Subscribed before the look, so that an attempt ending in between
        // is seen as a change.
        let mut settled = self.settled.subscribe();
        if !matches!(self.link(), Link::Connecting { first: true }) {
            return;
        }
        let limit = self.config.connect_timeout + Duration::from_secs(1);
        let _ = tokio::time::timeout(limit, settled.changed()).await;
    }

    /// A call saw `client` fail (its connection broke): the upstream is down
    /// until the task reconnects, which it starts now.
    pub(crate) fn failed(&self, client: &Arc<FusionClient>) {
        {
            let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
            match &*link {
                Link::Ready {
                    client: current, ..
                } if Arc::ptr_eq(current, client) => {
                    *link = Link::Down {
                        retry_at: Instant::now() + self.config.reconnect_initial,
                    };
                }
                _ => return,
            }
        }
        self.wake.notify_one();
    }

    /// A call saw `client` refused for the gateway's credentials: the
    /// upstream is refused until an attempt a whole `reconnect_max` later
    /// succeeds.
    pub(crate) fn refused(&self, client: &Arc<FusionClient>) {
        {
            let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
            match &*link {
                Link::Ready {
                    client: current, ..
                } if Arc::ptr_eq(current, client) => {
                    *link = Link::Refused {
                        retry_at: Instant::now() + self.config.reconnect_max,
                    };
                }
                _ => return,
            }
        }
        self.wake.notify_one();
    }

    /// The wait before attempt `failures + 1`: the initial delay doubled per
    /// failure, at most the maximum.
    fn backoff(&self, failures: u32) -> Duration {
        let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(16));
        self.config
            .reconnect_initial
            .saturating_mul(factor)
            .min(self.config.reconnect_max)
    }

    /// The options of its client: its time limits, its stderr, its tools
    /// change hook, and the gateway's own credentials for it (never a
    /// caller's).
    fn options(self: &Arc<Self>) -> ClientOptions {
        let me = Arc::downgrade(self);
        let options = match &self.config.credentials {
            Some(credentials) => credentials.apply(ClientOptions::default()),
            None => ClientOptions::default(),
        };
        options
            .connect_timeout(self.config.connect_timeout)
            .call_timeout(self.config.call_timeout)
            .stderr(ServerStderr::Inherit)
            .on_tools_changed(move || {
                if let Some(me) = me.upgrade() {
                    me.refresh.store(true, Ordering::SeqCst);
                    me.wake.notify_one();
                }
            })
    }
}

/// The longest upstream tool name listed, in characters (MCP's limit for
/// tool names).
const MAX_TOOL_NAME: usize = 128;

/// The tools of `namespace`'s upstream that can be listed and called: those
/// with a name of 1 to [`MAX_TOOL_NAME`] characters, none of them blank or
/// a control character, each name once (the first kept). The others are
/// logged and left out.
fn callable(namespace: &str, tools: Vec<Tool>) -> Vec<Tool> {
    let mut seen = std::collections::HashSet::new();
    tools
        .into_iter()
        .filter(|tool| {
            let name: &str = &tool.name;
            let usable = !name.is_empty()
                && name.chars().count() <= MAX_TOOL_NAME
                && !name.chars().any(|c| c.is_whitespace() || c.is_control())
                && seen.insert(name.to_owned());
            if !usable {
                tracing::warn!(namespace = %namespace, tool = ?logged(name), "upstream tool left out: its name is empty, too long, has blanks, or is listed twice");
            }
            usable
        })
        .collect()
}

/// How long a liveness check waits for the upstream's `ping` answer.
const PROBE_LIMIT: Duration = Duration::from_secs(5);
/// How often a connected upstream with nothing to do is checked.
const IDLE_CHECK_EVERY: Duration = Duration::from_secs(5);

/// What a liveness check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Health {
    /// It answered, or is only slow (a busy upstream).
    Fine,
    /// Its connection closed, or the transport refused the `ping`.
    Gone,
    /// It refused the gateway's credentials (HTTP 401 or 403).
    Refused,
}

/// Checks `client`'s upstream with a `ping`, unless its connection closed.
pub(crate) async fn health(client: &FusionClient) -> Health {
    if client.is_closed() {
        return Health::Gone;
    }
    match tokio::time::timeout(PROBE_LIMIT, client.probe()).await {
        Ok(Err(error)) if error.is_unauthorized() => Health::Refused,
        Ok(Err(FusionClientError::Transport { .. })) => Health::Gone,
        _ => Health::Fine,
    }
}

/// Whether `client`'s upstream is gone or refuses the gateway: its
/// connection closed, or a `ping` refused by the transport. A `ping` that
/// is only slow (a busy upstream) does not count.
pub(crate) async fn is_gone(client: &FusionClient) -> bool {
    health(client).await != Health::Fine
}

/// `text` (an upstream's words) as it is logged: at most 1 000 characters,
/// to be written with `?`, so that its line breaks and control characters
/// are escaped and cannot forge log lines.
pub(crate) fn logged(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::cut_chars(text, 1_000, "…")
}

/// Seconds until `at`, rounded up, at least 1.
pub(crate) fn seconds_until(at: Instant) -> u64 {
    let left = at.saturating_duration_since(Instant::now());
    let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    secs.max(1)
}

/// Connects: through `last`, the client of the connection that was lost,
/// while its connection is open (over Streamable HTTP it starts a new
/// session by itself on the restarted server's 404), else with a new
/// client; then lists the tools. `last` is kept across failed attempts.
async fn connect(
    upstream: &Arc<Upstream>,
    last: Option<Arc<FusionClient>>,
) -> Result<(Arc<FusionClient>, Vec<Tool>), FusionClientError> {
    if let Some(client) = last
        && !client.is_closed()
        && let Ok(tools) = client.list_tools().await
    {
        return Ok((client, callable(&upstream.config.namespace, tools)));
    }
    let client = FusionClient::connect(&upstream.config.target, upstream.options()).await?;
    let client = Arc::new(client);
    let tools = client.list_tools().await?;
    Ok((client, callable(&upstream.config.namespace, tools)))
}
/// A connection made: its tools put on the server (`on_listed`), then the
/// link ready, and the gateway told.
async fn ready(
    me: Arc<Upstream>,
    client: &Arc<FusionClient>,
    tools: Vec<Tool>,
    events: &mpsc::UnboundedSender<Event>,
    on_listed: &OnListed,
) {
    let index = me.index;
    tracing::info!(namespace = %me.config.namespace, tools = tools.len(), "upstream connected");
    let tools = Arc::new(tools);
    on_listed(index, Arc::clone(&tools)).await;
    me.set(Link::Ready {
        client: Arc::clone(client),
        tools,
    });
    me.settled.send_modify(|n| *n += 1);
    let _ = events.send(Event::Connected(index));
}

/// Stays connected through `client` until its link is no longer ready:
/// re-lists the tools when asked (`list_changed`), and checks now and then
/// that the upstream is still there, so that one that went away while idle
/// is reconnected before a call. `false` when the gateway was dropped.
async fn stay_connected(
    upstream: &Weak<Upstream>,
    client: &Arc<FusionClient>,
    events: &mpsc::UnboundedSender<Event>,
    on_listed: &OnListed,
) -> bool {
    loop {
        let Some(me) = upstream.upgrade() else {
            return false;
        };
        let wake = Arc::clone(&me.wake);
        let notified = wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if !matches!(me.link(), Link::Ready { client: ref c, .. } if Arc::ptr_eq(c, client)) {
            return true;
        }
        if me.refresh.swap(false, Ordering::SeqCst) {
            match client.list_tools().await {
                Ok(tools) => {
                    let tools = Arc::new(callable(&me.config.namespace, tools));
                    on_listed(me.index, Arc::clone(&tools)).await;
                    me.set(Link::Ready {
                        client: Arc::clone(client),
                        tools,
                    });
                    let _ = events.send(Event::ToolsChanged(me.index));
                }
                Err(_) => me.failed(client),
            }
            continue;
        }
        drop(me);
        tokio::select! {
            () = &mut notified => {}
            () = tokio::time::sleep(IDLE_CHECK_EVERY) => {
                let found = health(client).await;
                if let Some(me) = upstream.upgrade() {
                    match found {
                        Health::Fine => {}
                        Health::Gone => me.failed(client),
                        Health::Refused => me.refused(client),
                    }
                }
            }
        }
    }
}

/// A connection that failed (the `failures`-th in a row): the link down
/// until its backoff is over, or refused (the gateway's credentials) for a
/// whole `reconnect_max`; logged for the operator, never shown to the model.
fn connect_failed(
    me: &Upstream,
    error: &FusionClientError,
    failures: u32,
    events: &mpsc::UnboundedSender<Event>,
) {
    let reason = error.to_string();
    let link = if error.is_unauthorized() {
        tracing::error!(namespace = %me.config.namespace, reason = ?logged(&reason), retry_in = ?me.config.reconnect_max, "upstream refused the gateway's credentials: fix them in the gateway's configuration");
        Link::Refused {
            retry_at: Instant::now() + me.config.reconnect_max,
        }
    } else {
        tracing::warn!(namespace = %me.config.namespace, reason = ?logged(&reason), "upstream connection failed");
        Link::Down {
            retry_at: Instant::now() + me.backoff(failures),
        }
    };
    let _ = events.send(Event::ConnectFailed(me.index));
    me.set(link);
    me.settled.send_modify(|n| *n += 1);
}

/// The task of one upstream: connect, stay connected (re-listing tools on
/// `list_changed`), reconnect with backoff after a failure. Each listing is
/// put on the server (`on_listed`) before the link is ready, so that a call
/// that finds the link ready finds its tool listed too. Ends when the
/// gateway is dropped.
async fn supervise(
    upstream: Weak<Upstream>,
    events: mpsc::UnboundedSender<Event>,
    on_listed: OnListed,
) {
    let mut failures: u32 = 0;
    let mut first = true;
    let mut last: Option<Arc<FusionClient>> = None;
    loop {
        let Some(me) = upstream.upgrade() else { return };
        // A refused upstream stays refused while it is asked again.
        if !matches!(me.link(), Link::Refused { .. }) {
            me.set(Link::Connecting { first });
        }
        match connect(&me, last.clone()).await {
            Ok((client, tools)) => {
                first = false;
                ready(me, &client, tools, &events, &on_listed).await;
                // Connected: wait for a failure or a tools change.
                if !stay_connected(&upstream, &client, &events, &on_listed).await {
                    return;
                }
                tracing::warn!(namespace = %upstream.upgrade().map(|u| u.config.namespace.clone()).unwrap_or_default(), "upstream connection lost; reconnecting");
                last = Some(client);
                failures = 1;
            }
            Err(error) => {
                // Only the very first attempt is "connecting"; after it
                // fails, the upstream is unavailable until one succeeds.
                first = false;
                failures = failures.saturating_add(1);
                connect_failed(&me, &error, failures, &events);
            }
        }
        let Some(me) = upstream.upgrade() else { return };
        let delay = match me.link() {
            Link::Down { retry_at } | Link::Refused { retry_at } => {
                retry_at.saturating_duration_since(Instant::now())
            }
            _ => me.backoff(failures),
        };
        drop(me);
        tokio::time::sleep(delay).await;
    }
}
