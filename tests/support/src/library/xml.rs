//! Whether a text is one well-formed XML element: the envelope, contract,
//! runtime and surface tests check every envelope they read with it.

use quick_xml::XmlVersion;
use quick_xml::events::Event;
use quick_xml::reader::Reader;

/// Checks a failure's text: at most one plain line before the envelope (a
/// `<validation_error>`'s next step, wire contract §4: no `<` in it, ended by
/// a newline), then [`check_well_formed`] of the envelope.
pub fn check_envelope(text: &str) -> Result<(), String> {
    let xml = match text.find('<') {
        Some(0) | None => text,
        Some(i) => {
            let lead = &text[..i];
            if !lead.ends_with('\n') || lead[..lead.len() - 1].contains('\n') {
                return Err(format!(
                    "more than one plain line before the envelope: {lead:?}"
                ));
            }
            &text[i..]
        }
    };
    check_well_formed(xml)
}

/// Checks that `xml` is one well-formed XML element and nothing else: every
/// event up to `Eof` reads without error, every attribute reads, every
/// reference is predefined or a character reference, start and end tags
/// balance, there is exactly one root and no text outside it, every character
/// is allowed by XML 1.0, and `]]>` never appears (XML forbids it in text).
pub fn check_well_formed(xml: &str) -> Result<(), String> {
    if let Some(c) = xml.chars().find(|&c| !is_xml_char(c)) {
        return Err(format!(
            "character U+{:04X} is not allowed in XML 1.0",
            c as u32
        ));
    }
    if xml.contains("]]>") {
        return Err("`]]>` appears in the text".into());
    }
    let mut reader = Reader::from_str(xml);
    let mut depth = 0usize;
    let mut roots = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(ref tag) | Event::Empty(ref tag) => {
                if depth == 0 {
                    roots += 1;
                }
                for attr in tag.attributes() {
                    let attr = attr.map_err(|e| format!("bad attribute: {e}"))?;
                    attr.normalized_value(XmlVersion::Implicit1_0)
                        .map_err(|e| format!("bad attribute value: {e}"))?;
                }
                if matches!(event, Event::Start(_)) {
                    depth += 1;
                }
            }
            Event::End(_) => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| "end tag without start tag".to_string())?;
            }
            Event::Text(text) if depth == 0 => {
                return Err(format!("text outside the root: {:?}", &*text));
            }
            Event::GeneralRef(r) => {
                let known = r.resolve_char_ref().map_err(|e| e.to_string())?.is_some()
                    || quick_xml::escape::resolve_predefined_entity(&r).is_some();
                if !known || depth == 0 {
                    return Err(format!("bad reference &{};", &*r));
                }
            }
            Event::Eof => break,
            Event::Text(_) => {}
            other => return Err(format!("unexpected event {other:?}")),
        }
    }
    if depth != 0 {
        return Err(format!("{depth} element(s) left open at the end"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements, expected exactly one"));
    }
    Ok(())
}

/// Whether XML 1.0's `Char` production allows `c`.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}
