//! The two escapers of wire contract §2. Inputs are already sanitized
//! ([`super::limits::sanitize`]).
//!
//! - Element text escapes `&` and `<` only; `>` stays readable for the model,
//!   except in the sequence `]]>`, which XML forbids in text and which is
//!   therefore written `]]&gt;`.
//! - Attribute values escape all five (`& < > " '`) and tab, LF and CR as
//!   character references, so that a conforming parser, which normalises
//!   whitespace in attributes, gives the value back unchanged.

// Every character escaped is ASCII, and UTF-8 never uses an ASCII byte
// inside a longer character: scanning bytes finds exactly the characters.

/// What element text writes for the byte at `i` of `s`, when not the byte itself.
pub(super) fn text_replacement(s: &[u8], i: usize) -> Option<&'static str> {
    match s[i] {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' if s[..i].ends_with(b"]]") => Some("&gt;"),
        _ => None,
    }
}

/// What an attribute value writes for `byte`, when not the byte itself.
pub(super) fn attr_replacement(byte: u8) -> Option<&'static str> {
    match byte {
        b'&' => Some("&amp;"),
        b'<' => Some("&lt;"),
        b'>' => Some("&gt;"),
        b'"' => Some("&quot;"),
        b'\'' => Some("&apos;"),
        b'\t' => Some("&#9;"),
        b'\n' => Some("&#10;"),
        b'\r' => Some("&#13;"),
        _ => None,
    }
}

/// Appends `s` to `out` as element text.
pub fn text_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for i in 0..bytes.len() {
        if let Some(replacement) = text_replacement(bytes, i) {
            out.push_str(&s[start..i]);
            out.push_str(replacement);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
}

/// Appends `s` to `out` as an attribute value (without the quotes).
pub fn attr_into(out: &mut String, s: &str) {
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        if let Some(replacement) = attr_replacement(byte) {
            out.push_str(&s[start..i]);
            out.push_str(replacement);
            start = i + 1;
        }
    }
    out.push_str(&s[start..]);
}

/// The length in bytes of `s` written as element text.
pub fn text_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    // A branch-free sum over the bytes (`&amp;` adds 4, `&lt;` 3), then
    // `]]&gt;` only in a text that holds a `>` at all.
    let added: usize = bytes
        .iter()
        .map(|&b| usize::from(b == b'&') * 4 + usize::from(b == b'<') * 3)
        .sum();
    let closes = if bytes.contains(&b'>') {
        bytes.windows(3).filter(|w| *w == b"]]>").count() * 3
    } else {
        0
    };
    bytes.len() + added + closes
}

/// The length in bytes of `s` written as an attribute value.
pub fn attr_len(s: &str) -> usize {
    let added: usize = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\'' => 5,
            b'&' | b'\n' | b'\r' => 4,
            b'<' | b'>' | b'\t' => 3,
            _ => 0,
        })
        .sum();
    s.len() + added
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
        for sample in [
            input,
            "x]]>y >",
            "]]]>]]>>",
            "a\tb\nc\rd",
            "é<漢>&👍",
            "",
            "&<>\"'\t\n\r",
        ] {
            assert_eq!(text_len(sample), text(sample).len(), "{sample}");
            assert_eq!(attr_len(sample), attr(sample).len(), "{sample}");
        }
        assert_eq!(text("é<漢>&👍]]>"), "é&lt;漢>&amp;👍]]&gt;");
    }
}
