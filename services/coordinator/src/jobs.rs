//! Jobs: one or many problems submitted together, kept in the [`Store`] from
//! submission to the end of their retention.
//!
//! A job's problems are scheduled one after the other, problems with the same
//! trumps together (a worker's tables keep their trumps). When every layout of
//! a chunk is in, the chunk is committed to the store and marks itself done in
//! the same transaction; the commit that completes a problem sums its result
//! from the stored chunks, and the one that completes the last problem ends
//! the job. After a restart, unfinished jobs resume from their stored chunks.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use deckhand::preferans::{
    layout_order, layout_order_to_proto, layout_range, opening_names, view_from_proto,
};
use deckhand::proto::preferans::v1 as pb;
use deckhand::status::Invalid;
use deckhand_preferans::{analysis_order, Histogram, LAYOUT_COUNT};
use pb::AnalysisState;
use prost::Message;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use crate::problem::Problem;
use crate::scheduler::Scheduler;
use crate::store::{JobRecord, Store, StoredOrder};

/// Limits on stored jobs.
#[derive(Debug, Clone)]
pub struct JobsConfig {
    /// Ended jobs are deleted this long after they end.
    pub retention: Duration,
    /// Jobs kept at once (any state); a submit beyond it is refused.
    pub max_stored_jobs: usize,
    /// Problems in one job (`--max-problems-per-job`).
    pub max_problems: usize,
    /// Problems kept at once over all stored jobs (`--max-stored-problems`):
    /// each holds its problem and result in memory while its job is kept.
    pub max_stored_problems: usize,
}

/// Default `--max-problems-per-job`: a job of this many full problems is
/// 185 M layouts of work, and its answer (every result) stays near 1 MB.
pub const DEFAULT_MAX_PROBLEMS: usize = 1000;
/// Default `--max-stored-problems`: a stored problem holds at most about
/// 2 KB (its view and name, and a result of up to ten openings), so the
/// stored jobs hold at most about 100 MB.
pub const DEFAULT_MAX_STORED_PROBLEMS: usize = 50_000;
/// Longest problem name, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

impl Default for JobsConfig {
    fn default() -> Self {
        JobsConfig {
            retention: Duration::from_secs(7 * 24 * 3600),
            max_stored_jobs: 1000,
            max_problems: DEFAULT_MAX_PROBLEMS,
            max_stored_problems: DEFAULT_MAX_STORED_PROBLEMS,
        }
    }
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// One job in this process.
pub struct Job {
    pub id: u64,
    record: Mutex<JobRecord>,
    /// Its unfinished problems in scheduling order (same trumps together).
    pub problems: Vec<Arc<Problem>>,
    /// Cancelled when the job ends early: workers drop its leases.
    pub cancel: CancellationToken,
    /// Flips to true when the job ends (done, cancelled or failed).
    ended: watch::Sender<bool>,
    started: Instant,
    total: u64,
    /// Layouts in: stored before this run, plus answers kept in this run.
    solved: AtomicU64,
    solved_before: u64,
    leased: AtomicBool,
    /// Layouts solved per worker address in this run.
    share: Mutex<BTreeMap<String, u64>>,
}

impl Job {
    fn record(&self) -> std::sync::MutexGuard<'_, JobRecord> {
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The first problem with a chunk waiting for a worker.
    pub fn next_pending(&self) -> Option<&Arc<Problem>> {
        self.problems.iter().find(|p| p.has_pending())
    }

    pub fn has_pending(&self) -> bool {
        self.next_pending().is_some()
    }

    /// Leases currently out.
    pub fn leases(&self) -> usize {
        self.problems.iter().map(|p| p.leases()).sum()
    }

    pub fn mark_leased(&self) {
        self.leased.store(true, Ordering::Relaxed);
    }

    /// Counts `fresh` new layouts from `worker`.
    pub fn add_solved(&self, worker: &str, fresh: u32) {
        self.solved.fetch_add(u64::from(fresh), Ordering::Relaxed);
        let mut share = self.share.lock().unwrap_or_else(|p| p.into_inner());
        *share.entry(worker.to_string()).or_default() += u64::from(fresh);
    }

