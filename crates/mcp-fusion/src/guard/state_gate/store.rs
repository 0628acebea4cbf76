//! Where the sessions' states live: in this process's memory.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// The current state of each session in each machine, in memory: a session
/// that made no move has no entry (it is in the machine's initial state).
#[derive(Debug, Default)]
pub(crate) struct MemoryStates {
    /// By `(machine, session)`.
    states: Mutex<HashMap<(String, String), String>>,
}

impl MemoryStates {
    /// The state of `session` in `machine`, if it moved.
    pub(crate) fn get(&self, machine: &str, session: &str) -> Option<String> {
        let states = self.states.lock().unwrap_or_else(PoisonError::into_inner);
        states
            .get(&(machine.to_owned(), session.to_owned()))
            .cloned()
    }

    /// Moves `session` in `machine` to `state`; whether that changed it.
    pub(crate) fn set(&self, machine: &str, session: &str, state: &str) -> bool {
        let mut states = self.states.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (machine.to_owned(), session.to_owned());
        states.insert(key, state.to_owned()).as_deref() != Some(state)
    }
}
