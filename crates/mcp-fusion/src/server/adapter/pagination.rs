//! Pagination of `tools/list`, `prompts/list`, `resources/list` and
//! `resources/templates/list` (MCP 2025-11-25 and 2026-07-28, "Pagination"):
//! pages of [`ServerBuilder::page_size`](crate::server::ServerBuilder::page_size)
//! items of the list the caller sees, each but the last with an opaque
//! `nextCursor`.
//!
//! A cursor names where the page it follows ended: the place in its list
//! of that page's last item (each tool, prompt, resource and template is
//! given one when it is added, in list order, never reused: `Place`), not
//! a count of items. So a list that changes between two pages (MCP:
//! cursors SHOULD be stable) neither skips nor repeats an item that is on
//! it before and after the change: an item removed before the cursor moves
//! nothing, an item added is listed after the others.
//!
//! The cursor is sealed with HMAC-SHA256 (RFC 2104) under the server's
//! active signing key, whose id it carries ([`SigningKeys`]): a cursor that
//! was not given by a server holding its key, or that was given by another
//! list, is refused with `-32602` (the spec:
//! "Invalid cursors SHOULD result in an error with code -32602"), and the
//! message says to list from the start. A cursor carries no item and shows
//! nothing another caller could not see.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::json;
use sha2::Sha256;

use crate::capability::Place;
use crate::server::SigningKeys;

type HmacSha256 = Hmac<Sha256>;

/// The page size a server uses unless
/// [`ServerBuilder::page_size`](crate::server::ServerBuilder::page_size) says
/// otherwise: 100 items. A list of at most 100 items is one page, as
/// before pagination, so small servers (and clients that read only the
/// first page) see everything at once; a gateway in front of large servers
/// sends its hundreds of tools in pages of a size every client handles.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// Mixed into every cursor's MAC so that its tag never equals a tag the
/// same key computes for another purpose.
const DOMAIN: &[u8] = b"mcp-fusion/list-cursor/v1";
/// The first byte of every cursor: its format (1 was a position, 2 had no
/// key id).
const VERSION: u8 = 3;
/// Format byte, list byte, place (u64, big-endian), key id length; the key
/// id follows.
const HEAD_LEN: usize = 11;
/// The HMAC-SHA256 tag, whole.
const TAG_LEN: usize = 32;
/// How much of a refused cursor its error repeats.
const SHOWN_CURSOR_CHARS: usize = 100;

/// One of the four paginated lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
    ResourceTemplates,
}

impl ListKind {
    const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::ResourceTemplates,
    ];

    /// The list's MCP method.
    pub(crate) fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The byte that names the list in a cursor.
    fn byte(self) -> u8 {
        match self {
            ListKind::Tools => 1,
            ListKind::Prompts => 2,
            ListKind::Resources => 3,
            ListKind::ResourceTemplates => 4,
        }
    }

    fn of_byte(byte: u8) -> Option<ListKind> {
        ListKind::ALL.into_iter().find(|kind| kind.byte() == byte)
    }
}

/// One page of a list: its items, and the cursor of the next page unless
/// it is the last.
#[derive(Debug)]
pub(crate) struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// An rmcp list result holding one page: its items and `nextCursor`
/// (rmcp has no public constructor that takes a cursor, nor a trait shared
/// by its list results, so each gets the same `From`).
macro_rules! list_result_from_page {
    ($($result:ident of $item:ident),* $(,)?) => {$(
        impl From<Page<rmcp::model::$item>> for rmcp::model::$result {
            fn from(page: Page<rmcp::model::$item>) -> Self {
                let mut result = Self::with_all_items(page.items);
                result.next_cursor = page.next_cursor;
                result
            }
        }
    )*};
}

list_result_from_page!(
    ListToolsResult of Tool,
    ListPromptsResult of Prompt,
    ListResourcesResult of Resource,
    ListResourceTemplatesResult of ResourceTemplate,
);

