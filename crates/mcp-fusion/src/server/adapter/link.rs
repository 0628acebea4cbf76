//! [`ClientLink`]: the [`ClientChannel`] of one request, over rmcp's peer.

// Sampling and logging are MCP 2025-11-25 features that SEP-2577 deprecates
// for 2026-07-28 (rmcp marks their types deprecated); 2025-11-25 clients use
// them.
#![allow(deprecated)]

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::Peer;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest, ListRootsRequest,
    ListRootsResult, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{RoleServer, ServiceError};
use serde_json::Value;

use crate::handler::{ClientChannel, ClientFailure, InputRounds, LogLevel};
use crate::server::session::Session;

/// Which log messages a request lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogFilter {
    /// 2025-11-25: the level the connection set with `logging/setLevel`.
    Session,
    /// 2026-07-28: the level the request names in
    /// `_meta["io.modelcontextprotocol/logLevel"]`; none without it.
    Request(Option<LogLevel>),
}

/// The client of one request: its peer, its progress token, its session,
/// and whether it speaks the stateless 2026-07-28 protocol (no
/// server-to-client requests: input requests through `rounds`; client
/// capabilities and log levels per request).
#[derive(Debug)]
pub(crate) struct ClientLink {
    pub peer: Peer<RoleServer>,
    pub progress_token: Option<ProgressToken>,
    pub session: Arc<Session>,
    pub stateless: bool,
    pub logs: LogFilter,
    /// 2026-07-28: the capabilities in the request's `_meta`.
    pub declared: Option<ClientCapabilities>,
    /// 2026-07-28 `tools/call`, `prompts/get`, `resources/read`: the
    /// request's input rounds.
    pub rounds: Option<Arc<InputRounds>>,
}

fn rmcp_level(level: LogLevel) -> rmcp::model::LoggingLevel {
    use rmcp::model::LoggingLevel as L;
    match level {
        LogLevel::Debug => L::Debug,
        LogLevel::Info => L::Info,
        LogLevel::Notice => L::Notice,
        LogLevel::Warning => L::Warning,
        LogLevel::Error => L::Error,
        LogLevel::Critical => L::Critical,
        LogLevel::Alert => L::Alert,
        LogLevel::Emergency => L::Emergency,
    }
}

/// The level a `logging/setLevel` names.
pub(crate) fn log_level_of(level: rmcp::model::LoggingLevel) -> LogLevel {
    use rmcp::model::LoggingLevel as L;
    match level {
        L::Debug => LogLevel::Debug,
        L::Info => LogLevel::Info,
        L::Notice => LogLevel::Notice,
        L::Warning => LogLevel::Warning,
        L::Error => LogLevel::Error,
        L::Critical => LogLevel::Critical,
        L::Alert => LogLevel::Alert,
        L::Emergency => LogLevel::Emergency,
    }
}

/// How long a request to the client (sampling, elicitation) may go
/// unanswered: 5 minutes, time for a person to answer a form. Past it the
/// request is dropped and the handler gets `CLIENT_REQUEST_FAILED`.
pub(crate) const CLIENT_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// `request`, or a failure once [`CLIENT_REQUEST_TIMEOUT`] has passed.
async fn within_timeout<T>(
    request: impl std::future::Future<Output = Result<T, ServiceError>>,
) -> Result<T, ClientFailure> {
    match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, request).await {
        Ok(answer) => answer.map_err(failed),
        Err(_) => Err(ClientFailure::Failed(format!(
            "the client did not answer within {} seconds",
            CLIENT_REQUEST_TIMEOUT.as_secs()
        ))),
    }
}

fn failed(error: ServiceError) -> ClientFailure {
    match error {
        ServiceError::McpError(data) => ClientFailure::Failed(format!(
            "the client answered with error {}: {}",
            data.code.0, data.message
        )),
        ServiceError::TransportClosed => {
            ClientFailure::Failed(String::from("the connection to the client closed"))
        }
        ServiceError::Timeout { timeout } => ClientFailure::Failed(format!(
            "the client did not answer within {} seconds",
            timeout.as_secs()
        )),
        other => ClientFailure::Failed(other.to_string()),
    }
}

