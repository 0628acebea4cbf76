//! State sync (`docs/wire-contract.md` §9.3): the domains an action reads
//! (`Action::reads`) and the patterns of those it changes
//! (`Action::invalidates`); after a mutation succeeds, its result's first
//! block names the reads it made stale.
//!
//! A **domain** is a dotted name (`invoices`, `invoices.lines`): segments
//! of ASCII letters, digits, `_` and `-`. A **pattern** is a domain, or a
//! domain followed by `.*`, which matches the domain itself and every
//! domain under it (`invoices.*` matches `invoices` and `invoices.lines`);
//! a pattern without `*` matches that domain only. `*` is allowed only as
//! the last segment (checked when the server is built).

use rmcp::model::{CallToolResult, ContentBlock};

/// Why `name` is not a domain (or, with `pattern`, not a pattern): `None`
/// when it is one.
pub(crate) fn problem(name: &str, pattern: bool) -> Option<String> {
    let segments: Vec<&str> = name.split('.').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        if *segment == "*" && pattern && i == last && i > 0 {
            continue;
        }
        if segment.contains('*') {
            return Some(format!(
                "\"{name}\": `*` is allowed only as the last segment of a pattern, after a domain (\"invoices.*\")"
            ));
        }
        let valid = !segment.is_empty()
            && segment
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Some(format!(
                "\"{name}\" is not a dotted name: each segment is one or more ASCII letters, digits, `_` or `-`"
            ));
        }
    }
    None
}

/// Whether `pattern` matches the domain `domain` (module docs).
pub(crate) fn matches(pattern: &str, domain: &str) -> bool {
    match pattern.strip_suffix(".*") {
        Some(base) => {
            domain == base
                || domain
                    .strip_prefix(base)
                    .is_some_and(|rest| rest.starts_with('.'))
        }
        None => domain == pattern,
    }
}

/// The element of the stale-reads notice.
pub(crate) const NOTICE_TAG: &str = "stale_reads";

/// The stale-reads notice (§9.3) of a call of `cause` (a dotted action
/// name) that changed the domains of `patterns`, which the read actions
/// `readers` (dotted names) read.
pub(crate) fn notice(cause: &str, patterns: &[String], readers: &[String]) -> String {
    let domains = patterns.join(" ");
    let cause_attr = quick_xml::escape::escape(cause);
    let mut text = format!("<{NOTICE_TAG} cause=\"{cause_attr}\" domains=\"{domains}\">");
    text.push_str(&format!(
        "This call changed {}: results read before it are stale.",
        patterns.join(", ")
    ));
    if !readers.is_empty() {
        text.push_str(&format!(
            " Repeat your earlier calls of {} (with the same arguments) before relying on what they returned.",
            readers.join(", ")
        ));
    } else {
        text.push_str(" Read again before relying on them.");
    }
    text.push_str(&format!("</{NOTICE_TAG}>"));
    text
}

/// `result` with `notice` as its first block.
pub(crate) fn prepend(mut result: CallToolResult, notice: &str) -> CallToolResult {
    result.content.insert(0, ContentBlock::text(notice));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_matches_the_domain_and_those_under_it() {
        assert!(matches("invoices.*", "invoices"));
        assert!(matches("invoices.*", "invoices.lines"));
        assert!(!matches("invoices.*", "invoicesx"));
        assert!(!matches("invoices.*", "customers"));
        assert!(matches("invoices", "invoices"));
        assert!(!matches("invoices", "invoices.lines"));
    }

    #[test]
    fn a_star_is_allowed_only_last_in_a_pattern() {
        assert_eq!(problem("invoices.*", true), None);
        assert_eq!(problem("a.b-c_d", false), None);
        assert!(problem("invoices.*", false).is_some());
        assert!(problem("*", true).is_some());
        assert!(problem("a.*.b", true).is_some());
        assert!(problem("a..b", true).is_some());
        assert!(problem("a b", false).is_some());
    }

    #[test]
    fn the_notice_names_the_cause_the_domains_and_the_readers() {
        let readers = [
            "billing.get_invoice".to_owned(),
            "billing.list_invoices".to_owned(),
        ];
        assert_eq!(
            notice("billing.pay_invoice", &["invoices.*".to_owned()], &readers),
            "<stale_reads cause=\"billing.pay_invoice\" domains=\"invoices.*\">This call changed invoices.*: results read before it are stale. Repeat your earlier calls of billing.get_invoice, billing.list_invoices (with the same arguments) before relying on what they returned.</stale_reads>"
        );
        assert_eq!(
            notice("archive", &["files.*".to_owned(), "quota".to_owned()], &[]),
            "<stale_reads cause=\"archive\" domains=\"files.* quota\">This call changed files.*, quota: results read before it are stale. Read again before relying on them.</stale_reads>"
        );
    }
}
