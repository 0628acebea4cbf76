//! `GatewayConfig`: the TOML of `fusion gateway --config` and the builder
//! API read into the same value, and every unusable setting refused with a
//! message that names it.

use std::time::Duration;

use mcp_fusion::capability::{ToolSearch, ToolTransform, Transforms};
use mcp_fusion::client::Target;
use mcp_fusion::gateway::{
    ConfigError, Exposure, Gateway, GatewayConfig, HandoffLimits, UpstreamConfig,
    UpstreamCredentials,
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

// Secrets come from the environment; `CARGO_PKG_NAME` is set by cargo for
// every test run (to `mcp-fusion`), so no test changes the environment.
const SET_VARIABLE: &str = "CARGO_PKG_NAME";
const ITS_VALUE: &str = "mcp-fusion";
const UNSET_VARIABLE: &str = "MCP_FUSION_TEST_NEVER_SET_7f3a";

#[test]
fn an_http_upstream_takes_the_gateways_own_credentials_from_the_environment() {
    let toml = format!(
        r#"
[[upstream]]
namespace = "crm"
url = "http://127.0.0.1:9000/mcp"
bearer_env = "{SET_VARIABLE}"

[[upstream]]
namespace = "files"
url = "https://files.example.com/mcp"

[upstream.oauth]
client_id = "gateway"
client_secret_env = "{SET_VARIABLE}"
scopes = ["files:read", "files:write"]

[[upstream]]
namespace = "plain"
url = "http://127.0.0.1:9001/mcp"
"#
    );
    let read = GatewayConfig::from_toml(&toml).expect("a valid config");
    let built = GatewayConfig::new()
        .upstream(
            UpstreamConfig::new("crm", Target::http("http://127.0.0.1:9000/mcp"))
                .credentials(UpstreamCredentials::bearer(ITS_VALUE)),
        )
        .upstream(
            UpstreamConfig::new("files", Target::http("https://files.example.com/mcp"))
                .credentials(UpstreamCredentials::client_credentials(
                    "gateway",
                    ITS_VALUE,
                    ["files:read", "files:write"],
                )),
        )
        .upstream(UpstreamConfig::new(
            "plain",
            Target::http("http://127.0.0.1:9001/mcp"),
        ));
    assert_eq!(read, built);
    assert_ne!(
        read.upstreams[0].credentials,
        Some(UpstreamCredentials::bearer("another token"))
    );
    // Debug output never prints a secret.
    let debug = format!("{read:?}");
    assert!(!debug.contains(ITS_VALUE), "{debug}");
    assert_eq!(
        format!("{:?}", read.upstreams[0].credentials),
        "Some(Bearer([REDACTED]))"
    );
    assert_eq!(
        format!("{:?}", read.upstreams[1].credentials),
        r#"Some(ClientCredentials { client_id: "gateway", client_secret: "[REDACTED]", scopes: ["files:read", "files:write"] })"#
    );
    assert_eq!(
        read.upstreams[1]
            .credentials
            .as_ref()
            .map(UpstreamCredentials::describe),
        Some(String::from("OAuth client credentials of \"gateway\""))
    );
    assert_eq!(read.upstreams[2].credentials, None);
    assert!(Gateway::new(read).is_ok());
}

#[test]
fn unusable_credentials_are_refused_by_name() {
    let stdio = refused(&format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"fusion\"]\nbearer_env = \"{SET_VARIABLE}\"\n"
    ));
    let not_for_stdio = "bearer_env and [upstream.oauth] are for url upstreams (Streamable HTTP); a command upstream (stdio) takes its credentials from its own environment or arguments";
    assert!(
        stdio.contains(&format!("upstream \"finance\": {not_for_stdio}")),
        "{stdio}"
    );
    let stdio_oauth = refused(&format!(
        "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"fusion\"]\n[upstream.oauth]\nclient_id = \"g\"\nclient_secret_env = \"{SET_VARIABLE}\"\n"
    ));
    assert!(
        stdio_oauth.contains(&format!("upstream \"finance\": {not_for_stdio}")),
        "{stdio_oauth}"
    );
    // The same rule for a configuration built in code.
    let built = GatewayConfig::new().upstream(
        UpstreamConfig::new("finance", Target::stdio("fusion", ["serve"]))
            .credentials(UpstreamCredentials::bearer("t")),
    );
    assert_eq!(
        built
            .check()
            .expect_err("stdio with credentials")
            .to_string(),
        format!("upstream \"finance\": {not_for_stdio}")
    );
    let missing = refused(&format!(
        "[[upstream]]\nnamespace = \"crm\"\nurl = \"http://h/mcp\"\nbearer_env = \"{UNSET_VARIABLE}\"\n"
    ));
    assert!(
        missing.contains(&format!(
            "upstream \"crm\": bearer_env names the environment variable {UNSET_VARIABLE}, which is not set"
        )),
        "{missing}"
    );
    let missing_secret = refused(&format!(
        "[[upstream]]\nnamespace = \"crm\"\nurl = \"http://h/mcp\"\n[upstream.oauth]\nclient_id = \"g\"\nclient_secret_env = \"{UNSET_VARIABLE}\"\n"
    ));
    assert!(
        missing_secret.contains(&format!(
            "upstream \"crm\": client_secret_env names the environment variable {UNSET_VARIABLE}, which is not set"
        )),
        "{missing_secret}"
    );
    let both = refused(&format!(
        "[[upstream]]\nnamespace = \"crm\"\nurl = \"http://h/mcp\"\nbearer_env = \"{SET_VARIABLE}\"\n[upstream.oauth]\nclient_id = \"g\"\nclient_secret_env = \"{SET_VARIABLE}\"\n"
    ));
    assert!(
        both.contains("upstream \"crm\": give at most one of bearer_env and [upstream.oauth]"),
        "{both}"
    );
    // An inline secret is not a setting: secrets come from the environment.
    let inline =
        refused("[[upstream]]\nnamespace = \"crm\"\nurl = \"http://h/mcp\"\nbearer = \"t0ken\"\n");
    assert!(inline.contains("unknown field `bearer`"), "{inline}");
    let typo = refused(&format!(
        "[[upstream]]\nnamespace = \"crm\"\nurl = \"http://h/mcp\"\n[upstream.oauth]\nclient_id = \"g\"\nclient_secret = \"s\"\nclient_secret_env = \"{SET_VARIABLE}\"\n"
    ));
    assert!(typo.contains("unknown field `client_secret`"), "{typo}");
}

