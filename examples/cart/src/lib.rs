//! A shopping cart whose actions follow the cart's state, per session:
//!
//! - a [`StateMachine`] `cart`: `empty` → `filled` (`cart.add_item`) →
//!   `checked_out` (`cart.checkout`) → `paid` (`cart.pay`); `cart.view` in
//!   every state. `tools/list` shows `cart` with only the actions allowed
//!   now, each move sends `notifications/tools/list_changed`, and a call
//!   out of order (`pay` before `checkout`) is refused with `FORBIDDEN`
//!   naming the state and what is allowed now (wire contract §10.1);
//! - `cart.pay` serialized by its `order` argument: two payments of one
//!   order run one after the other, of two orders side by side (§10.2).
//!
//! The cart's contents are per process in this example (one shop); the
//! state machine's state is per session.

use std::sync::{Arc, Mutex, PoisonError};

use mcp_fusion::guard::StateMachine;
use mcp_fusion::{Action, BuildError, FusionServer, Group, Json, State, ToolError};
use serde::{Deserialize, Serialize};

/// The items in the cart.
#[derive(Clone, Default)]
pub struct Items(Arc<Mutex<Vec<String>>>);

/// `cart.add_item`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct AddItem {
    /// The item's name, e.g. `tea`.
    pub item: String,
}

/// `cart.pay`'s arguments.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Pay {
    /// The order to pay, as `cart.checkout` returned it.
    pub order: String,
}

/// What `cart.view` and `cart.checkout` return.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Cart {
    /// The items, in the order added.
    pub items: Vec<String>,
}

async fn add_item(State(items): State<Items>, args: AddItem) -> Result<Json<Cart>, ToolError> {
    if args.item.trim().is_empty() {
        return Err(ToolError::required("item"));
    }
    let mut list = items.0.lock().unwrap_or_else(PoisonError::into_inner);
    list.push(args.item);
    Ok(Json(Cart {
        items: list.clone(),
    }))
}

async fn view(State(items): State<Items>) -> Result<Json<Cart>, ToolError> {
    let list = items.0.lock().unwrap_or_else(PoisonError::into_inner);
    Ok(Json(Cart {
        items: list.clone(),
    }))
}

async fn checkout(State(items): State<Items>) -> Result<String, ToolError> {
    let count = items.0.lock().unwrap_or_else(PoisonError::into_inner).len();
    let items = if count == 1 {
        String::from("1 item")
    } else {
        format!("{count} items")
    };
    Ok(format!(
        "Order ord_1 holds {items}. Pay it with cart.pay, order \"ord_1\"."
    ))
}

async fn pay(args: Pay) -> Result<String, ToolError> {
    Ok(format!("Order {} is paid.", args.order))
}

/// The cart's state machine.
pub fn cart_machine() -> StateMachine {
    StateMachine::new("cart")
        .initial("empty")
        .transition("cart.add_item", "empty", "filled")
        .transition("cart.add_item", "filled", "filled")
        .transition("cart.checkout", "filled", "checked_out")
        .transition("cart.pay", "checked_out", "paid")
        .allow("cart.view", ["empty", "filled", "checked_out", "paid"])
}

/// The cart server.
///
/// # Errors
/// [`BuildError`] only if the definition itself is wrong (never here).
pub fn server() -> Result<FusionServer, BuildError> {
    let cart = Group::new("cart")
        .description("A shopping cart: add items, check out, pay.")
        .action(Action::new("add_item", add_item).description("Add an item to the cart."))
        .action(
            Action::new("view", view)
                .description("Show the cart.")
                .read_only(),
        )
        .action(Action::new("checkout", checkout).description("Check the cart out as an order."))
        .action(
            Action::new("pay", pay)
                .description("Pay an order.")
                .serialize_by("order"),
        );
    FusionServer::builder("cart-example", env!("CARGO_PKG_VERSION"))
        .state(Items::default())
        .group(cart)
        .state_machine(cart_machine())
        .build()
}
