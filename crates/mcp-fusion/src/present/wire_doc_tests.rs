//! Every string `docs/wire-contract.md` §9.2 and §9.3 shows is the one the
//! code writes.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

use super::egress::{self, Cut, Items};
use super::{Freshness, state_sync};

const WIRE: &str = include_str!("../../../../docs/wire-contract.md");

fn shown(text: &str) {
    assert!(
        WIRE.contains(&format!("\n{text}\n")) || WIRE.contains(&format!("`{text}`")),
        "docs/wire-contract.md does not show:\n{text}"
    );
}

#[test]
fn the_egress_notices_are_the_documented_ones() {
    let cut = Cut {
        before: 3820,
        after: 248,
        items: Items {
            shown: 3,
            total: 50,
        },
    };
    shown(&egress::notice(&cut, 300, &["count".to_owned()]));
    let text = "line one\nline two\nline three\n";
    let result = egress::guard(
        CallToolResult::success(vec![ContentBlock::text(text)]),
        20,
        &[],
        Some(0),
    );
    let last = result
        .content
        .last()
        .unwrap()
        .as_text()
        .unwrap()
        .text
        .clone();
    shown(&last);
    assert_eq!(egress::DEFAULT_EGRESS_LIMIT, 262_144);
    assert!(WIRE.contains("**262 144 bytes (256 KiB)**"));
}

#[test]
fn the_state_sync_strings_are_the_documented_ones() {
    let readers = [
        "billing.list_invoices".to_owned(),
        "billing.get_invoice".to_owned(),
    ];
    shown(&state_sync::notice(
        "billing.pay_invoice",
        &["invoices.*".to_owned()],
        &readers,
    ));
    shown(&state_sync::notice(
        "archive",
        &["files.*".to_owned(), "quota".to_owned()],
        &[],
    ));
    shown(&Freshness::NoStore.sentence());
    shown(&Freshness::Seconds(30).sentence());
    // The `_meta` forms as the doc writes them.
    assert!(WIRE.contains(r#"`{"noStore": true}` or `{"maxAgeSeconds": n}`"#));
    assert_eq!(Freshness::NoStore.to_json(), json!({"noStore": true}));
    assert_eq!(
        Freshness::Seconds(30).to_json(),
        json!({"maxAgeSeconds": 30})
    );
    assert_eq!(
        Freshness::from_json(&json!({"maxAgeSeconds": 30})),
        Some(Freshness::Seconds(30))
    );
}
