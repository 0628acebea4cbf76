//! The egress guard (`docs/wire-contract.md` §9.2): a successful result
//! larger than its limit is cut at boundaries that keep every part valid,
//! and the model reads, in a last block, how much was cut and how to ask
//! for less.
//!
//! **What is counted**: the UTF-8 bytes of every text block, the bytes of
//! every other block's JSON form (an image's, an audio clip's, a resource's
//! — base64 included), and the bytes of the compact JSON of
//! `structuredContent`. A result whose data is both a text block and
//! `structuredContent` counts it twice: both reach the client.
//!
//! **How a result over the limit is cut**, block by block in order, each
//! taking what the limit leaves after the blocks kept whole:
//! - a *tagged* block (its text, trimmed, begins with `<` and ends with
//!   `>`: an error or warning envelope, the stale-reads notice, a
//!   presenter's guidance) is kept whole, always — but the data block of a
//!   handler that returned a value (text or JSON) is never taken for one,
//!   so a value that happens to look like markup is cut like any other.
//!   (A result a handler built itself, or a gateway's upstream sent, has no
//!   known data block: its tagged blocks are all kept whole.);
//! - a JSON block (an array or an object) keeps the whole items of its
//!   array that fit, first to last; an object is cut through its largest
//!   member that is an array or an object, the other members kept; when it
//!   is the same value as `structuredContent`, both are cut alike, so they
//!   stay the same value (whole items of an array still match the items'
//!   schema; a `minItems` is the one constraint this may break). A JSON
//!   block that does not fit even with its arrays empty is dropped whole —
//!   but the `structuredContent` of an action with an `outputSchema` is
//!   kept at that smallest form, never dropped (an output schema's promise
//!   wins over the limit);
//! - a block whose text is one JSON string, number or literal, or JSON
//!   too deep to parse (over 128 levels) and not the same value as
//!   `structuredContent`, is kept or dropped whole (cut, it would be
//!   broken JSON or another number);
//! - a plain text block is cut after its last whole line that fits, or,
//!   when none does, after its last whole character that fits;
//! - any other block (image, audio, resource) is kept or dropped whole.
//!
//! `isError` is never changed, and an error result (`isError: true`) is
//! never cut: it is an envelope, which passes whole even over the limit.
//! The notice is one tagged block, last (`<egress_notice>`, its exact
//! words in §9.2). The cut result is then at most the limit plus the
//! notice's size — unless the blocks kept whole, with the smallest form of
//! a `structuredContent` that cannot be dropped, are over the limit by
//! themselves: then it is those blocks and that form.

use std::io;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// The server-wide egress limit unless
/// [`ServerBuilder::egress_limit`](crate::ServerBuilder::egress_limit)
/// sets another: 262 144 bytes (256 KiB), about 65 000 tokens — a quarter
/// to a third of a model's context, and far more than a model can use from
/// one answer. A result this large is almost always a list that should have
/// been narrowed.
pub const DEFAULT_EGRESS_LIMIT: usize = 262_144;

/// A sink that counts the bytes written to it.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The bytes of the compact JSON of `value`, counted without writing it.
pub(crate) fn json_size(value: &impl serde::Serialize) -> usize {
    let mut counter = Counter(0);
    // Writing to a counter fails only if `value` cannot be serialized, which
    // a `Value` or a content block always can.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The size of one content block, as counted (module docs).
fn block_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(text) => text.text.len(),
        other => json_size(other),
    }
}

/// The size of `result` as counted (module docs).
pub(crate) fn result_size(result: &CallToolResult) -> usize {
    let content: usize = result.content.iter().map(block_size).sum();
    content + result.structured_content.as_ref().map_or(0, json_size)
}

/// Whether `text` is a tagged block, kept whole (module docs).
fn is_tagged(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('<') && text.ends_with('>')
}

/// What the cut of a JSON value left: the items kept and those there were,
/// over every array it cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Items {
    pub shown: usize,
    pub total: usize,
}

impl Items {
    fn add(&mut self, other: Items) {
        self.shown += other.shown;
        self.total += other.total;
    }
}

