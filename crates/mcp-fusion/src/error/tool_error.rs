//! [`ToolError`]: one tool failure, with the fluent builder of wire contract §7.

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::retry_after::{envelope_secs, seconds_text};
use super::{ErrorCode, IntoRetryAfter, Severity};

/// Any error at all, boxed: what [`ToolError::internal`] keeps for the log, and
/// what a handler or middleware may return instead of a [`ToolError`] (it is
/// classified by `From<BoxError> for ToolError`).
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// A tool failure, as the model will read it in a `<tool_error>` envelope.
///
/// A plain struct with public fields (each section of the envelope is one
/// field) plus a fluent builder that needs no `.build()` (wire contract §7):
///
/// ```
/// use mcp_fusion::{ErrorCode, ToolError};
///
/// let err = ToolError::not_found("No invoice with that ID")
///     .suggest("List invoices first, then retry with a real ID")
///     .actions(["billing.list_invoices"])
///     .detail("requestedId", "inv_2026_9999")
///     .retry_after(30);
/// assert_eq!(err.code, ErrorCode::NotFound);
/// ```
///
/// Rendering lives in [`crate::envelope`]; this type knows nothing of XML.
/// A handler's error type is anything `Into<ToolError>`: a `ToolError`
/// returned with `Err(e)` or propagated with `?` reaches the wire unchanged
/// (§6); your own error type gets there through `impl From<MyError> for
/// ToolError`, checked by the compiler; an unexpected error becomes the
/// masked `INTERNAL_ERROR` through [`ToolError::internal`], which keeps it for
/// the log.
///
/// Two `ToolError`s are equal when every public field is, and both keep an
/// internal source or neither does.
#[derive(Debug, Clone)]
pub struct ToolError {
    /// The `code` attribute. Canonical or custom (§5).
    pub code: ErrorCode,
    /// The `severity` attribute; decides `isError` (§3). Default [`Severity::Error`].
    pub severity: Severity,
    /// `<message>`: what went wrong, one or two sentences for the model. Never
    /// empty on the wire: an empty or whitespace-only message is replaced by
    /// [`ErrorCode::default_message`].
    pub message: String,
    /// The model's next step as one plain line written *before* the envelope
    /// (wire contract §2.1), so that it is read first: `Set "action" to
    /// "get_invoice", keep your other arguments, and call billing again.`
    /// Set by the framework where it knows the call to make
    /// (`UNKNOWN_ACTION`, `MISSING_DISCRIMINATOR`, `RATE_LIMITED`,
    /// `SERVER_BUSY`); `None` (or empty) omits the line, and a warning never
    /// carries one (its line is the result itself).
    pub next_step: Option<String>,
    /// `<recovery>`: what the model should do next. `None` (or empty) omits it.
    pub recovery: Option<String>,
    /// `<available_actions>`: dotted action names the model may call instead
    /// (`billing.list_invoices`), in order. Empty omits the section.
    pub available_actions: Vec<String>,
    /// `<details>`: ordered key → value pairs (insertion order is kept; setting an
    /// existing key replaces its value in place). Empty omits the section.
    pub details: Vec<(String, String)>,
    /// `<retry_after>`: how long to wait before calling again. Rendered as whole
    /// seconds rounded up, between 1 and 86 400; `None` or zero omits it.
    pub retry_after: Option<Duration>,
    /// The unexpected error behind an `INTERNAL_ERROR` made by
    /// [`ToolError::internal`]: logged with its whole `source()` chain and an
    /// error id when the call ends, and never rendered: the model does not
    /// see it. `None` for every other failure.
    pub internal: Option<Arc<dyn StdError + Send + Sync + 'static>>,
}

impl PartialEq for ToolError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.severity == other.severity
            && self.message == other.message
            && self.next_step == other.next_step
            && self.recovery == other.recovery
            && self.available_actions == other.available_actions
            && self.details == other.details
            && self.retry_after == other.retry_after
            && self.internal.is_some() == other.internal.is_some()
    }
}

impl Eq for ToolError {}

