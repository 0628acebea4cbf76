//! `actionability-rmcp`: the tools of `fusion serve --example actionability`
//! on rmcp, the official Rust SDK, for the actionability measurement
//! (`actionability/run.sh`), two ways:
//!
//! - `actionability-rmcp`: the `rmcp` stack, a plain rmcp server
//!   (`plain.rs`): `#[tool_router]` / `#[tool]`, rmcp's `Parameters<T>` with
//!   `schemars::JsonSchema` derives, and rmcp's errors: serde's text for
//!   arguments that do not deserialize, `invalid_params` for the checks it
//!   writes by hand, `CallToolResult::error` with a plain sentence for a
//!   failed call;
//! - `actionability-rmcp --adapter`: the `ours-rmcp` stack, the same router
//!   with mcp-fusion's rmcp adapter (`fused.rs`): the failures become
//!   mcp-fusion's `<validation_error>` and `<tool_error>` envelopes, the
//!   guards are mcp-fusion's (`RouterContract::guards`), and `--lock` gives
//!   validation failures the changes since a lockfile.
//!
//! The same tools as the TypeScript SDK and FastMCP twins
//! (`actionability/servers/ts`, `actionability/servers/fastmcp`): `billing`
//! (one tool, `action` chooses list_invoices, get_invoice, create_invoice,
//! pay_invoice, void_invoice, get_invoice_legacy (deprecated) or
//! generate_report; the other fields are optional in the schema and the tool
//! checks the ones each action needs), `billing_health` (no arguments) and
//! `reminders` (`action: "schedule"` with invoice_id, at, channel,
//! callback_url?, note?). The invoices live in memory: twelve seeded ones,
//! fresh for every process. With `--cart`, the server has only the cart
//! example's tool instead (`cart.rs`, without its state machine): the twin
//! the state-gate scenarios of the real-model run read.
//!
//! Usage (stdio, newline-delimited JSON-RPC; exits when stdin closes), the
//! options spelt as the TypeScript twin spells them:
//!
//! ```text
//! actionability-rmcp [--adapter [--lock FILE]] [--report-ms N] [--max-active N]
//!                    [--rate-limit N/PERIOD] [--timeout-ms N]
//! actionability-rmcp --cart
//! ```

mod args;
mod cart;
mod checks;
mod fused;
mod limits;
mod plain;
mod store;

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mcp_fusion::contract::Lockfile;
use mcp_fusion::guard::Guards;
use rmcp::ServiceExt;

use crate::limits::{Limits, RateLimit};
use crate::store::App;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "actionability-rmcp",
    about = "The actionability tools on plain rmcp over stdio (--adapter: with mcp-fusion's rmcp adapter)."
)]
struct Cli {
    /// Serve the router through mcp-fusion's rmcp adapter: failures as
    /// mcp-fusion envelopes (the `ours-rmcp` stack).
    #[arg(long)]
    adapter: bool,
    /// How long generate_report takes, in ms.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    report_ms: u64,
    /// Billing calls running at once; more are refused.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_active: Option<u64>,
    /// Billing calls per period (s, min or h), e.g. 2/s; more are refused.
    #[arg(long, value_name = "N/PERIOD")]
    rate_limit: Option<RateLimit>,
    /// The time limit of a billing call, in ms.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// With --adapter: the contract lockfile whose changes validation
    /// failures carry.
    #[arg(long, value_name = "FILE", requires = "adapter")]
    lock: Option<std::path::PathBuf>,
    /// Serve only the cart tool (the cart example's twin, plain rmcp).
    #[arg(long, conflicts_with = "adapter")]
    cart: bool,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let report = Duration::from_millis(cli.report_ms);
    let transport = rmcp::transport::stdio();
    if cli.cart {
        cart::Server::new()
            .serve(transport)
            .await?
            .waiting()
            .await?;
    } else if cli.adapter {
        let lock = cli.lock.as_deref().map(Lockfile::read).transpose()?;
        let app = Arc::new(App::new(Limits::default(), report));
        fused::Server::new(app, cli.guards(), lock.as_ref())?
            .serve(transport)
            .await?
            .waiting()
            .await?;
    } else {
        let app = Arc::new(App::new(cli.limits(), report));
        plain::Server::new(app)
            .serve(transport)
            .await?
            .waiting()
            .await?;
    }
    Ok(())
}

impl Cli {
    /// The hand-written guards of the plain server.
    fn limits(&self) -> Limits {
        Limits::new(
            self.rate_limit,
            self.max_active
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            self.timeout_ms.map(Duration::from_millis),
        )
    }

    /// The same settings as mcp-fusion's guards of `billing` (adapter).
    fn guards(&self) -> Guards {
        let mut guards = Guards::new();
        if let Some(rate) = self.rate_limit {
            let calls = u32::try_from(rate.calls).unwrap_or(u32::MAX);
            guards = guards.rate_limit(mcp_fusion::guard::RateLimit::new(calls, rate.period));
        }
        if let Some(max) = self.max_active {
            guards = guards.concurrency(usize::try_from(max).unwrap_or(usize::MAX), 0);
        }
        if let Some(ms) = self.timeout_ms {
            guards = guards.timeout(Duration::from_millis(ms));
        }
        guards
    }
}

#[cfg(test)]
mod tests {
    use rmcp::ServerHandler;
    use rmcp::model::Tool;
    use serde_json::Value;

    use super::*;

    /// A tool's property names and required fields.
    fn fields(tool: &Tool) -> (Vec<String>, Value) {
        let schema = &tool.input_schema;
        let names = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let required = schema.get("required").cloned().unwrap_or(Value::Null);
        (names, required)
    }

    #[test]
    fn both_servers_list_the_same_tools() {
        let app = Arc::new(App::new(Limits::default(), Duration::ZERO));
        let plain = plain::Server::new(Arc::clone(&app));
        let fused = fused::Server::new(app, Guards::new(), None).unwrap();
        for name in ["billing", "billing_health", "reminders"] {
            let (a, b) = (plain.get_tool(name).unwrap(), fused.get_tool(name).unwrap());
            assert_eq!(a.description, b.description, "{name}");
            assert_eq!(a.annotations, b.annotations, "{name}");
            assert_eq!(fields(&a), fields(&b), "{name}");
        }
        let billing = plain.get_tool("billing").unwrap();
        assert!(
            billing
                .description
                .as_deref()
                .unwrap()
                .starts_with("Invoices: list")
        );
        // `deny_unknown_fields`: rmcp's schema refuses unknown keys too.
        assert_eq!(billing.input_schema["additionalProperties"], false);
        let (names, required) = fields(&billing);
        assert_eq!(names.len(), 12);
        assert_eq!(required, serde_json::json!(["action"]));
    }
}
