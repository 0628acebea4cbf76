//! `actionability-rmcp --cart`: the cart example's tool (`examples/cart`) on
//! plain rmcp, written as a plain server writes it: every action listed and
//! callable in any order, no state machine; an action that cannot run now
//! is a tool result with `isError` true and a plain sentence (the same
//! sentences as the TypeScript and FastMCP twins). The contents are per
//! process.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

/// What `cart`'s description says, as the twins say it.
const CART_DESCRIPTION: &str = "A shopping cart: add items, check out, pay.

Set \"action\" to one of:
- add_item: Add an item to the cart. (requires item)
- view: Show the cart.
- checkout: Check the cart out as an order.
- pay: Pay an order. (requires order)";

/// The cart's actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CartAction {
    /// Add an item.
    AddItem,
    /// Show the cart.
    View,
    /// Check the cart out as an order.
    Checkout,
    /// Pay an order.
    Pay,
}

/// `cart`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CartArgs {
    /// The action to run.
    pub action: CartAction,
    /// The item's name, e.g. `tea`.
    pub item: Option<String>,
    /// The order to pay, as `cart.checkout` returned it.
    pub order: Option<String>,
}

/// The cart: its items and its order once checked out (`paid` or not).
#[derive(Default)]
struct Cart {
    items: Vec<String>,
    order: Option<bool>,
}

/// The plain rmcp cart server.
#[derive(Clone)]
pub struct Server {
    cart: Arc<Mutex<Cart>>,
    tool_router: ToolRouter<Self>,
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn failed(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

impl Cart {
    /// The answer to `args` on this cart.
    fn run(&mut self, args: CartArgs) -> CallToolResult {
        match args.action {
            CartAction::AddItem => {
                let Some(item) = args.item.filter(|i| !i.trim().is_empty()) else {
                    return failed("Missing required field for add_item: item");
                };
                if self.order.is_some() {
                    return failed("The cart is checked out: no item can be added");
                }
                self.items.push(item);
                text(json!({ "items": self.items }).to_string())
            }
            CartAction::View => text(json!({ "items": self.items }).to_string()),
            CartAction::Checkout => self.checkout(),
            CartAction::Pay => self.pay(args.order),
        }
    }

    fn checkout(&mut self) -> CallToolResult {
        if self.items.is_empty() {
            return failed("The cart is empty: nothing to check out");
        }
        if self.order.is_some() {
            return failed("The cart is already checked out as order ord_1");
        }
        self.order = Some(false);
        let count = match self.items.len() {
            1 => String::from("1 item"),
            n => format!("{n} items"),
        };
        text(format!(
            "Order ord_1 holds {count}. Pay it with cart.pay, order \"ord_1\"."
        ))
    }

    fn pay(&mut self, order: Option<String>) -> CallToolResult {
        let Some(order) = order.filter(|o| !o.is_empty()) else {
            return failed("Missing required field for pay: order");
        };
        match self.order {
            Some(false) if order == "ord_1" => {
                self.order = Some(true);
                text(format!("Order {order} is paid."))
            }
            Some(true) if order == "ord_1" => failed(&format!("Order {order} is already paid")),
            _ => failed(&format!("No order {order}: check the cart out first")),
        }
    }
}

#[tool_router]
impl Server {
    /// An empty cart.
    pub fn new() -> Self {
        Server {
            cart: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    /// `cart`: the action `action` names, on the cart.
    #[tool(description = CART_DESCRIPTION)]
    async fn cart(
        &self,
        Parameters(args): Parameters<CartArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mut cart = self.cart.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(cart.run(args))
    }
}

#[tool_handler(router = self.tool_router, name = "actionability-rmcp")]
impl ServerHandler for Server {}