/// `value` cut to at most `budget` bytes of compact JSON by whole array
/// items (module docs), with the items it kept; `Err(value)` as it was
/// when it cannot fit even with its arrays empty. It is taken and given
/// back, never cloned: a clone of a value thousands of levels deep would
/// recurse past the end of a worker thread's stack.
pub(crate) fn cut_value(value: Value, budget: usize) -> Result<(Value, Items), Value> {
    cut_within(value, budget, MAX_CUT_LEVELS)
}

/// How many levels of objects a cut goes down through: below them a
/// value (a handler's, thousands of levels deep) is not cut, so that the
/// cut's recursion stays far from the end of a worker thread's stack.
const MAX_CUT_LEVELS: usize = 128;

/// The element of the egress notice.
pub(crate) const NOTICE_TAG: &str = "egress_notice";

/// [`cut_value`] going down at most `levels` more objects.
fn cut_within(value: Value, budget: usize, levels: usize) -> Result<(Value, Items), Value> {
    let size = json_size(&value);
    if size <= budget {
        return Ok((value, Items::default()));
    }
    match value {
        Value::Array(mut items) => {
            // `[` `]` and a comma between items.
            let mut used = 2;
            let mut shown = 0;
            for item in &items {
                let more = json_size(item) + usize::from(shown > 0);
                if used + more > budget {
                    break;
                }
                used += more;
                shown += 1;
            }
            if used > budget {
                return Err(Value::Array(items));
            }
            let total = items.len();
            items.truncate(shown);
            Ok((Value::Array(items), Items { shown, total }))
        }
        Value::Object(members) if levels == 0 => Err(Value::Object(members)),
        Value::Object(mut members) => {
            let Some(key) = largest_member(&members) else {
                return Err(Value::Object(members));
            };
            let Some(slot) = members.get_mut(&key) else {
                return Err(Value::Object(members));
            };
            let largest = std::mem::take(slot);
            let room = budget.checked_sub(size - json_size(&largest));
            let cut = match room {
                Some(room) => cut_within(largest, room, levels - 1),
                None => Err(largest),
            };
            match cut {
                Ok((cut, items)) => {
                    members.insert(key, cut);
                    Ok((Value::Object(members), items))
                }
                Err(largest) => {
                    members.insert(key, largest);
                    Err(Value::Object(members))
                }
            }
        }
        other => Err(other),
    }
}

/// The name of the largest member of `members` that is an array or an
/// object (the last of equals), if any.
fn largest_member(members: &serde_json::Map<String, Value>) -> Option<String> {
    members
        .iter()
        .filter(|(_, v)| v.is_array() || v.is_object())
        .max_by_key(|(_, v)| json_size(*v))
        .map(|(key, _)| key.clone())
}

/// The smallest form [`cut_value`] can give `value`: its array empty, or,
/// for an object, its largest array or object member at its smallest; with
/// the items that leaves out. Taken, never cloned ([`cut_value`]).
pub(crate) fn smallest(value: Value) -> (Value, Items) {
    smallest_within(value, MAX_CUT_LEVELS)
}

/// [`smallest`] going down at most `levels` more objects (below them the
/// value is kept as it is).
fn smallest_within(value: Value, levels: usize) -> (Value, Items) {
    match value {
        Value::Array(items) => (
            Value::Array(Vec::new()),
            Items {
                shown: 0,
                total: items.len(),
            },
        ),
        Value::Object(members) if levels == 0 => (Value::Object(members), Items::default()),
        Value::Object(mut members) => {
            let slot = largest_member(&members).and_then(|key| members.get_mut(&key));
            let Some(slot) = slot else {
                return (Value::Object(members), Items::default());
            };
            let (small, items) = smallest_within(std::mem::take(slot), levels - 1);
            *slot = small;
            (Value::Object(members), items)
        }
        other => (other, Items::default()),
    }
}

/// `text` cut to at most `budget` bytes: after its last whole line that
/// fits (the line's `\n` kept), else after its last whole character that
/// fits.
pub(crate) fn cut_text(text: &str, budget: usize) -> &str {
    if text.len() <= budget {
        return text;
    }
    // The last character boundary at or before `budget` (0 is one).
    let end = (0..=budget)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let head = &text[..end];
    match head.rfind('\n') {
        Some(end) => &text[..=end],
        None => head,
    }
}

