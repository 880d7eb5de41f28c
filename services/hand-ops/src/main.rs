//! The `hand-ops` service binary.

use clap::Parser;
use deckhand::server::{self, ServerArgs, Services};
use hand_ops::grpc::{HandOps, DEFAULT_MAX_BATCH, DEFAULT_PORT};
use tonic::server::NamedService;
use tonic::service::Routes;

/// Dou Dizhu hand algebra over gRPC (deckhand.handops.v1.HandOpsService).
#[derive(Debug, Parser)]
#[command(name = "hand-ops", version)]
struct Args {
    #[command(flatten)]
    server: ServerArgs,
    /// Largest number of items in one batch request.
    #[arg(long, env = "DECKHAND_MAX_BATCH", default_value_t = DEFAULT_MAX_BATCH)]
    max_batch: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    deckhand::telemetry::init(args.server.log_format);
    let config = args.server.into_config(DEFAULT_PORT)?;
    let service = HandOps::new(args.max_batch)
        .with_budget(config.memory_budget())
        .into_server(config.max_message_bytes);
    let name = <hand_ops::grpc::HandOpsServiceServer<HandOps> as NamedService>::NAME;
    server::run(config, Services::new(Routes::new(service), &[name])).await
}
