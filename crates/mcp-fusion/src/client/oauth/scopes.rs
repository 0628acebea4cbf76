//! Scope sets for step-up authorization (MCP 2026-07-28 "Step-Up
//! Authorization Flow", SEP-2350): the client asks again for everything it
//! holds plus what the server's `insufficient_scope` challenge names; the
//! client credentials grant never asks for `offline_access`.

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

/// The scope that asks for a refresh token (OpenID Connect Core §11; MCP
/// 2026-07-28 "Refresh Tokens", SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// `scopes` without `offline_access`: what the client credentials grant
/// asks for, as it gets no refresh token (RFC 6749 §4.4.3).
pub(crate) fn without_offline_access(mut scopes: Vec<String>) -> Vec<String> {
    scopes.retain(|scope| scope != OFFLINE_ACCESS);
    scopes
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
    fn offline_access_is_left_out_and_the_rest_kept_in_order() {
        assert_eq!(
            without_offline_access(strings(&[
                "billing:read",
                "offline_access",
                "billing:write"
            ])),
            strings(&["billing:read", "billing:write"])
        );
        assert_eq!(
            without_offline_access(strings(&["offline_access"])),
            Vec::<String>::new()
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
