//! The egress guard's cuts: exact notices, and properties over generated
//! results and limits.

use proptest::prelude::*;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use super::*;

fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.text.clone(),
            other => serde_json::to_string(other).unwrap(),
        })
        .collect()
}

fn rows(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"id": format!("inv_{i:04}"), "amount_cents": 1000 + i}))
            .collect(),
    )
}

#[test]
fn a_result_within_the_limit_passes_as_it_is() {
    let result = CallToolResult::success(vec![ContentBlock::text("hello")]);
    assert_eq!(guard(result.clone(), 5, &[], None), result);
}

#[test]
fn a_list_is_cut_by_whole_items_with_the_exact_notice() {
    let value = rows(10);
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    // Three rows are 115 bytes of JSON, twice (text and structuredContent) 230: they fit in 250, four do not.
    let cut = guard(result, 250, &["status".into(), "limit".into()], Some(0));
    let expected = rows(3);
    assert_eq!(cut.structured_content, Some(expected.clone()));
    assert_eq!(
        texts(&cut),
        vec![
            expected.to_string(),
            String::from(
                "<egress_notice>This result was cut to fit the limit of 250 bytes: 532 of its 762 bytes were left out. 3 of 10 items are shown. For a smaller result, call it again with: status, limit.</egress_notice>"
            ),
        ]
    );
    assert_eq!(cut.is_error, Some(false));
}

#[test]
fn without_narrowing_arguments_the_notice_names_none() {
    let text = "line one\nline two\nline three\n";
    let cut = guard(
        CallToolResult::success(vec![ContentBlock::text(text)]),
        20,
        &[],
        Some(0),
    );
    assert_eq!(
        texts(&cut),
        vec![
            String::from("line one\nline two\n"),
            String::from(
                "<egress_notice>This result was cut to fit the limit of 20 bytes: 11 of its 29 bytes were left out. Ask for less in the next call: this action declares no argument that narrows its result.</egress_notice>"
            ),
        ]
    );
}

#[test]
fn tagged_blocks_are_kept_whole_and_text_is_cut_between_characters() {
    let warning = "<tool_error severity=\"warning\"><code>DEPRECATED</code></tool_error>";
    let notice = "<stale_reads cause=\"a\" domains=\"b\">x</stale_reads>";
    let result = CallToolResult::success(vec![
        ContentBlock::text(notice),
        ContentBlock::text("ééééééééé"),
        ContentBlock::text(warning),
    ]);
    let limit = notice.len() + warning.len() + 5;
    let cut = guard(result, limit, &[], None);
    let texts = texts(&cut);
    assert_eq!(&texts[..3], [notice, "éé", warning]);
}

#[test]
fn a_data_block_that_looks_like_markup_is_cut_like_text() {
    let html = format!("<html>\n{}</html>", "<p>row</p>\n".repeat(20));
    let result = CallToolResult::success(vec![ContentBlock::text(html.clone())]);
    let cut = guard(result.clone(), 40, &[], Some(0));
    assert_eq!(
        texts(&cut)[0],
        "<html>\n<p>row</p>\n<p>row</p>\n<p>row</p>\n"
    );
    // Of a result the handler built itself, the tagged block is kept whole.
    assert_eq!(texts(&guard(result, 40, &[], None))[0], html);
}

#[test]
fn an_error_result_over_the_limit_passes_whole() {
    let envelope = format!(
        "<tool_error code=\"NOT_FOUND\"><message>{}</message></tool_error>",
        "x".repeat(500)
    );
    let result = CallToolResult::error(vec![ContentBlock::text(envelope)]);
    assert_eq!(guard(result.clone(), 64, &[], None), result);
}

#[test]
fn an_object_is_cut_through_its_largest_list() {
    let value = json!({"total": 10, "invoices": rows(10)});
    let (cut, items) = cut_value(value.clone(), 120).unwrap();
    assert_eq!(cut, json!({"total": 10, "invoices": rows(2)}));
    assert_eq!(
        items,
        Items {
            shown: 2,
            total: 10
        }
    );
}