/// Cuts the server's lists into pages and reads the cursors it gave.
#[derive(Clone)]
pub(crate) struct Pager {
    /// Items per page; `0` sends every list whole.
    page_size: usize,
    /// Each signing key's id and MAC (cloned for each use), the active key
    /// first.
    macs: Vec<(String, HmacSha256)>,
}

impl std::fmt::Debug for Pager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pager")
            .field("page_size", &self.page_size)
            .finish_non_exhaustive()
    }
}

impl Pager {
    /// Pages of `page_size` items (`0`: one page), cursors sealed with
    /// the active key of `keys` and opened with any (checked by the
    /// builder).
    pub(crate) fn new(page_size: usize, keys: &SigningKeys) -> Pager {
        let macs = keys
            .exposed()
            .map(|(id, key)| {
                let mac = HmacSha256::new_from_slice(key).expect("HMAC accepts keys of any length");
                (id.to_owned(), mac)
            })
            .collect();
        Pager { page_size, macs }
    }

    /// The page of `kind` at `cursor` (the first page without one), cut
    /// from `items`: the caller's whole list, each item with its place, in
    /// list order.
    ///
    /// # Errors
    /// `-32602` naming the cursor sent, what is wrong with it and that the
    /// list is to be read from the start, for a cursor this server (or one
    /// with the same key) did not give for `kind`.
    pub(crate) fn page<T>(
        &self,
        kind: ListKind,
        items: impl Iterator<Item = (Place, T)>,
        cursor: Option<&str>,
    ) -> Result<Page<T>, rmcp::ErrorData> {
        let after = cursor.map(|cursor| self.open(kind, cursor)).transpose()?;
        let mut items = items.skip_while(|(place, _)| after.is_some_and(|after| *place <= after));
        let take = match self.page_size {
            0 => usize::MAX,
            size => size,
        };
        let mut last = None;
        let page: Vec<T> = items
            .by_ref()
            .take(take)
            .map(|(place, item)| {
                last = Some(place);
                item
            })
            .collect();
        let next_cursor = match last {
            Some(last) if items.next().is_some() => Some(self.seal(kind, last)),
            _ => None,
        };
        Ok(Page {
            items: page,
            next_cursor,
        })
    }

    /// The cursor of the page of `kind` that follows the item at `after`:
    /// base64url (RFC 4648 §5, unpadded) of the format byte, the list byte,
    /// the place (big-endian u64), the active key's id (its length, one
    /// byte, then its ASCII) and their HMAC-SHA256 tag under that key.
    pub(crate) fn seal(&self, kind: ListKind, after: Place) -> String {
        let (id, mac) = &self.macs[0];
        let mut bytes = Vec::with_capacity(HEAD_LEN + id.len() + TAG_LEN);
        bytes.push(VERSION);
        bytes.push(kind.byte());
        bytes.extend_from_slice(&after.to_be_bytes());
        bytes.push(u8::try_from(id.len()).expect("key ids are at most 64 characters"));
        bytes.extend_from_slice(id.as_bytes());
        let tag = tagged(mac, &bytes).finalize().into_bytes();
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The place `cursor` seals, if it is a cursor of `kind` that a key of
    /// this server sealed.
    fn open(&self, kind: ListKind, cursor: &str) -> Result<Place, rmcp::ErrorData> {
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .ok()
            .filter(|bytes| self.verified(bytes))
            .ok_or_else(|| invalid_cursor(kind, cursor, None))?;
        let sealed_for = ListKind::of_byte(bytes[1]);
        if sealed_for != Some(kind) {
            return Err(invalid_cursor(kind, cursor, sealed_for));
        }
        let mut place = [0u8; 8];
        place.copy_from_slice(&bytes[2..HEAD_LEN - 1]);
        Ok(Place::from_be_bytes(place))
    }

    /// Whether `bytes` are a cursor of this format whose tag the key it
    /// names (one of this server's) computes.
    fn verified(&self, bytes: &[u8]) -> bool {
        if bytes.len() < HEAD_LEN + TAG_LEN || bytes[0] != VERSION {
            return false;
        }
        let payload_len = HEAD_LEN + usize::from(bytes[HEAD_LEN - 1]);
        if bytes.len() != payload_len + TAG_LEN {
            return false;
        }
        let (payload, tag) = bytes.split_at(payload_len);
        let id = &payload[HEAD_LEN..];
        self.macs
            .iter()
            .find(|(known, _)| known.as_bytes() == id)
            .is_some_and(|(_, mac)| tagged(mac, payload).verify_slice(tag).is_ok())
    }
}

/// `mac` over the domain label and `payload`.
fn tagged(mac: &HmacSha256, payload: &[u8]) -> HmacSha256 {
    let mut mac = mac.clone();
    mac.update(DOMAIN);
    mac.update(payload);
    mac
}

/// The `cursor` of a list request's params, if any.
pub(crate) fn cursor_of(request: Option<&rmcp::model::PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|params| params.cursor.as_deref())
}