    pub fn is_ended(&self) -> bool {
        *self.ended.borrow()
    }

    /// A receiver that sees the job end.
    pub fn subscribe(&self) -> watch::Receiver<bool> {
        self.ended.subscribe()
    }

    pub fn state(&self) -> AnalysisState {
        let stored = self.record().state();
        if stored == AnalysisState::Queued
            && (self.leased.load(Ordering::Relaxed) || self.solved.load(Ordering::Relaxed) > 0)
        {
            AnalysisState::Running
        } else {
            stored
        }
    }

    pub fn is_ephemeral(&self) -> bool {
        self.record().ephemeral
    }

    pub fn progress(&self) -> pb::Progress {
        let done = self.solved.load(Ordering::Relaxed).min(self.total);
        let seconds = self.started.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            (done - self.solved_before.min(done)) as f64 / seconds
        } else {
            0.0
        };
        let eta = if rate > 0.0 {
            (self.total - done) as f64 / rate
        } else if done == self.total {
            0.0
        } else {
            -1.0
        };
        let workers = self
            .share
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(address, &layouts)| pb::WorkerShare {
                address: address.clone(),
                layouts,
            })
            .collect();
        pb::Progress {
            layouts_done: done,
            layouts_total: self.total,
            layouts_per_second: rate,
            eta_seconds: eta,
            workers,
        }
    }

    /// The wire view of the job; the results only when asked and done.
    pub fn analysis(&self, with_results: bool) -> pb::Analysis {
        let state = self.state();
        let progress = self.progress();
        let record = self.record();
        let results = if with_results && state == AnalysisState::Done {
            record
                .problems
                .iter()
                .enumerate()
                .map(|(i, problem)| pb::ProblemResult {
                    problem: Some(problem.clone()),
                    result: record.results.get(&(i as u32)).cloned(),
                })
                .collect()
        } else {
            Vec::new()
        };
        pb::Analysis {
            job_id: self.id,
            state: state as i32,
            progress: Some(progress),
            request_id: record.request_id.clone(),
            problems: record.problems.len() as u32,
            problems_done: record.results.len() as u32,
            results,
            error: record.error.clone(),
            submitted_unix_seconds: record.submitted_unix,
            ended_unix_seconds: record.ended_unix,
        }
    }

    /// The result of problem `index`, once it is finished.
    pub fn result(&self, index: u32) -> Option<pb::AnalysisResult> {
        self.record().results.get(&index).cloned()
    }

    pub fn error(&self) -> String {
        self.record().error.clone()
    }
}

/// Checks a problem of a request: the scheduler's unit, and the problem as
/// stored (its layout range filled in). Field names are the problem's own.
///
/// A stored problem resumes in the layout order it was started in
/// (`stored_order`, the job record's). A new one is solved in its
/// [`analysis_order`]: all layouts in their `split_order`, whose parts (one for each
/// worker with a table of its own) share fewer positions than the standard order's;
/// a part of the layouts in the standard order, where positions are the client's
/// layout indices.
pub fn prepare(
    index: u32,
    problem: &pb::Problem,
    chunk_size: u32,
    complete: &[u32],
    stored_order: Option<&StoredOrder>,
) -> Result<(pb::Problem, Problem), Invalid> {
    if problem.name.len() > MAX_NAME_BYTES {
        return Err(Invalid::new(
            "name",
            format!("{} bytes, at most {MAX_NAME_BYTES}", problem.name.len()),
        ));
    }
    let view = view_from_proto(problem.view.as_ref())?;
    let end = if problem.end == 0 {
        LAYOUT_COUNT
    } else {
        problem.end
    };
    let range = layout_range(problem.start, end)?;
    let stored = pb::Problem {
        start: range.start,
        end: range.end,
        ..problem.clone()
    };
    let order = match stored_order {
        Some(stored) => layout_order(&stored.cards, stored.group)?,
        None => analysis_order(&view, &range),
    };
    let openings = opening_names(&view);
    let contract = view.contract();
    let problem = Problem::new(
        index, view, contract, range, order, chunk_size, openings, complete,
    );
    Ok((stored, problem))
}

