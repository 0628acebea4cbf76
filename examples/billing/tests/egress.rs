//! The billing example's results through the egress guard, in process: a
//! list over the server's limit is cut by whole invoices, `structuredContent`
//! alike, and the model reads the exact egress notice naming the arguments
//! that narrow it (`docs/wire-contract.md` §9.2), after the presenter's
//! guidance, which is kept whole.

use billing_example::{Db, builder};
use serde_json::{Value, json};

fn fresh_db(name: &str) -> Db {
    let dir = std::env::temp_dir().join(format!("billing-egress-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("billing.db");
    let _ = std::fs::remove_file(&path);
    Db::open(&path).unwrap()
}

fn texts(result: &mcp_fusion::model::CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|block| block.as_text().expect("a text block").text.clone())
        .collect()
}

#[tokio::test]
async fn a_list_over_the_limit_is_cut_by_whole_invoices_with_the_notice() {
    let db = fresh_db("cut");
    let server = builder(&db).egress_limit(2048).build().unwrap();
    let args = json!({"action": "list_invoices", "limit": 100});
    let whole = builder(&db)
        .build()
        .unwrap()
        .call("billing", args.clone())
        .await
        .unwrap();
    let guidance = texts(&whole)[1].clone();
    let whole: Value = whole.structured_content.unwrap();
    // The presenter shows 10 of the 12 (its agent limit), the cursor after
    // the last one shown.
    let shown = whole["invoices"].as_array().unwrap();
    assert_eq!(shown.len(), 10);
    assert_eq!(whole["next_cursor"], "after_10");

    let result = server.call("billing", args).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    // Cut by whole invoices, structuredContent alike; the presenter's
    // guidance is kept whole, the notice last.
    let kept = json!({"invoices": shown[..3], "next_cursor": "after_10"});
    assert_eq!(result.structured_content, Some(kept.clone()));
    assert_eq!(
        texts(&result),
        [
            kept.to_string(),
            guidance,
            String::from(
                "<egress_notice>This result was cut to fit the limit of 2048 bytes: 3692 of its 5618 bytes were left out. 3 of 10 items are shown. For a smaller result, call it again with: status, limit.</egress_notice>"
            ),
        ]
    );
}
