//! A failed token request in words that name its cause. rmcp keeps only the
//! text of the OAuth library's error (`Request failed`, `server returned
//! empty error response`); for those two the client says what they mean,
//! with the token endpoint, and for a request that got no answer it finds
//! out why by opening a TCP connection to the endpoint (sending nothing).
//! The authorization server's error response (RFC 6749 §5.2) is read from
//! that text too ([`AuthorizationError::token_error_code`]).

use std::time::Duration;

use rmcp::transport::auth::AuthError;

use super::options::AuthorizationError;

/// The oauth2 crate's text for a request that got no HTTP answer.
const NO_ANSWER: &str = "Request failed";

/// Its text for a status other than 200 with an empty body.
const EMPTY_ERROR: &str = "server returned empty error response";

/// How the oauth2 crate's text introduces the error response of the token
/// endpoint (RFC 6749 §5.2), followed by `error` and `: error_description`.
const ERROR_RESPONSE: &str = "Server returned error response: ";

/// How rmcp's `private_key_jwt` client credentials request introduces the
/// error response: `Token exchange failed: ERROR: DESCRIPTION` (the
/// description empty when not given), or `Token exchange failed: HTTP
/// STATUS` for a body that is not JSON.
const JWT_ERROR_RESPONSE: &str = "Token exchange failed: ";

/// The error response of the token endpoint in rmcp's `error`: `error`,
/// then `: error_description` when given (e.g. `invalid_scope: requested
/// scope is not allowed`); `None` when the request got no error response.
pub(crate) fn refusal(error: &AuthError) -> Option<String> {
    let text = error.to_string();
    if let Some((_, refusal)) = text.split_once(ERROR_RESPONSE) {
        return Some(refusal.to_owned());
    }
    let AuthError::ClientCredentialsError(message) = error else {
        return None;
    };
    let refusal = message.strip_prefix(JWT_ERROR_RESPONSE)?;
    let (code, description) = refusal.split_once(": ")?;
    if code.is_empty() || code.contains(' ') {
        return None;
    }
    Some(if description.is_empty() {
        code.to_owned()
    } else {
        refusal.to_owned()
    })
}

impl AuthorizationError {
    /// The `error` code (RFC 6749 §5.2, e.g. `invalid_client`,
    /// `invalid_scope`, `invalid_grant`) of a token request the
    /// authorization server answered with an error response
    /// ([`Token`](Self::Token) or [`StepUpRefused`](Self::StepUpRefused));
    /// `None` for every other failure.
    pub fn token_error_code(&self) -> Option<String> {
        let refusal = match self {
            AuthorizationError::Token(source) => refusal(source)?,
            AuthorizationError::StepUpRefused { refusal, .. } => refusal.clone(),
            _ => return None,
        };
        let code = refusal
            .split_once(": ")
            .map_or(refusal.as_str(), |(code, _)| code);
        Some(code.to_owned())
    }

    /// Whether the client assertion could not be signed (`private_key_jwt`,
    /// RFC 7523): the key does not parse, or does not suit its
    /// [`ClientAssertionAlgorithm`](super::ClientAssertionAlgorithm). No
    /// token request was sent.
    pub fn is_signing_error(&self) -> bool {
        matches!(
            self,
            AuthorizationError::Token(AuthError::JwtSigningError(_))
        )
    }
}

/// The [`AuthorizationError`] of a failed token request to `endpoint`:
/// [`AuthorizationError::TokenEndpoint`] naming the cause when rmcp's
/// `error` is one of the bare texts above, else
/// [`AuthorizationError::Token`]. `limit` bounds the connection attempt.
pub(crate) async fn failure(
    error: AuthError,
    endpoint: &str,
    limit: Duration,
) -> AuthorizationError {
    let text = error.to_string();
    let cause = if text.ends_with(NO_ANSWER) {
        format!("no HTTP answer: {}", connect_cause(endpoint, limit).await)
    } else if text.ends_with(EMPTY_ERROR) {
        String::from(
            "it answered with a status other than 200 and an empty body (a redirect, which a token request does not follow, or an error without the JSON body of RFC 6749 §5.2)",
        )
    } else {
        return AuthorizationError::Token(error);
    };
    AuthorizationError::TokenEndpoint {
        endpoint: endpoint.to_owned(),
        cause,
        source: error,
    }
}

