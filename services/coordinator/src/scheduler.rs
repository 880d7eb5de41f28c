//! The job queue and the lease rules.
//!
//! A worker asking for work gets, in this order:
//! 1. a pending chunk of a job whose trumps its tables already hold (affinity:
//!    tables are cleared only when trumps change), the job with the fewest
//!    leases out first (fairness between concurrent jobs);
//! 2. a pending chunk of any other job, again fewest leases first;
//! 3. when no chunk is pending anywhere, a duplicate lease of a chunk another
//!    worker is still solving, so a slow worker cannot hold up a job's end
//!    (results are keyed by layout index: the first answer wins).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deckhand_preferans::Strain;
use tokio::sync::Notify;

use crate::job::Job;

/// Tunables of the coordinator.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Layouts per lease.
    pub chunk_size: u32,
    /// Layouts per streamed worker message within a lease.
    pub message_size: u32,
    /// Jobs accepted at once (running or waiting); beyond it RESOURCE_EXHAUSTED.
    pub max_jobs: usize,
    /// Slots per worker: each takes one lease at a time, so a worker holds at
    /// most this many leases (two keep it busy between leases).
    pub slots_per_worker: usize,
    /// A lease whose worker sends nothing for this long is taken back.
    pub lease_timeout: Duration,
    /// How often a running analysis streams progress.
    pub progress_interval: Duration,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            chunk_size: 4096,
            message_size: 512,
            max_jobs: 16,
            slots_per_worker: 2,
            lease_timeout: Duration::from_secs(60),
            progress_interval: Duration::from_millis(500),
        }
    }
}

/// A chunk of a job handed to one worker.
pub struct Lease {
    pub job: Arc<Job>,
    pub chunk: usize,
    pub duplicate: bool,
}

/// The queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFull {
    pub max_jobs: usize,
}

/// Jobs in flight and the rules for leasing their chunks.
pub struct Scheduler {
    pub config: SchedulerConfig,
    jobs: Mutex<Vec<Arc<Job>>>,
    /// Woken whenever a lease may have become available: a new job, a lease
    /// given back, the last pending chunk of a job leased (duplicates open up).
    work: Notify,
    next_id: AtomicU64,
    /// Leases given back after a failure or expiry (for metrics and tests).
    pub re_leases: AtomicU64,
    pub duplicate_leases: AtomicU64,
}

impl Scheduler {
    pub fn new(config: SchedulerConfig) -> Arc<Scheduler> {
        Arc::new(Scheduler {
            config,
            jobs: Mutex::new(Vec::new()),
            work: Notify::new(),
            next_id: AtomicU64::new(1),
            re_leases: AtomicU64::new(0),
            duplicate_leases: AtomicU64::new(0),
        })
    }