impl ClientChannel for ClientLink {
    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let Some(token) = self.progress_token.clone() else {
                return false;
            };
            let mut param = ProgressNotificationParam::new(token, progress);
            if let Some(total) = total {
                param = param.with_total(total);
            }
            if let Some(message) = message {
                param = param.with_message(message);
            }
            self.peer.notify_progress(param).await.is_ok()
        })
    }

    fn log(&self, level: LogLevel, logger: String, data: Value) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let wanted = match self.logs {
                LogFilter::Session => self.session.logs(level),
                LogFilter::Request(min) => min.is_some_and(|min| level >= min),
            };
            if !wanted {
                return false;
            }
            let param = rmcp::model::LoggingMessageNotificationParam::new(rmcp_level(level), data)
                .with_logger(logger);
            self.peer.notify_logging_message(param).await.is_ok()
        })
    }

    fn create_message(
        &self,
        key: Option<String>,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ClientFailure>> {
        Box::pin(async move {
            let rounds = self.asking()?;
            let declared = self
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.sampling.is_some());
            if !declared {
                return Err(ClientFailure::Unsupported);
            }
            if let Some(rounds) = rounds {
                let request = InputRequest::CreateMessage(CreateMessageRequest::new(params));
                return Ok(rounds.ask(key, request, "a CreateMessageResult").await);
            }
            within_timeout(self.peer.create_message(params)).await
        })
    }

    fn elicit(
        &self,
        key: Option<String>,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientFailure>> {
        Box::pin(async move {
            let rounds = self.asking()?;
            let url = matches!(params, ElicitRequestParams::UrlElicitationParams { .. });
            // Form mode: declared as `form`, or as `{}` (MCP 2025-11-25:
            // an empty elicitation capability means form mode only); URL
            // mode: declared as `url`.
            let declared = self.client_capabilities().is_some_and(|capabilities| {
                capabilities.elicitation.as_ref().is_some_and(|e| {
                    if url {
                        e.url.is_some()
                    } else {
                        e.form.is_some() || e.url.is_none()
                    }
                })
            });
            if !declared {
                return Err(ClientFailure::Unsupported);
            }
            if let Some(rounds) = rounds {
                let request = InputRequest::Elicitation(ElicitRequest::new(params));
                return Ok(rounds.ask(key, request, "an ElicitResult").await);
            }
            within_timeout(self.peer.create_elicitation(params)).await
        })
    }

    fn list_roots(
        &self,
        key: Option<String>,
    ) -> BoxFuture<'_, Result<ListRootsResult, ClientFailure>> {
        Box::pin(async move {
            let rounds = self.asking()?;
            let declared = self
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.roots.is_some());
            if !declared {
                return Err(ClientFailure::Unsupported);
            }
            if let Some(rounds) = rounds {
                let request = InputRequest::ListRoots(ListRootsRequest::default());
                return Ok(rounds.ask(key, request, "a ListRootsResult").await);
            }
            within_timeout(self.peer.list_roots()).await
        })
    }

    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        if self.stateless {
            self.declared.clone()
        } else {
            self.peer.peer_info().map(|info| info.capabilities.clone())
        }
    }

    fn rounds(&self) -> Option<&Arc<InputRounds>> {
        self.rounds.as_ref()
    }
}

impl ClientLink {
    /// How this request asks the client: through its input rounds
    /// (2026-07-28 `tools/call`, `prompts/get`, `resources/read`), or with a
    /// request on the connection (`None`, 2025-11-25).
    ///
    /// # Errors
    /// [`ClientFailure::NotInProtocol`] for another 2026-07-28 request.
    fn asking(&self) -> Result<Option<&InputRounds>, ClientFailure> {
        match (&self.rounds, self.stateless) {
            (Some(rounds), _) => Ok(Some(rounds)),
            (None, true) => Err(ClientFailure::NotInProtocol),
            (None, false) => Ok(None),
        }
    }
}