/// Why a request to `endpoint` got no answer, found by connecting to its
/// host and port within `limit`.
async fn connect_cause(endpoint: &str, limit: Duration) -> String {
    let Ok(url) = url::Url::parse(endpoint) else {
        return String::from("the endpoint is not a URL");
    };
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return String::from("the endpoint names no host");
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match tokio::time::timeout(limit, tokio::net::TcpStream::connect((host, port))).await {
        Err(_) => format!("connecting to {host}:{port} timed out"),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("connection refused: nothing is listening on {host}:{port}")
        }
        Ok(Err(e)) => format!("cannot connect to {host}:{port}: {e}"),
        Ok(Ok(_)) => format!(
            "{host}:{port} takes connections, but the request failed on it (closed without an answer, or TLS failed)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_token_request_without_an_answer_names_the_refused_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let endpoint = format!("http://127.0.0.1:{port}/token");
        let error = failure(
            AuthError::TokenExchangeFailed(String::from("Request failed")),
            &endpoint,
            Duration::from_secs(30),
        )
        .await;
        assert_eq!(
            error.to_string(),
            format!(
                "the token request to {endpoint} failed: no HTTP answer: connection refused: nothing is listening on 127.0.0.1:{port}"
            )
        );
    }

    #[tokio::test]
    async fn an_empty_error_response_is_said_and_other_errors_are_kept() {
        let error = failure(
            AuthError::ClientCredentialsError(String::from(
                "Token exchange failed: Other error: server returned empty error response",
            )),
            "http://127.0.0.1:9/token",
            Duration::from_secs(30),
        )
        .await;
        assert_eq!(
            error.to_string(),
            "the token request to http://127.0.0.1:9/token failed: it answered with a status other than 200 and an empty body (a redirect, which a token request does not follow, or an error without the JSON body of RFC 6749 §5.2)"
        );
        let kept = failure(
            AuthError::TokenExchangeFailed(String::from(
                "Server returned error response: invalid_client",
            )),
            "http://127.0.0.1:9/token",
            Duration::from_secs(30),
        )
        .await;
        assert_eq!(
            kept.to_string(),
            "the token request failed: OAuth token exchange failed: Server returned error response: invalid_client"
        );
        assert_eq!(kept.token_error_code().as_deref(), Some("invalid_client"));
    }

    #[test]
    fn the_refusal_is_the_error_response_of_the_token_endpoint() {
        let refused = AuthError::ClientCredentialsError(String::from(
            "Token exchange failed: Server returned error response: invalid_scope: requested scope is not allowed",
        ));
        assert_eq!(
            refusal(&refused).as_deref(),
            Some("invalid_scope: requested scope is not allowed")
        );
        assert_eq!(
            AuthorizationError::Token(refused)
                .token_error_code()
                .as_deref(),
            Some("invalid_scope")
        );
        let signed = AuthError::ClientCredentialsError(String::from(
            "Token exchange failed: invalid_client: client authentication failed",
        ));
        assert_eq!(
            refusal(&signed).as_deref(),
            Some("invalid_client: client authentication failed")
        );
        let bare = AuthError::ClientCredentialsError(String::from(
            "Token exchange failed: invalid_client: ",
        ));
        assert_eq!(refusal(&bare).as_deref(), Some("invalid_client"));
        let not_json =
            AuthError::ClientCredentialsError(String::from("Token exchange failed: HTTP 500"));
        assert_eq!(refusal(&not_json), None);
        let unanswered = AuthError::TokenExchangeFailed(String::from("Request failed"));
        assert_eq!(refusal(&unanswered), None);
        assert_eq!(
            AuthorizationError::Token(unanswered).token_error_code(),
            None
        );
    }
}
