//! [`Gates`]: the server's state machines, the sessions' states and whom to
//! tell of a move; [`ActionGate`]: what one action's gate decides.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use super::machine::StateMachine;
use super::store::{MemoryStates, STATE_TTL};
use crate::guard::keyed_locks::{Held, KeyedLocks};

/// Tells the connections of a session (a `CallContext::caller` key) that
/// their tools changed; set by the server once built.
pub(crate) type Notify = Arc<dyn Fn(&str) + Send + Sync>;

/// The server's state machines and the sessions' states.
#[derive(Default)]
pub(crate) struct Gates {
    machines: Vec<Arc<StateMachine>>,
    /// This process's view of the states (all of them without a Redis
    /// store; a cache of Redis's with one).
    states: MemoryStates,
    /// One turn per machine and session for the calls that move it: the
    /// check, the call and its move happen in one turn, so two calls at
    /// once in one session never both pass a check that only one of them
    /// may pass, nor move it back (wire contract §10.1).
    turns: KeyedLocks,
    notify: OnceLock<Notify>,
    /// The states shared with other replicas.
    #[cfg(feature = "redis")]
    store: Option<crate::guard::RedisGuardStore>,
}

/// The gate of one action: its machine, the states it is allowed in, and
/// its moves.
#[derive(Clone)]
pub(crate) struct ActionGate {
    pub(crate) gates: Arc<Gates>,
    pub(crate) machine: Arc<StateMachine>,
    pub(crate) allowed: Vec<String>,
    /// From a state to another.
    pub(crate) moves: BTreeMap<String, String>,
}

/// Whether a caller key has a session: a stateless 2026-07-28 HTTP call
/// (`address:…`) has none.
pub(crate) fn has_session(caller: &str) -> bool {
    !caller.starts_with("address:")
}

impl Gates {
    /// The gates of `machines`.
    ///
    /// # Errors
    /// The name of the first machine that cannot be used, and why.
    pub(crate) fn new(machines: Vec<StateMachine>) -> Result<Self, (String, String)> {
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for machine in &machines {
            if let Some(problem) = machine.problem() {
                return Err((machine.name.clone(), problem));
            }
            for action in machine.actions() {
                if let Some(other) = seen.insert(action.to_owned(), machine.name.clone()) {
                    return Err((
                        machine.name.clone(),
                        format!("{action} is gated by the machine \"{other}\" too"),
                    ));
                }
            }
        }
        Ok(Gates {
            machines: machines.into_iter().map(Arc::new).collect(),
            ..Gates::default()
        })
    }

    /// The same, with the states kept in `store` (shared by replicas).
    #[cfg(feature = "redis")]
    pub(crate) fn with_store(mut self, store: Option<crate::guard::RedisGuardStore>) -> Self {
        self.store = store;
        self
    }

    /// Whether the states are shared through a store.
    pub(crate) fn shared(&self) -> bool {
        #[cfg(feature = "redis")]
        return self.store.is_some();
        #[cfg(not(feature = "redis"))]
        false
    }

    /// Reads the states of `caller` in every machine from the store into
    /// this process's view (before a `tools/list`). Nothing without a store.
    pub(crate) async fn refresh(&self, caller: &str) {
        for machine in &self.machines {
            self.refresh_one(&machine.name, caller).await;
        }
    }

    /// Reads the state of `caller` in `machine` from the store, if any.
    async fn refresh_one(&self, machine: &str, caller: &str) -> bool {
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store
            && let Some(Some(state)) = store.state(machine, caller).await
        {
            return self.states.set(machine, caller, &state);
        }
        #[cfg(not(feature = "redis"))]
        let _ = (machine, caller);
        false
    }

    /// Records `caller`'s move from `from` to `to` in `machine`, in the
    /// store (only if the state there is still `from`: another replica's
    /// move made meanwhile is kept, and read here instead) and here;
    /// whether the session's tools changed in this process's view.
    async fn record(&self, machine: &StateMachine, caller: &str, from: &str, to: &str) -> bool {
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store {
            let initial = machine.initial.as_deref().unwrap_or_default();
            let moves = (from, initial, to);
            if store.move_state(&machine.name, caller, moves).await == Some(false) {
                return self.refresh_one(&machine.name, caller).await;
            }
        }
        self.states.set(&machine.name, caller, to) && to != from
    }

    /// Whether there is any machine.
    pub(crate) fn is_empty(&self) -> bool {
        self.machines.is_empty()
    }