/// Scheduling order: problems with the same trumps together, each group where
/// its first problem was submitted.
fn affinity_order(problems: Vec<Problem>) -> Vec<Arc<Problem>> {
    let mut strains = Vec::new();
    for p in &problems {
        if !strains.contains(&p.strain) {
            strains.push(p.strain);
        }
    }
    let mut problems: Vec<Arc<Problem>> = problems.into_iter().map(Arc::new).collect();
    problems.sort_by_key(|p| strains.iter().position(|&s| s == p.strain));
    problems
}

/// The most one problem adds to an answer carrying every result of its job
/// (GetAnalysis, WatchAnalysis): the problem as stored and a result of its
/// openings with every number at its widest encoding.
fn result_bound(stored: &pb::Problem, openings: &[String]) -> usize {
    let widest = pb::AnalysisResult {
        layouts: LAYOUT_COUNT,
        seconds: 1.0,
        openings: openings
            .iter()
            .map(|card| pb::OpeningResult {
                card: card.clone(),
                histogram: vec![LAYOUT_COUNT; 11],
                mean: 1.0,
                make: 1.0,
            })
            .collect(),
    };
    let result = pb::ProblemResult {
        problem: Some(stored.clone()),
        result: Some(widest),
    };
    // The field's tag and length around each result.
    result.encoded_len() + 6
}

/// Sums a finished problem's result from its stored chunks.
fn problem_result(
    store: &Store,
    job: u64,
    problem: &Problem,
    seconds: f64,
) -> anyhow::Result<pb::AnalysisResult> {
    let n = problem.openings.len();
    let mut histograms = vec![Histogram::default(); n];
    let mut layouts = 0u32;
    for (i, tricks) in store.chunks(job, problem.index)? {
        let range = problem.chunk_range(i as usize);
        anyhow::ensure!(
            (i as usize) < problem.chunk_count() && tricks.len() == range.len() * n,
            "job {job} problem {}: stored chunk {i} does not fit the problem",
            problem.index
        );
        for layout in tricks.chunks_exact(n) {
            for (h, &t) in histograms.iter_mut().zip(layout) {
                h.add(t);
            }
        }
        layouts += range.len() as u32;
    }
    let total = problem.range.len() as u32;
    anyhow::ensure!(
        layouts == total,
        "job {job} problem {}: {layouts} layouts stored, {total} expected",
        problem.index
    );
    Ok(pb::AnalysisResult {
        layouts,
        seconds,
        openings: problem
            .openings
            .iter()
            .zip(histograms)
            .map(|(card, h)| pb::OpeningResult {
                card: card.clone(),
                histogram: h.counts.to_vec(),
                mean: h.mean(),
                make: h.make_share(problem.contract),
            })
            .collect(),
    })
}

/// Every job this coordinator knows, and its store.
pub struct Jobs {
    store: Store,
    scheduler: Arc<Scheduler>,
    config: JobsConfig,
    /// Largest answer message; a job's results must fit in one.
    max_message_bytes: usize,
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
    next_id: AtomicU64,
}