impl ToolError {
    /// A failure with `code` and `message`, severity `error`, no other section.
    ///
    /// An empty or whitespace-only `message` is replaced by the code's default
    /// sentence ([`ErrorCode::default_message`]).
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        let code = code.into();
        let mut message = message.into();
        if message.trim().is_empty() {
            message = code.default_message().to_owned();
        }
        ToolError {
            code,
            severity: Severity::Error,
            message,
            next_step: None,
            recovery: None,
            available_actions: Vec::new(),
            details: Vec::new(),
            retry_after: None,
            internal: None,
        }
    }

    /// The masked `INTERNAL_ERROR` for an unexpected failure (an I/O error, a
    /// database error, anything else): when the call ends, `source` and its
    /// whole `source()` chain go to the log (`tracing`, level error) with a
    /// fresh error id, and the model reads only the action's name, the error
    /// id, that the server is still running and what it may do next (wire
    /// contract §6). A `&str` or `String` works as a source too.
    ///
    /// ```
    /// use mcp_fusion::ToolError;
    ///
    /// fn read_config() -> Result<String, ToolError> {
    ///     std::fs::read_to_string("/no/such/file").map_err(ToolError::internal)
    /// }
    /// assert_eq!(read_config().unwrap_err().code, mcp_fusion::ErrorCode::InternalError);
    /// ```
    pub fn internal(source: impl Into<BoxError>) -> Self {
        let mut err = ToolError::new(ErrorCode::InternalError, "");
        err.internal = Some(Arc::from(source.into()));
        err
    }

    /// `MISSING_REQUIRED_FIELD` for `field`: message `Required field "F" is missing.`,
    /// recovery `Provide the "F" parameter and retry.`
    pub fn required(field: impl AsRef<str>) -> Self {
        let field = field.as_ref();
        ToolError::new(
            ErrorCode::MissingRequiredField,
            format!("Required field \"{field}\" is missing."),
        )
        .suggest(format!("Provide the \"{field}\" parameter and retry."))
    }

    /// Sets the next step, the plain line written before the envelope (wire
    /// contract §2.1), replacing any earlier one. An empty text removes it;
    /// line ends and other control characters become spaces when it is
    /// written, and it is cut at 2 000 characters like a recovery.
    ///
    /// ```
    /// let err = mcp_fusion::ToolError::conflict("Invoice inv_7 is already paid.")
    ///     .next_step("Call billing.get_invoice with id inv_7 to read its state.");
    /// assert!(mcp_fusion::envelope::render(&err)
    ///     .starts_with("Call billing.get_invoice with id inv_7 to read its state.\n<tool_error code=\"CONFLICT\""));
    /// ```
    pub fn next_step(mut self, line: impl Into<String>) -> Self {
        let line = line.into();
        self.next_step = (!line.trim().is_empty()).then_some(line);
        self
    }

    /// Sets `<recovery>`, replacing any earlier one. An empty text removes it.
    pub fn suggest(mut self, recovery: impl Into<String>) -> Self {
        let recovery = recovery.into();
        self.recovery = (!recovery.trim().is_empty()).then_some(recovery);
        self
    }

    /// Appends dotted action names to `<available_actions>` (calls accumulate).
    pub fn actions<I, S>(mut self, actions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.available_actions
            .extend(actions.into_iter().map(Into::into));
        self
    }

    /// Sets the severity (the last call wins).
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Severity `warning`: the call succeeded and `isError` is false (§3).
    pub fn warning(self) -> Self {
        self.severity(Severity::Warning)
    }

    /// Severity `critical`: failed, and the model must not retry blindly (§3).
    pub fn critical(self) -> Self {
        self.severity(Severity::Critical)
    }

    /// Merges pairs into `<details>`. Values may be strings, numbers or booleans
    /// (anything [`Display`](fmt::Display)); they are stored with `to_string`.
    pub fn details<I, K, V>(self, details: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: fmt::Display,
    {
        let mut err = self;
        merge_details(
            &mut err.details,
            details
                .into_iter()
                .map(|(key, value)| (key.into(), value.to_string())),
        );
        err
    }

    /// Sets one detail. A key already present keeps its position and takes the
    /// new value.
    pub fn detail(mut self, key: impl Into<String>, value: impl fmt::Display) -> Self {
        let key = key.into();
        let value = value.to_string();
        match self.details.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.details.push((key, value)),
        }
        self
    }

    /// Sets `<retry_after>`: a [`Duration`], or seconds as an integer or float.
    /// Zero, negative or non-finite values clear it.
    pub fn retry_after(mut self, delay: impl IntoRetryAfter) -> Self {
        self.retry_after = delay.into_retry_after();
        self
    }

    /// [`retry_after`](Self::retry_after) in the envelope's words (§2): whole
    /// seconds rounded up, between 1 and 86 400, `1 second`, `30 seconds`;
    /// `None` when there is no delay.
    ///
    /// ```
    /// use mcp_fusion::ToolError;
    /// use std::time::Duration;
    ///
    /// let err = ToolError::server_busy("Busy.").retry_after(Duration::from_millis(1_200));
    /// assert_eq!(err.retry_after_text().as_deref(), Some("2 seconds"));
    /// assert_eq!(ToolError::not_found("Gone.").retry_after_text(), None);
    /// ```
    pub fn retry_after_text(&self) -> Option<String> {
        envelope_secs(self.retry_after).map(seconds_text)
    }

    /// The value of `isError` for this failure's result (§3).
    pub fn is_error(&self) -> bool {
        self.severity.is_error()
    }

    /// The value a detail key holds, if any.
    pub fn detail_value(&self, key: &str) -> Option<&str> {
        self.details
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Merges `items` into `details` in order: a new key is appended, a key
/// already present keeps its position and takes the new value. Linear in the
/// number of details, whatever their count.
pub(crate) fn merge_details(
    details: &mut Vec<(String, String)>,
    items: impl IntoIterator<Item = (String, String)>,
) {
    let items = items.into_iter();
    // A few details (the usual case): a linear search costs less than a map.
    if details.len() + items.size_hint().1.unwrap_or(usize::MAX) <= 16 {
        for (key, value) in items {
            match details.iter_mut().find(|(k, _)| *k == key) {
                Some(detail) => detail.1 = value,
                None => details.push((key, value)),
            }
        }
        return;
    }
    let mut index: std::collections::HashMap<String, usize> = details
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.clone(), i))
        .collect();
    for (key, value) in items {
        match index.get(&key) {
            Some(&i) => details[i].1 = value,
            None => {
                index.insert(key.clone(), details.len());
                details.push((key, value));
            }
        }
    }
}

