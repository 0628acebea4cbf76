//! [`GatewayConfig`]: the upstreams a gateway mounts, built in code or read
//! from a TOML file (`fusion gateway --config gateway.toml`).
//!
//! ```toml
//! [[upstream]]
//! namespace = "finance"
//! command = ["fusion", "serve", "--stdio", "--db", "billing.db"]
//!
//! [[upstream]]
//! namespace = "everything"
//! command = ["npx", "-y", "@modelcontextprotocol/server-everything", "stdio"]
//! exposure = "handoff"
//! description = "The MCP reference server's demo tools."
//! connect_timeout = "20s"
//!
//! [upstream.transform]                # how its tools are shown
//! deny = ["delete_everything"]        # or allow = [...]
//!
//! [upstream.transform.tools.echo]     # by the upstream's own name
//! name = "say_hello"                  # listed as everything.say_hello
//! description = "Says hello."
//! hide = { message = "hello" }        # out of the inputSchema, set on every call
//!
//! [[upstream]]
//! namespace = "crm"
//! url = "http://127.0.0.1:9000/mcp"
//! call_timeout = "30s"
//! reconnect_initial = "1s"
//! reconnect_max = "1m"
//! bearer_env = "CRM_TOKEN"            # the gateway's own token, from $CRM_TOKEN
//!
//! [[upstream]]
//! namespace = "files"
//! url = "https://files.example.com/mcp"
//!
//! [upstream.oauth]                    # OAuth client credentials of the gateway
//! client_id = "gateway"
//! client_secret_env = "FILES_CLIENT_SECRET"
//! scopes = ["files:read"]
//!
//! [handoffs]
//! max_callers = 10000
//! ttl = "30m"
//!
//! [search]                            # tool search: tools/list shows search_tools
//! always_visible = ["finance.billing"]
//! default_limit = 5
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use super::credentials::{self, NOT_FOR_STDIO, UpstreamCredentials};
use crate::capability::{ToolSearch, ToolTransform, Transforms};
use crate::client::Target;

/// The longest duration a configuration may give (1 day): longer ones
/// would overflow the clock's arithmetic, and no wait of a call is that long.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// The default [`UpstreamConfig::connect_timeout`]: 10 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default [`UpstreamConfig::call_timeout`]: 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The default [`UpstreamConfig::reconnect_initial`]: 500 ms.
pub const DEFAULT_RECONNECT_INITIAL: Duration = Duration::from_millis(500);
/// The default [`UpstreamConfig::reconnect_max`]: 30 s.
pub const DEFAULT_RECONNECT_MAX: Duration = Duration::from_secs(30);
/// The default [`HandoffLimits::max_callers`].
pub const DEFAULT_MAX_HANDOFFS: usize = 10_000;
/// The default [`HandoffLimits::ttl`]: 30 minutes.
pub const DEFAULT_HANDOFF_TTL: Duration = Duration::from_secs(30 * 60);

/// Who sees a mounted upstream's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Exposure {
    /// Every caller, from the start: the gateway connects at once and lists
    /// the upstream's tools as `<namespace>.<tool>` (the default).
    #[default]
    Always,
    /// Only callers handed off to it (`Gateway::handoff`), until they call
    /// `<namespace>.return_to_triage`; the gateway connects on the first
    /// handoff.
    Handoff,
}