impl Jobs {
    /// Loads the stored jobs and resumes the unfinished ones.
    pub fn open(
        store: Store,
        scheduler: Arc<Scheduler>,
        config: JobsConfig,
        max_message_bytes: usize,
    ) -> anyhow::Result<Arc<Jobs>> {
        let stored = store.jobs()?;
        let jobs = Arc::new(Jobs {
            next_id: AtomicU64::new(stored.iter().map(|(id, _)| id + 1).max().unwrap_or(1)),
            store,
            scheduler,
            config,
            max_message_bytes,
            jobs: Mutex::new(BTreeMap::new()),
        });
        for (id, record) in stored {
            if record.ephemeral {
                // Its client's stream died with the previous process.
                jobs.store.delete_job(id)?;
                continue;
            }
            let unfinished = record.state() == AnalysisState::Queued;
            let job = jobs.build(id, record)?;
            jobs.map().insert(id, job.clone());
            if unfinished {
                tracing::info!(job_id = id, "resuming job from its stored chunks");
                jobs.start(&job)?;
            }
        }
        jobs.purge_expired()?;
        Ok(jobs)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The in-memory job for a record; unfinished problems pick up their stored chunks.
    fn build(&self, id: u64, mut record: JobRecord) -> anyhow::Result<Arc<Job>> {
        let mut problems = Vec::new();
        let mut error = None;
        let mut total = 0u64;
        let mut solved = 0u64;
        if record.state() == AnalysisState::Queued {
            for (i, p) in record.problems.iter().enumerate() {
                let i = i as u32;
                let complete = if record.results.contains_key(&i) {
                    Vec::new()
                } else {
                    self.store.chunk_indices(id, i)?
                };
                // A record from before layout orders were stored: the standard one.
                let order = record
                    .layout_orders
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default();
                match prepare(i, p, record.chunk_size, &complete, Some(&order)) {
                    Ok((_, problem)) => {
                        total += problem.range.len() as u64;
                        if record.results.contains_key(&i) {
                            solved += problem.range.len() as u64;
                        } else {
                            solved += problem.complete_layouts();
                            problems.push(problem);
                        }
                    }
                    Err(invalid) => {
                        let invalid = invalid.within(format!("problems[{i}]"));
                        error = Some(format!("{}: {}", invalid.field, invalid.reason));
                        break;
                    }
                }
            }
        } else {
            total = record.results.values().map(|r| u64::from(r.layouts)).sum();
            solved = total;
        }
        if let Some(error) = error {
            record.state = AnalysisState::Failed as i32;
            record.error = error;
            record.ended_unix = unix_now();
            self.store.put_job(id, &record)?;
            problems.clear();
        }
        let ended = record.state() != AnalysisState::Queued;
        Ok(Arc::new(Job {
            id,
            record: Mutex::new(record),
            problems: affinity_order(problems),
            cancel: CancellationToken::new(),
            ended: watch::Sender::new(ended),
            started: Instant::now(),
            total,
            solved: AtomicU64::new(solved),
            solved_before: solved,
            leased: AtomicBool::new(false),
            share: Mutex::new(BTreeMap::new()),
        }))
    }

    /// Finishes the problems already complete in the store, then hands the rest to the scheduler.
    fn start(&self, job: &Arc<Job>) -> anyhow::Result<()> {
        for problem in &job.problems {
            if problem.is_stored() {
                self.finish_problem(job, problem)?;
            }
        }
        if !job.is_ended() {
            self.scheduler.add(job.clone());
        }
        Ok(())
    }

    /// Layouts per chunk of the jobs submitted now.
    pub fn chunk_size(&self) -> u32 {
        self.scheduler.config.chunk_size
    }

    /// The indices of the stored chunks of a problem.
    #[cfg(test)]
    pub(crate) fn stored_chunks(&self, job: u64, problem: u32) -> Vec<u32> {
        self.store.chunk_indices(job, problem).unwrap()
    }

    /// The largest answer message.
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes
    }

    /// Checks the number of problems of a submit, before any is looked at.
    pub fn check_count(&self, count: usize) -> Result<(), Invalid> {
        if count == 0 {
            return Err(Invalid::new("problems", "give at least one"));
        }
        if count > self.config.max_problems {
            return Err(Invalid::new(
                "problems",
                format!(
                    "{count} given, at most {} per job (--max-problems-per-job); \
                     submit the others as another job",
                    self.config.max_problems
                ),
            ));
        }
        Ok(())
    }

