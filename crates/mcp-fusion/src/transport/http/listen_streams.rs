//! [`ListenStreams`]: how many `subscriptions/listen` streams (MCP
//! 2026-07-28, basic/patterns/subscriptions) are open over this HTTP
//! endpoint, in all and per caller, against
//! [`HttpOptions::max_listen_streams`](super::HttpOptions::max_listen_streams)
//! and [`max_listen_streams_per_caller`](super::HttpOptions::max_listen_streams_per_caller).
//! A stream holds a [`ListenSlot`] until its response ends (the client
//! closed it, or the server did).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The open listen streams, by caller key.
#[derive(Debug)]
pub(crate) struct ListenStreams {
    max_total: usize,
    max_per_caller: usize,
    open: Arc<Mutex<Open>>,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_caller: HashMap<String, usize>,
}

/// Why a stream was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListenFull {
    /// Every one of the endpoint's `max` streams is open.
    Total { max: usize },
    /// The caller holds `max` open streams already.
    Caller { max: usize },
}

/// One open stream's place, given back when dropped.
#[derive(Debug)]
pub(crate) struct ListenSlot {
    caller: String,
    open: Arc<Mutex<Open>>,
}

impl ListenStreams {
    /// At most `max_total` streams (at least 1), `max_per_caller` (at least 1)
    /// of one caller.
    pub(crate) fn new(max_total: usize, max_per_caller: usize) -> Self {
        ListenStreams {
            max_total: max_total.max(1),
            max_per_caller: max_per_caller.max(1),
            open: Arc::default(),
        }
    }

    /// A place for one more stream of `caller` (its key,
    /// [`limit_key`](super::limit_key::limit_key)).
    ///
    /// # Errors
    /// [`ListenFull`] when the caller, or the endpoint, has no room left.
    pub(crate) fn admit(&self, caller: &str) -> Result<ListenSlot, ListenFull> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let of_caller = open.by_caller.get(caller).copied().unwrap_or(0);
        if of_caller >= self.max_per_caller {
            return Err(ListenFull::Caller {
                max: self.max_per_caller,
            });
        }
        if open.total >= self.max_total {
            return Err(ListenFull::Total {
                max: self.max_total,
            });
        }
        open.total += 1;
        *open.by_caller.entry(caller.to_owned()).or_default() += 1;
        Ok(ListenSlot {
            caller: caller.to_owned(),
            open: self.open.clone(),
        })
    }
}

impl Drop for ListenSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_caller.get_mut(&self.caller) {
            *count -= 1;
            if *count == 0 {
                open.by_caller.remove(&self.caller);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_bounded_per_caller_and_in_all() {
        let streams = ListenStreams::new(3, 2);
        let a1 = streams.admit("address:10.0.0.1").unwrap();
        let _a2 = streams.admit("address:10.0.0.1").unwrap();
        assert_eq!(
            streams.admit("address:10.0.0.1").unwrap_err(),
            ListenFull::Caller { max: 2 }
        );
        let _b1 = streams.admit("address:10.0.0.2").unwrap();
        assert_eq!(
            streams.admit("address:10.0.0.3").unwrap_err(),
            ListenFull::Total { max: 3 }
        );
        drop(a1);
        let _c1 = streams.admit("address:10.0.0.3").unwrap();
        assert_eq!(streams.open.lock().unwrap().total, 3);
        assert_eq!(streams.open.lock().unwrap().by_caller.len(), 3);
    }
}
