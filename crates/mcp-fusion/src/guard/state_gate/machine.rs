//! [`StateMachine`]: the states of one session's workflow (a cart: `empty`,
//! `filled`, `paid`), the actions allowed in each, and the moves a
//! successful call makes. Declared once on the server
//! ([`ServerBuilder::state_machine`](crate::ServerBuilder::state_machine))
//! and checked when it is built.

use std::collections::{BTreeMap, BTreeSet};

/// A state machine that gates actions by the session's current state (wire
/// contract §10): an action it names is listed (`tools/list`) and may be
/// called only in the states it is allowed in, and a successful call of an
/// action with a transition from the current state moves the session to the
/// transition's target (a failed call never moves it). Actions it does not
/// name are not gated.
///
/// Actions are named as they are called: `group.action` (`cart.checkout`)
/// or a plain tool's name. An action is allowed in the `from` state of each
/// of its transitions and in the states given to [`allow`](Self::allow).
/// The states are the initial one and those the transitions name. [`ServerBuilder::build`](crate::ServerBuilder::build) fails with
/// [`BuildError::BadStateMachine`](crate::BuildError::BadStateMachine) for a
/// machine without an initial state, with a state no transition reaches or
/// leaves and that is not the initial one (in `allow`), with two transitions of one
/// action from one state, or that names an action the server does not
/// have.
///
/// ```
/// use mcp_fusion::guard::StateMachine;
/// use mcp_fusion::{Action, FusionServer, Group, ToolError};
///
/// async fn ok() -> Result<&'static str, ToolError> { Ok("done") }
///
/// let cart = StateMachine::new("cart")
///     .initial("empty")
///     .transition("cart.add_item", "empty", "filled")
///     .transition("cart.add_item", "filled", "filled")
///     .transition("cart.checkout", "filled", "paid")
///     .allow("cart.view", ["empty", "filled", "paid"]);
/// let server = FusionServer::builder("shop", "1.0.0")
///     .group(
///         Group::new("cart")
///             .action(Action::new("add_item", ok))
///             .action(Action::new("checkout", ok))
///             .action(Action::new("view", ok).read_only()),
///     )
///     .state_machine(cart)
///     .build()
///     .expect("a valid definition");
/// # let _ = server;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMachine {
    pub(crate) name: String,
    pub(crate) initial: Option<String>,
    /// `(action, from, to)`, in the order given.
    pub(crate) transitions: Vec<(String, String, String)>,
    /// `(action, state)` allowed without a move.
    pub(crate) allowed: Vec<(String, String)>,
}

impl StateMachine {
    /// A machine named `name` (`cart`: the refusal says "the cart is
    /// \"empty\""), with no state yet.
    pub fn new(name: impl Into<String>) -> Self {
        StateMachine {
            name: name.into(),
            initial: None,
            transitions: Vec::new(),
            allowed: Vec::new(),
        }
    }

    /// The state of a session that has made no move yet (required).
    pub fn initial(mut self, state: impl Into<String>) -> Self {
        self.initial = Some(state.into());
        self
    }

    /// `action` is allowed in `from`, and a successful call of it there
    /// moves the session to `to` (`to` may be `from`: allowed there, no
    /// move). In one session the calls of an action that moves it run one
    /// at a time (wire contract §10.1); an action whose transitions all
    /// stay where they start runs side by side, as one given by
    /// [`allow`](Self::allow).
    pub fn transition(
        mut self,
        action: impl Into<String>,
        from: impl Into<String>,
        to: impl Into<String>,
    ) -> Self {
        self.transitions
            .push((action.into(), from.into(), to.into()));
        self
    }

    /// `action` is allowed in each of `states`, and calling it moves
    /// nothing (a read in every state).
    pub fn allow<I, S>(mut self, action: impl Into<String>, states: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let action = action.into();
        for state in states {
            self.allowed.push((action.clone(), state.into()));
        }
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every state it knows, in the order first named: the initial one,
    /// then those its transitions name.
    pub(crate) fn states(&self) -> Vec<&str> {
        let mut states: Vec<&str> = self.initial.iter().map(String::as_str).collect();
        for (_, from, to) in &self.transitions {
            for state in [from, to] {
                if !states.contains(&state.as_str()) {
                    states.push(state);
                }
            }
        }
        states
    }

    /// Every action it names.
    pub(crate) fn actions(&self) -> BTreeSet<&str> {
        self.transitions
            .iter()
            .map(|(action, _, _)| action.as_str())
            .chain(self.allowed.iter().map(|(action, _)| action.as_str()))
            .collect()
    }

    /// Why it cannot be used, if it cannot (the actions are checked against
    /// the server apart).
    pub(crate) fn problem(&self) -> Option<String> {
        if self.initial.is_none() {
            return Some(String::from(
                "it has no initial state (StateMachine::initial)",
            ));
        }
        let states = self.states();
        if let Some((action, state)) = self
            .allowed
            .iter()
            .find(|(_, state)| !states.contains(&state.as_str()))
        {
            return Some(format!(
                "{action} is allowed in \"{state}\", a state no transition reaches or leaves"
            ));
        }
        let mut moves: BTreeMap<(&str, &str), &str> = BTreeMap::new();
        for (action, from, to) in &self.transitions {
            if moves
                .insert((action, from), to)
                .is_some_and(|other| other != to)
            {
                return Some(format!("{action} has two transitions from \"{from}\""));
            }
        }
        None
    }
}
