//! A serializer's lock in Redis ([`RedisGuardStore`]): taken by polling
//! until a deadline, renewed every third of its lease while held, released
//! when dropped (also when the call is cancelled or panics).

use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::RedisGuardStore;

/// How often a waiter asks Redis whether the lock is free.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// A lock held in Redis; released when dropped.
pub(crate) struct RedisHold {
    store: RedisGuardStore,
    lock: String,
    token: String,
    renewing: JoinHandle<()>,
}

/// Waits until `lock` is taken for this call or `deadline` passes.
/// `Ok(Some)`: held; `Ok(None)`: Redis did not answer (the call goes on
/// with the process's own lock); `Err(())`: the deadline passed.
pub(crate) async fn hold(
    store: &RedisGuardStore,
    lock: String,
    deadline: Instant,
) -> Result<Option<RedisHold>, ()> {
    let token = store.token();
    loop {
        match store.try_lock(&lock, &token).await {
            None => return Ok(None),
            Some(true) => break,
            Some(false) if Instant::now() + POLL > deadline => return Err(()),
            Some(false) => tokio::time::sleep(POLL).await,
        }
    }
    let renewing = {
        let (store, lock, token) = (store.clone(), lock.clone(), token.clone());
        tokio::spawn(async move {
            let every = store.lease_of() / 3;
            loop {
                tokio::time::sleep(every).await;
                store.renew(&lock, &token).await;
            }
        })
    };
    Ok(Some(RedisHold {
        store: store.clone(),
        lock,
        token,
        renewing,
    }))
}

impl Drop for RedisHold {
    fn drop(&mut self) {
        self.renewing.abort();
        let (store, lock, token) = (
            self.store.clone(),
            std::mem::take(&mut self.lock),
            std::mem::take(&mut self.token),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { store.release(&lock, &token).await });
        }
    }
}
