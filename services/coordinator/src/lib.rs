//! The coordinator: shards all-foe preferans analyses (184,756 layouts each)
//! across preferans workers.
//!
//! Names, one per concept:
//! - a **chunk** is the unit of work handed out (`chunk_size` layouts, 4,096 by default);
//! - a **lease** is one worker's claim on one chunk, ended by the answer, a failure or a cancel;
//! - a **slot** is one of a worker's concurrent streams (`slots_per_worker`); each holds
//!   at most one lease at a time;
//! - a **message** is one streamed piece of a worker's answer (`message_size` layouts).
//!
//! A **job** is one or many **problems** submitted together (a batch, or the
//! single problem of an AnalyzeAllFoe stream).
//!
//! Modules:
//! - [`store`]: the jobs database (redb, in `--data-dir` or in memory).
//! - [`jobs`]: jobs from submission to retention: chunk commits, results, resume after a restart.
//! - [`problem`]: one problem's chunks, who holds them, the answers of chunks in progress.
//! - [`scheduler`]: the lease rules (affinity by trumps, fairness between jobs,
//!   re-leasing after a failure, duplicate leases at the end of a job).
//! - [`workers`]: discovery (static list and DNS) and one driver task per worker.
//! - [`grpc`]: the CoordinatorService adapter.
//!
//! [`CoordinatorHandle`] owns every task of a coordinator (discovery, worker
//! drivers): dropping it or calling [`CoordinatorHandle::shutdown`] stops them
//! all. [`spawn`] is the one place that sets a coordinator up behind a server;
//! the binary, the CLI's embedded cluster, the cluster bench and the tests use it.

pub mod grpc;
pub mod jobs;
pub mod problem;
pub mod scheduler;
pub mod store;
pub mod workers;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use deckhand::budget::MemoryBudget;
use deckhand::server::{RunningServer, ServerConfig, Services};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tonic::server::NamedService;
use tonic::service::Routes;

use grpc::{Coordinator, CoordinatorServiceServer};
use jobs::{Jobs, JobsConfig};
use scheduler::{Scheduler, SchedulerConfig};
use store::Store;
use workers::{discover, Registry};

/// Where the workers come from.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// Fixed `host:port` addresses.
    pub workers: Vec<String>,
    /// DNS names (`name:port`) resolving to many workers, re-resolved periodically.
    pub dns: Vec<String>,
    pub interval: Duration,
    /// How to dial workers (TLS, client certificate, token).
    pub client: deckhand::client::ClientOptions,
}

impl Discovery {
    /// A fixed list of workers.
    pub fn fixed(workers: Vec<String>) -> Discovery {
        Discovery {
            workers,
            dns: Vec::new(),
            interval: Duration::from_secs(10),
            client: Default::default(),
        }
    }
}

/// Everything a coordinator is started with.
#[derive(Debug, Clone)]
pub struct Config {
    pub scheduler: SchedulerConfig,
    pub discovery: Discovery,
    /// Where jobs are kept; `None`: in memory, lost with the process.
    pub data_dir: Option<PathBuf>,
    pub jobs: JobsConfig,
    /// Largest gRPC message accepted or sent.
    pub max_message_bytes: usize,
    /// The server's memory budget: answers carrying a job's results hold
    /// their memory in it until they are sent.
    pub memory_budget: MemoryBudget,
}

impl Config {
    /// Defaults for a fixed list of workers.
    pub fn new(workers: Vec<String>) -> Config {
        Config {
            scheduler: SchedulerConfig::default(),
            discovery: Discovery::fixed(workers),
            data_dir: None,
            jobs: JobsConfig::default(),
            max_message_bytes: 64 << 20,
            memory_budget: MemoryBudget::default(),
        }
    }
}

