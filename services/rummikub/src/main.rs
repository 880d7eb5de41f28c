//! The `rummikub` service binary.

use clap::Parser;
use deckhand::server::{self, ServerArgs, Services};
use rummikub::grpc::{Rummikub, RummikubServiceServer, DEFAULT_MAX_BATCH, DEFAULT_PORT};
use tonic::server::NamedService;
use tonic::service::Routes;

/// Rummikub arrangements and best moves over gRPC (deckhand.rummikub.v1.RummikubService).
#[derive(Debug, Parser)]
#[command(name = "rummikub", version)]
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
    let service = Rummikub::new(args.max_batch)
        .with_budget(config.memory_budget())
        .into_server(config.max_message_bytes);
    let name = <RummikubServiceServer<Rummikub> as NamedService>::NAME;
    server::run(config, Services::new(Routes::new(service), &[name])).await
}
