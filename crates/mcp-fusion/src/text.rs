//! Small text helpers: cutting text to a number of characters (Unicode
//! scalar values, never bytes), so that a cut never falls inside a
//! character, and the English article before a word.

use std::borrow::Cow;

/// "an" before a word that starts with a vowel letter (`an array`, `an
/// elicitation/create request`), else "a".
pub(crate) fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// The first `n` characters of `s`, or `None` when `s` has at most `n`.
pub(crate) fn first_chars(s: &str, n: usize) -> Option<&str> {
    // A character takes at least one byte.
    if s.len() <= n {
        return None;
    }
    s.char_indices().nth(n).map(|(at, _)| &s[..at])
}

/// `s` cut to at most `max_chars` characters: when longer, its first
/// characters then `ellipsis`, which counts among the `max_chars`.
pub(crate) fn cut_chars<'s>(s: &'s str, max_chars: usize, ellipsis: &str) -> Cow<'s, str> {
    if first_chars(s, max_chars).is_none() {
        return Cow::Borrowed(s);
    }
    let keep = max_chars.saturating_sub(ellipsis.chars().count());
    let head = first_chars(s, keep).unwrap_or(s);
    Cow::Owned(format!("{head}{ellipsis}"))
}

/// `s` on one line: every character that ends a line or controls the text
/// for some reader — C0 and C1 controls (tab, LF, CR and NEL among them),
/// DEL, and the line and paragraph separators U+2028 and U+2029 — becomes a
/// space. Borrows `s` when it has none (the usual case).
pub(crate) fn one_line(s: &str) -> Cow<'_, str> {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !s.chars().any(breaks) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(|c| if breaks(c) { ' ' } else { c }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_character_boundaries() {
        assert_eq!(cut_chars("abc", 3, "…"), "abc");
        assert_eq!(cut_chars("abcd", 3, "…"), "ab…");
        let s = "é漢👍🏽".repeat(10);
        let cut = cut_chars(&s, 5, "…");
        assert_eq!(cut.chars().count(), 5);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn the_ellipsis_counts_among_the_characters() {
        assert_eq!(first_chars("héllo", 2), Some("hé"));
        assert_eq!(first_chars("héllo", 5), None);
        assert_eq!(cut_chars("ééééé", 4, "..."), "é...");
        assert_eq!(cut_chars("abcd", 0, "…"), "…");
        assert_eq!(cut_chars("", 0, "…"), "");
    }
}
