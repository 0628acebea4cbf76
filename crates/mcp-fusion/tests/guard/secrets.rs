//! Credentials never show in `Debug` output or in printed URLs.

use mcp_fusion::client::{ClientOptions, Target};
use mcp_fusion::guard::{RedisRateLimitStore, StaticTokens};
use mcp_fusion::transport::RedisSessionStore;

#[test]
fn debug_output_hides_tokens_and_passwords() {
    let tokens = StaticTokens::default().token("s3cret-token", "ada", ["billing:read"]);
    let shown = format!("{tokens:?}");
    assert!(!shown.contains("s3cret-token"), "{shown}");
    assert!(shown.contains("ada"), "{shown}");

    let options = ClientOptions::default().bearer("b3arer-token");
    let shown = format!("{options:?}");
    assert!(!shown.contains("b3arer-token"), "{shown}");
    assert!(shown.contains("[REDACTED]"), "{shown}");

    let store = RedisRateLimitStore::new("redis://:pa55word@127.0.0.1:6379/0").expect("a URL");
    let shown = format!("{store:?}");
    assert!(!shown.contains("pa55word"), "{shown}");
    assert!(shown.contains("redis://:***@127.0.0.1:6379/0"), "{shown}");

    let sessions = RedisSessionStore::new("redis://user:pa55word@127.0.0.1/1").expect("a URL");
    assert_eq!(sessions.url(), "redis://user:***@127.0.0.1/1");
}

#[test]
fn printed_targets_mask_only_the_password() {
    for (url, shown) in [
        (
            "http://ada:pw@host:8080/mcp",
            "http://ada:***@host:8080/mcp",
        ),
        ("http://host:8080/mcp?u=a@b", "http://host:8080/mcp?u=a@b"),
        ("http://ada@host/mcp", "http://ada@host/mcp"),
    ] {
        assert_eq!(Target::Http { url: url.into() }.to_string(), shown);
    }
}
