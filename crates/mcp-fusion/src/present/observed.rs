//! The hidden parts of the presented results of one task, for
//! `mcp_fusion::testing`: set only inside [`observing`], which costs a
//! task-local look-up per presented result and nothing otherwise.

use std::any::Any;
use std::cell::RefCell;
use std::future::Future;
use std::sync::Arc;

use super::presentation::Hidden;

tokio::task_local! {
    static OBSERVED: RefCell<Option<Hidden>>;
}

/// Runs `work`, and gives back with its output the hidden parts of the
/// last presented result it made, if any.
pub(crate) async fn observing<F: Future>(work: F) -> (F::Output, Option<Hidden>) {
    OBSERVED
        .scope(RefCell::new(None), async {
            let output = work.await;
            let hidden = OBSERVED.with(|cell| cell.borrow_mut().take());
            (output, hidden)
        })
        .await
}

/// Records `hidden` (a [`Hidden`]) when inside [`observing`].
pub(crate) fn observe(hidden: &Arc<dyn Any + Send + Sync>) {
    let _ = OBSERVED.try_with(|cell| {
        if let Some(hidden) = hidden.downcast_ref::<Hidden>() {
            *cell.borrow_mut() = Some(hidden.clone());
        }
    });
}
