//! The job queue and the lease rules.
//!
//! A worker asking for work gets, in this order:
//! 1. a pending chunk of a job whose trumps its table already holds (affinity:
//!    its entries for those trumps are warm), the job with the fewest
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

use crate::jobs::Job;
use crate::problem::Problem;

/// Tunables of the coordinator.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Layouts per chunk (the unit of work a lease covers).
    pub chunk_size: u32,
    /// Layouts per streamed worker message within a lease.
    pub message_size: u32,
    /// Jobs queued or running at once; beyond it RESOURCE_EXHAUSTED.
    pub max_jobs: usize,
    /// Slots per worker: each takes one lease at a time, so a worker holds at
    /// most this many leases (two keep it busy between leases).
    pub slots_per_worker: usize,
    /// A lease whose worker sends nothing for this long is taken back.
    pub lease_timeout: Duration,
    /// How often a running analysis streams progress.
    pub progress_interval: Duration,
    /// HTTP/2 ping on a worker channel after this much silence; the connection
    /// (and its leases) is dropped when the ping is not answered within as long again.
    pub worker_keepalive: Option<Duration>,
    /// A self-registered worker is forgotten after this long without a heartbeat.
    pub heartbeat_timeout: Duration,
    /// Workers known at once; a heartbeat that would register one more is refused.
    pub max_workers: usize,
}

/// Default `--max-workers`: every worker costs a driver task, a line of
/// ListWorkers and, once it has helped a job, an entry in that job's progress.
pub const DEFAULT_MAX_WORKERS: usize = 4096;

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            chunk_size: 4096,
            message_size: 512,
            max_jobs: 16,
            slots_per_worker: 2,
            lease_timeout: Duration::from_secs(60),
            progress_interval: Duration::from_millis(500),
            worker_keepalive: Some(Duration::from_secs(4)),
            heartbeat_timeout: Duration::from_secs(15),
            max_workers: DEFAULT_MAX_WORKERS,
        }
    }
}

/// A chunk of a job's problem handed to one worker.
pub struct Lease {
    pub job: Arc<Job>,
    pub problem: Arc<Problem>,
    pub chunk: usize,
    pub duplicate: bool,
}

