//! The one bounded pool for CPU-heavy work, shared by every service in the
//! process.
//!
//! Offload policy (the only one; every service follows it):
//! * A request states its estimated cost in [`Cost`] units, roughly one
//!   microsecond of CPU each (a hand-ops or mahjong hand is about one unit; a
//!   legal-move listing, a rummikub search or a preferans solve is always
//!   [`Cost::HEAVY`]).
//! * Work of at most [`INLINE_COST`] units (about a millisecond) runs inline
//!   on the async thread: a thread hop would cost more than the work.
//! * Anything costlier runs on tokio's blocking threads, but at most
//!   [`size`] such jobs at once across all services (one per core); the rest
//!   wait their turn in FIFO order without holding a thread. Long jobs split
//!   themselves into several [`run`] calls, so they share the cores with
//!   other requests instead of taking them all.
//!
//! A job that panics becomes INTERNAL (see [`crate::status::task_failed`]).

use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;
use tonic::Status;

/// Estimated CPU cost of a piece of work, in units of about a microsecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost(pub usize);

impl Cost {
    /// Work that always goes to the pool (searches, solves).
    pub const HEAVY: Cost = Cost(usize::MAX);
}

/// The most work run inline on the async threads.
pub const INLINE_COST: Cost = Cost(1_000);

/// Permits for jobs on the blocking threads: one per core.
static PERMITS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(size())));

/// How many pool jobs run at once: the number of cores.
pub fn size() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` by the policy above: inline when `cost` is at most
/// [`INLINE_COST`], else on the bounded pool.
pub async fn run<T, F>(cost: Cost, work: F) -> Result<T, Status>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if cost <= INLINE_COST {
        return Ok(work());
    }
    let permit = Arc::clone(&PERMITS)
        .acquire_owned()
        .await
        .map_err(|_| Status::unavailable("the CPU pool is closed"))?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
    .await
    .map_err(crate::status::task_failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_size_jobs_run_at_once() {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let jobs: Vec<_> = (0..4 * size())
            .map(|_| {
                let (running, most) = (Arc::clone(&running), Arc::clone(&most));
                tokio::spawn(run(Cost::HEAVY, move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for job in jobs {
            job.await.unwrap().unwrap();
        }
        assert!(most.load(Ordering::SeqCst) <= size());
    }

    #[tokio::test]
    async fn a_panic_is_internal() {
        let status = run(Cost::HEAVY, || panic!("boom")).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::Internal);
    }
}
