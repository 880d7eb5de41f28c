//! Worker discovery and one driver task per worker.
//!
//! Workers come from a static list and from DNS names that resolve to many
//! addresses (a Kubernetes headless Service), re-resolved periodically. Each
//! worker gets a driver: it checks the worker with `Status`, then runs
//! `slots_per_worker` slots (each a loop taking one lease at a time); a broken stream or a silent worker puts the
//! lease back in the queue and the driver retries the worker with a backoff,
//! so a worker that comes back rejoins.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deckhand::preferans::JOB_ID_HEADER;
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::Strain;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tonic::transport::{Channel, Endpoint};
use tonic::Status;

use crate::jobs::Jobs;
use crate::problem::Recorded;
use crate::scheduler::{Lease, Scheduler};

/// What the coordinator knows of one worker.
pub struct Worker {
    pub address: String,
    state: Mutex<WorkerState>,
    pub solved: AtomicU64,
}

struct WorkerState {
    up: bool,
    busy_slots: usize,
    /// Trumps of the last job it worked on (its tables prefer to keep them).
    held: Option<Strain>,
    /// Strains its tables hold, from the last `Status`.
    tables: Vec<String>,
    /// Recent layouts/s (exponentially weighted).
    rate: f64,
    rate_mark: (Instant, u64),
    /// Still listed by discovery.
    listed: bool,
}

