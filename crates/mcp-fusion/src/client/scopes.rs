//! Scope sets for step-up authorization (MCP 2026-07-28 "Step-Up
//! Authorization Flow", SEP-2350): the client asks again for everything it
//! holds plus what the server's `insufficient_scope` challenge names.

use rmcp::transport::auth::WWWAuthenticateParams;

/// The `scope` of a `WWW-Authenticate` challenge (RFC 6750 §3), split on
/// whitespace; empty when the challenge names none. `server_url` resolves a
/// relative `resource_metadata` (unused here, but the parser needs it).
pub(crate) fn challenged(www_authenticate: &str, server_url: &url::Url) -> Vec<String> {
    WWWAuthenticateParams::parse(www_authenticate, server_url)
        .scope
        .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// `held` then each scope of `challenged` not already in it, in order, each
/// once (RFC 6749 §3.3 scopes are case-sensitive).
pub(crate) fn union(held: &[String], challenged: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(held.len() + challenged.len());
    for scope in held.iter().chain(challenged) {
        if !out.contains(scope) {
            out.push(scope.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn union_keeps_held_scopes_first_and_adds_each_new_one_once() {
        assert_eq!(
            union(
                &strings(&["mcp:basic", "files:read"]),
                &strings(&["files:read", "mcp:write", "mcp:write"])
            ),
            strings(&["mcp:basic", "files:read", "mcp:write"])
        );
        assert_eq!(union(&[], &strings(&["a"])), strings(&["a"]));
        assert_eq!(union(&strings(&["a"]), &[]), strings(&["a"]));
        // Case-sensitive: `Files:Read` is another scope.
        assert_eq!(
            union(&strings(&["files:read"]), &strings(&["Files:Read"])),
            strings(&["files:read", "Files:Read"])
        );
    }

    #[test]
    fn the_challenge_scope_is_read_from_www_authenticate() {
        let base = url::Url::parse("http://127.0.0.1:9/mcp").unwrap();
        assert_eq!(
            challenged(
                r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", error_description="Write needed""#,
                &base
            ),
            strings(&["mcp:basic", "mcp:write"])
        );
        assert_eq!(
            challenged(r#"Bearer error="invalid_token""#, &base),
            Vec::<String>::new()
        );
    }
}