/// Jobs in flight and the rules for leasing their chunks.
pub struct Scheduler {
    pub config: SchedulerConfig,
    jobs: Mutex<Vec<Arc<Job>>>,
    /// Woken whenever a lease may have become available: a new job, a lease
    /// given back, the last pending chunk of a job leased (duplicates open up).
    work: Notify,
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
            re_leases: AtomicU64::new(0),
            duplicate_leases: AtomicU64::new(0),
        })
    }

    fn jobs(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands a job's chunks out from now on (the caller checks `max_jobs`).
    pub fn add(&self, job: Arc<Job>) {
        self.jobs().push(job);
        self.work.notify_waiters();
    }

    /// Stops handing out a job's chunks (ended).
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

    /// A lease for `worker` whose tables hold `held`, if any work is available now;
    /// `run` is its address, or the identity of the table it shares with others (see
    /// [`Problem::lease_pending`]).
    pub fn try_lease(&self, worker: &str, run: &str, held: Option<Strain>) -> Option<Lease> {
        let mut jobs: Vec<Arc<Job>> = self
            .jobs()
            .iter()
            .filter(|j| !j.cancel.is_cancelled())
            .cloned()
            .collect();
        // Each job offers its first problem with pending chunks. Affinity first,
        // then the job with the fewest leases out, then the oldest.
        let mut offers: Vec<(Arc<Job>, Arc<Problem>, usize)> = jobs
            .iter()
            .filter_map(|j| Some((j.clone(), j.next_pending()?.clone(), j.leases())))
            .collect();
        offers.sort_by_key(|(j, p, leases)| (Some(p.strain) != held, *leases, j.id));
        for (job, problem, _) in offers {
            if let Some(chunk) = problem.lease_pending(worker, run) {
                job.mark_leased();
                if !job.has_pending() {
                    // Idle slots may now take duplicate leases.
                    self.work.notify_waiters();
                }
                return Some(Lease {
                    job,
                    problem,
                    chunk,
                    duplicate: false,
                });
            }
        }
        jobs.sort_by_key(|j| (j.leases(), j.id));
        for job in &jobs {
            for problem in &job.problems {
                if let Some(chunk) = problem.lease_duplicate(worker) {
                    self.duplicate_leases.fetch_add(1, Ordering::Relaxed);
                    return Some(Lease {
                        job: job.clone(),
                        problem: problem.clone(),
                        chunk,
                        duplicate: true,
                    });
                }
            }
        }
        None
    }

    /// Waits until a lease is available for `worker`.
    pub async fn lease(&self, worker: &str, run: &str, held: impl Fn() -> Option<Strain>) -> Lease {
        loop {
            let notified = self.work.notified();
            if let Some(lease) = self.try_lease(worker, run, held()) {
                return lease;
            }
            notified.await;
        }
    }

    /// Gives a lease back. `failed`: the worker broke or timed out, so the chunk
    /// goes back to the queue (unless another holder or an answer finished it).
    pub fn release(&self, lease: &Lease, worker: &str, failed: bool) {
        let pending_again = lease.problem.release(lease.chunk, worker);
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
    use crate::jobs::{prepare, Jobs, JobsConfig};
    use crate::problem::Recorded;
    use crate::store::Store;
    use deckhand::proto::preferans::v1 as pb;
    use deckhand_preferans::Suit;

    const MISERE: (&str, &str, pb::Seat) = ("T987.T987.*98.*Q#J", "misere", pb::Seat::N);
    const SPADES: (&str, &str, pb::Seat) = ("QT7.KQJ.A*8*7.KQJ", "6S", pb::Seat::W);
    const CLUBS: (&str, &str, pb::Seat) = ("#A*8*7.AKT.KJ.A987", "6C", pb::Seat::N);

    fn problem((view, contract, leader): (&str, &str, pb::Seat), end: u32) -> pb::Problem {
        pb::Problem {
            name: contract.into(),
            view: Some(pb::DeclarerView {
                declarer: pb::Seat::N as i32,
                contract: contract.into(),
                leader: leader as i32,
                compact: view.into(),
                ..Default::default()
            }),
            start: 0,
            end,
        }
    }

    fn setup(max_jobs: usize) -> (Arc<Scheduler>, Arc<Jobs>) {
        let scheduler = Scheduler::new(SchedulerConfig {
            chunk_size: 10,
            max_jobs,
            ..SchedulerConfig::default()
        });
        let jobs = Jobs::open(
            Store::memory(),
            scheduler.clone(),
            JobsConfig::default(),
            16 << 20,
        )
        .unwrap();
        (scheduler, jobs)
    }

    fn submit(
        jobs: &Jobs,
        problems: Vec<pb::Problem>,
        request_id: String,
    ) -> Result<Arc<Job>, tonic::Status> {
        let problems = problems
            .iter()
            .enumerate()
            .map(|(i, p)| {
                prepare(i as u32, p, jobs.chunk_size(), &[], None)
                    .map_err(|e| e.within(format!("problems[{i}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        jobs.submit(problems, request_id, false)
    }

    /// Records an answer of `tricks` for the whole chunk; commits it when complete.
    fn answer(jobs: &Jobs, lease: &Lease, worker: &str, tricks: u8) {
        let range = lease.problem.chunk_range(lease.chunk);
        let count = range.end - range.start;
        let answer = vec![tricks; count as usize];
        match lease
            .problem
            .record(lease.chunk, range.start, count, &answer)
            .unwrap()
        {
            Recorded::Complete { fresh, tricks } => {
                lease.job.add_solved(worker, fresh);
                jobs.commit_chunk(&lease.job, &lease.problem, lease.chunk, &tricks);
            }
            Recorded::Progress(fresh) => lease.job.add_solved(worker, fresh),
            Recorded::AlreadyComplete => {}
        }
    }

    #[test]
    fn affinity_first_then_fewest_leases() {
        let (s, jobs) = setup(4);
        let spades = submit(&jobs, vec![problem(SPADES, 100)], String::new()).unwrap();
        let clubs = submit(&jobs, vec![problem(CLUBS, 100)], String::new()).unwrap();
        let held = Some(Strain::Trump(Suit::Clubs));
        // A worker holding clubs gets the clubs job although spades is older.
        for _ in 0..3 {
            assert_eq!(s.try_lease("w1", "w1", held).unwrap().job.id, clubs.id);
        }
        // A worker with no table gets the job with fewer leases out.
        assert_eq!(s.try_lease("w2", "w2", None).unwrap().job.id, spades.id);
        assert_eq!(s.try_lease("w2", "w2", None).unwrap().job.id, spades.id);
        assert_eq!(clubs.leases(), 3);
        assert_eq!(spades.leases(), 2);
    }

    #[test]
    fn a_job_goes_problem_by_problem_with_equal_trumps_together() {
        let (s, jobs) = setup(4);
        let problems = vec![problem(SPADES, 10), problem(CLUBS, 10), problem(SPADES, 10)];
        let job = submit(&jobs, problems, String::new()).unwrap();
        let order: Vec<u32> = (0..3)
            .map(|_| {
                let lease = s.try_lease("w", "w", None).unwrap();
                answer(&jobs, &lease, "w", 4);
                s.release(&lease, "w", false);
                lease.problem.index
            })
            .collect();
        assert_eq!(order, [0, 2, 1]);
        assert!(job.is_ended());
        let analysis = job.analysis(true);
        assert_eq!(analysis.state, pb::AnalysisState::Done as i32);
        assert_eq!(analysis.results.len(), 3);
        assert_eq!(analysis.results[1].problem.as_ref().unwrap().name, "6C");
        assert_eq!(
            analysis.results[1].result.as_ref().unwrap().openings[0].histogram[4],
            10
        );
    }

    #[test]
    fn duplicates_only_when_nothing_is_pending_and_first_answer_wins() {
        let (s, jobs) = setup(1);
        let j = submit(&jobs, vec![problem(MISERE, 20)], String::new()).unwrap(); // two chunks
        let a = s.try_lease("slow", "slow", None).unwrap();
        assert!(!a.duplicate);
        let b = s.try_lease("fast", "fast", None).unwrap();
        assert!(!b.duplicate && b.chunk != a.chunk);
        // Nothing pending: "fast" may duplicate the chunk "slow" holds, not its own.
        let dup = s.try_lease("fast", "fast", None).unwrap();
        assert!(dup.duplicate);
        assert_eq!(dup.chunk, a.chunk);
        assert!(
            s.try_lease("fast", "fast", None).is_none(),
            "at most two holders"
        );
        // The duplicate answers first; the slow answer later changes nothing.
        answer(&jobs, &dup, "fast", 3);
        answer(&jobs, &a, "slow", 9);
        answer(&jobs, &b, "fast", 4);
        assert!(j.is_ended());
        let result = j.result(0).unwrap();
        assert_eq!(result.layouts, 20);
        let h = &result.openings[0].histogram;
        assert_eq!((h[3], h[4], h[9]), (10, 10, 0));
        assert_eq!(j.progress().workers[0].layouts, 20);
        assert_eq!(s.depth(), 0);
    }

    #[test]
    fn a_failed_lease_returns_its_chunk_and_the_queue_is_bounded() {
        let (s, jobs) = setup(1);
        let j = submit(&jobs, vec![problem(MISERE, 10)], String::new()).unwrap();
        let extra = submit(&jobs, vec![problem(MISERE, 5)], String::new());
        assert_eq!(extra.err().unwrap().code(), tonic::Code::ResourceExhausted);
        let lease = s.try_lease("w1", "w1", None).unwrap();
        // Half the chunk arrives, then the worker dies.
        assert_eq!(
            lease.problem.record(lease.chunk, 0, 5, &[1; 5]),
            Ok(Recorded::Progress(5))
        );
        s.release(&lease, "w1", true);
        assert_eq!(s.re_leases.load(Ordering::Relaxed), 1);
        let again = s.try_lease("w2", "w2", None).unwrap();
        assert_eq!(again.chunk, lease.chunk);
        // Answers that do not fit the chunk are refused.
        assert!(again.problem.record(0, 5, 10, &[2; 10]).is_err());
        assert!(again.problem.record(0, 0, 2, &[11, 0]).is_err());
        // The whole chunk comes again; the five layouts already in keep their answer.
        answer(&jobs, &again, "w2", 2);
        assert!(j.is_ended());
        let h = &j.result(0).unwrap().openings[0].histogram;
        assert_eq!((h[1], h[2]), (5, 5));
        assert_eq!(s.depth(), 0);
    }

    #[test]
    fn the_same_request_id_gives_the_same_job() {
        let (s, jobs) = setup(4);
        let a = submit(&jobs, vec![problem(MISERE, 10)], "r-1".into()).unwrap();
        let b = submit(&jobs, vec![problem(MISERE, 10)], "r-1".into()).unwrap();
        assert_eq!(a.id, b.id);
        assert_eq!(s.depth(), 1);
        let bad = submit(
            &jobs,
            vec![problem(MISERE, 10), problem(("x", "6S", pb::Seat::N), 10)],
            String::new(),
        );
        let bad = bad.err().unwrap();
        assert_eq!(bad.code(), tonic::Code::InvalidArgument);
        assert!(
            bad.message().starts_with("problems[1].view"),
            "{}",
            bad.message()
        );
    }

    #[test]
    fn in_memory_a_finished_problem_keeps_its_result_not_its_chunks() {
        let (s, jobs) = setup(1);
        let job = submit(
            &jobs,
            vec![problem(MISERE, 20), problem(MISERE, 10)],
            String::new(),
        )
        .unwrap();
        let first = s.try_lease("w", "w", None).unwrap();
        answer(&jobs, &first, "w", 3);
        assert_eq!(jobs.stored_chunks(job.id, 0), [first.chunk as u32]);
        let second = s.try_lease("w", "w", None).unwrap();
        answer(&jobs, &second, "w", 4);
        assert!(
            jobs.stored_chunks(job.id, 0).is_empty(),
            "problem 0 is summed"
        );
        assert_eq!(job.result(0).unwrap().layouts, 20);
        assert!(!job.is_ended());
        let last = s.try_lease("w", "w", None).unwrap();
        answer(&jobs, &last, "w", 5);
        assert!(job.is_ended());
        assert!(jobs.stored_chunks(job.id, 1).is_empty());
        assert_eq!(job.analysis(true).results.len(), 2);
    }
}
