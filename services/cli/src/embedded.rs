//! Where a subcommand's requests go: a given address, or an embedded cluster
//! started in this process on loopback ports. Both paths run the same gRPC code.

use std::sync::OnceLock;

use coordinator::RunningCoordinator;
use deckhand::client::{ClientOptions, Transport};
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use hand_ops::grpc::{HandOps, HandOpsServiceServer};
use mahjong::grpc::{Mahjong, MahjongServiceServer};
use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
use rummikub::grpc::{Rummikub, RummikubServiceServer};
use tonic::server::NamedService;
use tonic::service::Routes;

/// Largest message the CLI sends or accepts.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// A connection to a cluster; keeps the embedded servers alive while in use.
pub struct Target {
    pub channel: Transport,
    /// Stopped in this order: the coordinator before its worker.
    coordinator: Option<RunningCoordinator>,
    embedded: Vec<RunningServer>,
}

/// How to reach remote servers (the global --ca, --cert, --key, --token).
static REMOTE: OnceLock<ClientOptions> = OnceLock::new();

/// Sets how remote servers are reached; called once, from `main`.
pub fn set_remote_options(options: ClientOptions) {
    let _ = REMOTE.set(options);
}

fn name<S: NamedService>(_: &S) -> &'static str {
    S::NAME
}

impl Target {
    /// Connects to `addr`, or starts an embedded server with the stateless
    /// services (and a small preferans worker for single deals).
    pub async fn connect(addr: Option<&str>) -> anyhow::Result<Target> {
        match addr {
            Some(addr) => Target::remote(addr).await,
            None => {
                let hand_ops: HandOpsServiceServer<HandOps> =
                    HandOps::default().into_server(MAX_MESSAGE_BYTES);
                let mahjong: MahjongServiceServer<Mahjong> =
                    Mahjong::default().into_server(MAX_MESSAGE_BYTES);
                let rummikub: RummikubServiceServer<Rummikub> =
                    Rummikub::default().into_server(MAX_MESSAGE_BYTES);
                let worker =
                    Worker::new(SolverPool::new(1, 1 << 20)).into_server(MAX_MESSAGE_BYTES);
                let names = [
                    name(&hand_ops),
                    name(&mahjong),
                    name(&rummikub),
                    name(&worker),
                ];
                let routes = Routes::new(hand_ops)
                    .add_service(mahjong)
                    .add_service(rummikub)
                    .add_service(worker);
                let server = spawn(ServerConfig::loopback(), Services::new(routes, &names)).await?;
                Target::local(vec![server]).await
            }
        }
    }

    /// Connects to the coordinator at `addr`, or starts an embedded cluster: a
    /// preferans worker with `threads` solver threads and a coordinator using it.
    pub async fn coordinator(addr: Option<&str>, threads: usize) -> anyhow::Result<Target> {
        if let Some(addr) = addr {
            return Target::remote(addr).await;
        }
        let worker: PreferansWorkerServiceServer<Worker> = Worker::new(SolverPool::new(
            threads,
            deckhand_preferans::DEFAULT_TT_BYTES,
        ))
        .into_server(MAX_MESSAGE_BYTES);
        let names = [name(&worker)];
        let worker = spawn(
            ServerConfig::loopback(),
            Services::new(Routes::new(worker), &names),
        )
        .await?;
        let mut config = coordinator::Config::new(vec![worker.addr.to_string()]);
        config.max_message_bytes = MAX_MESSAGE_BYTES;
        let coordinator = coordinator::spawn(config, ServerConfig::loopback()).await?;
        Ok(Target {
            // Embedded servers listen on loopback in plaintext, without tokens.
            channel: ClientOptions::default()
                .connect(&coordinator.addr.to_string())
                .await?,
            coordinator: Some(coordinator),
            embedded: vec![worker],
        })
    }

    async fn remote(addr: &str) -> anyhow::Result<Target> {
        Ok(Target {
            channel: REMOTE
                .get_or_init(ClientOptions::default)
                .connect(addr)
                .await?,
            coordinator: None,
            embedded: Vec::new(),
        })
    }

    async fn local(servers: Vec<RunningServer>) -> anyhow::Result<Target> {
        let addr = servers
            .first()
            .map(|s| s.addr.to_string())
            .ok_or_else(|| anyhow::anyhow!("no embedded server"))?;
        Ok(Target {
            // Embedded servers listen on loopback in plaintext, without tokens.
            channel: ClientOptions::default().connect(&addr).await?,
            coordinator: None,
            embedded: servers,
        })
    }

    /// Stops the embedded servers, if any.
    pub async fn close(self) -> anyhow::Result<()> {
        drop(self.channel);
        if let Some(coordinator) = self.coordinator {
            coordinator.shutdown().await?;
        }
        for server in self.embedded {
            server.shutdown().await?;
        }
        Ok(())
    }
}
