//! Where a subcommand's requests go: a given address, or an embedded server
//! started in this process.

use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::{Channel, Endpoint};

/// Largest message the CLI sends or accepts.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// A connection to a cluster; keeps the embedded server alive while in use.
pub struct Target {
    pub channel: Channel,
    embedded: Option<RunningServer>,
}

impl Target {
    /// Connects to `addr`, or starts the embedded server when `addr` is `None`.
    pub async fn connect(addr: Option<&str>) -> anyhow::Result<Target> {
        let (url, embedded) = match addr {
            Some(addr) if addr.contains("://") => (addr.to_string(), None),
            Some(addr) => (format!("http://{addr}"), None),
            None => {
                let server = spawn(ServerConfig::loopback(), services()).await?;
                (format!("http://{}", server.addr), Some(server))
            }
        };
        let channel = Endpoint::from_shared(url.clone())?
            .connect()
            .await
            .map_err(|e| anyhow::anyhow!("cannot connect to {url}: {e}"))?;
        Ok(Target { channel, embedded })
    }

    /// Stops the embedded server, if any.
    pub async fn close(self) -> anyhow::Result<()> {
        drop(self.channel);
        if let Some(server) = self.embedded {
            server.shutdown().await?;
        }
        Ok(())
    }
}

/// Every service, for the embedded server.
fn services() -> Services {
    let hand_ops = hand_ops::grpc::HandOps::default().into_server(MAX_MESSAGE_BYTES);
    let names =
        [<hand_ops::grpc::HandOpsServiceServer<hand_ops::grpc::HandOps> as NamedService>::NAME];
    Services::new(Routes::new(hand_ops), &names)
}
