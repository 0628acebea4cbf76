//! The floor server: `get_invoice` on bare rmcp, the least work an rmcp
//! server does for this tool. A hand-written [`ServerHandler`] with three
//! hand-written checks (no JSON Schema validator, no regex) and a plain-text
//! error that lists what failed; the same input schema as the bench example
//! (derived with schemars, as rmcp's `#[tool]` macros would).

use std::sync::Arc;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use schemars::JsonSchema;
use serde_json::Value;

/// The tool's name.
pub const TOOL: &str = "get_invoice";

// Only the input schema comes from this type: the checks read the JSON
// object by hand. Its doc line is the schema's description.
/// The arguments of `get_invoice`.
#[derive(JsonSchema)]
#[allow(dead_code)] // Never built: it only describes the schema.
struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
    /// Who the invoice is sent to, e.g. `user@example.com`.
    #[schemars(email)]
    email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    amount: u64,
}

/// The floor server's handler (one per connection; cheap to build).
#[derive(Clone)]
pub struct Floor {
    tool: Arc<Tool>,
}

impl Default for Floor {
    fn default() -> Self {
        Floor::new()
    }
}

impl Floor {
    /// The handler, with the tool's description and schema built once.
    pub fn new() -> Self {
        let schema = rmcp::handler::server::common::schema_for_type::<GetInvoice>();
        Floor {
            tool: Arc::new(Tool::new(TOOL, "Read one invoice by id.", schema)),
        }
    }
}

/// Checks the arguments: `Ok(id)` when all three checks pass, else one line
/// per failed check (`field: what is wrong`), in the order id, email,
/// amount.
pub fn check_arguments(arguments: &JsonObject) -> Result<&str, Vec<String>> {
    let mut problems = Vec::new();
    let id = match arguments.get("id") {
        Some(Value::String(id)) if is_invoice_id(id) => Some(id.as_str()),
        Some(Value::String(id)) => {
            problems.push(format!("id: must match ^inv_[0-9]+$, got {id:?}"));
            None
        }
        Some(other) => {
            problems.push(format!("id: must be a string, got {other}"));
            None
        }
        None => {
            problems.push("id: required".to_owned());
            None
        }
    };
    match arguments.get("email") {
        Some(Value::String(email)) if is_email(email) => {}
        Some(Value::String(email)) => {
            problems.push(format!("email: must be an email address, got {email:?}"));
        }
        Some(other) => problems.push(format!("email: must be a string, got {other}")),
        None => problems.push("email: required".to_owned()),
    }
    match arguments.get("amount") {
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n >= 1) => {}
        Some(other) => {
            problems.push(format!("amount: must be an integer >= 1, got {other}"));
        }
        None => problems.push("amount: required".to_owned()),
    }
    match id {
        Some(id) if problems.is_empty() => Ok(id),
        _ => Err(problems),
    }
}

/// `inv_` followed by one or more ASCII digits.
fn is_invoice_id(id: &str) -> bool {
    id.strip_prefix("inv_")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// One `@`, something before it, and a dot inside the part after it (not
/// first, not last).
fn is_email(email: &str) -> bool {
    let mut parts = email.split('@');
    let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !local.is_empty()
        && domain
            .find('.')
            .is_some_and(|dot| dot > 0 && !domain.ends_with('.'))
}

impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-floor", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == TOOL).then(|| (*self.tool).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        if request.name != TOOL {
            return Err(rmcp::ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let result = match check_arguments(&arguments) {
            // The check leaves only `inv_` and digits: nothing to escape.
            Ok(id) => CallToolResult::success(vec![ContentBlock::text(format!(
                r#"{{"id":"{id}","status":"open"}}"#
            ))]),
            Err(problems) => CallToolResult::error(vec![ContentBlock::text(format!(
                "Invalid arguments for get_invoice:\n{}",
                problems.join("\n")
            ))]),
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object literal"),
        }
    }

    #[test]
    fn the_three_checks() {
        let good =
            object(serde_json::json!({"id": "inv_1", "email": "user@example.com", "amount": 5}));
        assert_eq!(check_arguments(&good), Ok("inv_1"));
        let bad = object(serde_json::json!({"id": "bad", "email": "nope", "amount": 0}));
        assert_eq!(
            check_arguments(&bad),
            Err(vec![
                r#"id: must match ^inv_[0-9]+$, got "bad""#.to_owned(),
                r#"email: must be an email address, got "nope""#.to_owned(),
                "amount: must be an integer >= 1, got 0".to_owned(),
            ])
        );
        assert_eq!(
            check_arguments(&JsonObject::new()),
            Err(vec![
                "id: required".to_owned(),
                "email: required".to_owned(),
                "amount: required".to_owned()
            ])
        );
        for email in ["a@b.c", "first.last@mail.example.com"] {
            assert!(is_email(email), "{email}");
        }
        for email in ["a@b", "@b.c", "a@@b.c", "a@b@c.d", "a@.bc", "a@bc.", ""] {
            assert!(!is_email(email), "{email}");
        }
        for id in ["inv_", "inv_1a", "INV_1", "inv_-1"] {
            assert!(!is_invoice_id(id), "{id}");
        }
        let float = object(serde_json::json!({"id": "inv_12", "email": "a@b.c", "amount": 1.5}));
        assert_eq!(
            check_arguments(&float),
            Err(vec!["amount: must be an integer >= 1, got 1.5".to_owned()])
        );
    }
}
