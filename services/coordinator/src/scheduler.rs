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

use preferans_worker::engine::Strain;
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
    /// Leases a worker holds at once (two keep it busy between leases).
    pub leases_per_worker: usize,
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
            leases_per_worker: 2,
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
    /// Woken when chunks become pending (new job, failed lease).
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
            // Also poll now and then: duplicate leases open up without a notification.
            let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
        }
    }

    /// Gives a lease back. `failed`: the worker broke or timed out, so the chunk
    /// goes back to the queue (unless another holder or an answer finished it).
    pub fn release(&self, lease: &Lease, worker: &str, failed: bool) {
        let pending_again = lease.job.release(lease.chunk, worker);
        if pending_again {
            if failed {
                self.re_leases.fetch_add(1, Ordering::Relaxed);
            }
            self.work.notify_waiters();
        }
    }
}
