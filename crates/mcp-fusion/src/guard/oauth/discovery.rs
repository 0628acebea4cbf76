//! Authorization server metadata discovery: RFC 8414 §3
//! (`/.well-known/oauth-authorization-server`), then OpenID Connect
//! Discovery 1.0 §4 (`/.well-known/openid-configuration`), in the order the
//! MCP authorization specification gives clients ("Authorization Server
//! Metadata Discovery").

use serde::Deserialize;
use url::Url;

use super::OAuthError;
use super::fetch::get_json;

/// What the resource server needs of the authorization server's metadata.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    #[serde(default)]
    pub jwks_uri: Option<String>,
    #[serde(default)]
    pub introspection_endpoint: Option<String>,
}

/// The metadata URLs to try for `issuer`, in order: for an issuer with a
/// path (`https://as.example.com/tenant1`) the well-known segment goes
/// between host and path (RFC 8414 §3.1), and OpenID's is also tried
/// appended to the path (OpenID Connect Discovery §4.1).
fn candidates(issuer: &Url) -> Vec<String> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

/// The metadata of the authorization server `issuer`: the first candidate
/// URL that answers 200 with JSON whose `issuer` is `issuer` (RFC 8414 §3.3).
///
/// # Errors
/// [`OAuthError::Discovery`] when none does.
pub(crate) async fn discover(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<ServerMetadata, OAuthError> {
    let url = Url::parse(issuer).map_err(|e| OAuthError::Issuer(format!("{issuer}: {e}")))?;
    let mut tried = Vec::new();
    for candidate in candidates(&url) {
        match get_json::<ServerMetadata>(http, &candidate).await {
            Ok(metadata)
                if metadata.issuer.trim_end_matches('/') == issuer.trim_end_matches('/') =>
            {
                return Ok(metadata);
            }
            Ok(metadata) => tried.push(format!(
                "{candidate} names the issuer {} (RFC 8414 §3.3 wants {issuer})",
                metadata.issuer
            )),
            Err(reason) => tried.push(format!("{candidate}: {reason}")),
        }
    }
    Err(OAuthError::Discovery {
        issuer: issuer.to_owned(),
        tried: tried.join("; "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_insert_the_well_known_segment() {
        let plain = Url::parse("https://as.example.com").unwrap();
        assert_eq!(
            candidates(&plain),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration",
            ]
        );
        let tenant = Url::parse("https://as.example.com/tenant1").unwrap();
        assert_eq!(
            candidates(&tenant),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://as.example.com/.well-known/openid-configuration/tenant1",
                "https://as.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }
}
