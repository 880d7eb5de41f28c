//! The `coordinator` service binary.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use coordinator::grpc::{Coordinator, CoordinatorServiceServer, Discovery, DEFAULT_PORT};
use coordinator::scheduler::SchedulerConfig;
use deckhand::client::ClientOptions;
use deckhand::server::{self, ServerArgs, Services};
use tonic::server::NamedService;
use tonic::service::Routes;

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
    /// Layouts per lease.
    #[arg(long, env = "DECKHAND_CHUNK_SIZE", default_value_t = 4096)]
    chunk_size: u32,
    /// Analyses accepted at once; more get RESOURCE_EXHAUSTED.
    #[arg(long, env = "DECKHAND_MAX_JOBS", default_value_t = 16)]
    max_jobs: usize,
    /// Seconds a worker may stay silent on a lease before it is taken back.
    #[arg(long, env = "DECKHAND_LEASE_TIMEOUT_SECS", default_value_t = 60)]
    lease_timeout_secs: u64,
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
    let coordinator = Coordinator::start(scheduler, discovery);
    coordinator.register_metrics();
    let service = coordinator.into_server(config.max_message_bytes);
    let name = <CoordinatorServiceServer<Coordinator> as NamedService>::NAME;
    server::run(config, Services::new(Routes::new(service), &[name])).await
}