macro_rules! shorthands {
    ($($(#[$doc:meta])* $name:ident => $code:ident $(. $modifier:ident ())?;)*) => {
        impl ToolError {$(
            $(#[$doc])*
            pub fn $name(message: impl Into<String>) -> Self {
                ToolError::new(ErrorCode::$code, message) $(. $modifier ())?
            }
        )*}
    };
}

shorthands! {
    /// `MISSING_DISCRIMINATOR` with `message`.
    missing_discriminator => MissingDiscriminator;
    /// `UNKNOWN_ACTION` with `message`.
    unknown_action => UnknownAction;
    /// `VALIDATION_ERROR` with `message` (the validator itself emits `<validation_error>`).
    validation_error => ValidationError;
    /// `MISSING_REQUIRED_FIELD` with `message`; see also [`ToolError::required`].
    missing_required_field => MissingRequiredField;
    /// `RATE_LIMITED` with `message`; add [`ToolError::retry_after`].
    rate_limited => RateLimited;
    /// `UNAUTHORIZED` with `message`.
    unauthorized => Unauthorized;
    /// `FORBIDDEN` with `message`.
    forbidden => Forbidden;
    /// `NOT_FOUND` with `message`.
    not_found => NotFound;
    /// `CONFLICT` with `message`.
    conflict => Conflict;
    /// `TIMEOUT` with `message`.
    timeout => Timeout;
    /// `SERVER_BUSY` with `message`; add [`ToolError::retry_after`].
    server_busy => ServerBusy;
    /// `DEPRECATED` with `message`, severity `warning` (§5).
    deprecated => Deprecated.warning();
    /// `AUTH_REQUIRED` with `message`.
    auth_required => AuthRequired;
    /// `HANDOFF_UPSTREAM_UNAVAILABLE` with `message`.
    handoff_upstream_unavailable => HandoffUpstreamUnavailable;
    /// `HANDOFF_NAMESPACE_MISMATCH` with `message`.
    handoff_namespace_mismatch => HandoffNamespaceMismatch;
    /// `HANDOFF_CONNECTING` with `message`; add [`ToolError::retry_after`].
    handoff_connecting => HandoffConnecting;
}

impl ToolError {
    /// `CANCELLED` for the call of `name` the client cancelled
    /// (`notifications/cancelled`, or the connection gone) before it
    /// finished: its handler's future was dropped.
    pub(crate) fn cancelled_by_client(name: &str) -> Self {
        ToolError::new(
            ErrorCode::Cancelled,
            format!("The call of {name} was cancelled by the client."),
        )
    }

    /// The `DEPRECATED` warning (severity `warning`, §3, §5) a
    /// `FusionServer` attaches to every success of a deprecated action
    /// (`Action::deprecated`): `action` (`billing.get_invoice_legacy`) is
    /// deprecated, `replacement` (`billing.get_invoice`) is the one to call
    /// next time, named in `available_actions`. On an rmcp router, attach it
    /// to the success with `envelope::attach_warning`.
    pub fn deprecated_action(action: &str, replacement: &str) -> Self {
        ToolError::deprecated(format!(
            "{action} is deprecated and will be removed; use {replacement} instead."
        ))
        .suggest(format!(
            "The call succeeded: its result is above. Next time call {replacement}."
        ))
        .actions([replacement])
    }

    /// The `DEPRECATED` warning attached to a success whose arguments used
    /// the deprecated `field` of `action` (`Action::deprecated_field`):
    /// `replacement` is the field to send next time.
    pub fn deprecated_field(action: &str, field: &str, replacement: &str) -> Self {
        ToolError::deprecated(format!(
            "The field \"{field}\" of {action} is deprecated and will be removed; use \"{replacement}\" instead."
        ))
        .suggest(format!(
            "The call succeeded: its result is above. Next time send \"{replacement}\" instead of \"{field}\"."
        ))
    }
}

impl fmt::Display for ToolError {
    /// `CODE: message`, e.g. `NOT_FOUND: No invoice with that ID`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl StdError for ToolError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.internal
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl From<BoxError> for ToolError {
    /// A [`ToolError`] anywhere in `error`'s `source()` chain is taken as it
    /// is (the error was marked); anything else is [`ToolError::internal`].
    fn from(error: BoxError) -> Self {
        let error = match error.downcast::<ToolError>() {
            Ok(marked) => return *marked,
            Err(error) => error,
        };
        let mut source = error.source();
        while let Some(inner) = source {
            if let Some(marked) = inner.downcast_ref::<ToolError>() {
                return marked.clone();
            }
            source = inner.source();
        }
        ToolError::internal(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_sets_every_section() {
        let err = ToolError::new("NOT_FOUND", "gone")
            .suggest("look elsewhere")
            .actions(["a.b"])
            .actions(vec![String::from("a.c")])
            .critical()
            .details([("n", 3)])
            .detail("ok", true)
            .detail("n", "four")
            .retry_after(1.5);
        assert_eq!(err.code, ErrorCode::NotFound);
        assert_eq!(err.severity, Severity::Critical);
        assert_eq!(err.recovery.as_deref(), Some("look elsewhere"));
        assert_eq!(err.available_actions, ["a.b", "a.c"]);
        assert_eq!(
            err.details,
            [("n".into(), "four".into()), ("ok".into(), "true".into())]
        );
        assert_eq!(err.retry_after, Some(Duration::from_millis(1500)));
    }

    #[test]
    fn empty_message_takes_the_code_default() {
        assert_eq!(
            ToolError::not_found("  \n").message,
            "The requested item was not found."
        );
        assert_eq!(ToolError::new("X_Y", "").message, "The tool call failed.");
    }

    #[test]
    fn empty_recovery_is_dropped() {
        assert_eq!(
            ToolError::conflict("c").suggest("x").suggest("").recovery,
            None
        );
    }

    #[test]
    fn required_helper_texts() {
        let err = ToolError::required("email");
        assert_eq!(err.code, ErrorCode::MissingRequiredField);
        assert_eq!(err.message, "Required field \"email\" is missing.");
        assert_eq!(
            err.recovery.as_deref(),
            Some("Provide the \"email\" parameter and retry.")
        );
    }

    #[test]
    fn retry_after_ignores_non_positive_values() {
        assert_eq!(ToolError::timeout("t").retry_after(0).retry_after, None);
        assert_eq!(ToolError::timeout("t").retry_after(-3).retry_after, None);
        assert_eq!(
            ToolError::timeout("t").retry_after(f64::NAN).retry_after,
            None
        );
        assert_eq!(
            ToolError::timeout("t")
                .retry_after(f64::INFINITY)
                .retry_after,
            None
        );
    }

    #[test]
    fn deprecated_is_a_warning_and_question_mark_works() {
        fn inner() -> Result<(), ToolError> {
            Err(ToolError::deprecated("use v2"))
        }
        fn outer() -> Result<(), Box<dyn std::error::Error>> {
            inner()?;
            Ok(())
        }
        assert!(!ToolError::deprecated("x").is_error());
        assert_eq!(outer().unwrap_err().to_string(), "DEPRECATED: use v2");
    }
}
