//! Text written as the contents of a JSON string (RFC 8259 §7), byte for
//! byte as serde_json writes it: `"` and `\` escaped with a backslash,
//! backspace, form feed, LF, CR and tab as `\b \f \n \r \t`, every other
//! control character below U+0020 as `\u00xx` (lowercase hex); everything
//! else, U+007F and non-ASCII included, as it is.
//!
//! The envelope's XML is written through the same pass
//! ([`xml_text_into`], [`xml_attr_into`]): the XML escape of wire contract
//! §2 and the JSON escape in one walk over the text, so that an envelope
//! reaches the JSON-RPC answer without being escaped twice.

use super::escape::{attr_replacement, text_replacement};

/// The bytes JSON escapes (`"`, `\`, control characters), and with `xml`
/// also those XML may (`& < > '`).
const fn special_bytes(xml: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    if xml {
        table[b'&' as usize] = true;
        table[b'<' as usize] = true;
        table[b'>' as usize] = true;
        table[b'\'' as usize] = true;
    }
    table
}

static JSON_SPECIAL: [bool; 256] = special_bytes(false);
static XML_SPECIAL: [bool; 256] = special_bytes(true);

/// Appends the JSON escape of the ASCII `byte` (`"`, `\` or a control
/// character); `false` for any other byte.
fn json_escape_into(out: &mut String, byte: u8) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\x08' => out.push_str("\\b"),
        b'\x0c' => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0..0x20 => {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        _ => return false,
    }
    true
}

/// Appends `s` escaped as JSON, each byte marked in `special` first passed
/// through `xml` (the XML replacement of the byte at `i`, if any). Every replaced byte is
/// ASCII, and UTF-8 never uses an ASCII byte inside a longer character: the
/// runs copied between them are whole characters.
fn escaped_into(
    out: &mut String,
    s: &str,
    special: &[bool; 256],
    xml: impl Fn(&[u8], usize) -> Option<&'static str>,
) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if !special[usize::from(byte)] {
            continue;
        }
        out.push_str(&s[start..i]);
        start = i + 1;
        if let Some(replacement) = xml(bytes, i) {
            // XML replacements hold no JSON special.
            out.push_str(replacement);
        } else if !json_escape_into(out, byte) {
            start = i;
        }
    }
    out.push_str(&s[start..]);
}

/// Appends `s` as the contents of a JSON string.
pub(super) fn json_into(out: &mut String, s: &str) {
    escaped_into(out, s, &JSON_SPECIAL, |_, _| None);
}

/// Appends `s` as XML element text (wire contract §2) inside a JSON string.
pub(super) fn xml_text_into(out: &mut String, s: &str) {
    escaped_into(out, s, &XML_SPECIAL, text_replacement);
}

/// Appends `s` as an XML attribute value (wire contract §2) inside a JSON
/// string.
pub(super) fn xml_attr_into(out: &mut String, s: &str) {
    escaped_into(out, s, &XML_SPECIAL, |bytes, i| attr_replacement(bytes[i]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::escape::{attr_into, text_into};

    /// Every sample is written exactly as serde_json writes the same text
    /// (XML-escaped first, for the two XML forms).
    #[test]
    fn writes_what_serde_json_writes() {
        let controls: String = (0u8..0x20).map(char::from).collect();
        let samples = [
            "",
            "plain",
            "a \"quoted\" back\\slash",
            &controls,
            "\u{7f} é 漢 👍 \u{2028}",
            "x]]>y > <tag attr='v'> & ;",
            "line\nbreak\ttab\rreturn",
            "ends with \\",
            "eight by\"eight by<eight by&eight by'eight by]]>eight by\u{1}tail",
            "a long run of plain text without anything to escape at all, then \"",
        ];
        for sample in samples {
            let serde = |s: &str| {
                let quoted = serde_json::to_string(s).expect("a string serializes");
                quoted[1..quoted.len() - 1].to_owned()
            };
            let mut json = String::new();
            json_into(&mut json, sample);
            assert_eq!(json, serde(sample), "{sample:?}");

            let mut xml = String::new();
            text_into(&mut xml, sample);
            let mut text = String::new();
            xml_text_into(&mut text, sample);
            assert_eq!(text, serde(&xml), "{sample:?}");

            let mut xml = String::new();
            attr_into(&mut xml, sample);
            let mut attr = String::new();
            xml_attr_into(&mut attr, sample);
            assert_eq!(attr, serde(&xml), "{sample:?}");
        }
    }
}
