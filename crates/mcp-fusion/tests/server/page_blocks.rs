//! Reading the documentation's pages for the checks that keep them true
//! (`readme_example`, `guide_example`): a page's fenced blocks, the code a
//! test file holds between two markers, and a result's text.

/// The `n`th (from 0) fenced block of `page` opened with the line `fence`
/// (such as "```xml") after the first occurrence of `after`, without its
/// fences.
pub fn block<'a>(page: &'a str, fence: &str, after: &str, n: usize) -> &'a str {
    let from = page.find(after).expect("the page has the heading") + after.len();
    let fence = format!("{fence}\n");
    let block = page[from..]
        .split(&fence)
        .nth(n + 1)
        .expect("the page's block");
    &block[..block.find("```").expect("a closed block")]
}

/// The lines of `file` between the lines `// {marker}: begin` and
/// `// {marker}: end`.
pub fn marked<'a>(file: &'a str, marker: &str) -> &'a str {
    let begin = format!("// {marker}: begin\n");
    let start = file.find(&begin).expect("the begin marker") + begin.len();
    let end = file
        .find(&format!("// {marker}: end"))
        .expect("the end marker");
    &file[start..end]
}

/// The first text block of a result.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}
