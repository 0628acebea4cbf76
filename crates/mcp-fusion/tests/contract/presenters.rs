//! The presenter's slots in the contract (wire contract §9.1,
//! `docs/contracts.md`): what a built server records, that `tools/list`
//! carries the same, how `diff` classifies each change, and that lockfiles
//! written before presenters still load with the same digests.

use mcp_fusion::contract::{ActionContract, Delta, Lockfile, ServerContract, diff};
use mcp_fusion::error::ChangeSeverity::{Breaking, Risky, Safe};
use mcp_fusion::present::{Presenter, Suggestion};
use mcp_fusion::{Action, FusionServer, ToolError};
use serde_json::json;

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    card_number: String,
    note: Option<String>,
}

async fn list(_: mcp_fusion::NoArgs) -> Result<Vec<Invoice>, ToolError> {
    Ok(Vec::new())
}

async fn pay(_: mcp_fusion::NoArgs) -> Result<&'static str, ToolError> {
    Ok("paid")
}

/// The contract of a server whose `list` action presents with `presenter`.
fn contract(presenter: &Presenter<Invoice>) -> ServerContract {
    let server = FusionServer::builder("s", "1.0.0")
        .tool(Action::new("list", list).returns_many(presenter))
        .tool(Action::new("pay", pay))
        .build()
        .unwrap();
    ServerContract::of_server(&server)
}

fn base() -> Presenter<Invoice> {
    Presenter::new("Invoice")
        .agent_limit(10)
        .rule_text("Amounts are in cents.")
        .suggest("pay", |_: &Invoice| None::<Suggestion>)
}

/// The deltas of the change from `old` to `new`, as (field, severity).
fn changes(old: &Presenter<Invoice>, new: &Presenter<Invoice>) -> Vec<Delta> {
    diff(&contract(old), &contract(new)).deltas
}

#[test]
fn a_built_server_records_its_presenter_as_tools_list_shows_it() {
    let recorded = contract(&base().secret("card_number"));
    let action = &recorded.tools["list"].actions["list"];
    assert_eq!(
        action.presenter,
        Some(json!({
            "agentLimit": 10, "embedded": [], "many": true, "name": "Invoice",
            "rules": {"count": 1, "names": ["Amounts are in cents."]},
            "secrets": ["card_number"], "select": false,
            "suggestions": {"actions": ["pay"], "count": 1}
        }))
    );
    let server = FusionServer::builder("s", "1.0.0")
        .tool(Action::new("list", list).returns_many(&base().secret("card_number")))
        .tool(Action::new("pay", pay))
        .build()
        .unwrap();
    assert_eq!(
        ServerContract::from_tools(&server.tools()).unwrap(),
        recorded
    );
}

#[test]
fn a_tighter_limit_is_breaking_a_looser_one_safe() {
    let tighter = changes(&base(), &base().agent_limit(5));
    assert_eq!(tighter.len(), 1);
    assert_eq!(
        (
            tighter[0].field.as_str(),
            tighter[0].severity,
            tighter[0].sentence()
        ),
        (
            "(presenter.agentLimit)",
            Breaking,
            String::from(
                "The presenter of action \"list\" cuts its lists shorter. Before: 10. Now: 5."
            )
        )
    );
    let looser = changes(&base(), &base().agent_limit(50));
    assert_eq!(
        (looser[0].field.as_str(), looser[0].severity),
        ("(presenter.agentLimit)", Safe)
    );
    let unlimited = Presenter::new("Invoice")
        .rule_text("Amounts are in cents.")
        .suggest("pay", |_: &Invoice| None::<Suggestion>);
    assert_eq!(changes(&unlimited, &base())[0].severity, Breaking);
    assert_eq!(changes(&base(), &unlimited)[0].severity, Safe);
}

#[test]
fn a_new_secret_is_breaking_a_lost_one_risky() {
    let redacted = changes(&base(), &base().secret("card_number"));
    assert_eq!(
        (
            redacted[0].field.as_str(),
            redacted[0].severity,
            redacted[0].description.as_str()
        ),
        (
            "(presenter.secrets)",
            Breaking,
            "The presenter of action \"list\" gained secrets: card_number."
        )
    );
    assert_eq!(
        changes(&base().secret("card_number"), &base())[0].severity,
        Risky
    );
}

#[test]
fn rules_and_suggestions_are_compared_by_name() {
    let more = changes(&base(), &base().rule("overdue", |_: &Invoice| None));
    assert_eq!(
        (more[0].field.as_str(), more[0].severity),
        ("(presenter.rules)", Safe)
    );
    let fewer = changes(&base().rule("overdue", |_: &Invoice| None), &base());
    assert_eq!(
        (fewer[0].field.as_str(), fewer[0].severity),
        ("(presenter.rules)", Risky)
    );
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Slim {
    id: String,
    card_number: String,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Wider {
    id: String,
    card_number: String,
    note: Option<String>,
    total: Option<u64>,
}

/// The contract of `list` presented by a presenter of `T`.
fn contract_of<T>(presenter: &Presenter<T>) -> ServerContract
where
    T: serde::Serialize
        + serde::de::DeserializeOwned
        + schemars::JsonSchema
        + Send
        + Sync
        + 'static,
{
    let server = FusionServer::builder("s", "1.0.0")
        .tool(Action::new("list", list).returns_many(presenter))
        .build()
        .unwrap();
    ServerContract::of_server(&server)
}

#[test]
fn a_removed_output_field_is_breaking_a_new_optional_one_safe() {
    let old = contract_of(&Presenter::<Invoice>::new("Invoice"));
    let removed = diff(&old, &contract_of(&Presenter::<Slim>::new("Invoice"))).deltas;
    assert!(
        removed
            .iter()
            .any(|d| d.field.contains("note") && d.severity == Breaking),
        "{removed:?}"
    );
    let added = diff(&old, &contract_of(&Presenter::<Wider>::new("Invoice"))).deltas;
    let total = added.iter().find(|d| d.field == "(output).items[].total");
    assert_eq!(total.map(|d| d.severity), Some(Safe), "{added:?}");
    assert!(added.iter().all(|d| d.severity <= Safe), "{added:?}");
}

#[test]
fn a_lockfile_without_presenter_slots_still_loads_with_the_same_digest() {
    let old = ActionContract::from_json("pay", &json!({"inputSchema": {"type": "object"}}), "pay")
        .unwrap();
    assert_eq!(old.presenter, None);
    assert_eq!(
        old.to_json(),
        json!({
            "annotations": {"destructiveHint": false, "idempotentHint": false, "readOnlyHint": false},
            "guards": {}, "inputSchema": {"type": "object"}, "requiredScopes": []
        })
    );
    let lockfile = Lockfile::new(contract(&base()), None);
    let again = Lockfile::parse(&lockfile.render()).unwrap();
    assert_eq!(again.contract, lockfile.contract);
}