impl Worker {
    fn new(address: String) -> Worker {
        Worker {
            address,
            state: Mutex::new(WorkerState {
                up: false,
                busy_slots: 0,
                held: None,
                tables: Vec::new(),
                rate: 0.0,
                rate_mark: (Instant::now(), 0),
                listed: true,
            }),
            solved: AtomicU64::new(0),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, WorkerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn held(&self) -> Option<Strain> {
        self.state().held
    }

    /// The ListWorkers entry.
    pub fn info(&self) -> pb::WorkerInfo {
        let mut state = self.state();
        let solved = self.solved.load(Ordering::Relaxed);
        let (mark, before) = state.rate_mark;
        let elapsed = mark.elapsed().as_secs_f64();
        if elapsed >= 1.0 {
            let now = (solved - before) as f64 / elapsed;
            state.rate = if state.busy_slots == 0 && now == 0.0 {
                0.0
            } else {
                0.5 * state.rate + 0.5 * now
            };
            state.rate_mark = (Instant::now(), solved);
        }
        let worker_state = match (state.up, state.busy_slots) {
            (false, _) => pb::WorkerState::Down,
            (true, 0) => pb::WorkerState::Idle,
            (true, _) => pb::WorkerState::Busy,
        };
        let trumps = if state.tables.is_empty() {
            state.held.map(|s| s.to_string()).unwrap_or_default()
        } else {
            state.tables.join(",")
        };
        pb::WorkerInfo {
            address: self.address.clone(),
            state: worker_state as i32,
            trumps,
            layouts_per_second: state.rate,
            layouts_solved: solved,
        }
    }

    pub fn is_up(&self) -> bool {
        self.state().up
    }
}

/// All known workers and their drivers.
pub struct Registry {
    scheduler: Arc<Scheduler>,
    jobs: Arc<Jobs>,
    workers: Mutex<BTreeMap<String, Arc<Worker>>>,
    /// Stops every driver (the coordinator is shutting down).
    stop: CancellationToken,
    /// The drivers, so that shutdown can wait for them.
    tasks: TaskTracker,
}

impl Registry {
    pub fn new(
        scheduler: Arc<Scheduler>,
        jobs: Arc<Jobs>,
        stop: CancellationToken,
        tasks: TaskTracker,
    ) -> Arc<Registry> {
        Arc::new(Registry {
            scheduler,
            jobs,
            workers: Mutex::new(BTreeMap::new()),
            stop,
            tasks,
        })
    }

    fn workers(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Worker>>> {
        self.workers.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn list(&self) -> Vec<Arc<Worker>> {
        self.workers().values().cloned().collect()
    }

    pub fn up_count(&self) -> usize {
        self.workers().values().filter(|w| w.is_up()).count()
    }

    /// Makes the registry hold exactly `addresses` (plus down workers that are
    /// still being retried): new ones get a driver; vanished ones stop once idle.
    pub fn sync(self: &Arc<Self>, addresses: &[String]) {
        let mut workers = self.workers();
        for worker in workers.values() {
            worker.state().listed = addresses.contains(&worker.address);
        }
        for address in addresses {
            if !workers.contains_key(address) {
                let worker = Arc::new(Worker::new(address.clone()));
                workers.insert(address.clone(), worker.clone());
                tracing::info!(worker = %address, "worker discovered");
                let stop = self.stop.clone();
                self.tasks
                    .spawn(stop.run_until_cancelled_owned(drive(self.clone(), worker)));
            }
        }
    }

    fn forget(&self, address: &str) {
        self.workers().remove(address);
    }
}

/// Resolves the static list and the DNS names every `interval`, until the
/// coordinator stops (the caller runs it under the stop token).
pub async fn discover(
    registry: Arc<Registry>,
    fixed: Vec<String>,
    dns: Vec<String>,
    interval: Duration,
) {
    loop {
        let mut addresses = fixed.clone();
        for name in &dns {
            match tokio::net::lookup_host(name.as_str()).await {
                Ok(found) => addresses.extend(found.map(|a| a.to_string())),
                Err(e) => tracing::warn!(name, error = %e, "worker DNS lookup failed"),
            }
        }
        addresses.sort();
        addresses.dedup();
        registry.sync(&addresses);
        tokio::time::sleep(interval).await;
    }
}

fn client(channel: Channel) -> PreferansWorkerServiceClient<Channel> {
    PreferansWorkerServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20)
}

/// Connects and asks for the worker's status; records its tables.
async fn check(worker: &Worker) -> Result<PreferansWorkerServiceClient<Channel>, Status> {
    let url = if worker.address.contains("://") {
        worker.address.clone()
    } else {
        format!("http://{}", worker.address)
    };
    let channel = Endpoint::from_shared(url)
        .map_err(|e| Status::invalid_argument(e.to_string()))?
        .connect_timeout(Duration::from_secs(3))
        .tcp_nodelay(true)
        .connect()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let mut client = client(channel);
    let status = tokio::time::timeout(Duration::from_secs(5), client.status(pb::StatusRequest {}))
        .await
        .map_err(|_| Status::deadline_exceeded("status timed out"))??
        .into_inner();
    let mut tables: Vec<String> = status
        .threads
        .iter()
        .map(|t| t.trumps.clone())
        .filter(|t| !t.is_empty())
        .collect();
    tables.sort();
    tables.dedup();
    worker.state().tables = tables;
    Ok(client)
}

/// The driver of one worker: health check, lease loops, backoff on failure.
async fn drive(registry: Arc<Registry>, worker: Arc<Worker>) {
    let mut backoff = Duration::from_millis(250);
    loop {
        if !worker.state().listed && !worker.is_up() {
            tracing::info!(worker = %worker.address, "worker no longer listed; forgetting it");
            registry.forget(&worker.address);
            return;
        }
        let client = match check(&worker).await {
            Ok(client) => client,
            Err(e) => {
                if worker.is_up() {
                    tracing::warn!(worker = %worker.address, error = %e, "worker down");
                }
                worker.state().up = false;
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        if !worker.is_up() {
            tracing::info!(worker = %worker.address, "worker up");
        }
        worker.state().up = true;
        backoff = Duration::from_millis(250);
        let loops = registry.scheduler.config.slots_per_worker.max(1);
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..loops {
            tasks.spawn(lease_loop(registry.clone(), worker.clone(), client.clone()));
        }
        // The first failing loop ends this round; the others are stopped and
        // their leases go back to the queue.
        if let Some(Ok(Err(e))) = tasks.join_next().await {
            tracing::warn!(worker = %worker.address, error = %e, "worker failed; its leases return to the queue");
        }
        tasks.shutdown().await;
        worker.state().up = false;
    }
}

/// Takes leases and runs them on the worker until one fails.
async fn lease_loop(
    registry: Arc<Registry>,
    worker: Arc<Worker>,
    mut client: PreferansWorkerServiceClient<Channel>,
) -> Result<(), Status> {
    let scheduler = &registry.scheduler;
    loop {
        let lease = scheduler.lease(&worker.address, || worker.held()).await;
        // Give the lease back however this ends (even if this task is aborted).
        let mut guard = LeaseGuard {
            scheduler,
            lease: &lease,
            worker: &worker,
            failed: true,
        };
        {
            let mut state = worker.state();
            state.busy_slots += 1;
            state.held = Some(lease.problem.strain);
        }
        let outcome = run_lease(&registry, &worker, &mut client, &lease).await;
        guard.failed = outcome.is_err();
        drop(guard);
        outcome?;
    }
}

struct LeaseGuard<'a> {
    scheduler: &'a Scheduler,
    lease: &'a Lease,
    worker: &'a Worker,
    failed: bool,
}

impl Drop for LeaseGuard<'_> {
    fn drop(&mut self) {
        self.worker.state().busy_slots -= 1;
        self.scheduler
            .release(self.lease, &self.worker.address, self.failed);
    }
}

/// Streams one chunk from the worker into its problem; commits it when complete.
async fn run_lease(
    registry: &Registry,
    worker: &Worker,
    client: &mut PreferansWorkerServiceClient<Channel>,
    lease: &Lease,
) -> Result<(), Status> {
    let scheduler = &registry.scheduler;
    let (job, problem) = (&lease.job, &lease.problem);
    let range = problem.chunk_range(lease.chunk);
    let request = pb::SolveLayoutsRequest {
        view: Some(deckhand::preferans::view_to_proto(&problem.view)),
        start: range.start,
        end: range.end,
        chunk_size: scheduler.config.message_size,
    };
    // The job id travels as metadata so the worker's logs name the job too.
    let mut request = tonic::Request::new(request);
    request.metadata_mut().insert(JOB_ID_HEADER, job.id.into());
    let timeout = scheduler.config.lease_timeout;
    let call = tokio::select! {
        _ = job.cancel.cancelled() => return Ok(()),
        call = tokio::time::timeout(timeout, client.solve_layouts(request)) => call,
    };
    let mut stream = call
        .map_err(|_| Status::deadline_exceeded("worker did not answer SolveLayouts"))??
        .into_inner();
    loop {
        // Dropping the stream (on return) cancels the call on the worker.
        let message = tokio::select! {
            _ = job.cancel.cancelled() => return Ok(()),
            m = tokio::time::timeout(timeout, stream.message()) => m,
        };
        let message = match message {
            Err(_) => {
                return Err(Status::deadline_exceeded(
                    "lease expired: worker went silent",
                ))
            }
            Ok(Err(status)) => return Err(status),
            Ok(Ok(None)) => {
                return if problem.is_chunk_complete(lease.chunk) {
                    Ok(())
                } else {
                    Err(Status::data_loss(
                        "worker ended the stream before the chunk was solved",
                    ))
                };
            }
            Ok(Ok(Some(message))) => message,
        };
        let recorded = problem
            .record(lease.chunk, message.start, message.count, &message.tricks)
            .map_err(Status::internal)?;
        worker
            .solved
            .fetch_add(u64::from(message.count), Ordering::Relaxed);
        match recorded {
            Recorded::Progress(fresh) => job.add_solved(&worker.address, fresh),
            Recorded::Complete { fresh, tricks } => {
                job.add_solved(&worker.address, fresh);
                let (jobs, job, problem, chunk) = (
                    registry.jobs.clone(),
                    job.clone(),
                    problem.clone(),
                    lease.chunk,
                );
                // The store fsyncs: off the async threads.
                tokio::task::spawn_blocking(move || {
                    jobs.commit_chunk(&job, &problem, chunk, &tricks)
                })
                .await
                .map_err(|e| Status::internal(format!("chunk commit: {e}")))?;
                return Ok(());
            }
            // Finished by a duplicate lease first: stop this stream.
            Recorded::AlreadyComplete => return Ok(()),
        }
    }
}