#[test]
fn a_structured_value_that_cannot_fit_stays_at_its_smallest_form() {
    let value = json!({"note": "n".repeat(400), "invoices": rows(3)});
    let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    result.structured_content = Some(value);
    let cut = guard(result, 100, &[], Some(0));
    assert_eq!(
        cut.structured_content,
        Some(json!({"note": "n".repeat(400), "invoices": []}))
    );
    // The data block is dropped; only the notice is left in the content.
    assert_eq!(cut.content.len(), 1);
    assert!(texts(&cut)[0].starts_with("<egress_notice>"));
}

/// A generated block: a tagged block, a JSON list or object, plain text
/// (multi-byte characters included), or an image.
fn block() -> impl Strategy<Value = ContentBlock> {
    let text = "[a-zé€😀\n \"<>]{0,60}";
    prop_oneof![
        text.prop_map(|t| ContentBlock::text(format!(
            "<tool_error severity=\"warning\"><message>{}</message></tool_error>",
            quick_xml::escape::escape(&t)
        ))),
        proptest::collection::vec(text, 0..20)
            .prop_map(|items| ContentBlock::text(json!(items).to_string())),
        proptest::collection::vec(text, 0..10)
            .prop_map(|items| ContentBlock::text(json!({"n": 1, "rows": items}).to_string())),
        text.prop_map(ContentBlock::text),
        "[A-Za-z0-9]{0,80}".prop_map(|data| ContentBlock::image(data, "image/png")),
    ]
}

fn result() -> impl Strategy<Value = CallToolResult> {
    (
        proptest::collection::vec(block(), 0..6),
        proptest::option::of(proptest::collection::vec("[a-z€]{0,20}", 0..30)),
    )
        .prop_map(|(mut content, structured)| {
            let structured = structured.map(|items| json!({"items": items}));
            if let Some(value) = &structured {
                content.insert(0, ContentBlock::text(value.to_string()));
            }
            let mut result = CallToolResult::success(content);
            result.structured_content = structured;
            result
        })
}

/// Whether `text` is one of the kinds the generator makes, still valid:
/// a whole envelope, JSON that parses, or plain text.
fn valid_block(before: &[String], text: &str) -> bool {
    if text.starts_with("<tool_error") {
        return before.iter().any(|b| b == text);
    }
    if text.starts_with('[') || text.starts_with('{') {
        return serde_json::from_str::<Value>(text).is_ok() || before.iter().any(|b| b == text);
    }
    true
}

proptest! {
    #[test]
    fn every_cut_keeps_each_part_valid(result in result(), limit in 0usize..1500) {
        let before = texts(&result);
        let envelopes = before.iter().filter(|t| t.starts_with("<tool_error")).count();
        let (cut, done) = cut(result.clone(), limit, None);
        prop_assert_eq!(cut.is_error, result.is_error);
        let after = texts(&cut);
        for text in &after {
            prop_assert!(valid_block(&before, text), "broken block {text:?}");
        }
        // Every envelope is kept, whole.
        prop_assert_eq!(after.iter().filter(|t| t.starts_with("<tool_error")).count(), envelopes);
        // JSON blocks that were JSON are still JSON; the data block still
        // holds the same value as structuredContent.
        if let (Some(structured), Some(first)) = (&cut.structured_content, after.first())
            && first.starts_with('{')
        {
            prop_assert_eq!(&serde_json::from_str::<Value>(first).unwrap(), structured);
        }
        let size = result_size(&cut);
        match done {
            None => prop_assert!(size <= limit || result_size(&result) <= limit),
            Some(done) => {
                prop_assert_eq!(done.after, size);
                let whole: usize = after
                    .iter()
                    .filter(|t| is_tagged(t))
                    .map(String::len)
                    .sum();
                let smallest = cut.structured_content.as_ref().map_or(0, json_size);
                prop_assert!(size <= limit.max(whole + smallest), "{size} > {limit}");
                let notice = notice(&done, limit, &[]);
                let guarded = guard(result.clone(), limit, &[], None);
                prop_assert_eq!(result_size(&guarded), size + notice.len());
            }
        }
    }
}