/// `-32602` for `cursor` sent to the list `kind`: what was sent, what is
/// wrong (a cursor of the list `foreign`, else not one this server gave),
/// and what to send. `data`: `{"cursor": sent (cut to 100 characters),
/// "method": the list's method, "cursorOf": foreign's method or null}`.
fn invalid_cursor(kind: ListKind, cursor: &str, foreign: Option<ListKind>) -> rmcp::ErrorData {
    let method = kind.method();
    let shown = crate::text::cut_chars(cursor, SHOWN_CURSOR_CHARS, "…");
    let why = match foreign {
        Some(other) => format!(
            "is the nextCursor of a {} page, not of {method}",
            other.method()
        ),
        None => String::from(
            "is not a nextCursor this server gave (a cursor is valid only as this server sent it)",
        ),
    };
    let message = format!(
        "Invalid cursor \"{shown}\" for {method}: it {why}. List from the start: call {method} with no cursor, then pass each page's nextCursor as it is."
    );
    let data = json!({
        "cursor": shown.as_ref(),
        "method": method,
        "cursorOf": foreign.map(ListKind::method),
    });
    rmcp::ErrorData::invalid_params(message, Some(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
    const NEW_KEY: &[u8; 32] = b"fedcba9876543210fedcba9876543210";

    fn keys() -> SigningKeys {
        SigningKeys::new("k1", KEY.as_slice())
    }

    fn pager(size: usize) -> Pager {
        Pager::new(size, &keys())
    }

    /// Items `0..n`, each at the place of its own number.
    fn placed(n: u32) -> impl Iterator<Item = (Place, u32)> {
        (0..n).map(|i| (Place::from(i), i))
    }

    /// Every page of `kind` over `n` numbers, following the cursors.
    fn pages(pager: &Pager, kind: ListKind, n: u32) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let page = pager.page(kind, placed(n), cursor.as_deref()).unwrap();
            out.push(page.items);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return out,
            }
        }
    }

    #[test]
    fn pages_hold_page_size_items_and_the_last_has_no_next_cursor() {
        let pages = pages(&pager(2), ListKind::Tools, 5);
        assert_eq!(pages, vec![vec![0, 1], vec![2, 3], vec![4]]);
    }

    #[test]
    fn a_list_of_exactly_one_page_has_no_next_cursor() {
        let page = pager(3).page(ListKind::Prompts, placed(3), None).unwrap();
        assert_eq!(page.items, vec![0, 1, 2]);
        assert_eq!(page.next_cursor, None);
        let empty = pager(3).page(ListKind::Prompts, placed(0), None).unwrap();
        assert_eq!((empty.items, empty.next_cursor), (vec![], None));
    }

    #[test]
    fn page_size_zero_sends_the_list_whole() {
        let page = pager(0).page(ListKind::Tools, placed(1000), None).unwrap();
        assert_eq!(page.items.len(), 1000);
        assert_eq!(page.next_cursor, None);
    }

    #[test]
    fn the_default_page_size_keeps_a_hundred_items_on_one_page() {
        let pager = Pager::new(DEFAULT_PAGE_SIZE, &keys());
        let page = pager.page(ListKind::Tools, placed(100), None).unwrap();
        assert_eq!((page.items.len(), page.next_cursor), (100, None));
        let page = pager.page(ListKind::Tools, placed(101), None).unwrap();
        assert_eq!(page.items.len(), 100);
        let next = page.next_cursor.expect("a second page");
        let last = pager
            .page(ListKind::Tools, placed(101), Some(&next))
            .unwrap();
        assert_eq!((last.items, last.next_cursor), (vec![100], None));
    }

    #[test]
    fn a_cursor_is_the_same_for_the_same_place_and_key() {
        // Deterministic: replicas with the same key give and read the same
        // cursors.
        let cursor = pager(2).seal(ListKind::Tools, 2);
        assert_eq!(cursor, pager(7).seal(ListKind::Tools, 2));
        // 11 bytes of head, "k1", 32 of tag: 45 bytes, 60 characters.
        assert_eq!(cursor.len(), 60);
        assert_eq!(pager(2).open(ListKind::Tools, &cursor).unwrap(), 2);
    }

    /// The page after `cursor` of the list `items` (letters at their places).
    fn next_page(cursor: &str, items: &[(Place, char)]) -> Vec<char> {
        pager(2)
            .page(ListKind::Tools, items.iter().copied(), Some(cursor))
            .unwrap()
            .items
    }

    #[test]
    fn a_list_changed_between_pages_skips_and_repeats_nothing_that_stayed() {
        let list = [(0, 'a'), (1, 'b'), (2, 'c'), (3, 'd'), (4, 'e')];
        let first = pager(2)
            .page(ListKind::Tools, list.into_iter(), None)
            .unwrap();
        assert_eq!(first.items, vec!['a', 'b']);
        let cursor = first.next_cursor.expect("a second page");
        // Nothing changed.
        assert_eq!(next_page(&cursor, &list), vec!['c', 'd']);
        // An item of the first page removed: nothing moves up into it.
        assert_eq!(
            next_page(&cursor, &[(1, 'b'), (2, 'c'), (3, 'd'), (4, 'e')]),
            vec!['c', 'd']
        );
        // The first page's last item removed.
        assert_eq!(
            next_page(&cursor, &[(0, 'a'), (2, 'c'), (3, 'd'), (4, 'e')]),
            vec!['c', 'd']
        );
        // The next page's first item removed, and one added (at the end).
        assert_eq!(
            next_page(&cursor, &[(0, 'a'), (1, 'b'), (3, 'd'), (4, 'e'), (5, 'f')]),
            vec!['d', 'e']
        );
        // 'a' moved to the end: listed again after the others.
        assert_eq!(
            next_page(&cursor, &[(1, 'b'), (2, 'c'), (3, 'd'), (4, 'e'), (5, 'a')]),
            vec!['c', 'd']
        );
    }

    #[test]
    fn a_cursor_past_the_end_of_a_shorter_list_is_an_empty_last_page() {
        // Every item after the cursor was removed between pages (or another
        // caller, who sees fewer items, sent it).
        let cursor = pager(2).seal(ListKind::Tools, 4);
        let page = pager(2)
            .page(ListKind::Tools, placed(3), Some(&cursor))
            .unwrap();
        assert_eq!((page.items, page.next_cursor), (vec![], None));
    }

    #[test]
    fn a_cursor_of_another_list_is_refused_naming_both() {
        let cursor = pager(2).seal(ListKind::Prompts, 2);
        let error = pager(2)
            .page(ListKind::Tools, placed(5), Some(&cursor))
            .unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(
            error.message,
            format!(
                "Invalid cursor \"{cursor}\" for tools/list: it is the nextCursor of a prompts/list page, not of tools/list. List from the start: call tools/list with no cursor, then pass each page's nextCursor as it is."
            )
        );
        assert_eq!(
            error.data,
            Some(json!({"cursor": cursor, "method": "tools/list", "cursorOf": "prompts/list"}))
        );
    }

    #[test]
    fn a_forged_tampered_or_old_format_cursor_is_refused() {
        let expected = |cursor: &str, method: &str| {
            format!(
                "Invalid cursor \"{cursor}\" for {method}: it is not a nextCursor this server gave (a cursor is valid only as this server sent it). List from the start: call {method} with no cursor, then pass each page's nextCursor as it is."
            )
        };
        // Not base64url, the wrong length, another key under the same id, a
        // changed place, a cursor of the first format (a position, six
        // bytes) and one of the second (no key id), each tagged with the
        // right key.
        let other_key = Pager::new(2, &SigningKeys::new("k1", [7u8; 32].as_slice()))
            .seal(ListKind::Resources, 2);
        let mut bytes = URL_SAFE_NO_PAD
            .decode(pager(2).seal(ListKind::Resources, 2))
            .unwrap();
        bytes[9] = 0;
        let moved = URL_SAFE_NO_PAD.encode(bytes);
        let mac = &pager(2).macs[0].1;
        let old_format = |mut payload: Vec<u8>| {
            let tag = tagged(mac, &payload).finalize().into_bytes();
            payload.extend_from_slice(&tag);
            URL_SAFE_NO_PAD.encode(payload)
        };
        let first = old_format(vec![1u8, 3, 0, 0, 0, 2]);
        let second = old_format(vec![2u8, 3, 0, 0, 0, 0, 0, 0, 0, 2]);
        for cursor in [
            "2",
            "not a cursor!",
            "AQMAAAAC",
            &other_key,
            &moved,
            &first,
            &second,
        ] {
            let error = pager(2)
                .page(ListKind::Resources, placed(5), Some(cursor))
                .unwrap_err();
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert_eq!(error.message, expected(cursor, "resources/list"));
            assert_eq!(
                error.data,
                Some(json!({"cursor": cursor, "method": "resources/list", "cursorOf": null}))
            );
        }
    }

    #[test]
    fn a_cursor_opens_wherever_its_key_is_held_and_only_there() {
        // Replicas mid-rotation: one still signs with k1 and accepts k2,
        // the other signs with k2 and accepts k1.
        let before = Pager::new(2, &keys().accept("k2", NEW_KEY.as_slice()));
        let after = Pager::new(
            2,
            &SigningKeys::new("k2", NEW_KEY.as_slice()).accept("k1", KEY.as_slice()),
        );
        let by_before = before.seal(ListKind::Tools, 2);
        let by_after = after.seal(ListKind::Tools, 3);
        assert_ne!(by_before, pager(2).seal(ListKind::Tools, 3));
        assert_eq!(after.open(ListKind::Tools, &by_before).unwrap(), 2);
        assert_eq!(before.open(ListKind::Tools, &by_after).unwrap(), 3);
        // What k1 signed is the same whichever set holds it.
        assert_eq!(by_before, pager(2).seal(ListKind::Tools, 2));
        // k1 retired: its cursors are refused, k2's still open.
        let retired = Pager::new(2, &SigningKeys::new("k2", NEW_KEY.as_slice()));
        assert!(retired.open(ListKind::Tools, &by_before).is_err());
        assert_eq!(retired.open(ListKind::Tools, &by_after).unwrap(), 3);
        // A key id this server does not hold, with a tag under a key it
        // holds, is refused.
        let renamed =
            Pager::new(2, &SigningKeys::new("k9", KEY.as_slice())).seal(ListKind::Tools, 2);
        assert!(pager(2).open(ListKind::Tools, &renamed).is_err());
    }

    #[test]
    fn a_long_cursor_is_repeated_cut_to_a_hundred_characters() {
        let cursor = "x".repeat(5000);
        let error = pager(2)
            .page(ListKind::ResourceTemplates, placed(5), Some(&cursor))
            .unwrap_err();
        let shown = format!("{}…", "x".repeat(99));
        assert!(
            error.message.starts_with(&format!(
                "Invalid cursor \"{shown}\" for resources/templates/list: "
            )),
            "{}",
            error.message
        );
    }
}
