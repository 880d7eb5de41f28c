//! Setup shared by the mahjong service's end-to-end tests: the real server on
//! an ephemeral loopback port and a generated client for it.

use deckhand::server::RunningServer;
use deckhand::testing::serve_on_loopback;
use mahjong::grpc::{Mahjong, MahjongServiceServer};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;

pub use deckhand::proto::mahjong::v1::mahjong_service_client::MahjongServiceClient;

/// Batches above this many hands run on the CPU pool.
pub const POOL_BATCH: usize = deckhand::pool::INLINE_COST.0;
pub const SERVICE: &str = <MahjongServiceServer<Mahjong> as NamedService>::NAME;

/// The default service.
pub async fn start() -> (RunningServer, MahjongServiceClient<Channel>) {
    start_with(Mahjong::default()).await
}

/// `service` served on loopback, with a client that takes messages up to 64 MiB.
pub async fn start_with(service: Mahjong) -> (RunningServer, MahjongServiceClient<Channel>) {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(service.into_server(config.max_message_bytes))
    })
    .await;
    let client = MahjongServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    (server, client)
}