    /// The first action a machine names that `exists` says the server does
    /// not have, with its machine's name.
    pub(crate) fn unknown_action(&self, exists: impl Fn(&str) -> bool) -> Option<(String, String)> {
        self.machines.iter().find_map(|machine| {
            machine
                .actions()
                .into_iter()
                .find(|action| !exists(action))
                .map(|action| (machine.name.clone(), action.to_owned()))
        })
    }

    /// Sets whom to tell of a move (once).
    pub(crate) fn set_notify(&self, notify: Notify) {
        let _ = self.notify.set(notify);
    }

    /// The gate of the action called `name`, if a machine names it.
    pub(crate) fn gate_of(self: &Arc<Self>, name: &str) -> Option<ActionGate> {
        let machine = self.machines.iter().find(|m| m.actions().contains(name))?;
        let mut allowed: Vec<String> = Vec::new();
        let mut moves = BTreeMap::new();
        for (action, from, to) in &machine.transitions {
            if action == name {
                allowed.push(from.clone());
                moves.insert(from.clone(), to.clone());
            }
        }
        for (action, state) in &machine.allowed {
            if action == name {
                allowed.push(state.clone());
            }
        }
        let order = machine.states();
        allowed.sort_by_key(|s| order.iter().position(|o| o == s));
        allowed.dedup();
        Some(ActionGate {
            gates: Arc::clone(self),
            machine: Arc::clone(machine),
            allowed,
            moves,
        })
    }
}

impl ActionGate {
    /// The current state of `caller`, read again from the store (with one).
    pub(crate) async fn current_shared(&self, caller: &str) -> String {
        self.gates.refresh_one(&self.machine.name, caller).await;
        self.current(caller)
    }

    /// The current state of the session `caller` in the action's machine,
    /// as this process knows it.
    pub(crate) fn current(&self, caller: &str) -> String {
        self.gates
            .states
            .get(&self.machine.name, caller)
            .or_else(|| self.machine.initial.clone())
            .unwrap_or_default()
    }

    /// Whether the action is allowed in `state`.
    /// Waits for the turn of the session `caller` in this gate's machine
    /// when this action moves it (see `Gates::turns`);
    /// `None` for an action that never moves it (no transition, or only
    /// ones back to the state they start from), which waits for nothing,
    /// as an allowed one.
    /// Released when dropped (the call ended, was cancelled or panicked).
    pub(crate) async fn turn(&self, caller: &str) -> Option<Held> {
        if self.moves.iter().all(|(from, to)| from == to) {
            return None;
        }
        let key = format!("{}\u{0}{caller}", self.machine.name);
        self.gates
            .turns
            .acquire(key, usize::MAX, STATE_TTL)
            .await
            .ok()
    }

    pub(crate) fn allows(&self, state: &str) -> bool {
        self.allowed.iter().any(|s| s == state)
    }

    /// Whether the lists show the action to `caller`: it has a session, and
    /// the action is allowed in its state.
    pub(crate) fn shows_to(&self, caller: &str) -> bool {
        has_session(caller) && self.allows(&self.current(caller))
    }

    /// The actions of its machine allowed in `state`, in the order the
    /// machine names them.
    pub(crate) fn allowed_in(&self, state: &str) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let machine = &self.machine;
        let named = machine
            .transitions
            .iter()
            .map(|(action, from, _)| (action, from))
            .chain(
                machine
                    .allowed
                    .iter()
                    .map(|(action, state)| (action, state)),
            );
        for (action, at) in named {
            if at == state && !names.contains(action) {
                names.push(action.clone());
            }
        }
        names
    }

    /// After a successful call in `from`: moves the session `caller` as the
    /// action's transition from `from` says, and tells its connections when
    /// the state changed.
    pub(crate) async fn moved(&self, caller: &str, from: &str) {
        // A loop back to `from` moves nothing: it records nothing either, so
        // a call that ran beside a move (it takes no turn) never undoes it.
        let Some(to) = self.moves.get(from).filter(|to| *to != from) else {
            return;
        };
        if self.gates.record(&self.machine, caller, from, to).await
            && let Some(notify) = self.gates.notify.get()
        {
            notify(caller);
        }
    }

    /// The gate as `_meta["mcp-fusion/actions"][i].guards.stateGate` shows
    /// it: `{"machine", "allowedIn": [states], "transitions": {from: to}}`.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "machine": self.machine.name,
            "allowedIn": self.allowed,
            "transitions": self.moves,
        })
    }
}
