//! Where the sessions' states live: in this process's memory.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a session's state is kept after its last move: a day. A session
/// that makes no move for longer is back in its machine's initial state
/// (in memory as in Redis), so that the states of sessions that ended do
/// not pile up.
pub(crate) const STATE_TTL: Duration = Duration::from_secs(86_400);

/// Below this many entries, the states are never swept.
const SWEEP_FLOOR: usize = 1024;

/// The current state of each session in each machine, in memory: a session
/// that made no move (or none for [`STATE_TTL`]) has no entry (it is in the
/// machine's initial state).
#[derive(Debug)]
pub(crate) struct MemoryStates {
    inner: Mutex<Inner>,
    ttl: Duration,
}

#[derive(Debug, Default)]
struct Inner {
    /// By `(machine, session)`: the state and when it was entered.
    states: HashMap<(String, String), (String, Instant)>,
    /// How many entries to reach before the next sweep of expired ones
    /// (twice what the last sweep left, at least [`SWEEP_FLOOR`]): each
    /// sweep is paid for by as many moves as it looks at.
    sweep_at: usize,
}

impl Default for MemoryStates {
    fn default() -> Self {
        MemoryStates::with_ttl(STATE_TTL)
    }
}

impl MemoryStates {
    /// States kept `ttl` after their last move.
    pub(crate) fn with_ttl(ttl: Duration) -> Self {
        MemoryStates {
            inner: Mutex::new(Inner {
                states: HashMap::new(),
                sweep_at: SWEEP_FLOOR,
            }),
            ttl,
        }
    }

    /// The state of `session` in `machine`, if it moved within the TTL.
    pub(crate) fn get(&self, machine: &str, session: &str) -> Option<String> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (state, moved) = inner
            .states
            .get(&(machine.to_owned(), session.to_owned()))?;
        (moved.elapsed() < self.ttl).then(|| state.clone())
    }

    /// Moves `session` in `machine` to `state`; whether that changed it.
    pub(crate) fn set(&self, machine: &str, session: &str, state: &str) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (machine.to_owned(), session.to_owned());
        let before = inner.states.insert(key, (state.to_owned(), Instant::now()));
        if inner.states.len() >= inner.sweep_at {
            let ttl = self.ttl;
            inner.states.retain(|_, (_, moved)| moved.elapsed() < ttl);
            inner.sweep_at = (inner.states.len() * 2).max(SWEEP_FLOOR);
        }
        match before {
            Some((previous, moved)) => previous != state || moved.elapsed() >= self.ttl,
            None => true,
        }
    }

    /// How many states are kept (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.states.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_states_of_sessions_that_stopped_moving_are_swept() {
        let states = MemoryStates::with_ttl(Duration::ZERO);
        for session in 0..10 * SWEEP_FLOOR {
            states.set("cart", &session.to_string(), "filled");
        }
        assert!(states.len() < SWEEP_FLOOR, "{} kept", states.len());
        assert_eq!(states.get("cart", "7"), None);
    }

    #[test]
    fn a_state_within_its_ttl_is_kept_and_a_move_to_it_again_is_no_change() {
        let states = MemoryStates::default();
        assert!(states.set("cart", "s1", "filled"));
        assert!(!states.set("cart", "s1", "filled"));
        assert!(states.set("cart", "s1", "paid"));
        assert_eq!(states.get("cart", "s1").as_deref(), Some("paid"));
        assert_eq!(states.get("cart", "s2"), None);
        for session in 0..4 * SWEEP_FLOOR {
            states.set("cart", &session.to_string(), "filled");
        }
        assert_eq!(states.len(), 4 * SWEEP_FLOOR + 1);
    }
}