/// A running coordinator: owns its tasks; dropping it stops them.
pub struct CoordinatorHandle {
    service: Coordinator,
    max_message_bytes: usize,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl CoordinatorHandle {
    /// Opens the job store (resuming unfinished jobs), starts discovery and the
    /// worker drivers (needs a Tokio runtime). Fails on an unusable data dir.
    pub fn start(config: Config) -> anyhow::Result<CoordinatorHandle> {
        let store = match &config.data_dir {
            Some(dir) => Store::open(dir)?,
            None => Store::memory(),
        };
        let scheduler = Scheduler::new(config.scheduler);
        let jobs = Jobs::open(
            store,
            scheduler.clone(),
            config.jobs,
            config.max_message_bytes,
        )?;
        let stop = CancellationToken::new();
        let tasks = TaskTracker::new();
        let registry = Registry::new(
            scheduler.clone(),
            config.discovery.client.clone(),
            jobs.clone(),
            stop.clone(),
            tasks.clone(),
        );
        let discovery = config.discovery;
        let interval = discovery.interval.max(Duration::from_millis(100));
        tasks.spawn(stop.clone().run_until_cancelled_owned(discover(
            registry.clone(),
            discovery.workers,
            discovery.dns,
            interval,
        )));
        Ok(CoordinatorHandle {
            service: Coordinator::new(scheduler, registry, jobs, config.memory_budget),
            max_message_bytes: config.max_message_bytes,
            stop,
            tasks,
        })
    }

    /// The gRPC service (a cheap clone sharing this coordinator's state).
    pub fn service(&self) -> Coordinator {
        self.service.clone()
    }

    pub fn scheduler(&self) -> &Arc<Scheduler> {
        self.service.scheduler()
    }

    pub fn registry(&self) -> &Arc<Registry> {
        self.service.registry()
    }

    /// The service ready to add to a server, with its name for health checks.
    pub fn server(&self) -> Services {
        let server: CoordinatorServiceServer<Coordinator> =
            CoordinatorServiceServer::new(self.service())
                .max_decoding_message_size(self.max_message_bytes)
                .max_encoding_message_size(self.max_message_bytes);
        let name = <CoordinatorServiceServer<Coordinator> as NamedService>::NAME;
        Services::new(Routes::new(server), &[name])
    }

    /// Stops discovery and every worker driver, and waits for them.
    pub async fn shutdown(self) {
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}

impl Drop for CoordinatorHandle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A coordinator serving on a loopback (or given) address in this process.
pub struct RunningCoordinator {
    pub addr: SocketAddr,
    pub handle: CoordinatorHandle,
    server: RunningServer,
}

impl RunningCoordinator {
    /// Stops the server (gracefully), then every coordinator task.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        let result = self.server.shutdown().await;
        self.handle.shutdown().await;
        result
    }
}

/// Starts a coordinator and serves it in the background on `server.listen`.
pub async fn spawn(config: Config, server: ServerConfig) -> anyhow::Result<RunningCoordinator> {
    let handle = CoordinatorHandle::start(config)?;
    let running = deckhand::server::spawn(server, handle.server()).await?;
    Ok(RunningCoordinator {
        addr: running.addr,
        handle,
        server: running,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn shutdown_stops_discovery_and_every_driver() {
        // Nothing listens on port 1: the driver keeps retrying with a backoff.
        let mut config = Config::new(vec!["127.0.0.1:1".into()]);
        config.discovery.interval = Duration::from_millis(100);
        let handle = CoordinatorHandle::start(config).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(handle.registry().list().len(), 1);
        let tasks = handle.tasks.clone();
        assert!(tasks.len() >= 2, "discovery and one driver run");
        tokio::time::timeout(Duration::from_secs(5), handle.shutdown())
            .await
            .expect("every task stops");
        assert!(tasks.is_empty());
    }

    #[tokio::test]
    async fn dropping_the_handle_stops_its_tasks() {
        let handle = CoordinatorHandle::start(Config::new(vec!["127.0.0.1:1".into()])).unwrap();
        let tasks = handle.tasks.clone();
        tokio::time::sleep(Duration::from_millis(100)).await;
        drop(handle);
        tasks.close();
        tokio::time::timeout(Duration::from_secs(5), tasks.wait())
            .await
            .expect("every task stops");
    }
}
