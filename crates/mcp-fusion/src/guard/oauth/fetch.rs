//! The one way the resource server reads JSON from its authorization
//! server: a GET or a form POST, at most [`MAX_BYTES`], status 200.

use serde::de::DeserializeOwned;

/// The largest metadata, JWKS or introspection answer read, in bytes.
const MAX_BYTES: usize = 1024 * 1024;

async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, String> {
    let status = response.status();
    if status != reqwest::StatusCode::OK {
        return Err(format!("HTTP {}", status.as_u16()));
    }
    let bytes = response.bytes().await.map_err(|e| e.to_string())?;
    if bytes.len() > MAX_BYTES {
        return Err(format!("the answer is over {MAX_BYTES} bytes"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("not the expected JSON ({e})"))
}

/// GETs `url` as JSON.
///
/// # Errors
/// Why it could not: the request failed, a status other than 200, an
/// answer too large or not of the shape `T`.
pub(crate) async fn get_json<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
) -> Result<T, String> {
    let response = http
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
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
) -> Result<T, String> {
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
        .map_err(|e| e.without_url().to_string())?;
    read(response).await
}
