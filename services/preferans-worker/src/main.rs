//! The `preferans-worker` service binary.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use deckhand::server::{self, ServerArgs, Services};
use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker, DEFAULT_PORT};
use preferans_worker::membership::Membership;
use preferans_worker::worker_metrics::register_metrics;
use tonic::server::NamedService;
use tonic::service::Routes;

/// Double-dummy preferans solver over gRPC (deckhand.preferans.v1.PreferansWorkerService).
#[derive(Debug, Parser)]
#[command(name = "preferans-worker", version)]
struct Args {
    #[command(flatten)]
    server: ServerArgs,
    /// Solver threads, sharing one long-lived table (default: all cores).
    #[arg(long, env = "DECKHAND_THREADS", value_parser = at_least_one::<usize>())]
    threads: Option<usize>,
    /// Transposition table size per thread, in MiB (the shared table is this times
    /// the threads, at least 8 MiB).
    #[arg(long, env = "DECKHAND_TABLE_MB", default_value_t = 128, value_parser = at_least_one::<usize>())]
    table_mb: usize,
    /// Share the transposition table with the other workers on this host started with
    /// the same file: what one stores, all find, as threads of one worker do, and the
    /// table outlives them (a restarted worker starts warm). Put it on a memory file
    /// system (e.g. /dev/shm/deckhand-preferans.table); every worker on it must have
    /// the same threads × table-mb. Created if missing.
    #[arg(long, env = "DECKHAND_TABLE_FILE")]
    table_file: Option<PathBuf>,
    /// Register with this coordinator (HOST:PORT) and send it heartbeats.
    #[arg(long, env = "DECKHAND_COORDINATOR", requires = "advertise")]
    coordinator: Option<String>,
    /// Where the coordinator reaches this worker, HOST:PORT (with --coordinator).
    #[arg(long, env = "DECKHAND_ADVERTISE", requires = "coordinator")]
    advertise: Option<String>,
    /// A SolveLayouts client that reads no result for this long loses its solve
    /// (the solver threads are freed; the stream ends with DEADLINE_EXCEEDED).
    #[arg(long, env = "DECKHAND_READ_STALL_SECS", default_value_t = 60, value_parser = at_least_one::<u64>())]
    read_stall_secs: u64,
}

/// Sizes and times of 0 cannot work: refused when the arguments are read.
fn at_least_one<T>() -> clap::builder::RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
    <T as TryFrom<u64>>::Error: std::error::Error + Send + Sync + 'static,
{
    clap::builder::RangedU64ValueParser::new().range(1..)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    deckhand::telemetry::init(args.server.log_format);
    let config = args.server.into_config(DEFAULT_PORT)?;
    let threads = args.threads.unwrap_or_else(default_threads);
    let pool = match &args.table_file {
        Some(path) => SolverPool::with_table_file(threads, args.table_mb << 20, path)?,
        None => SolverPool::new(threads, args.table_mb << 20),
    };
    tracing::info!(threads, table_mb = args.table_mb, table_file = ?args.table_file, "solver pool ready");
    register_metrics(pool.clone());
    let service = Worker::new(pool)
        .with_read_stall(Duration::from_secs(args.read_stall_secs))
        .into_server(config.max_message_bytes);
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    let membership = match (&args.coordinator, args.advertise) {
        (Some(coordinator), Some(advertise)) => {
            let membership = Membership::new(coordinator, advertise, config.keepalive)?;
            tokio::spawn(membership.clone().heartbeats());
            Some(membership)
        }
        _ => None,
    };
    // On SIGTERM, first tell the coordinator (no new leases), then drain.
    let shutdown = async move {
        server::shutdown_signal().await;
        if let Some(membership) = membership {
            membership.leave().await;
        }
    };
    server::run_until(
        config,
        Services::new(Routes::new(service), &[name]),
        shutdown,
    )
    .await
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
