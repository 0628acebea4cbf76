//! The keyed locks: one holder per key under cancellation, FIFO order,
//! release on cancel and panic, bounded queue and wait, no growth.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::{KeyedLocks, Refused};

const LONG: Duration = Duration::from_secs(60);

/// A small deterministic pseudo-random sequence (xorshift), per seed.
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// One holder of the key, counted in while it lives.
struct Holding(Arc<AtomicUsize>);

impl Drop for Holding {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn never_two_holders_under_random_cancellations() {
    let locks = Arc::new(KeyedLocks::default());
    let holding = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for caller in 0..400u64 {
        let (locks, holding, most, done) = (
            Arc::clone(&locks),
            Arc::clone(&holding),
            Arc::clone(&most),
            Arc::clone(&done),
        );
        let mut next = random(caller + 1);
        let cancel_after = Duration::from_micros(next() % 3_000);
        let cancels = next().is_multiple_of(3);
        let hold = Duration::from_micros(next() % 400);
        let work = async move {
            let _held = locks.acquire("INV-1".into(), 1_000, LONG).await.unwrap();
            let now = holding.fetch_add(1, Ordering::SeqCst) + 1;
            // Counted out when dropped (before the key is released), also
            // when the holder is cancelled while it holds the key.
            let _counted = Holding(holding);
            most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(hold).await;
            done.fetch_add(1, Ordering::SeqCst);
        };
        tasks.push(tokio::spawn(async move {
            if cancels {
                // Dropped wherever it is: waiting, or holding.
                let _ = tokio::time::timeout(cancel_after, work).await;
            } else {
                work.await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(most.load(Ordering::SeqCst), 1, "two calls held one key");
    assert!(done.load(Ordering::SeqCst) >= 200, "most calls ran");
    assert_eq!(locks.keys_in_use(), 0);
}

#[tokio::test(start_paused = true)]
async fn waiters_get_the_key_in_the_order_they_came() {
    let locks = Arc::new(KeyedLocks::default());
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let first = locks.acquire("k".into(), 100, LONG).await.unwrap();
    let mut tasks = Vec::new();
    for n in 0..10 {
        let (locks, order) = (Arc::clone(&locks), Arc::clone(&order));
        tasks.push(tokio::spawn(async move {
            let _held = locks.acquire("k".into(), 100, LONG).await.unwrap();
            order.lock().unwrap().push(n);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }));
        // Each waiter is queued before the next one comes.
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    drop(first);
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(*order.lock().unwrap(), (0..10).collect::<Vec<_>>());
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_holder_releases_the_key() {
    let locks = Arc::new(KeyedLocks::default());
    let inner = Arc::clone(&locks);
    let holder = tokio::spawn(async move {
        let _held = inner.acquire("k".into(), 10, LONG).await.unwrap();
        std::future::pending::<()>().await;
    });
    tokio::time::sleep(Duration::from_millis(1)).await;
    holder.abort();
    let _ = holder.await;
    let next = tokio::time::timeout(Duration::from_secs(1), locks.acquire("k".into(), 10, LONG));
    assert!(next.await.is_ok(), "the key was freed");
}

#[tokio::test(start_paused = true)]
async fn a_holder_that_panics_releases_the_key() {
    let locks = Arc::new(KeyedLocks::default());
    let inner = Arc::clone(&locks);
    let holder = tokio::spawn(async move {
        let _held = inner.acquire("k".into(), 10, LONG).await.unwrap();
        panic!("the handler failed");
    });
    assert!(holder.await.unwrap_err().is_panic());
    let next = tokio::time::timeout(Duration::from_secs(1), locks.acquire("k".into(), 10, LONG));
    assert!(next.await.is_ok(), "the key was freed");
    assert_eq!(locks.keys_in_use(), 0);
}

#[tokio::test(start_paused = true)]
async fn different_keys_run_side_by_side() {
    let locks = KeyedLocks::default();
    let a = locks.acquire("INV-1".into(), 0, LONG).await.unwrap();
    let b = tokio::time::timeout(
        Duration::from_millis(1),
        locks.acquire("INV-2".into(), 0, LONG),
    );
    assert!(b.await.is_ok());
    drop(a);
}

#[tokio::test(start_paused = true)]
async fn a_full_queue_refuses_at_once_and_a_long_wait_gives_up() {
    let locks = Arc::new(KeyedLocks::default());
    let _held = locks.acquire("k".into(), 1, LONG).await.unwrap();
    let inner = Arc::clone(&locks);
    let waiter = tokio::spawn(async move {
        inner
            .acquire("k".into(), 1, Duration::from_secs(5))
            .await
            .err()
    });
    tokio::time::sleep(Duration::from_millis(1)).await;
    let refused = locks.acquire("k".into(), 1, LONG).await.err();
    assert_eq!(refused, Some(Refused::QueueFull { waiting: 1 }));
    assert_eq!(waiter.await.unwrap(), Some(Refused::WaitedTooLong));
}

#[tokio::test(start_paused = true)]
async fn keys_are_forgotten_when_unused() {
    let locks = KeyedLocks::default();
    for n in 0..1_000 {
        let held = locks.acquire(format!("INV-{n}"), 0, LONG).await.unwrap();
        assert_eq!(locks.keys_in_use(), 1);
        drop(held);
    }
    assert_eq!(locks.keys_in_use(), 0);
}
