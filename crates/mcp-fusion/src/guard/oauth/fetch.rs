//! The one way the resource server reads JSON from its authorization
//! server: a GET or a form POST, at most [`MAX_BYTES`], status 200.

use std::time::Duration;

use serde::de::DeserializeOwned;

/// The largest metadata, JWKS or introspection answer read, in bytes.
const MAX_BYTES: usize = 1024 * 1024;

/// How long one request to the authorization server may take, connection
/// included.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// Why JSON could not be read from the authorization server.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// It answered that the request itself is wrong: 400 Bad Request (the
    /// error of RFC 6749 §5.2 and RFC 7662 §2.3, e.g.
    /// `unsupported_token_type`) or 413 Content Too Large. Other client
    /// errors (401 and 403 for this server's own credentials, 429) are
    /// [`FetchError::Failed`].
    Refused(u16),
    /// No usable answer: the request failed (its cause chain), a status
    /// other than 200, 400 or 413, an answer too large or not of the shape
    /// asked for.
    Failed(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Refused(status) => write!(f, "HTTP {status}"),
            FetchError::Failed(reason) => f.write_str(reason),
        }
    }
}

/// What went wrong with a request, cause by cause (`error sending request:
/// client error (Connect): tcp connect error: Connection refused (os error
/// 111)`), without its URL; a timeout says after how long.
fn describe(error: reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("no answer within {} seconds", TIMEOUT.as_secs());
    }
    let error = error.without_url();
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(&error);
    while let Some(error) = cause {
        let line = error.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        cause = error.source();
    }
    text
}

async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, FetchError> {
    let status = response.status();
    if status == reqwest::StatusCode::BAD_REQUEST
        || status == reqwest::StatusCode::PAYLOAD_TOO_LARGE
    {
        return Err(FetchError::Refused(status.as_u16()));
    }
    if status != reqwest::StatusCode::OK {
        return Err(FetchError::Failed(format!("HTTP {}", status.as_u16())));
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| FetchError::Failed(describe(e)))?;
    if bytes.len() > MAX_BYTES {
        return Err(FetchError::Failed(format!(
            "the answer is over {MAX_BYTES} bytes"
        )));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| FetchError::Failed(format!("not the expected JSON ({e})")))
}

/// GETs `url` as JSON.
///
/// # Errors
/// [`FetchError::Refused`] for a 400 or 413 answer, else [`FetchError::Failed`]:
/// the request failed, a status other than 200, an answer too large or not
/// of the shape `T`.
pub(crate) async fn get_json<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
) -> Result<T, FetchError> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| FetchError::Failed(describe(e)))?;
    read(response).await
}

/// POSTs `form` (`application/x-www-form-urlencoded`) to `url` with HTTP
/// Basic client authentication (RFC 6749 §2.3.1), reads the JSON answer.
///
/// # Errors
/// As [`get_json`].
pub(crate) async fn post_form<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
    client: (&str, &str),
    form: &[(&str, &str)],
) -> Result<T, FetchError> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let response = http
        .post(url)
        .basic_auth(encode(client.0), Some(encode(client.1)))
        .header(reqwest::header::ACCEPT, "application/json")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
        .send()
        .await
        .map_err(|e| FetchError::Failed(describe(e)))?;
    read(response).await
}
