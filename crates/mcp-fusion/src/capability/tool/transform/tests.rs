//! `Transforms::apply` on listed tools: the schema a hidden argument
//! leaves, the filters, the names that collide.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Value, json};

use super::{ToolTransform, TransformError, Transforms};
use crate::handler::CallContext;

fn tool(name: &str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else {
        panic!("an object schema")
    };
    Tool::new(name.to_owned(), "A tool.", Arc::new(schema))
}

fn tools() -> Vec<Tool> {
    vec![
        tool(
            "charge",
            json!({
                "type": "object",
                "properties": {"amount": {"type": "integer"}, "currency": {"type": "string"}},
                "required": ["amount", "currency"]
            }),
        ),
        tool(
            "refund",
            json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}),
        ),
    ]
}

#[test]
fn a_hidden_argument_leaves_properties_and_required_and_is_set_on_calls() {
    let transforms = Transforms::new().tool(
        "charge",
        ToolTransform::new()
            .hide("currency", "EUR")
            .hide_with("amount", |ctx: &CallContext| json!(ctx.name().len())),
    );
    let shown = transforms.apply(&tools()).unwrap();
    assert_eq!(
        Value::Object((*shown[0].tool.input_schema).clone()),
        json!({"type": "object", "properties": {}})
    );
    let ctx = CallContext::detached("billing.charge", None);
    let sent = json!({"currency": "USD", "note": "x"});
    let Value::Object(sent) = sent else { panic!() };
    assert_eq!(
        Value::Object(shown[0].arguments(&ctx, sent)),
        json!({"currency": "EUR", "note": "x", "amount": 14})
    );
    // An untouched tool keeps its schema.
    assert_eq!(shown[1].tool, tools()[1]);
}

#[test]
fn filters_allow_deny_and_predicate() {
    let names = |t: Transforms| -> Vec<String> {
        t.apply(&tools())
            .unwrap()
            .into_iter()
            .map(|t| t.tool.name.into_owned())
            .collect()
    };
    assert_eq!(names(Transforms::new().allow(["refund"])), ["refund"]);
    assert_eq!(names(Transforms::new().deny(["refund"])), ["charge"]);
    assert_eq!(
        names(Transforms::new().filter(|t| t.name.starts_with('c'))),
        ["charge"]
    );
    // A rename to a filtered-out tool's name is no collision.
    let renamed = Transforms::new()
        .deny(["refund"])
        .tool("charge", ToolTransform::new().rename("refund"));
    assert_eq!(names(renamed), ["refund"]);
}

#[test]
fn collisions_and_missing_arguments_name_the_entry() {
    let taken = Transforms::new().tool("refund", ToolTransform::new().rename("charge"));
    assert_eq!(
        taken.apply(&tools()).unwrap_err(),
        TransformError::NameTaken {
            tool: "refund".into(),
            name: "charge".into()
        }
    );
    let twice = Transforms::new()
        .tool("charge", ToolTransform::new().rename("pay"))
        .tool("refund", ToolTransform::new().rename("pay"));
    assert_eq!(
        twice.check().unwrap_err(),
        TransformError::NameTaken {
            tool: "refund".into(),
            name: "pay".into()
        }
    );
    let hidden = Transforms::new().tool("refund", ToolTransform::new().hide("id", 1).hide("id", 2));
    assert_eq!(
        hidden.check().unwrap_err(),
        TransformError::HiddenTwice {
            tool: "refund".into(),
            argument: "id".into()
        }
    );
    let absent = Transforms::new().tool("refund", ToolTransform::new().hide("reason", "x"));
    assert_eq!(
        absent.apply(&tools()).unwrap_err().to_string(),
        "transform of \"refund\": hides \"reason\", which is not an argument of the tool"
    );
}

#[test]
fn a_groups_discriminator_cannot_be_hidden() {
    let mut group = tool(
        "billing",
        json!({"type": "object", "properties": {"action": {"type": "string"}, "id": {"type": "string"}}}),
    );
    let mut meta = rmcp::model::MetaObject::new();
    meta.insert(
        crate::tool_meta::DISCRIMINATOR_META_KEY.to_owned(),
        json!("action"),
    );
    group.meta = Some(meta);
    let hiding = |argument: &str| {
        Transforms::new()
            .tool(
                "billing",
                ToolTransform::new().hide(argument, "get_invoice"),
            )
            .apply(std::slice::from_ref(&group))
    };
    assert_eq!(
        hiding("action").unwrap_err().to_string(),
        "transform of \"billing\": hides \"action\", the argument that picks the group's action; the group would still list every action: show the group whole, or filter it out"
    );
    assert!(hiding("id").is_ok());
}

/// A group's hidden argument reaches only the calls of the actions that take
/// it: `get_invoice` would refuse an unknown `currency`.
#[test]
fn a_groups_hidden_argument_is_set_only_for_the_actions_that_take_it() {
    let mut group = tool(
        "billing",
        json!({"type": "object", "properties": {
            "action": {"type": "string", "enum": ["get_invoice", "create_invoice"]},
            "id": {"type": "string"}, "currency": {"type": "string"}
        }, "required": ["action"]}),
    );
    let mut meta = rmcp::model::MetaObject::new();
    meta.insert(
        crate::tool_meta::DISCRIMINATOR_META_KEY.to_owned(),
        json!("action"),
    );
    meta.insert(
        crate::tool_meta::ACTIONS_META_KEY.to_owned(),
        json!([
            {"name": "get_invoice", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}},
            {"name": "create_invoice", "inputSchema": {"type": "object", "properties": {"currency": {"type": "string"}}}}
        ]),
    );
    group.meta = Some(meta);
    let shown = Transforms::new()
        .tool("billing", ToolTransform::new().hide("currency", "EUR"))
        .apply(std::slice::from_ref(&group))
        .unwrap();
    let ctx = CallContext::detached("finance.billing", None);
    let call = |sent: Value| {
        let Value::Object(sent) = sent else { panic!() };
        Value::Object(shown[0].arguments(&ctx, sent))
    };
    assert_eq!(
        call(json!({"action": "get_invoice", "id": "inv_1"})),
        json!({"action": "get_invoice", "id": "inv_1"})
    );
    assert_eq!(
        call(json!({"action": "create_invoice", "currency": "USD"})),
        json!({"action": "create_invoice", "currency": "EUR"})
    );
    // An action the group does not list: the upstream answers for it.
    assert_eq!(
        call(json!({"action": "refund"})),
        json!({"action": "refund", "currency": "EUR"})
    );
}