/// What [`cut`] did to a result: the bytes it had and has (without the
/// notice), and the items of the lists it cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    pub before: usize,
    pub after: usize,
    pub items: Items,
}

/// Which blocks of a result are kept whole, and which is the data block
/// that `structuredContent` repeats.
struct Plan {
    /// The bytes of the tagged blocks, kept whole.
    whole: usize,
    /// The index of the text block holding the same value as
    /// `structuredContent`, when one does.
    twin: Option<usize>,
}

fn plan(result: &CallToolResult, data: Option<usize>) -> Plan {
    let mut whole = 0;
    let mut twin = None;
    for (i, block) in result.content.iter().enumerate() {
        let ContentBlock::Text(text) = block else {
            continue;
        };
        if Some(i) != data && is_tagged(&text.text) {
            whole += text.text.len();
        } else if twin.is_none()
            && let Some(structured) = &result.structured_content
            && same_value(&text.text, structured)
        {
            twin = Some(i);
        }
    }
    Plan { whole, twin }
}

/// Whether `text` is the JSON of `value`: its compact form as the data
/// block writes it (compared as text, so a value deeper than the parser's
/// 128 levels is recognized too), or any JSON text parsing to it.
fn same_value(text: &str, value: &Value) -> bool {
    (text.len() == json_size(value)
        && serde_json::to_string(value).is_ok_and(|compact| compact == text))
        || serde_json::from_str::<Value>(text).ok().as_ref() == Some(value)
}

/// Whether `text` looks like JSON the parser refused for its depth alone
/// (more than 128 levels): never cut as plain text, which would cut inside
/// it.
fn too_deep(text: &str, error: &serde_json::Error) -> bool {
    matches!(text.trim_start().as_bytes().first(), Some(b'[' | b'{'))
        && error.to_string().starts_with("recursion limit exceeded")
}

/// `result` cut to at most `limit` bytes as counted (module docs), or as it
/// is when it is within the limit or an error result; `None` for the cut
/// when nothing was cut. `data` is the index of its data block, when known
/// (never kept whole as a tagged block).
pub(crate) fn cut(
    mut result: CallToolResult,
    limit: usize,
    data: Option<usize>,
) -> (CallToolResult, Option<Cut>) {
    if result.is_error == Some(true) {
        return (result, None);
    }
    let before = result_size(&result);
    if before <= limit {
        return (result, None);
    }
    let plan = plan(&result, data);
    let mut budget = limit.saturating_sub(plan.whole);
    let mut items = Items::default();
    let mut structured = result.structured_content.take();
    let mut kept_structured = None;
    let content = std::mem::take(&mut result.content);
    for (i, block) in content.into_iter().enumerate() {
        if Some(i) == plan.twin {
            let value = structured.take().unwrap_or(Value::Null);
            let (block, value, shown) = cut_twin(value, budget, &mut items);
            budget -= shown;
            kept_structured = Some(value);
            result.content.extend(block);
            continue;
        }
        let tagged_ok = Some(i) != data;
        if let Some(block) = cut_block(block, tagged_ok, &mut budget, &mut items) {
            result.content.push(block);
        }
    }
    result.structured_content = match (kept_structured, structured) {
        (Some(value), _) => Some(value),
        (None, Some(value)) => Some(cut_alone(value, &mut budget, &mut items)),
        (None, None) => None,
    };
    let after = result_size(&result);
    (
        result,
        Some(Cut {
            before,
            after,
            items,
        }),
    )
}

/// The data block and `structuredContent`, the same `value`, cut alike to
/// share `budget`: the block (none when even the smallest form does not
/// fit), the value, and the bytes both take.
fn cut_twin(
    value: Value,
    budget: usize,
    items: &mut Items,
) -> (Option<ContentBlock>, Value, usize) {
    match cut_value(value, budget / 2) {
        Ok((cut, cut_items)) => {
            items.add(cut_items);
            let text = cut.to_string();
            let taken = 2 * text.len();
            (Some(ContentBlock::text(text)), cut, taken)
        }
        Err(value) => {
            // The block goes; the structured value stays at its smallest.
            let (small, cut_items) = smallest(value);
            items.add(cut_items);
            let taken = json_size(&small).min(budget);
            (None, small, taken)
        }
    }
}

