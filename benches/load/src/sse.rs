//! The `data` of the events of a `text/event-stream` body (the SSE answer
//! of a Streamable HTTP server), as the HTML event-stream format reads it.

/// The data of each event of `body`, in order: the `data:` lines of an
/// event joined by `\n` (one space after the colon dropped), an event ending
/// at a blank line or at the end of the body. Events whose data is empty (an
/// SSE priming event, a comment, a `retry:`) are left out, as a browser
/// dispatches none for them. Lines end in `\n`, `\r\n` or `\r`.
pub fn data_payloads(body: &str) -> Vec<String> {
    let mut payloads = Vec::new();
    let mut data: Option<String> = None;
    for line in lines(body) {
        if line.is_empty() {
            payloads.extend(data.take().filter(|d| !d.is_empty()));
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(text) => {
                    text.push('\n');
                    text.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    payloads.extend(data.filter(|d| !d.is_empty()));
    payloads
}

/// The lines of `text`, split at `\r\n`, `\n` or `\r`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\r', '\n']) {
            Some(end) => {
                let after = if current[end..].starts_with("\r\n") {
                    end + 2
                } else {
                    end + 1
                };
                rest = Some(&current[after..]);
                Some(&current[..end])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::data_payloads;

    #[test]
    fn events_and_their_data() {
        // rmcp's shape: a priming event (id and retry, empty data), then the
        // answer.
        let body = "id: 0\nretry: 3000\ndata: \n\nevent: message\nid: 1\ndata: {\"id\":1}\n\n";
        assert_eq!(data_payloads(body), ["{\"id\":1}"]);
        // Multi-line data, CRLF, a comment, no space after the colon, no
        // final blank line.
        let body = ": ping\r\ndata:{\"a\":\r\ndata: 1}\r\n\r\ndata: last";
        assert_eq!(data_payloads(body), ["{\"a\":\n1}", "last"]);
        assert!(data_payloads("").is_empty());
        assert!(data_payloads(": only a comment\n\n").is_empty());
        // A lone CR ends a line too.
        assert_eq!(
            data_payloads("data: a\rdata: b\r\rdata: c\n"),
            ["a\nb", "c"]
        );
    }
}
