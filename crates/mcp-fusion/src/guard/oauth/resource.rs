//! Canonical resource URIs (RFC 8707 §2, RFC 9728 §1.2): the form a token's
//! audience is compared in.

use url::Url;

/// The canonical form of the absolute URI `uri`: lowercase scheme and host
/// (the `url` crate's parse), no fragment, no trailing `/` when the path is
/// the root alone (`https://mcp.example.com/` is `https://mcp.example.com`).
///
/// # Errors
/// Why `uri` is not a usable resource identifier: not an absolute http(s)
/// URI, or one with a fragment.
pub(crate) fn canonical(uri: &str) -> Result<String, String> {
    let url = Url::parse(uri.trim()).map_err(|e| format!("{uri} is not an absolute URI ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("{uri} is not an http or https URI"));
    }
    if url.fragment().is_some() {
        return Err(format!(
            "{uri} has a fragment, which a resource URI may not have (RFC 8707 §2)"
        ));
    }
    let text = url.to_string();
    Ok(match (url.path(), url.query()) {
        ("/", None) => text.trim_end_matches('/').to_owned(),
        _ => text,
    })
}

/// Whether `audience` (one `aud` value) names the resource whose canonical
/// URI is `resource`; an upper-case scheme or host is the same resource.
pub(crate) fn names(audience: &str, resource: &str) -> bool {
    canonical(audience).is_ok_and(|a| a == resource)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(
            canonical("HTTPS://MCP.Example.com/mcp").unwrap(),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical("https://mcp.example.com/").unwrap(),
            "https://mcp.example.com"
        );
        assert_eq!(
            canonical("http://127.0.0.1:8080/mcp/").unwrap(),
            "http://127.0.0.1:8080/mcp/"
        );
        assert!(canonical("https://mcp.example.com/mcp#x").is_err());
        assert!(canonical("/mcp").is_err());
        assert!(names(
            "https://MCP.example.com/mcp",
            "https://mcp.example.com/mcp"
        ));
        assert!(!names(
            "https://mcp.example.com/other",
            "https://mcp.example.com/mcp"
        ));
    }
}