    /// Refuses a job whose answer with every result (GetAnalysis,
    /// WatchAnalysis) could exceed the message limit. An eighth of the limit
    /// is left for the rest of the answer (its progress names every worker).
    fn check_answer(&self, stored: &[pb::Problem], checked: &[Problem]) -> Result<(), Status> {
        let limit = self.max_message_bytes - self.max_message_bytes / 8;
        let bounds: Vec<usize> = stored
            .iter()
            .zip(checked)
            .map(|(p, c)| result_bound(p, &c.openings))
            .collect();
        let total: usize = bounds.iter().sum();
        if total <= limit {
            return Ok(());
        }
        let fits = limit / total.div_ceil(bounds.len()).max(1);
        Err(Status::resource_exhausted(format!(
            "problems: the results of {} problems can reach {} bytes, over the {} bytes an \
             answer may carry (--max-message-bytes); submit at most {fits} problems per job",
            bounds.len(),
            total,
            limit
        )))
    }

    /// Queues a job of problems checked by [`prepare`] (blocking: it writes to
    /// the store). The same non-empty `request_id` gives the same job back.
    pub fn submit(
        &self,
        problems: Vec<(pb::Problem, Problem)>,
        request_id: String,
        ephemeral: bool,
    ) -> Result<Arc<Job>, Status> {
        self.check_count(problems.len())?;
        if request_id.len() > 256 {
            return Err(Invalid::new("request_id", "longer than 256 bytes").into());
        }
        let (normalized, checked): (Vec<pb::Problem>, Vec<Problem>) = problems.into_iter().unzip();
        self.check_answer(&normalized, &checked)?;
        let chunk_size = self.chunk_size();
        self.purge_expired().map_err(internal)?;
        // One submit at a time from here: the request id check and the insert.
        let mut map = self.map();
        if !request_id.is_empty() {
            if let Some(job) = map.values().find(|j| j.record().request_id == request_id) {
                return Ok(job.clone());
            }
        }
        if map.len() >= self.config.max_stored_jobs {
            return Err(Status::resource_exhausted(format!(
                "the coordinator keeps at most {} jobs (--max-stored-jobs); ended jobs are deleted {} s after they end (--retention)",
                self.config.max_stored_jobs,
                self.config.retention.as_secs()
            )));
        }
        let stored: usize = map.values().map(|j| j.record().problems.len()).sum();
        if stored + normalized.len() > self.config.max_stored_problems {
            return Err(Status::resource_exhausted(format!(
                "the coordinator keeps at most {} problems over all jobs \
                 (--max-stored-problems) and holds {stored}; this job has {}. Ended jobs \
                 are deleted {} s after they end (--retention)",
                self.config.max_stored_problems,
                normalized.len(),
                self.config.retention.as_secs()
            )));
        }
        if self.scheduler.depth() >= self.scheduler.config.max_jobs {
            return Err(Status::resource_exhausted(format!(
                "the coordinator already runs {} analyses; try again later",
                self.scheduler.config.max_jobs
            )));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let record = JobRecord {
            layout_orders: checked
                .iter()
                .map(|p| {
                    let (cards, group) = layout_order_to_proto(&p.order);
                    StoredOrder { cards, group }
                })
                .collect(),
            problems: normalized,
            request_id,
            state: AnalysisState::Queued as i32,
            submitted_unix: unix_now(),
            chunk_size,
            ephemeral,
            ..JobRecord::default()
        };
        self.store.put_job(id, &record).map_err(internal)?;
        let total = checked.iter().map(|p| p.range.len() as u64).sum();
        let job = Arc::new(Job {
            id,
            record: Mutex::new(record),
            problems: affinity_order(checked),
            cancel: CancellationToken::new(),
            ended: watch::Sender::new(false),
            started: Instant::now(),
            total,
            solved: AtomicU64::new(0),
            solved_before: 0,
            leased: AtomicBool::new(false),
            share: Mutex::new(BTreeMap::new()),
        });
        map.insert(id, job.clone());
        drop(map);
        self.scheduler.add(job.clone());
        tracing::info!(
            job_id = id,
            problems = job.problems.len(),
            layouts = total,
            "job queued"
        );
        Ok(job)
    }

    pub fn get(&self, id: u64) -> Result<Arc<Job>, Status> {
        self.purge_expired().map_err(internal)?;
        self.map().get(&id).cloned().ok_or_else(|| {
            Status::not_found(format!(
                "job {id}: no such job (never submitted, or past its retention)"
            ))
        })
    }

    /// Jobs newest first, with ids below `before`, in `state` if given.
    pub fn list(
        &self,
        state: Option<AnalysisState>,
        before: u64,
        limit: usize,
    ) -> Result<Vec<Arc<Job>>, Status> {
        self.purge_expired().map_err(internal)?;
        let jobs: Vec<Arc<Job>> = self
            .map()
            .range(..before)
            .rev()
            .map(|(_, j)| j.clone())
            .collect();
        Ok(jobs
            .into_iter()
            .filter(|j| state.is_none_or(|s| j.state() == s))
            .take(limit)
            .collect())
    }

    /// Cancels a job (blocking: it writes to the store). An ended job stays as it is.
    pub fn cancel(&self, job: &Arc<Job>) -> Result<(), Status> {
        let _ = self
            .end(job, AnalysisState::Cancelled, String::new())
            .map_err(internal)?;
        Ok(())
    }

    /// Forgets a job and its stored chunks (an AnalyzeAllFoe job whose stream ended).
    pub fn delete(&self, job: &Arc<Job>) {
        job.cancel.cancel();
        self.scheduler.remove(job.id);
        self.map().remove(&job.id);
        if let Err(e) = self.store.delete_job(job.id) {
            tracing::warn!(job_id = job.id, error = %e, "cannot delete job");
        }
    }

    /// Stores a complete chunk (blocking); the commit that completes a problem
    /// sums its result, the one that completes the job ends it. A store error
    /// fails the job.
    pub fn commit_chunk(&self, job: &Arc<Job>, problem: &Problem, chunk: usize, tricks: &[u8]) {
        if job.is_ended() {
            return;
        }
        let outcome = self
            .store
            .commit_chunk(job.id, problem.index, chunk as u32, tricks)
            .and_then(|_| {
                if problem.mark_stored(chunk) {
                    self.finish_problem(job, problem)
                } else {
                    Ok(())
                }
            });
        if let Err(e) = outcome {
            tracing::error!(job_id = job.id, error = %format!("{e:#}"), "job failed");
            if let Err(e) = self.end(job, AnalysisState::Failed, format!("{e:#}")) {
                tracing::error!(job_id = job.id, error = %e, "cannot store the failure");
            }
        }
    }

    fn finish_problem(&self, job: &Arc<Job>, problem: &Problem) -> anyhow::Result<()> {
        let result = problem_result(
            &self.store,
            job.id,
            problem,
            job.started.elapsed().as_secs_f64(),
        )?;
        let done = {
            let mut record = job.record();
            record.results.insert(problem.index, result);
            let done = record.results.len() == record.problems.len();
            if !done {
                self.store.put_job(job.id, &record)?;
            }
            done
        };
        if done {
            self.end(job, AnalysisState::Done, String::new())?;
        }
        // In memory, the per-layout results of a finished problem would only
        // cost memory: nothing reads them after its sum, and no restart resumes.
        if !self.store.is_durable() {
            self.store.delete_chunks(job.id, problem.index)?;
        }
        Ok(())
    }

    /// Ends a job in `state` unless it has ended already; returns whether it did.
    fn end(&self, job: &Arc<Job>, state: AnalysisState, error: String) -> anyhow::Result<bool> {
        {
            let mut record = job.record();
            if record.state() != AnalysisState::Queued {
                return Ok(false);
            }
            record.state = state as i32;
            record.error = error;
            record.ended_unix = unix_now();
            let stored = self.store.put_job(job.id, &record);
            if stored.is_err() && state != AnalysisState::Failed {
                record.state = AnalysisState::Queued as i32;
                record.ended_unix = 0;
                stored?;
            }
        }
        job.cancel.cancel();
        self.scheduler.remove(job.id);
        job.ended.send_replace(true);
        tracing::info!(job_id = job.id, state = ?state, seconds = job.started.elapsed().as_secs_f64(), "job ended");
        Ok(true)
    }

    /// Deletes the jobs past their retention.
    fn purge_expired(&self) -> anyhow::Result<()> {
        let now = unix_now();
        let expired: Vec<u64> = self
            .map()
            .values()
            .filter(|j| past_retention(j.record().ended_unix, now, self.config.retention))
            .map(|j| j.id)
            .collect();
        for id in expired {
            self.store.delete_job(id)?;
            self.map().remove(&id);
            tracing::info!(job_id = id, "job past its retention deleted");
        }
        Ok(())
    }
}

/// Whether a job that ended at `ended` (unix seconds; 0 while it has not) is past its
/// `retention` at `now`. The times are whole seconds, so a job is kept at least its
/// retention and at most a second more: counting a job that ended late in a second
/// as a whole second older deleted it up to a second early (with `--retention 1s`, a
/// moment after it ended).
fn past_retention(ended: i64, now: i64, retention: Duration) -> bool {
    ended > 0 && now - ended > retention.as_secs() as i64
}

fn internal(e: anyhow::Error) -> Status {
    Status::internal(format!("job store: {e:#}"))
}

#[cfg(test)]
mod tests {
    use deckhand_preferans::{split_order, DeclarerView, LayoutOrder, Seat};

