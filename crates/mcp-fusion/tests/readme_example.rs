//! The handler example of README.md, compiled and checked: the code between the
//! markers below must be the README's `rust` block, byte for byte, and the
//! README's `xml` block must be what it renders.

// `ToolError` is larger than the threshold of clippy's `result_large_err`; the
// README shows handlers returning it by value, as the builder is meant to be used.
#![allow(clippy::result_large_err)]

// README example: begin
use mcp_fusion::{ToolError, envelope};

pub struct Invoice {
    pub amount_cents: u64,
}

/// A handler: every failure is a `ToolError` written for the model.
pub fn get_invoice(id: &str) -> Result<Invoice, ToolError> {
    if id.trim().is_empty() {
        return Err(ToolError::required("id"));
    }
    find_invoice(id).ok_or_else(|| {
        ToolError::not_found("No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions(["billing.list_invoices"])
            .detail("requestedId", id)
    })
}

/// `?` carries the `ToolError` through other code unchanged.
pub fn invoice_total(id: &str) -> Result<u64, ToolError> {
    Ok(get_invoice(id)?.amount_cents)
}

pub fn show_failure() -> String {
    let err = invoice_total("inv_2026_9999").unwrap_err();
    envelope::render(&err)
}
// README example: end

/// The database query of the README's example: one known invoice.
fn find_invoice(id: &str) -> Option<Invoice> {
    (id == "inv_2026_0001").then_some(Invoice { amount_cents: 1250 })
}

const README: &str = include_str!("../../../README.md");
const THIS_FILE: &str = include_str!("readme_example.rs");

/// The text of the first fenced block of `lang` in the README after `after`.
fn readme_block(lang: &str, after: &str) -> &'static str {
    let from = README.find(after).expect("README anchor") + after.len();
    let fence = format!("```{lang}\n");
    let start = README[from..].find(&fence).expect("README block") + from + fence.len();
    let len = README[start..].find("```").expect("closed block");
    &README[start..start + len]
}

#[test]
fn readme_code_is_this_code() {
    let begin = "// README example: begin\n";
    let start = THIS_FILE.find(begin).unwrap() + begin.len();
    let end = THIS_FILE.find("// README example: end").unwrap();
    assert_eq!(
        readme_block("rust", "## Example"),
        &THIS_FILE[start..end],
        "README.md's example and tests/readme_example.rs differ"
    );
}

#[test]
fn readme_output_is_what_the_code_renders() {
    let xml = show_failure();
    assert_eq!(readme_block("xml", "## Example"), format!("{xml}\n"));
    assert_eq!(
        xml,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  \
         <message>No invoice with that ID</message>\n  \
         <recovery>List invoices first, then retry with a real ID</recovery>\n  \
         <available_actions>\n    <action>billing.list_invoices</action>\n  </available_actions>\n  \
         <details>\n    <detail key=\"requestedId\">inv_2026_9999</detail>\n  </details>\n\
         </tool_error>"
    );
}

#[test]
fn the_handler_succeeds_and_fails_as_described() {
    assert_eq!(get_invoice("inv_2026_0001").unwrap().amount_cents, 1250);
    assert_eq!(invoice_total("inv_2026_0001"), Ok(1250));
    let missing = get_invoice(" ").err().unwrap();
    assert_eq!(missing.message, "Required field \"id\" is missing.");
}

#[test]
fn readme_run_section_shows_the_seed_example() {
    let output = readme_block("xml", "## Run");
    let expected = "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  \
                    <message>No invoice with that ID</message>\n  \
                    <recovery>List invoices first, then retry with a real ID</recovery>\n  \
                    <available_actions>\n    <action>billing.list_invoices</action>\n  \
                    </available_actions>\n  <details>\n    \
                    <detail key=\"requestedId\">inv_2026_9999</detail>\n  </details>\n  \
                    <retry_after>30 seconds</retry_after>\n</tool_error>\n";
    assert_eq!(output, expected);
    assert!(README.contains("bash .ci/run"));
}
