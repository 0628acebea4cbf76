//! The two escapers of wire contract §2. Inputs are already sanitized
//! ([`super::limits::sanitize`]).
//!
//! - Element text escapes `&` and `<` only; `>` stays readable for the model,
//!   except in the sequence `]]>`, which XML forbids in text and which is
//!   therefore written `]]&gt;`.
//! - Attribute values escape all five (`& < > " '`) and tab, LF and CR as
//!   character references, so that a conforming parser, which normalises
//!   whitespace in attributes, gives the value back unchanged.

/// Appends `s` to `out` as element text.
pub fn text_into(out: &mut String, s: &str) {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let replacement = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' if s[..i].ends_with("]]") => "&gt;",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(replacement);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// Appends `s` to `out` as an attribute value (without the quotes).
pub fn attr_into(out: &mut String, s: &str) {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let replacement = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&apos;",
            '\t' => "&#9;",
            '\n' => "&#10;",
            '\r' => "&#13;",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(replacement);
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// The length in bytes of `s` written as element text.
pub fn text_len(s: &str) -> usize {
    let mut out = String::new();
    text_into(&mut out, s);
    out.len()
}

/// The length in bytes of `s` written as an attribute value.
pub fn attr_len(s: &str) -> usize {
    let mut out = String::new();
    attr_into(&mut out, s);
    out.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        let mut out = String::new();
        text_into(&mut out, s);
        out
    }

    fn attr(s: &str) -> String {
        let mut out = String::new();
        attr_into(&mut out, s);
        out
    }

    #[test]
    fn escaping_table() {
        let input = r#"a < b & c > d "q" 'r'"#;
        assert_eq!(text(input), r#"a &lt; b &amp; c > d "q" 'r'"#);
        assert_eq!(
            attr(input),
            "a &lt; b &amp; c &gt; d &quot;q&quot; &apos;r&apos;"
        );
        assert_eq!(attr("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
        assert_eq!(text("x]]>y >"), "x]]&gt;y >");
        assert_eq!(text_len("a<b"), 6);
    }
}