/// One upstream MCP server mounted under a namespace. TOML: one
/// `[[upstream]]` table with `namespace` and either `command` (a stdio
/// server: the program and its arguments, no shell) or `url` (Streamable
/// HTTP); the durations are written as `"500ms"`, `"10s"`, `"1m"`; an HTTP
/// upstream may have the gateway's own credentials (`bearer_env`, or an
/// `[upstream.oauth]` table: [`UpstreamCredentials`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawUpstream")]
pub struct UpstreamConfig {
    /// The namespace its tools appear under (`finance` → `finance.<tool>`):
    /// 1 to 64 ASCII letters, digits, `_` or `-`.
    pub namespace: String,
    /// Where it is: a stdio command or a Streamable HTTP URL.
    pub target: Target,
    /// Who sees its tools. Default [`Exposure::Always`].
    pub exposure: Exposure,
    /// What it is for, in a sentence the model reads when choosing a
    /// handoff. Default none.
    pub description: Option<String>,
    /// The gateway's own credentials for an HTTP upstream; `None` (the
    /// default) sends none. Never the caller's: a caller's `Authorization`
    /// header is not forwarded.
    pub credentials: Option<UpstreamCredentials>,
    /// The longest a connection and MCP handshake may take. Default 10 s.
    pub connect_timeout: Duration,
    /// The longest one forwarded call may take; past it the caller gets
    /// `HANDOFF_UPSTREAM_UNAVAILABLE`. Default 60 s.
    pub call_timeout: Duration,
    /// The wait before the first reconnection after a failure; doubled after
    /// each failed attempt. Default 500 ms.
    pub reconnect_initial: Duration,
    /// The longest wait between reconnections. Default 30 s.
    pub reconnect_max: Duration,
    /// How its tools are shown: renamed, re-described, arguments hidden,
    /// filtered (TOML: the `[upstream.transform]` table). Applied to each
    /// listing of the upstream's tools before they are put under the
    /// namespace; a call of a shown tool is sent to the upstream's own
    /// name with the hidden arguments set; a tool not shown is not
    /// callable. A transform that does not fit a listing (a rename to a
    /// name another tool is listed as, a hidden argument the tool does not
    /// have) leaves all of that upstream's tools out, logged (`tracing`,
    /// target `mcp_fusion::gateway`). Default: every tool as it is.
    pub transforms: Transforms,
}

impl UpstreamConfig {
    /// An upstream under `namespace` at `target`, with the defaults.
    pub fn new(namespace: impl Into<String>, target: Target) -> Self {
        UpstreamConfig {
            namespace: namespace.into(),
            target,
            exposure: Exposure::Always,
            description: None,
            credentials: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            reconnect_initial: DEFAULT_RECONNECT_INITIAL,
            reconnect_max: DEFAULT_RECONNECT_MAX,
            transforms: Transforms::new(),
        }
    }

    /// Sets [`transforms`](Self::transforms).
    pub fn transforms(mut self, transforms: Transforms) -> Self {
        self.transforms = transforms;
        self
    }

    /// Sets [`exposure`](Self::exposure).
    pub fn exposure(mut self, exposure: Exposure) -> Self {
        self.exposure = exposure;
        self
    }