#[test]
fn the_search_table_turns_tool_search_on() {
    let upstream = "[[upstream]]\nnamespace = \"a\"\nurl = \"http://h/mcp\"\n";
    let read = GatewayConfig::from_toml(&format!(
        "{upstream}[search]\nalways_visible = [\"a.find\"]\ndefault_limit = 3\n"
    ))
    .expect("a valid config");
    let built = GatewayConfig::new()
        .upstream(UpstreamConfig::new("a", Target::http("http://h/mcp")))
        .tool_search(
            ToolSearch::new()
                .always_visible(["a.find"])
                .default_limit(3),
        );
    assert_eq!(read, built);
    assert_eq!(
        GatewayConfig::from_toml(&format!("{upstream}[search]\n"))
            .unwrap()
            .search,
        Some(ToolSearch::new())
    );
    assert_eq!(GatewayConfig::from_toml(upstream).unwrap().search, None);
    assert_eq!(
        refused(&format!("{upstream}[search]\ndefault_limit = 21\n")),
        "[search]: default_limit must be 1 to 20, not 21"
    );
    assert_eq!(
        refused(&format!("{upstream}[search]\ndefault_limit = 0\n")),
        "[search]: default_limit must be 1 to 20, not 0"
    );
    assert!(refused(&format!("{upstream}[search]\nlimit = 3\n")).contains("unknown field `limit`"));
}

#[test]
fn a_transform_table_reads_as_the_builders_transforms() {
    let read = GatewayConfig::from_toml(
        r#"
[[upstream]]
namespace = "finance"
command = ["fusion", "serve", "--stdio"]

[upstream.transform]
allow = ["billing", "billing_health"]

[upstream.transform.tools.billing]
name = "invoice"
description = "Shows an invoice."
hide = { currency = "EUR", limit = 5 }
"#,
    )
    .expect("a valid config");
    let built = GatewayConfig::new().upstream(
        UpstreamConfig::new("finance", Target::stdio("fusion", ["serve", "--stdio"])).transforms(
            Transforms::new().allow(["billing", "billing_health"]).tool(
                "billing",
                ToolTransform::new()
                    .rename("invoice")
                    .describe("Shows an invoice.")
                    .hide("currency", "EUR")
                    .hide("limit", 5),
            ),
        ),
    );
    assert_eq!(read, built);
}

#[test]
fn unusable_transforms_are_refused_by_name() {
    let upstream = "[[upstream]]\nnamespace = \"finance\"\ncommand = [\"fusion\"]\n";
    let cases = [
        (
            "[upstream.transform]\nallow = [\"a\"]\ndeny = [\"b\"]\n",
            "upstream \"finance\": [upstream.transform] gives at most one of allow and deny",
        ),
        (
            "[upstream.transform.tools.billing]\nname = \"in voice\"\n",
            "upstream \"finance\": transform of \"billing\": rename to \"in voice\" is not usable: write 1 to 128 ASCII letters, digits, _, - or .",
        ),
        (
            "[upstream.transform.tools.billing]\nrename = \"invoice\"\n",
            "unknown field `rename`, expected one of `name`, `description`, `hide`",
        ),
    ];
    for (table, expected) in cases {
        let message = refused(&format!("{upstream}\n{table}"));
        assert!(message.contains(expected), "{message}");
    }
}
