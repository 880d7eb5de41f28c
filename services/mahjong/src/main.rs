//! The `mahjong` service binary.

use clap::Parser;
use deckhand::server::{self, ServerArgs, Services};
use mahjong::grpc::{Mahjong, MahjongServiceServer, DEFAULT_MAX_BATCH, DEFAULT_PORT};
use tonic::server::NamedService;
use tonic::service::Routes;

/// Mahjong win check, shanten and waits over gRPC (deckhand.mahjong.v1.MahjongService).
#[derive(Debug, Parser)]
#[command(name = "mahjong", version)]
struct Args {
    #[command(flatten)]
    server: ServerArgs,
    /// Largest number of hands in one batch request.
    #[arg(long, env = "DECKHAND_MAX_BATCH", default_value_t = DEFAULT_MAX_BATCH)]
    max_batch: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    deckhand::telemetry::init(args.server.log_format);
    let config = args.server.into_config(DEFAULT_PORT)?;
    let service = Mahjong::new(args.max_batch)
        .with_budget(config.memory_budget())
        .into_server(config.max_message_bytes);
    let name = <MahjongServiceServer<Mahjong> as NamedService>::NAME;
    server::run(config, Services::new(Routes::new(service), &[name])).await
}