/// `structuredContent` with no text block repeating it, cut to `budget`;
/// at its smallest form when it cannot fit (it is never dropped).
fn cut_alone(value: Value, budget: &mut usize, items: &mut Items) -> Value {
    match cut_value(value, *budget) {
        Ok((cut, cut_items)) => {
            items.add(cut_items);
            *budget -= json_size(&cut);
            cut
        }
        Err(value) => {
            let (small, cut_items) = smallest(value);
            items.add(cut_items);
            *budget = budget.saturating_sub(json_size(&small));
            small
        }
    }
}

/// One block that does not repeat `structuredContent`, cut to `budget`
/// (which it then takes from); `None` when it is dropped. A tagged block is
/// kept whole when `tagged_ok` (it is not the data block).
fn cut_block(
    block: ContentBlock,
    tagged_ok: bool,
    budget: &mut usize,
    items: &mut Items,
) -> Option<ContentBlock> {
    let ContentBlock::Text(mut text) = block else {
        let size = block_size(&block);
        if size > *budget {
            return None;
        }
        *budget -= size;
        return Some(block);
    };
    if tagged_ok && is_tagged(&text.text) {
        return Some(ContentBlock::Text(text));
    }
    if text.text.len() <= *budget {
        *budget -= text.text.len();
        return Some(ContentBlock::Text(text));
    }
    let kept = match serde_json::from_str::<Value>(&text.text) {
        Ok(value @ (Value::Array(_) | Value::Object(_))) => {
            let (cut, cut_items) = cut_value(value, *budget).ok()?;
            items.add(cut_items);
            cut.to_string()
        }
        // A JSON string or number: cut, it would be broken JSON or
        // another number.
        Ok(_) => return None,
        Err(e) if too_deep(&text.text, &e) => return None,
        Err(_) => cut_text(&text.text, *budget).to_owned(),
    };
    if kept.is_empty() {
        return None;
    }
    *budget -= kept.len();
    text.text = kept;
    Some(ContentBlock::Text(text))
}

/// The egress notice (§9.2) of `cut`, for a result limited to `limit`
/// bytes, whose action names `narrowed_by` as the arguments that make its
/// result smaller.
pub(crate) fn notice(cut: &Cut, limit: usize, narrowed_by: &[String]) -> String {
    let left_out = cut.before - cut.after;
    let mut text = format!(
        "<{NOTICE_TAG}>This result was cut to fit the limit of {limit} bytes: {left_out} of its {} bytes were left out.",
        cut.before
    );
    if cut.items.total > 0 {
        text.push_str(&format!(
            " {} of {} items are shown.",
            cut.items.shown, cut.items.total
        ));
    }
    if narrowed_by.is_empty() {
        text.push_str(" Ask for less in the next call: this action declares no argument that narrows its result.");
    } else {
        text.push_str(&format!(
            " For a smaller result, call it again with: {}.",
            narrowed_by.join(", ")
        ));
    }
    text.push_str(&format!("</{NOTICE_TAG}>"));
    text
}

/// `result` through the egress guard: within `limit` bytes, it is returned
/// as it is; over it, it is cut and its notice appended, last. `data`: the
/// index of its data block, when known.
pub(crate) fn guard(
    result: CallToolResult,
    limit: usize,
    narrowed_by: &[String],
    data: Option<usize>,
) -> CallToolResult {
    if limit == usize::MAX {
        // No limit: nothing is measured.
        return result;
    }
    match cut(result, limit, data) {
        (result, None) => result,
        (mut result, Some(cut)) => {
            result
                .content
                .push(ContentBlock::text(notice(&cut, limit, narrowed_by)));
            result
        }
    }
}

#[cfg(test)]
#[path = "egress_tests.rs"]
mod tests;