    /// Sets [`description`](Self::description).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets [`credentials`](Self::credentials).
    pub fn credentials(mut self, credentials: UpstreamCredentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// Sets [`call_timeout`](Self::call_timeout).
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// Sets the reconnection backoff: `initial`, doubled up to `max`.
    pub fn reconnect(mut self, initial: Duration, max: Duration) -> Self {
        self.reconnect_initial = initial;
        self.reconnect_max = max;
        self
    }

    fn check(&self) -> Result<(), ConfigError> {
        let ns = &self.namespace;
        let valid = (1..=64).contains(&ns.len())
            && ns
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(ConfigError::BadNamespace(ns.clone()));
        }
        let durations = [
            ("connect_timeout", self.connect_timeout),
            ("call_timeout", self.call_timeout),
            ("reconnect_initial", self.reconnect_initial),
            ("reconnect_max", self.reconnect_max),
        ];
        for (field, duration) in durations {
            let reason = if duration.is_zero() {
                format!("{field} must be longer than zero")
            } else if duration > MAX_DURATION {
                format!("{field} must be at most 1 day (24h)")
            } else {
                continue;
            };
            return Err(ConfigError::Invalid {
                namespace: ns.clone(),
                reason,
            });
        }
        if let Err(error) = self.transforms.check() {
            return Err(ConfigError::Invalid {
                namespace: ns.clone(),
                reason: error.to_string(),
            });
        }
        if self.reconnect_max < self.reconnect_initial {
            return Err(ConfigError::Invalid {
                namespace: ns.clone(),
                reason: String::from("reconnect_max must be at least reconnect_initial"),
            });
        }
        match &self.target {
            Target::Stdio { .. } if self.credentials.is_some() => Err(ConfigError::Invalid {
                namespace: ns.clone(),
                reason: String::from(NOT_FOR_STDIO),
            }),
            Target::Stdio { program, .. } if program.is_empty() => Err(ConfigError::Invalid {
                namespace: ns.clone(),
                reason: String::from("command must name a program"),
            }),
            Target::Http { url }
                if !(url.starts_with("http://") || url.starts_with("https://")) =>
            {
                Err(ConfigError::Invalid {
                    namespace: ns.clone(),
                    reason: String::from("url must start with http:// or https://"),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The bounds of the per-caller handoff state. TOML: the `[handoffs]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HandoffLimits {
    /// The most callers with an active handoff at once; past it the least
    /// recently active caller's handoff ends. Default 10 000.
    pub max_callers: usize,
    /// How long a handoff lasts after its caller's last call. Default 30 min.
    #[serde(deserialize_with = "duration")]
    pub ttl: Duration,
}

impl Default for HandoffLimits {
    fn default() -> Self {
        HandoffLimits {
            max_callers: DEFAULT_MAX_HANDOFFS,
            ttl: DEFAULT_HANDOFF_TTL,
        }
    }
}

/// What a gateway mounts: its upstreams, in the order their tools are
/// listed, and the bounds of its handoff state.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayConfig {
    /// The upstreams (TOML: `[[upstream]]` tables).
    #[serde(default, rename = "upstream")]
    pub upstreams: Vec<UpstreamConfig>,
    /// The handoff bounds (TOML: `[handoffs]`).
    #[serde(default)]
    pub handoffs: HandoffLimits,
    /// Lists every upstream to every caller, the [`Exposure::Handoff`] ones
    /// included, connected from the start, and forwards their calls without
    /// a handoff (TOML: `list_every_upstream = true`; default `false`). For
    /// `fusion lock`, so that the lockfile records every mounted contract.
    #[serde(default)]
    pub list_every_upstream: bool,
    /// Tool search (TOML: a `[search]` table, `always_visible` and
    /// `default_limit`; default off): `tools/list` shows the `search_tools`
    /// meta-tool, the handoff tools and the tools named always visible
    /// instead of every mounted tool, and the model finds the others by
    /// searching ([`ServerBuilder::tool_search`](crate::ServerBuilder::tool_search)).
    #[serde(default)]
    pub search: Option<ToolSearch>,
}

impl GatewayConfig {
    /// An empty configuration: add upstreams with [`upstream`](Self::upstream).
    pub fn new() -> Self {
        GatewayConfig::default()
    }

    /// Adds an upstream.
    pub fn upstream(mut self, upstream: UpstreamConfig) -> Self {
        self.upstreams.push(upstream);
        self
    }

    /// Sets [`list_every_upstream`](Self::list_every_upstream).
    pub fn list_every_upstream(mut self, every: bool) -> Self {
        self.list_every_upstream = every;
        self
    }

    /// Sets [`search`](Self::search): tool search on, with `search`.
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Sets [`handoffs`](Self::handoffs).
    pub fn handoffs(mut self, limits: HandoffLimits) -> Self {
        self.handoffs = limits;
        self
    }

    /// Reads a configuration from TOML text and [`check`](Self::check)s it.
    ///
    /// # Errors
    /// [`ConfigError::Toml`] for text that is not TOML or does not have the
    /// shape above; the errors of [`check`](Self::check).
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: GatewayConfig =
            toml::from_str(text).map_err(|e| ConfigError::Toml(e.to_string()))?;
        config.check()?;
        Ok(config)
    }

    /// Reads the TOML file at `path` ([`from_toml`](Self::from_toml)).
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read; the errors of
    /// [`from_toml`](Self::from_toml).
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        GatewayConfig::from_toml(&text)
    }

    /// Checks the configuration: at least one upstream, valid and distinct
    /// namespaces, durations above zero and at most [`MAX_DURATION`], a
    /// program or an http(s) URL, credentials only for an HTTP upstream, a
    /// handoff table of at least one caller, a search `default_limit` of 1
    /// to [`MAX_SEARCH_LIMIT`](crate::capability::tool_search::MAX_SEARCH_LIMIT).
    ///
    /// # Errors
    /// [`ConfigError::NoUpstreams`], [`ConfigError::BadNamespace`],
    /// [`ConfigError::DuplicateNamespace`], [`ConfigError::Handoffs`],
    /// [`ConfigError::Search`], [`ConfigError::Invalid`].
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.upstreams.is_empty() {
            return Err(ConfigError::NoUpstreams);
        }
        if self.handoffs.max_callers == 0 {
            return Err(ConfigError::Handoffs("max_callers must be above zero"));
        }
        if self.handoffs.ttl.is_zero() || self.handoffs.ttl > MAX_DURATION {
            return Err(ConfigError::Handoffs(
                "ttl must be longer than zero and at most 1 day (24h)",
            ));
        }
        if let Some(problem) = self.search.as_ref().and_then(ToolSearch::problem) {
            return Err(ConfigError::Search(problem));
        }
        for (i, upstream) in self.upstreams.iter().enumerate() {
            upstream.check()?;
            if self.upstreams[..i]
                .iter()
                .any(|u| u.namespace == upstream.namespace)
            {
                return Err(ConfigError::DuplicateNamespace(upstream.namespace.clone()));
            }
        }
        Ok(())
    }
}

/// Why a gateway configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The text is not TOML, or not of the configuration's shape.
    #[error("{0}")]
    Toml(String),
    /// No `[[upstream]]` at all.
    #[error("the gateway mounts nothing: add at least one [[upstream]] with a namespace")]
    NoUpstreams,
    /// A namespace that is empty, too long, or has other characters than
    /// ASCII letters, digits, `_` and `-`.
    #[error(
        "namespace \"{0}\" is not usable: write 1 to 64 ASCII letters, digits, _ or - (no dots)"
    )]
    BadNamespace(String),
    /// Two upstreams under one namespace.
    #[error("namespace \"{0}\" is mounted twice")]
    DuplicateNamespace(String),
    /// A setting of the `[search]` table that cannot work.
    #[error("[search]: {0}")]
    Search(String),
    /// A setting of the `[handoffs]` table that cannot work.
    #[error("[handoffs]: {0}")]
    Handoffs(&'static str),
    /// Another setting of an upstream that cannot work.
    #[error("upstream \"{namespace}\": {reason}")]
    Invalid {
        /// The upstream's namespace.
        namespace: String,
        /// What is wrong.
        reason: String,
    },
}

/// An upstream as written in TOML, before its target is made one value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    namespace: String,
    command: Option<Vec<String>>,
    url: Option<String>,
    #[serde(default)]
    exposure: Exposure,
    description: Option<String>,
    #[serde(default, deserialize_with = "some_duration")]
    connect_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "some_duration")]
    call_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "some_duration")]
    reconnect_initial: Option<Duration>,
    #[serde(default, deserialize_with = "some_duration")]
    reconnect_max: Option<Duration>,
    bearer_env: Option<String>,
    oauth: Option<RawOAuth>,
    transform: Option<RawTransform>,
}

/// An `[upstream.transform]` table: `allow` or `deny` (tool names), and a
/// `[upstream.transform.tools.<name>]` table per transformed tool.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransform {
    allow: Option<Vec<String>>,
    deny: Option<Vec<String>>,
    #[serde(default)]
    tools: BTreeMap<String, RawToolTransform>,
}

/// An `[upstream.transform.tools.<name>]` table: `name`, `description`,
/// `hide` (argument = value).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolTransform {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    hide: BTreeMap<String, serde_json::Value>,
}

impl RawTransform {
    /// The transforms of upstream `ns` this table gives.
    fn transforms(self, ns: &str) -> Result<Transforms, String> {
        let mut transforms = match (self.allow, self.deny) {
            (None, None) => Transforms::new(),
            (Some(allow), None) => Transforms::new().allow(allow),
            (None, Some(deny)) => Transforms::new().deny(deny),
            (Some(_), Some(_)) => {
                return Err(format!(
                    "upstream \"{ns}\": [upstream.transform] gives at most one of allow and deny"
                ));
            }
        };
        for (tool, raw) in self.tools {
            let mut transform = ToolTransform::new();
            transform.name = raw.name;
            transform.description = raw.description;
            for (argument, value) in raw.hide {
                transform = transform.hide(argument, value);
            }
            transforms = transforms.tool(tool, transform);
        }
        Ok(transforms)
    }
}

/// An `[upstream.oauth]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    client_id: String,
    client_secret_env: String,
    #[serde(default)]
    scopes: Vec<String>,
}

/// The credentials `namespace`'s `bearer_env` and `[upstream.oauth]` give
/// for `target`, their secrets read from the environment now.
fn read_credentials(
    ns: &str,
    bearer_env: Option<&String>,
    oauth: Option<&RawOAuth>,
    target: &Target,
) -> Result<Option<UpstreamCredentials>, String> {
    if matches!(target, Target::Stdio { .. }) && (bearer_env.is_some() || oauth.is_some()) {
        return Err(format!("upstream \"{ns}\": {NOT_FOR_STDIO}"));
    }
    match (bearer_env, oauth) {
        (None, None) => Ok(None),
        (Some(variable), None) => {
            let token = credentials::from_env(ns, "bearer_env", variable)?;
            Ok(Some(UpstreamCredentials::Bearer(token)))
        }
        (None, Some(oauth)) => {
            if oauth.client_id.is_empty() {
                return Err(format!(
                    "upstream \"{ns}\": [upstream.oauth] client_id must not be empty"
                ));
            }
            let secret = credentials::from_env(ns, "client_secret_env", &oauth.client_secret_env)?;
            Ok(Some(UpstreamCredentials::ClientCredentials {
                client_id: oauth.client_id.clone(),
                client_secret: secret,
                scopes: oauth.scopes.clone(),
            }))
        }
        (Some(_), Some(_)) => Err(format!(
            "upstream \"{ns}\": give at most one of bearer_env and [upstream.oauth]"
        )),
    }
}

impl TryFrom<RawUpstream> for UpstreamConfig {
    type Error = String;

    fn try_from(raw: RawUpstream) -> Result<Self, String> {
        let target = match (raw.command, raw.url) {
            (Some(command), None) => {
                let mut words = command.into_iter();
                let program = words.next().unwrap_or_default();
                Target::stdio(program, words)
            }
            (None, Some(url)) => Target::http(url),
            _ => {
                return Err(format!(
                    "upstream \"{}\": give exactly one of command (a stdio server) and url (Streamable HTTP)",
                    raw.namespace
                ));
            }
        };
        let credentials = read_credentials(
            &raw.namespace,
            raw.bearer_env.as_ref(),
            raw.oauth.as_ref(),
            &target,
        )?;
        let mut config = UpstreamConfig::new(raw.namespace, target).exposure(raw.exposure);
        config.description = raw.description;
        config.credentials = credentials;
        config.connect_timeout = raw.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        config.call_timeout = raw.call_timeout.unwrap_or(DEFAULT_CALL_TIMEOUT);
        config.reconnect_initial = raw.reconnect_initial.unwrap_or(DEFAULT_RECONNECT_INITIAL);
        config.reconnect_max = raw.reconnect_max.unwrap_or(DEFAULT_RECONNECT_MAX);
        if let Some(transform) = raw.transform {
            config.transforms = transform.transforms(&config.namespace)?;
        }
        Ok(config)
    }
}

/// A duration written as humantime text (`"500ms"`, `"2s"`, `"1m"`).
fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    humantime::parse_duration(&text)
        .map_err(|e| serde::de::Error::custom(format!("{e} (write e.g. 500ms, 2s, 1m)")))
}

fn some_duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    duration(deserializer).map(Some)
}
