//! `actionability-rmcp`: the tools of `fusion serve --example actionability`
//! on rmcp, the official Rust SDK, for the actionability measurement
//! (`actionability/run.sh`): the `rmcp` stack, a plain rmcp server
//! (`plain.rs`): `#[tool_router]` / `#[tool]`, rmcp's `Parameters<T>` with
//! `schemars::JsonSchema` derives, and rmcp's errors: serde's text for
//! arguments that do not deserialize, `invalid_params` for the checks it
//! writes by hand, `CallToolResult::error` with a plain sentence for a
//! failed call.
//!
//! The same tools as the TypeScript SDK and FastMCP twins
//! (`actionability/servers/ts`, `actionability/servers/fastmcp`): `billing`
//! (one tool, `action` chooses list_invoices, get_invoice, create_invoice,
//! pay_invoice, void_invoice, get_invoice_legacy (deprecated) or
//! generate_report; the other fields are optional in the schema and the tool
//! checks the ones each action needs), `billing_health` (no arguments) and
//! `reminders` (`action: "schedule"` with invoice_id, at, channel,
//! callback_url?, note?). The invoices live in memory: twelve seeded ones,
//! fresh for every process.
//!
//! Usage (stdio, newline-delimited JSON-RPC; exits when stdin closes), the
//! options spelt as the TypeScript twin spells them:
//!
//! ```text
//! actionability-rmcp [--report-ms N] [--max-active N] [--rate-limit N/PERIOD]
//!                    [--timeout-ms N]
//! ```

mod args;
mod checks;
mod limits;
mod plain;
mod store;

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rmcp::ServiceExt;

use crate::limits::{Limits, RateLimit};
use crate::store::App;

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "actionability-rmcp",
    about = "The actionability tools on plain rmcp over stdio."
)]
struct Cli {
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
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let limits = Limits::new(
        cli.rate_limit,
        cli.max_active
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        cli.timeout_ms.map(Duration::from_millis),
    );
    let app = Arc::new(App::new(limits, Duration::from_millis(cli.report_ms)));
    let transport = rmcp::transport::stdio();
    plain::Server::new(app)
        .serve(transport)
        .await?
        .waiting()
        .await?;
    Ok(())
}
