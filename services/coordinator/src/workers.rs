//! Worker discovery and one driver task per worker.
//!
//! Workers come from a static list, from DNS names that resolve to many
//! addresses (a Kubernetes headless Service), re-resolved periodically, and
//! from the workers themselves (`Heartbeat`): a registered worker is forgotten
//! after `heartbeat_timeout` without one. A drained worker finishes the leases
//! it holds and takes no new one: a worker that drains itself to shut down is
//! forgotten then; one drained with `DrainWorker` stays drained while it is up
//! and is taken back once it has gone away and returns (a restart). Each
//! worker gets a driver: it checks the worker with `Status`, then runs
//! `slots_per_worker` slots (each a loop taking one lease at a time), and asks
//! it for its `Status` every 2 s while it runs none of them; a broken stream, a
//! silent worker or an unanswered `Status` puts the lease back in the queue and
//! the driver retries the worker with a backoff, so a worker that comes back
//! rejoins.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deckhand::client::{classify, refused_unserved, ClientOptions, Failure, Transport};
use deckhand::preferans::{layout_order_to_proto, JOB_ID_HEADER};
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::Strain;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tonic::Status;

use crate::jobs::Jobs;
use crate::problem::Recorded;
use crate::scheduler::{Lease, Scheduler};

/// What the coordinator knows of one worker.
pub struct Worker {
    pub address: String,
    pub source: pb::WorkerSource,
    state: Mutex<WorkerState>,
    pub solved: AtomicU64,
    /// The worker said it shuts down (a draining heartbeat): forget it once drained.
    leaving: AtomicBool,
    /// Cancelled when the worker is forgotten (missed heartbeats): leases in
    /// flight are given back at once.
    stop: CancellationToken,
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
    /// Last heartbeat of a registered worker.
    heartbeat: Instant,
    /// Cancelled to drain: leases in flight finish, no new one is taken.
    drain: CancellationToken,
    /// The worker process's instance, from the last `Status` (a restart changes it).
    instance: String,
    /// The identity of the table file it shares with other workers, from the last
    /// `Status` (empty: a table of its own).
    shared_table: String,
    /// Why it is down, when it is.
    down: Option<Failure>,
}

