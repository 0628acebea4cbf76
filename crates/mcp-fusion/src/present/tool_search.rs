//! The result of a tool search (`search_tools`, `docs/wire-contract.md`
//! §11): the tools found, as the model calls them, and one block that says
//! what to do with them, or what to try when nothing matched.

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value, json};

use super::guidance::text;

/// The element of the block a tool search's result ends with
/// (`<search_result shown="N" total="M">…</search_result>`,
/// `docs/wire-contract.md` §11): for a client that shows the data apart
/// from what is written for the model.
pub const SEARCH_RESULT_TAG: &str = "search_result";

/// One search's answer, before it is written.
pub(crate) struct SearchAnswer<'a> {
    /// The query as the caller sent it.
    pub query: &'a str,
    /// The tools shown, best first, as `tools/list` would list them to the
    /// caller.
    pub tools: Vec<Tool>,
    /// How many tools matched (shown or not).
    pub total: usize,
    /// The most tools one search may show (the `limit` argument's maximum).
    pub max_limit: usize,
    /// The limit this search had.
    pub limit: usize,
    /// How many tools the caller may use (for an empty answer).
    pub searchable: usize,
}

/// A found tool as the model calls it: `{"name", "description"?,
/// "inputSchema"}`.
fn definition(tool: &Tool) -> Value {
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(tool.name.to_string()));
    if let Some(description) = &tool.description {
        entry.insert("description".into(), Value::String(description.to_string()));
    }
    entry.insert(
        "inputSchema".into(),
        Value::Object(tool.input_schema.as_ref().clone()),
    );
    Value::Object(entry)
}

/// What the block after the tools says.
fn note(answer: &SearchAnswer<'_>) -> String {
    let shown = answer.tools.len();
    let total = answer.total;
    let call = "Call one by its name with arguments that match its inputSchema: it is callable though tools/list does not show it.";
    let body = if total == 0 {
        format!(
            "No tool matched \"{}\" among the {} tools you may use. Search again with other words: what the task acts on (invoice, customer, file), what it does (create, refund, send), or a parameter's name.",
            answer.query, answer.searchable
        )
    } else if shown < total {
        let wider = match answer.limit < answer.max_limit {
            true => format!(
                "with a higher limit (at most {}) or more precise words",
                answer.max_limit
            ),
            false => String::from("with more precise words"),
        };
        format!(
            "Showing the {shown} best of {total} matching tools. {call} To see the others, call search_tools again {wider}."
        )
    } else {
        let tools = if total == 1 { "tool" } else { "tools" };
        format!("{total} matching {tools}, best first. {call}")
    };
    format!(
        "<{SEARCH_RESULT_TAG} shown=\"{shown}\" total=\"{total}\">{}</{SEARCH_RESULT_TAG}>",
        text(&body)
    )
}

/// The result of a search: the data block `{"tools": [definition, …]}`
/// (compact JSON, best first), then the `<search_result>` block.
pub(crate) fn search_result(answer: &SearchAnswer<'_>) -> CallToolResult {
    let tools: Vec<Value> = answer.tools.iter().map(definition).collect();
    let data = json!({ "tools": tools });
    CallToolResult::success(vec![
        ContentBlock::text(data.to_string()),
        ContentBlock::text(note(answer)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(tools: Vec<Tool>, total: usize, limit: usize) -> SearchAnswer<'static> {
        SearchAnswer {
            query: "refund <all> & more",
            tools,
            total,
            max_limit: 20,
            limit,
            searchable: 7,
        }
    }

    fn texts(result: &CallToolResult) -> Vec<&str> {
        result
            .content
            .iter()
            .map(|block| block.as_text().unwrap().text.as_str())
            .collect()
    }

    const WIRE: &str = include_str!("../../../../docs/wire-contract.md");

    #[test]
    fn the_blocks_are_those_the_wire_contract_shows() {
        let tool = Tool::new(
            "send_email",
            "Sends.",
            std::sync::Arc::new(rmcp::model::JsonObject::new()),
        );
        let cut = SearchAnswer {
            tools: vec![tool.clone()],
            total: 2,
            limit: 1,
            ..answer(Vec::new(), 0, 5)
        };
        let whole = SearchAnswer {
            tools: vec![tool],
            total: 1,
            ..answer(Vec::new(), 0, 5)
        };
        let empty = SearchAnswer {
            query: "weather forecast",
            searchable: 3,
            ..answer(Vec::new(), 0, 5)
        };
        for shown in [note(&cut), note(&whole), note(&empty)] {
            assert!(
                WIRE.contains(&format!("\n{shown}\n")),
                "§11 does not show:\n{shown}"
            );
        }
    }

    #[test]
    fn empty_cut_and_whole_answers() {
        let empty = search_result(&answer(Vec::new(), 0, 5));
        assert_eq!(
            texts(&empty),
            [
                "{\"tools\":[]}",
                "<search_result shown=\"0\" total=\"0\">No tool matched \"refund &lt;all> &amp; more\" among the 7 tools you may use. Search again with other words: what the task acts on (invoice, customer, file), what it does (create, refund, send), or a parameter's name.</search_result>"
            ]
        );
        let tool: Tool = serde_json::from_value(json!({
            "name": "refund", "description": "Refunds a payment.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "annotations": {"readOnlyHint": false}
        }))
        .unwrap();
        let cut = search_result(&answer(vec![tool.clone()], 3, 1));
        assert_eq!(
            texts(&cut),
            [
                "{\"tools\":[{\"name\":\"refund\",\"description\":\"Refunds a payment.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}}]}",
                "<search_result shown=\"1\" total=\"3\">Showing the 1 best of 3 matching tools. Call one by its name with arguments that match its inputSchema: it is callable though tools/list does not show it. To see the others, call search_tools again with a higher limit (at most 20) or more precise words.</search_result>"
            ]
        );
        let at_most = search_result(&answer(vec![tool.clone()], 3, 20));
        assert!(
            texts(&at_most)[1]
                .ends_with("call search_tools again with more precise words.</search_result>")
        );
        let whole = search_result(&answer(vec![tool], 1, 5));
        assert_eq!(
            texts(&whole)[1],
            "<search_result shown=\"1\" total=\"1\">1 matching tool, best first. Call one by its name with arguments that match its inputSchema: it is callable though tools/list does not show it.</search_result>"
        );
    }
}
