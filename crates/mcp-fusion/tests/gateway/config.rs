//! `GatewayConfig`: the TOML of `fusion gateway --config` and the builder
//! API read into the same value, and every unusable setting refused with a
//! message that names it.

use std::time::Duration;

use mcp_fusion::client::Target;
use mcp_fusion::gateway::{
    ConfigError, Exposure, Gateway, GatewayConfig, HandoffLimits, UpstreamConfig,
};

const TOML: &str = r#"
[[upstream]]
namespace = "finance"
command = ["fusion", "serve", "--stdio", "--db", "billing.db"]

[[upstream]]
namespace = "everything"
command = ["npx", "-y", "@modelcontextprotocol/server-everything", "stdio"]
exposure = "handoff"
description = "The MCP reference server's demo tools."
connect_timeout = "20s"

[[upstream]]
namespace = "crm"
url = "http://127.0.0.1:9000/mcp"
call_timeout = "30s"
reconnect_initial = "1s"
reconnect_max = "1m"

[handoffs]
max_callers = 50
ttl = "10m"
"#;

#[test]
fn toml_and_builder_give_the_same_config() {
    let read = GatewayConfig::from_toml(TOML).expect("a valid config");
    let built = GatewayConfig::new()
        .upstream(UpstreamConfig::new(
            "finance",
            Target::stdio("fusion", ["serve", "--stdio", "--db", "billing.db"]),
        ))
        .upstream(
            UpstreamConfig::new(
                "everything",
                Target::stdio(
                    "npx",
                    ["-y", "@modelcontextprotocol/server-everything", "stdio"],
                ),
            )
            .exposure(Exposure::Handoff)
            .description("The MCP reference server's demo tools.")
            .connect_timeout(Duration::from_secs(20)),
        )
        .upstream(
            UpstreamConfig::new("crm", Target::http("http://127.0.0.1:9000/mcp"))
                .call_timeout(Duration::from_secs(30))
                .reconnect(Duration::from_secs(1), Duration::from_secs(60)),
        )
        .handoffs(HandoffLimits {
            max_callers: 50,
            ttl: Duration::from_secs(600),
        });
    assert_eq!(read, built);
    assert_eq!(read.upstreams[0].connect_timeout, Duration::from_secs(10));
    assert_eq!(read.upstreams[0].call_timeout, Duration::from_secs(60));
    assert_eq!(
        read.upstreams[0].reconnect_initial,
        Duration::from_millis(500)
    );
    assert_eq!(read.upstreams[0].reconnect_max, Duration::from_secs(30));
    assert_eq!(read.upstreams[0].exposure, Exposure::Always);
    assert!(Gateway::new(read).is_ok());
}

fn refused(toml: &str) -> String {
    GatewayConfig::from_toml(toml)
        .expect_err("an unusable config")
        .to_string()
}

#[test]
fn unusable_settings_are_refused_by_name() {
    assert_eq!(
        refused(""),
        "the gateway mounts nothing: add at least one [[upstream]] with a namespace"
    );
    assert_eq!(
        refused("[[upstream]]\nnamespace = \"fin.ance\"\nurl = \"http://h/mcp\"\n"),
        "namespace \"fin.ance\" is not usable: write 1 to 64 ASCII letters, digits, _ or - (no dots)"
    );
    assert_eq!(
        refused(
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\n[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\n"
        ),
        "namespace \"a\" is mounted twice"
    );
    assert_eq!(
        refused("[[upstream]]\nnamespace = \"a\"\nurl = \"ftp://h/mcp\"\n"),
        "upstream \"a\": url must start with http:// or https://"
    );
    assert_eq!(
        refused("[[upstream]]\nnamespace = \"a\"\ncommand = []\n"),
        "upstream \"a\": command must name a program"
    );
    assert_eq!(
        refused(
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\nreconnect_initial = \"2s\"\nreconnect_max = \"1s\"\n"
        ),
        "upstream \"a\": reconnect_max must be at least reconnect_initial"
    );
    // Longer than a day would overflow the clock, and waits no call.
    assert_eq!(
        refused(
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\nconnect_timeout = \"18446744073709551615s\"\n"
        ),
        "upstream \"a\": connect_timeout must be at most 1 day (24h)"
    );
    assert_eq!(
        refused(
            "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\n[handoffs]\nttl = \"2days\"\n"
        ),
        "[handoffs]: ttl must be longer than zero and at most 1 day (24h)"
    );
    let both =
        refused("[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\ncommand = [\"x\"]\n");
    assert!(
        both.contains(
            "upstream \"a\": give exactly one of command (a stdio server) and url (Streamable HTTP)"
        ),
        "{both}"
    );
    let typo =
        refused("[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\ntimeout = \"1s\"\n");
    assert!(typo.contains("unknown field `timeout`"), "{typo}");
    let duration = refused(
        "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\ncall_timeout = \"soon\"\n",
    );
    assert!(
        duration.contains("(write e.g. 500ms, 2s, 1m)"),
        "{duration}"
    );
    assert!(matches!(
        GatewayConfig::read(std::path::Path::new("/nonexistent/gateway.toml")),
        Err(ConfigError::Read { .. })
    ));
}