impl Worker {
    fn new(address: String, source: pb::WorkerSource) -> Worker {
        Worker {
            address,
            source,
            leaving: AtomicBool::new(false),
            stop: CancellationToken::new(),
            state: Mutex::new(WorkerState {
                up: false,
                busy_slots: 0,
                held: None,
                tables: Vec::new(),
                rate: 0.0,
                rate_mark: (Instant::now(), 0),
                listed: true,
                heartbeat: Instant::now(),
                drain: CancellationToken::new(),
                instance: String::new(),
                shared_table: String::new(),
                down: None,
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

    /// Its run of chunks (see [`crate::problem::Problem::lease_pending`]): its
    /// address, or the identity of the table file it shares.
    fn run(&self) -> String {
        let state = self.state();
        if state.shared_table.is_empty() {
            self.address.clone()
        } else {
            format!("table {}", state.shared_table)
        }
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
        let worker_state = self.state_of(&state);
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
            source: self.source as i32,
            heartbeat_age_seconds: if self.source == pb::WorkerSource::Registered {
                state.heartbeat.elapsed().as_secs_f64()
            } else {
                0.0
            },
            down_reason: match (&state.down, state.up) {
                (Some(failure), false) => failure.reason().to_string(),
                _ => String::new(),
            },
        }
    }

    fn state_of(&self, state: &WorkerState) -> pb::WorkerState {
        match (state.up, state.busy_slots) {
            _ if state.drain.is_cancelled() => pb::WorkerState::Draining,
            (false, _) => pb::WorkerState::Down,
            (true, 0) => pb::WorkerState::Idle,
            (true, _) => pb::WorkerState::Busy,
        }
    }

    /// Idle, busy, down or draining.
    pub fn worker_state(&self) -> pb::WorkerState {
        self.state_of(&self.state())
    }

    fn drain_token(&self) -> CancellationToken {
        self.state().drain.clone()
    }

    fn start_drain(&self) {
        let state = self.state();
        if !state.drain.is_cancelled() {
            tracing::info!(worker = %self.address, "draining worker: no new leases");
            state.drain.cancel();
        }
    }

    /// Records why the worker is down; logs when that is news.
    fn mark_down(&self, failure: Failure) {
        let mut state = self.state();
        if state.up || state.down.as_ref() != Some(&failure) {
            match &failure {
                Failure::Refused(reason) => {
                    tracing::error!(worker = %self.address, reason, "worker refuses this coordinator")
                }
                Failure::Other(reason) => {
                    tracing::warn!(worker = %self.address, reason, "worker down")
                }
            }
        }
        state.up = false;
        state.down = Some(failure);
    }

    /// Why the worker refuses this coordinator, if it does (TLS or token).
    pub fn refusal(&self) -> Option<String> {
        match &self.state().down {
            Some(Failure::Refused(reason)) => Some(reason.clone()),
            _ => None,
        }
    }

    pub fn is_up(&self) -> bool {
        self.state().up
    }
}

/// All known workers and their drivers.
pub struct Registry {
    scheduler: Arc<Scheduler>,
    /// How to dial workers (TLS, client certificate, token).
    client: ClientOptions,
    jobs: Arc<Jobs>,
    workers: Mutex<BTreeMap<String, Arc<Worker>>>,
    /// Stops every driver (the coordinator is shutting down).
    stop: CancellationToken,
    /// The drivers, so that shutdown can wait for them.
    tasks: TaskTracker,
}

/// Why the registry refused a heartbeat or a drain.
#[derive(Debug, thiserror::Error)]
pub enum MembershipError {
    #[error("{0:?} is not HOST:PORT")]
    BadAddress(String),
    #[error("address: no worker {0:?} is known")]
    Unknown(String),
    #[error("the coordinator knows {0} workers, its limit (--max-workers)")]
    TooMany(usize),
}

impl From<MembershipError> for Status {
    fn from(e: MembershipError) -> Status {
        match e {
            MembershipError::BadAddress(_) => deckhand::status::Invalid::new("address", e).into(),
            MembershipError::Unknown(_) => Status::not_found(e.to_string()),
            MembershipError::TooMany(_) => Status::resource_exhausted(e.to_string()),
        }
    }
}

impl Registry {
    pub fn new(
        scheduler: Arc<Scheduler>,
        client: ClientOptions,
        jobs: Arc<Jobs>,
        stop: CancellationToken,
        tasks: TaskTracker,
    ) -> Arc<Registry> {
        let registry = Arc::new(Registry {
            scheduler,
            client,
            jobs,
            workers: Mutex::new(BTreeMap::new()),
            stop,
            tasks,
        });
        let silent = forget_silent(Arc::downgrade(&registry));
        registry
            .tasks
            .spawn(registry.stop.clone().run_until_cancelled_owned(silent));
        registry
    }

    /// A registered worker's heartbeat: registers it the first time, and
    /// drains it when it says it is shutting down.
    pub fn heartbeat(
        self: &Arc<Self>,
        address: &str,
        draining: bool,
    ) -> Result<(), MembershipError> {
        let valid = address.len() <= 256
            && address.rsplit_once(':').is_some_and(|(host, port)| {
                !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
            });
        if !valid {
            return Err(MembershipError::BadAddress(address.to_string()));
        }
        let mut workers = self.workers();
        if let Some(worker) = workers.get(address) {
            worker.state().heartbeat = Instant::now();
            if draining {
                worker.leaving.store(true, Ordering::Relaxed);
                worker.start_drain();
            }
        } else if !draining {
            if workers.len() >= self.scheduler.config.max_workers {
                return Err(MembershipError::TooMany(workers.len()));
            }
            let worker = Arc::new(Worker::new(
                address.to_string(),
                pb::WorkerSource::Registered,
            ));
            workers.insert(address.to_string(), worker.clone());
            tracing::info!(worker = %address, "worker registered");
            let stop = self.stop.clone();
            self.tasks
                .spawn(stop.run_until_cancelled_owned(drive(self.clone(), worker)));
        }
        Ok(())
    }

    /// Drains a worker: its leases in flight finish, it gets no new one.
    pub fn drain(&self, address: &str) -> Result<(), MembershipError> {
        let worker = self
            .workers()
            .get(address)
            .cloned()
            .ok_or_else(|| MembershipError::Unknown(address.to_string()))?;
        worker.start_drain();
        Ok(())
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

    /// When no worker is up and every known one refuses this coordinator
    /// (certificates or token), the reasons: no job can run until the
    /// configuration changes.
    pub fn all_refuse(&self) -> Option<String> {
        let workers = self.workers();
        let reasons: Option<Vec<String>> = workers
            .values()
            .map(|w| w.refusal().map(|r| format!("{}: {r}", w.address)))
            .collect();
        reasons.filter(|r| !r.is_empty()).map(|r| r.join("; "))
    }

    /// Makes the registry hold exactly `addresses` (plus down workers that are
    /// still being retried, and registered workers): new ones get a driver;
    /// vanished ones stop once idle. `source` says where the address came from.
    pub fn sync(self: &Arc<Self>, addresses: &[(String, pb::WorkerSource)]) {
        let mut workers = self.workers();
        let listed = |a: &String| addresses.iter().any(|(b, _)| a == b);
        for worker in workers.values() {
            if worker.source != pb::WorkerSource::Registered {
                worker.state().listed = listed(&worker.address);
            }
        }
        for (address, source) in addresses {
            if !workers.contains_key(address) {
                let worker = Arc::new(Worker::new(address.clone(), *source));
                workers.insert(address.clone(), worker.clone());
                tracing::info!(worker = %address, "worker discovered");
                let stop = self.stop.clone();
                self.tasks
                    .spawn(stop.run_until_cancelled_owned(drive(self.clone(), worker)));
            }
        }
    }

    /// Removes `worker` (not a newer worker registered at the same address).
    fn forget(&self, worker: &Arc<Worker>) {
        let mut workers = self.workers();
        if workers
            .get(&worker.address)
            .is_some_and(|w| Arc::ptr_eq(w, worker))
        {
            workers.remove(&worker.address);
        }
    }
}

/// Forgets registered workers whose heartbeats stopped (once a second, while
/// the registry lives); their leases in flight go back to the queue.
async fn forget_silent(registry: std::sync::Weak<Registry>) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let Some(registry) = registry.upgrade() else {
            return;
        };
        let timeout = registry.scheduler.config.heartbeat_timeout;
        for worker in registry.list() {
            let silent = worker.state().heartbeat.elapsed();
            if worker.source == pb::WorkerSource::Registered && silent > timeout {
                tracing::warn!(worker = %worker.address, silent_secs = silent.as_secs_f64(), "no heartbeat; forgetting the worker");
                worker.stop.cancel();
                registry.forget(&worker);
            }
        }
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
        let mut addresses: Vec<_> = fixed
            .iter()
            .map(|a| (a.clone(), pb::WorkerSource::Static))
            .collect();
        for name in &dns {
            match tokio::net::lookup_host(name.as_str()).await {
                Ok(found) => {
                    addresses.extend(found.map(|a| (a.to_string(), pb::WorkerSource::Dns)))
                }
                Err(e) => tracing::warn!(name, error = %e, "worker DNS lookup failed"),
            }
        }
        addresses.sort();
        addresses.dedup_by(|a, b| a.0 == b.0);
        registry.sync(&addresses);
        tokio::time::sleep(interval).await;
    }
}

fn client(channel: Transport) -> PreferansWorkerServiceClient<Transport> {
    PreferansWorkerServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20)
}

/// How long a worker has to answer `Status`.
const STATUS_TIMEOUT: Duration = Duration::from_secs(5);

/// How often a worker running none of this coordinator's leases is asked for its
/// status. With no call open nothing else would notice that its link was cut or
/// its process frozen, until a job gave it a lease that then had to time out.
const IDLE_PROBE_INTERVAL: Duration = Duration::from_secs(2);

/// Connects and asks for the worker's status; records its tables.
async fn check(
    worker: &Worker,
    options: &ClientOptions,
) -> Result<PreferansWorkerServiceClient<Transport>, Failure> {
    // A partitioned or frozen worker sends no reset: keepalive pings notice it.
    let channel = options
        .connect(&worker.address)
        .await
        .map_err(|e| classify(e.as_ref()))?;
    let mut client = client(channel);
    refresh_status(worker, &mut client).await?;
    Ok(client)
}

/// Asks the worker for its status and records its tables, instance and table file.
async fn refresh_status(
    worker: &Worker,
    client: &mut PreferansWorkerServiceClient<Transport>,
) -> Result<(), Failure> {
    let status = tokio::time::timeout(STATUS_TIMEOUT, client.status(pb::StatusRequest {}))
        .await
        .map_err(|_| Failure::Other("status timed out".into()))?
        .map_err(|status| classify(&status))?
        .into_inner();
    let mut tables: Vec<String> = status
        .threads
        .iter()
        .map(|t| t.trumps.clone())
        .filter(|t| !t.is_empty())
        .collect();
    tables.sort();
    tables.dedup();
    let mut state = worker.state();
    state.tables = tables;
    state.instance = status.instance;
    state.shared_table = status.shared_table;
    Ok(())
}

/// Asks the worker for its status every [`IDLE_PROBE_INTERVAL`] while it runs
/// none of this coordinator's leases (a lease's stream has its own timeouts);
/// returns why it failed to answer.
async fn probe_while_idle(
    worker: &Worker,
    mut client: PreferansWorkerServiceClient<Transport>,
) -> Failure {
    loop {
        tokio::time::sleep(IDLE_PROBE_INTERVAL).await;
        if worker.state().busy_slots > 0 {
            continue;
        }
        if let Err(failure) = refresh_status(worker, &mut client).await {
            return failure;
        }
    }
}

/// The first wait before retrying a worker that is down or fails its leases; each
/// further failure doubles it, up to [`LONGEST_RETRY_WAIT`].
const FIRST_RETRY_WAIT: Duration = Duration::from_millis(250);
const LONGEST_RETRY_WAIT: Duration = Duration::from_secs(5);

fn next_retry_wait(wait: Duration) -> Duration {
    (wait * 2).min(LONGEST_RETRY_WAIT)
}

/// The driver of one worker: health check, lease loops, backoff on failure;
/// it ends when the worker is forgotten, leaves or is no longer listed.
async fn drive(registry: Arc<Registry>, worker: Arc<Worker>) {
    let mut backoff = FIRST_RETRY_WAIT;
    let mut lease_backoff = FIRST_RETRY_WAIT;
    let options = ClientOptions {
        keepalive: registry.scheduler.config.worker_keepalive,
        ..registry.client.clone()
    };
    while !worker.stop.is_cancelled() {
        if !worker.state().listed && !worker.is_up() {
            tracing::info!(worker = %worker.address, "worker no longer listed; forgetting it");
            break;
        }
        let drain = worker.drain_token();
        if drain.is_cancelled() {
            if worker.leaving.load(Ordering::Relaxed) {
                tracing::info!(worker = %worker.address, "worker drained and left: its leases are finished");
                break;
            }
            // Drained by an operator: it stays drained while it is up, and
            // gets work again once it has gone away and comes back.
            tokio::select! {
                _ = worker.stop.cancelled() => break,
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            let before = worker.state().instance.clone();
            let restarted = match check(&worker, &options).await {
                Err(_) => true,
                Ok(_) => worker.state().instance != before,
            };
            if restarted {
                tracing::info!(worker = %worker.address, "drained worker went away; it gets work again when it is back");
                worker.state().drain = CancellationToken::new();
            }
            continue;
        }
        let checked = tokio::select! {
            _ = worker.stop.cancelled() => break,
            _ = drain.cancelled() => continue,
            checked = check(&worker, &options) => checked,
        };
        let client = match checked {
            Ok(client) => client,
            Err(failure) => {
                worker.mark_down(failure);
                tokio::select! {
                    _ = worker.stop.cancelled() => break,
                    _ = drain.cancelled() => {}
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = next_retry_wait(backoff);
                continue;
            }
        };
        if !worker.is_up() {
            tracing::info!(worker = %worker.address, "worker up");
        }
        {
            let mut state = worker.state();
            state.up = true;
            state.down = None;
        }
        backoff = FIRST_RETRY_WAIT;
        let round = Instant::now();
        let mut failed = false;
        let loops = registry.scheduler.config.slots_per_worker.max(1);
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..loops {
            tasks.spawn(lease_loop(registry.clone(), worker.clone(), client.clone()));
        }
        // A drain ends the loops one by one as their leases finish. The first
        // failing loop, or forgetting the worker, ends them all: their leases
        // go back to the queue.
        let probe = probe_while_idle(&worker, client);
        tokio::pin!(probe);
        loop {
            let joined = tokio::select! {
                _ = worker.stop.cancelled() => break,
                failure = &mut probe => {
                    // Checked again at once: it stays down until it answers.
                    worker.mark_down(failure);
                    break;
                }
                joined = tasks.join_next() => joined,
            };
            match joined {
                None => break,
                Some(Ok(Err(e))) => {
                    tracing::warn!(worker = %worker.address, error = %e, "worker failed; its leases return to the queue");
                    failed = true;
                    break;
                }
                Some(_) => {}
            }
        }
        tasks.shutdown().await;
        worker.state().up = false;
        if failed {
            // A worker that answers its status but fails every lease (one that
            // refuses a request it does not understand) is retried with a
            // backoff too, not at once in a loop; one that worked for a while
            // starts again from the shortest wait.
            if round.elapsed() > Duration::from_secs(10) {
                lease_backoff = FIRST_RETRY_WAIT;
            }
            tokio::select! {
                _ = worker.stop.cancelled() => break,
                _ = tokio::time::sleep(lease_backoff) => {}
            }
            lease_backoff = next_retry_wait(lease_backoff);
        }
    }
    registry.forget(&worker);
}

/// Takes leases and runs them on the worker until one fails.
async fn lease_loop(
    registry: Arc<Registry>,
    worker: Arc<Worker>,
    mut client: PreferansWorkerServiceClient<Transport>,
) -> Result<(), Status> {
    let scheduler = &registry.scheduler;
    let drain = worker.drain_token();
    loop {
        let run = worker.run();
        let lease = tokio::select! {
            biased;
            _ = drain.cancelled() => return Ok(()),
            lease = scheduler.lease(&worker.address, &run, || worker.held()) => lease,
        };
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
        if outcome? == LeaseEnd::Refused {
            // The worker is shutting down (its drain ends this loop) or its connection
            // is: the next lease, after a pause, goes over a new one.
            tracing::info!(worker = %worker.address, "worker refused a call before beginning it; its lease goes back to the queue");
            tokio::select! {
                biased;
                _ = drain.cancelled() => return Ok(()),
                _ = tokio::time::sleep(FIRST_RETRY_WAIT) => {}
            }
        }
    }
}

/// How a lease that did not fail ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LeaseEnd {
    /// Its chunk is complete, or its job was cancelled.
    Done,
    /// The worker refused the call before beginning it (see
    /// [`deckhand::client::refused_unserved`]): as in a drain that raced the lease, the
    /// chunk goes back to the queue with nothing lost, and is not counted a re-lease.
    Refused,
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
    client: &mut PreferansWorkerServiceClient<Transport>,
    lease: &Lease,
) -> Result<LeaseEnd, Status> {
    let scheduler = &registry.scheduler;
    let (job, problem) = (&lease.job, &lease.problem);
    let range = problem.chunk_range(lease.chunk);
    let (layout_order, layout_group) = layout_order_to_proto(&problem.order);
    let request = pb::SolveLayoutsRequest {
        view: Some(deckhand::preferans::view_to_proto(&problem.view)),
        start: range.start,
        end: range.end,
        chunk_size: scheduler.config.message_size,
        layout_order: layout_order.clone(),
        layout_group,
    };
    // The job id travels as metadata so the worker's logs name the job too.
    let mut request = tonic::Request::new(request);
    request.metadata_mut().insert(JOB_ID_HEADER, job.id.into());
    let timeout = scheduler.config.lease_timeout;
    let call = tokio::select! {
        _ = job.cancel.cancelled() => return Ok(LeaseEnd::Done),
        call = tokio::time::timeout(timeout, client.solve_layouts(request)) => call,
    };
    let mut stream = match call {
        Err(_) => {
            return Err(Status::deadline_exceeded(
                "worker did not answer SolveLayouts",
            ))
        }
        Ok(Err(status)) if refused_unserved(&status) => return Ok(LeaseEnd::Refused),
        Ok(Err(status)) => return Err(status),
        Ok(Ok(response)) => response.into_inner(),
    };
    loop {
        // Dropping the stream (on return) cancels the call on the worker.
        let message = tokio::select! {
            _ = job.cancel.cancelled() => return Ok(LeaseEnd::Done),
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
                    Ok(LeaseEnd::Done)
                } else {
                    Err(Status::data_loss(
                        "worker ended the stream before the chunk was solved",
                    ))
                };
            }
            Ok(Ok(Some(message))) => message,
        };
        if (&message.layout_order, message.layout_group) != (&layout_order, layout_group) {
            // A worker from before layout orders (or groups) answers in another order.
            return Err(Status::failed_precondition(format!(
                "worker answered in layout order {:?} with a group of {}, asked for \
                 {layout_order:?} with a group of {layout_group}",
                message.layout_order, message.layout_group
            )));
        }
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
                return Ok(LeaseEnd::Done);
            }
            // Finished by a duplicate lease first: stop this stream.
            Recorded::AlreadyComplete => return Ok(LeaseEnd::Done),
        }
    }
}
