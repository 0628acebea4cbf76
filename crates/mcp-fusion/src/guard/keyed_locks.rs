//! [`KeyedLocks`]: one first-come-first-served lock per key, in memory, for
//! the mutation serializer. Each key's lock is a `tokio::sync::Mutex`
//! (FIFO-fair: waiters get it in the order they asked); a key's entry lives
//! while a call holds or waits for it and is removed with its last user, so
//! the map holds only the keys in use.
//!
//! Cancellation: a waiter whose future is dropped leaves the mutex's queue
//! (tokio hands a permit it had been given to the next waiter only after
//! the holder released it, so two never hold one key); a holder whose
//! future is dropped, or whose handler panicked (the future is dropped
//! while unwinding), releases the key with its guard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{Mutex as FairMutex, OwnedMutexGuard};

/// Why a call did not get its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// `max_queue` calls already wait for the key.
    QueueFull {
        /// Calls waiting when it was refused.
        waiting: usize,
    },
    /// The call waited `max_wait` without getting it.
    WaitedTooLong,
}

/// The locks of one serialized action, by key.
#[derive(Debug, Default)]
pub(crate) struct KeyedLocks {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

/// One key in use: its lock and how many calls hold or wait for it.
#[derive(Debug)]
struct Entry {
    lock: Arc<FairMutex<()>>,
    users: usize,
}

/// A call's use of one key (holding or waiting); removes the key's entry
/// when its last user is dropped.
struct Use {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
    key: String,
}

impl Drop for Use {
    fn drop(&mut self) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = entries.get_mut(&self.key) {
            entry.users -= 1;
            if entry.users == 0 {
                entries.remove(&self.key);
            }
        }
    }
}

/// A held key: released when dropped.
pub(crate) struct Held {
    // Field order is drop order: the lock is released before the entry's
    // count goes down.
    _guard: OwnedMutexGuard<()>,
    _use: Use,
}

impl KeyedLocks {
    /// Waits for `key`, first come first served, behind at most `max_queue`
    /// other waiters and for at most `max_wait`.
    ///
    /// # Errors
    /// [`Refused::QueueFull`] at once when `max_queue` calls already wait;
    /// [`Refused::WaitedTooLong`] after `max_wait` (the call leaves the
    /// queue).
    pub(crate) async fn acquire(
        &self,
        key: String,
        max_queue: usize,
        max_wait: Duration,
    ) -> Result<Held, Refused> {
        let (lock, user) = self.enter(key, max_queue)?;
        match tokio::time::timeout(max_wait, lock.lock_owned()).await {
            Ok(guard) => Ok(Held {
                _guard: guard,
                _use: user,
            }),
            Err(_) => Err(Refused::WaitedTooLong),
        }
    }

    /// Counts a new user of `key`, unless `max_queue` already wait (every
    /// user but the holder waits).
    fn enter(&self, key: String, max_queue: usize) -> Result<(Arc<FairMutex<()>>, Use), Refused> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.entry(key.clone()).or_insert_with(|| Entry {
            lock: Arc::new(FairMutex::new(())),
            users: 0,
        });
        let waiting = entry.users.saturating_sub(1);
        if entry.users > 0 && waiting >= max_queue {
            return Err(Refused::QueueFull { waiting });
        }
        entry.users += 1;
        let lock = Arc::clone(&entry.lock);
        drop(entries);
        let user = Use {
            entries: Arc::clone(&self.entries),
            key,
        };
        Ok((lock, user))
    }

    /// How many keys are in use (held or waited for).
    #[cfg(test)]
    pub(crate) fn keys_in_use(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
#[path = "keyed_locks_tests.rs"]
mod tests;