    use super::*;

    fn problem(start: u32, end: u32) -> pb::Problem {
        pb::Problem {
            name: String::new(),
            view: Some(pb::DeclarerView {
                declarer: pb::Seat::N as i32,
                contract: "6S".into(),
                leader: pb::Seat::W as i32,
                compact: "QT7.KQJ.A*8*7.KQJ".into(),
                ..Default::default()
            }),
            start,
            end,
        }
    }

    #[test]
    fn a_job_is_kept_at_least_its_retention() {
        let day = Duration::from_secs(24 * 3600);
        let ended = 1_000_000;
        // Ended late in second `ended`: a second on by the clock may be a moment later.
        assert!(!past_retention(ended, ended + 1, Duration::from_secs(1)));
        assert!(past_retention(ended, ended + 2, Duration::from_secs(1)));
        assert!(!past_retention(ended, ended + 24 * 3600, day));
        assert!(past_retention(ended, ended + 24 * 3600 + 1, day));
        // Not ended yet.
        assert!(!past_retention(0, ended, Duration::ZERO));
    }

    /// All layouts are solved in the split order, a part in the standard one (its
    /// positions are the client's indices), a stored problem in its stored order.
    #[test]
    fn prepare_picks_the_layout_order() {
        let view = DeclarerView::from_notation(
            "QT7.KQJ.A*8*7.KQJ",
            Seat::N,
            "6S".parse().unwrap(),
            Seat::W,
        )
        .unwrap();
        let order =
            |p: &pb::Problem, stored| prepare(0, p, 4096, &[], stored).map(|(_, p)| p.order);
        let split = split_order(&view);
        assert_ne!(split, LayoutOrder::STANDARD);
        assert_eq!(order(&problem(0, 0), None).unwrap(), split);
        assert_eq!(order(&problem(0, LAYOUT_COUNT), None).unwrap(), split);
        assert_eq!(
            order(&problem(0, LAYOUT_COUNT - 1), None).unwrap(),
            LayoutOrder::STANDARD
        );
        let stored = |cards: Vec<u32>, group| {
            let stored = StoredOrder { cards, group };
            prepare(0, &problem(0, 0), 4096, &[], Some(&stored)).map(|(_, p)| p.order)
        };
        assert_eq!(stored(Vec::new(), 0).unwrap(), LayoutOrder::STANDARD);
        let reversed: Vec<u32> = (0..20).rev().collect();
        assert_eq!(
            stored(reversed.clone(), 5).unwrap(),
            LayoutOrder::new(&reversed, 5).unwrap()
        );
        assert_eq!(stored(vec![3; 20], 0).unwrap_err().field, "layout_order");
        assert_eq!(stored(reversed, 21).unwrap_err().field, "layout_group");
    }
}
