//! The `coordinator` service binary.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use coordinator::grpc::DEFAULT_PORT;
use coordinator::jobs::{JobsConfig, DEFAULT_MAX_PROBLEMS, DEFAULT_MAX_STORED_PROBLEMS};
use coordinator::scheduler::{SchedulerConfig, DEFAULT_MAX_WORKERS};
use coordinator::{Config, CoordinatorHandle, Discovery};
use deckhand::client::ClientOptions;
use deckhand::server::{self, ServerArgs};

/// Shards all-foe preferans analyses across workers (deckhand.preferans.v1.CoordinatorService).
#[derive(Debug, Parser)]
#[command(name = "coordinator", version)]
struct Args {
    #[command(flatten)]
    server: ServerArgs,
    /// Worker addresses, HOST:PORT,HOST:PORT.
    #[arg(long, env = "DECKHAND_WORKERS", value_delimiter = ',')]
    workers: Vec<String>,
    /// DNS names NAME:PORT resolving to many workers (e.g. a Kubernetes headless Service).
    #[arg(long, env = "DECKHAND_WORKERS_DNS", value_delimiter = ',')]
    workers_dns: Vec<String>,
    /// Seconds between re-resolving the worker DNS names.
    #[arg(long, env = "DECKHAND_RESOLVE_INTERVAL_SECS", default_value_t = 10)]
    resolve_interval_secs: u64,
    /// Layouts per chunk (the unit of work leased to a worker).
    #[arg(long, env = "DECKHAND_CHUNK_SIZE", default_value_t = 4096)]
    chunk_size: u32,
    /// Analyses accepted at once; more get RESOURCE_EXHAUSTED.
    #[arg(long, env = "DECKHAND_MAX_JOBS", default_value_t = 16)]
    max_jobs: usize,
    /// Keep jobs (queued, running, results) in an embedded database here, across
    /// restarts; without it they live in memory only.
    #[arg(long, env = "DECKHAND_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// How long an ended job and its results are kept: 90s, 30m, 12h, 7d.
    #[arg(long, env = "DECKHAND_RETENTION", default_value = "7d", value_parser = parse_duration)]
    retention: Duration,
    /// Jobs kept at once in any state; a submit beyond it is refused.
    #[arg(long, env = "DECKHAND_MAX_STORED_JOBS", default_value_t = 1000)]
    max_stored_jobs: usize,
    /// Problems in one submitted job; a larger submit is refused.
    #[arg(long, env = "DECKHAND_MAX_PROBLEMS_PER_JOB", default_value_t = DEFAULT_MAX_PROBLEMS)]
    max_problems_per_job: usize,
    /// Problems kept at once over all stored jobs; a submit beyond it is refused.
    #[arg(long, env = "DECKHAND_MAX_STORED_PROBLEMS", default_value_t = DEFAULT_MAX_STORED_PROBLEMS)]
    max_stored_problems: usize,
    /// Seconds a worker may stay silent on a lease before it is taken back.
    #[arg(long, env = "DECKHAND_LEASE_TIMEOUT_SECS", default_value_t = 60)]
    lease_timeout_secs: u64,
    /// Workers known at once (listed, found by DNS or registered); a worker
    /// registering beyond it is refused.
    #[arg(long, env = "DECKHAND_MAX_WORKERS", default_value_t = DEFAULT_MAX_WORKERS)]
    max_workers: usize,
    /// Seconds without a heartbeat after which a self-registered worker is forgotten.
    #[arg(long, env = "DECKHAND_HEARTBEAT_TIMEOUT_SECS", default_value_t = 15)]
    heartbeat_timeout_secs: u64,
    /// CA (PEM) that signed the workers' certificates; dials workers over TLS.
    #[arg(long, env = "DECKHAND_WORKER_CA")]
    worker_ca: Option<PathBuf>,
    /// Certificate (PEM) the coordinator presents to workers that require mutual TLS.
    #[arg(long, env = "DECKHAND_WORKER_CERT", requires = "worker_key")]
    worker_cert: Option<PathBuf>,
    /// Private key (PEM) of --worker-cert.
    #[arg(long, env = "DECKHAND_WORKER_KEY", requires = "worker_cert")]
    worker_key: Option<PathBuf>,
    /// Name the workers' certificates must hold (default: the address dialled, often an IP).
    #[arg(long, env = "DECKHAND_WORKER_SERVER_NAME")]
    worker_server_name: Option<String>,
    /// File whose first token is sent to workers (re-read at each connect).
    #[arg(long, env = "DECKHAND_WORKER_TOKEN_FILE")]
    worker_token_file: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    deckhand::telemetry::init(args.server.log_format);
    let config = args.server.into_config(DEFAULT_PORT)?;
    anyhow::ensure!(args.chunk_size >= 1, "--chunk-size must be positive");
    anyhow::ensure!(args.max_jobs >= 1, "--max-jobs must be positive");
    if args.workers.is_empty() && args.workers_dns.is_empty() {
        tracing::info!("no --workers or --workers-dns: waiting for workers to register");
    }
    let scheduler = SchedulerConfig {
        chunk_size: args.chunk_size,
        max_jobs: args.max_jobs,
        lease_timeout: Duration::from_secs(args.lease_timeout_secs.max(1)),
        // The server's keepalive also guards the channels to the workers.
        worker_keepalive: config.keepalive,
        heartbeat_timeout: Duration::from_secs(args.heartbeat_timeout_secs.max(1)),
        max_workers: args.max_workers,
        ..SchedulerConfig::default()
    };
    let discovery = Discovery {
        workers: args.workers,
        dns: args.workers_dns,
        interval: Duration::from_secs(args.resolve_interval_secs.max(1)),
        client: ClientOptions {
            ca: args.worker_ca,
            cert: args.worker_cert,
            key: args.worker_key,
            server_name: args.worker_server_name,
            token_file: args.worker_token_file,
            ..ClientOptions::default()
        },
    };
    anyhow::ensure!(
        args.max_stored_jobs >= 1,
        "--max-stored-jobs must be positive"
    );
    anyhow::ensure!(
        args.max_problems_per_job >= 1,
        "--max-problems-per-job must be positive"
    );
    anyhow::ensure!(
        args.max_stored_problems >= args.max_problems_per_job,
        "--max-stored-problems must be at least --max-problems-per-job"
    );
    let coordinator = CoordinatorHandle::start(Config {
        scheduler,
        discovery,
        data_dir: args.data_dir,
        jobs: JobsConfig {
            retention: args.retention,
            max_stored_jobs: args.max_stored_jobs,
            max_problems: args.max_problems_per_job,
            max_stored_problems: args.max_stored_problems,
        },
        max_message_bytes: config.max_message_bytes,
        memory_budget: config.memory_budget(),
    })?;
    coordinator.service().register_metrics();
    let services = coordinator.server();
    server::run(config, services).await?;
    coordinator.shutdown().await;
    Ok(())
}

/// A duration as a number and a unit: s, m, h or d.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?}: expected a number and a unit, e.g. 7d"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("{text:?}: the unit is one of s, m, h, d")),
    };
    Ok(Duration::from_secs(number * seconds))
}
