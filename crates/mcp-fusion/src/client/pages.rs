//! Reading a paginated list whole (MCP "Pagination"): follow `nextCursor`
//! from the first page to the last, a bounded number of pages.

use std::collections::HashSet;
use std::future::Future;

use super::FusionClientError;

/// The most pages of one list [`FusionClient`](super::FusionClient) reads
/// (`tools/list` for [`list_tools`](super::FusionClient::list_tools),
/// `fusion tools` and `fusion lock`): 1 000, i.e. 100 000 tools at
/// mcp-fusion's default page size. A server still sending a `nextCursor`
/// after that is answered with [`FusionClientError::Protocol`].
pub const MAX_LIST_PAGES: usize = 1_000;

/// Every item of the list `method`, page after page: `page(cursor)` asks
/// for one page (no cursor for the first) and answers its items and its
/// `nextCursor`.
///
/// # Errors
/// The first error of `page`; [`FusionClientError::Protocol`] when a page
/// names a `nextCursor` an earlier page named (the list would never end),
/// or when the list goes on past [`MAX_LIST_PAGES`] pages.
pub(crate) async fn every_page<T, F, Fut>(
    method: &str,
    mut page: F,
) -> Result<Vec<T>, FusionClientError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), FusionClientError>>,
{
    let mut items = Vec::new();
    let mut cursors = HashSet::new();
    let mut cursor = None;
    for _ in 0..MAX_LIST_PAGES {
        let (got, next) = page(cursor.take()).await?;
        items.extend(got);
        let Some(next) = next else {
            return Ok(items);
        };
        if !cursors.insert(next.clone()) {
            let shown = crate::text::cut_chars(&next, 100, "…");
            return Err(FusionClientError::Protocol {
                message: format!(
                    "{method} sent the nextCursor \"{shown}\" a second time, after {} items: the list would never end",
                    items.len()
                ),
                source: None,
            });
        }
        cursor = Some(next);
    }
    Err(FusionClientError::Protocol {
        message: format!(
            "{method} did not end within {MAX_LIST_PAGES} pages ({} items so far): the server still sends a nextCursor",
            items.len()
        ),
        source: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of two numbers out of `0..n`, the cursor being the next start.
    async fn numbers(
        n: u32,
        cursor: Option<String>,
    ) -> Result<(Vec<u32>, Option<String>), FusionClientError> {
        let start: u32 = cursor.map_or(0, |c| c.parse().unwrap());
        let end = (start + 2).min(n);
        let next = (end < n).then(|| end.to_string());
        Ok(((start..end).collect(), next))
    }

    #[tokio::test]
    async fn every_page_is_read_once_in_order() {
        let mut asked = Vec::new();
        let items = every_page("tools/list", |cursor| {
            asked.push(cursor.clone());
            numbers(5, cursor)
        })
        .await
        .unwrap();
        assert_eq!(items, vec![0, 1, 2, 3, 4]);
        assert_eq!(asked, vec![None, Some("2".into()), Some("4".into())]);
    }

    #[tokio::test]
    async fn a_repeated_cursor_ends_the_listing_with_a_protocol_error() {
        let error = every_page("tools/list", |_| async {
            Ok((vec![1], Some(String::from("again"))))
        })
        .await
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "protocol error: tools/list sent the nextCursor \"again\" a second time, after 2 items: the list would never end"
        );
    }

    #[tokio::test]
    async fn a_list_of_more_than_max_pages_is_a_protocol_error() {
        let mut n = 0u32;
        let error = every_page("tools/list", |_| {
            n += 1;
            let next = n.to_string();
            async move { Ok((vec![()], Some(next))) }
        })
        .await
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "protocol error: tools/list did not end within 1000 pages (1000 items so far): the server still sends a nextCursor"
        );
        assert_eq!(n, 1000);
    }
}