    fn jobs(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn next_job_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Queues a job, or refuses it when `max_jobs` are in flight.
    pub fn submit(&self, job: Arc<Job>) -> Result<(), QueueFull> {
        let mut jobs = self.jobs();
        if jobs.len() >= self.config.max_jobs {
            return Err(QueueFull {
                max_jobs: self.config.max_jobs,
            });
        }
        jobs.push(job);
        drop(jobs);
        self.work.notify_waiters();
        Ok(())
    }

    /// Removes a job (finished or cancelled).
    pub fn remove(&self, id: u64) {
        self.jobs().retain(|j| j.id != id);
    }

    /// Jobs in flight.
    pub fn depth(&self) -> usize {
        self.jobs().len()
    }

    /// Chunks currently leased across all jobs.
    pub fn leases_out(&self) -> usize {
        self.jobs().iter().map(|j| j.leases()).sum()
    }

    /// A lease for `worker` whose tables hold `held`, if any work is available now.
    pub fn try_lease(&self, worker: &str, held: Option<Strain>) -> Option<Lease> {
        let mut jobs: Vec<Arc<Job>> = self
            .jobs()
            .iter()
            .filter(|j| !j.cancel.is_cancelled())
            .cloned()
            .collect();
        // Affinity first, then the job with the fewest leases out, then the oldest.
        jobs.sort_by_key(|j| (Some(j.strain) != held, j.leases(), j.id));
        for job in &jobs {
            if let Some(chunk) = job.lease_pending(worker) {
                if !job.has_pending() {
                    // Idle slots may now take duplicate leases.
                    self.work.notify_waiters();
                }
                return Some(Lease {
                    job: job.clone(),
                    chunk,
                    duplicate: false,
                });
            }
        }
        for job in &jobs {
            if let Some(chunk) = job.lease_duplicate(worker) {
                self.duplicate_leases.fetch_add(1, Ordering::Relaxed);
                return Some(Lease {
                    job: job.clone(),
                    chunk,
                    duplicate: true,
                });
            }
        }
        None
    }

    /// Waits until a lease is available for `worker`.
    pub async fn lease(&self, worker: &str, held: impl Fn() -> Option<Strain>) -> Lease {
        loop {
            let notified = self.work.notified();
            if let Some(lease) = self.try_lease(worker, held()) {
                return lease;
            }
            notified.await;
        }
    }

    /// Gives a lease back. `failed`: the worker broke or timed out, so the chunk
    /// goes back to the queue (unless another holder or an answer finished it).
    pub fn release(&self, lease: &Lease, worker: &str, failed: bool) {
        let pending_again = lease.job.release(lease.chunk, worker);
        if pending_again && failed {
            self.re_leases.fetch_add(1, Ordering::Relaxed);
        }
        // A chunk back in the queue, or a chunk with one holder left that an
        // idle slot may duplicate.
        self.work.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deckhand::proto::preferans::v1 as pb;
    use deckhand_preferans::{Contract, Suit};

    /// A valid view; these tests only look at the job's strain and range.
    fn any_view() -> deckhand_preferans::DeclarerView {
        deckhand::preferans::view_from_proto(Some(&pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            hand: "AQJ8.KT8.KJ.9".into(),
            talon: vec!["D7".into(), "C8".into()],
            contract: "6S".into(),
            leader: pb::Seat::N as i32,
            ..Default::default()
        }))
        .unwrap()
    }

    fn job(scheduler: &Scheduler, strain: Strain, layouts: u32) -> Arc<Job> {
        let contract = Contract {
            level: Some(6),
            strain,
        };
        let job = Arc::new(Job::new(
            scheduler.next_job_id(),
            any_view(),
            strain,
            contract,
            0..layouts,
            scheduler.config.chunk_size,
            vec!["SA".into()],
        ));
        scheduler.submit(job.clone()).unwrap();
        job
    }

    fn scheduler(max_jobs: usize) -> Arc<Scheduler> {
        Scheduler::new(SchedulerConfig {
            chunk_size: 10,
            max_jobs,
            ..SchedulerConfig::default()
        })
    }

    #[test]
    fn affinity_first_then_fewest_leases() {
        let s = scheduler(4);
        let spades = job(&s, Strain::Trump(Suit::Spades), 100);
        let clubs = job(&s, Strain::Trump(Suit::Clubs), 100);
        let held = Some(Strain::Trump(Suit::Clubs));
        // A worker holding clubs gets the clubs job although spades is older.
        for _ in 0..3 {
            assert_eq!(s.try_lease("w1", held).unwrap().job.id, clubs.id);
        }
        // A worker with no table gets the job with fewer leases out.
        assert_eq!(s.try_lease("w2", None).unwrap().job.id, spades.id);
        assert_eq!(s.try_lease("w2", None).unwrap().job.id, spades.id);
        assert_eq!(clubs.leases(), 3);
        assert_eq!(spades.leases(), 2);
    }

    #[test]
    fn duplicates_only_when_nothing_is_pending_and_first_answer_wins() {
        let s = scheduler(1);
        let j = job(&s, Strain::NoTrump, 20); // two chunks
        let a = s.try_lease("slow", None).unwrap();
        assert!(!a.duplicate);
        let b = s.try_lease("fast", None).unwrap();
        assert!(!b.duplicate && b.chunk != a.chunk);
        // Nothing pending: "fast" may duplicate the chunk "slow" holds, not its own.
        let dup = s.try_lease("fast", None).unwrap();
        assert!(dup.duplicate);
        assert_eq!(dup.chunk, a.chunk);
        assert!(s.try_lease("fast", None).is_none(), "at most two holders");
        // The duplicate answers first; the slow answer later changes nothing.
        let range = j.chunk_range(a.chunk);
        j.record(dup.chunk, "fast", range.start, 10, &[3; 10])
            .unwrap();
        j.record(a.chunk, "slow", range.start, 10, &[9; 10])
            .unwrap();
        let range = j.chunk_range(b.chunk);
        j.record(b.chunk, "fast", range.start, 10, &[4; 10])
            .unwrap();
        assert!(j.is_finished());
        let result = j.result();
        assert_eq!(result.layouts, 20);
        let h = result.histograms[0].1.counts;
        assert_eq!((h[3], h[4], h[9]), (10, 10, 0));
        assert_eq!(j.share().get("fast"), Some(&20));
    }

    #[test]
    fn a_failed_lease_returns_its_chunk_and_the_queue_is_bounded() {
        let s = scheduler(1);
        let j = job(&s, Strain::Misere, 10);
        let extra = Arc::new(Job::new(
            99,
            any_view(),
            Strain::Misere,
            Contract::misere(),
            0..5,
            10,
            vec![String::new()],
        ));
        assert_eq!(s.submit(extra), Err(QueueFull { max_jobs: 1 }));
        let lease = s.try_lease("w1", None).unwrap();
        // Half the chunk arrives, then the worker dies.
        j.record(lease.chunk, "w1", 0, 5, &[1; 5]).unwrap();
        s.release(&lease, "w1", true);
        assert_eq!(s.re_leases.load(Ordering::Relaxed), 1);
        let again = s.try_lease("w2", None).unwrap();
        assert_eq!(again.chunk, lease.chunk);
        // The whole chunk comes again; the five layouts already stored keep their answer.
        j.record(again.chunk, "w2", 0, 10, &[2; 10]).unwrap();
        assert!(j.is_finished());
        let h = j.result().histograms[0].1.counts;
        assert_eq!((h[1], h[2]), (5, 5));
        // Answers that do not fit the chunk are refused.
        assert!(j.record(0, "w2", 5, 10, &[2; 10]).is_err());
        assert!(j.record(0, "w2", 0, 2, &[11, 0]).is_err());
        s.remove(j.id);
        assert_eq!(s.depth(), 0);
    }
}
