//! What `fusion` prints: its own output on stdout and stderr, a server's
//! text made safe for a terminal, JSON that stays inert there, and colour.

use std::io::Write;

use serde_json::Value;

/// The escape sequences this program writes itself: [`Paint`]'s colours and
/// the progress line's "erase line". Any other escape comes from a server.
const OWN_ESCAPES: [&str; 9] = [
    "\x1b[0m",
    "\x1b[1;31m",
    "\x1b[1;35m",
    "\x1b[1;33m",
    "\x1b[1m",
    "\x1b[36m",
    "\x1b[32m",
    "\x1b[2m",
    "\x1b[2K",
];

/// `text` made safe for a terminal: a server's text may hold escape
/// sequences (set the window title, clear the screen, hide text) or other
/// control characters; those are shown as `\u{..}` instead of acting. Line
/// feeds, tabs, a leading carriage return (the progress line) and this
/// program's own colour codes are kept.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b'
            && let Some(own) = OWN_ESCAPES.iter().find(|e| rest.starts_with(*e))
        {
            out.push_str(own);
            rest = &rest[own.len()..];
            continue;
        }
        let keep = matches!(c, '\n' | '\t') || (c == '\r' && out.is_empty()) || !c.is_control();
        if keep {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Writes to stdout through [`terminal_safe`], ignoring errors (a closed
/// pipe, as in `fusion call … | head`, must not panic).
pub fn out(args: std::fmt::Arguments<'_>) {
    let text = terminal_safe(&args.to_string());
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// [`out`], then a line end.
pub fn out_line(args: std::fmt::Arguments<'_>) {
    let text = terminal_safe(&args.to_string());
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"));
}

/// `value` as pretty JSON for stdout, by serde_json: valid JSON whatever the
/// strings hold. Not passed through [`terminal_safe`] (whose `\u{..}` is not
/// JSON); instead DEL and the C1 controls (U+007F to U+009F), which serde_json
/// leaves as they are and some terminals obey, are written as the JSON escapes
/// `\u007f` … `\u009f`: the same value for a JSON reader, inert on a
/// terminal. (C0 controls, ESC included, are escaped by serde_json itself.)
pub fn json_text(value: &Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    // Outside strings serde_json writes only ASCII punctuation, digits,
    // letters and whitespace, so every such character is inside a string.
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Prints `value` on stdout as [`json_text`], then a line end, ignoring
/// write errors (a closed pipe).
pub fn out_json(value: &Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(json_text(value).as_bytes())
        .and_then(|()| stdout.write_all(b"\n"));
}

/// Writes to stderr through [`terminal_safe`], ignoring errors.
pub fn err(args: std::fmt::Arguments<'_>) {
    let text = terminal_safe(&args.to_string());
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// [`err`], then a line end.
pub fn err_line(args: std::fmt::Arguments<'_>) {
    let text = terminal_safe(&args.to_string());
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.write_all(b"\n"));
}

/// ANSI styling that is a no-op when colour is off.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    /// Whether escape codes are written.
    pub enabled: bool,
}

impl Paint {
    fn wrap(&self, codes: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{codes}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Bold red (errors).
    pub fn red_bold(&self, text: &str) -> String {
        self.wrap("1;31", text)
    }

    /// Bold magenta (critical failures).
    pub fn magenta_bold(&self, text: &str) -> String {
        self.wrap("1;35", text)
    }

    /// Bold yellow (warnings).
    pub fn yellow_bold(&self, text: &str) -> String {
        self.wrap("1;33", text)
    }

    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// Cyan (labels).
    pub fn cyan(&self, text: &str) -> String {
        self.wrap("36", text)
    }

    /// Green (action names).
    pub fn green(&self, text: &str) -> String {
        self.wrap("32", text)
    }

    /// Dim (notes).
    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }
}

/// `[image image/png, 12 bytes base64]`, `[resource file:///x]`, …: what a
/// content block that is not text holds, in one line.
pub fn describe_block(block: &impl serde::Serialize) -> String {
    let value = serde_json::to_value(block).unwrap_or(Value::Null);
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("block");
    match kind {
        "image" | "audio" => {
            let mime = value.get("mimeType").and_then(Value::as_str).unwrap_or("?");
            let size = value
                .get("data")
                .and_then(Value::as_str)
                .map_or(0, str::len);
            format!("[{kind} {mime}, {size} bytes base64]")
        }
        "resource" => {
            let uri = value
                .pointer("/resource/uri")
                .and_then(Value::as_str)
                .unwrap_or("?");
            format!("[resource {uri}]")
        }
        "resource_link" => {
            let uri = value.get("uri").and_then(Value::as_str).unwrap_or("?");
            format!("[resource link {uri}]")
        }
        other => format!("[{other}]"),
    }
}

/// The number of bytes a Base64 text (RFC 4648 §4, padded or not) holds.
pub fn base64_bytes(text: &str) -> usize {
    let digits = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    digits * 3 / 4
}

/// `rows` under `headers` in columns two spaces apart, each as wide as its
/// widest cell, the last one not padded; the headers cyan. An empty cell is
/// shown as `-`.
pub fn table(paint: &Paint, headers: &[&str], rows: &[Vec<String>]) -> String {
    let cell = |text: &str| {
        if text.is_empty() {
            String::from("-")
        } else {
            text.replace(['\n', '\r'], " ")
        }
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| cell(c)).collect())
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|c| c.chars().count())
                .chain([headers[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>, painted: &dyn Fn(&str) -> String| {
        let last = cells.len().saturating_sub(1);
        let mut out = String::new();
        for (i, text) in cells.iter().enumerate() {
            out.push_str(&painted(text));
            if i < last {
                let pad = widths[i].saturating_sub(text.chars().count()) + 2;
                out.push_str(&" ".repeat(pad));
            }
        }
        out.push('\n');
        out
    };
    let mut out = line(headers.iter().map(|h| (*h).to_owned()).collect(), &|text| {
        paint.cyan(text)
    });
    for row in rows {
        out.push_str(&line(row, &|text| text.to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_escapes_are_shown_not_obeyed() {
        assert_eq!(
            terminal_safe("a\x1b]0;title\x07b\x1b[2Jc\x1b[8md"),
            "a\\u{1b}]0;title\\u{7}b\\u{1b}[2Jc\\u{1b}[8md"
        );
        assert_eq!(
            terminal_safe("\x1b[1;31merror\x1b[0m\n\tx"),
            "\x1b[1;31merror\x1b[0m\n\tx"
        );
        assert_eq!(terminal_safe("\r\x1b[2Kconnecting"), "\r\x1b[2Kconnecting");
        assert_eq!(terminal_safe("x\ry\u{9b}"), "x\\u{d}y\\u{9b}");
    }

    #[test]
    fn json_output_is_valid_json_and_inert_on_a_terminal() {
        let text = "del\u{7f} nel\u{85} csi\u{9b}[2J esc\u{1b}]0;title\u{7} bell\u{7} nul\u{0} \
                    bidi\u{202e} nbsp\u{a0} \u{fffd}\u{d7ff}\u{e000}\u{10ffff} \\ud800 \"q\"";
        let value = serde_json::json!({"text": text, "nested": [text]});
        let out = json_text(&value);
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), value);
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        assert!(
            out.contains(r"del\u007f nel\u0085 csi\u009b[2J esc\u001b]0;title\u0007"),
            "{out}"
        );
        // Characters that are not controls stay as they are.
        assert!(out.contains("nbsp\u{a0}"), "{out}");
    }

    #[test]
    fn base64_counts_the_bytes_it_holds() {
        assert_eq!(base64_bytes(""), 0);
        assert_eq!(base64_bytes("AQID"), 3);
        assert_eq!(base64_bytes("AQI="), 2);
        assert_eq!(base64_bytes("AQ=="), 1);
        assert_eq!(base64_bytes("AQ"), 1);
    }

    #[test]
    fn a_table_pads_every_column_but_the_last() {
        let paint = Paint { enabled: false };
        let rows = vec![
            vec![String::from("test://a"), String::new(), String::from("x")],
            vec![String::from("b"), String::from("two\nlines"), String::new()],
        ];
        assert_eq!(
            table(&paint, &["URI", "NAME", "NOTE"], &rows),
            "URI       NAME       NOTE\n\
             test://a  -          x\n\
             b         two lines  -\n"
        );
    }
}
