//! Self-registration: a worker started with `--coordinator ADDR --advertise
//! HOST:PORT` tells that coordinator where to reach it, and repeats it as a
//! heartbeat well within the coordinator's heartbeat timeout. On shutdown it
//! says it is draining, so the coordinator leases it nothing more while the
//! chunks it holds finish.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deckhand::proto::preferans::v1 as pb;
use pb::coordinator_service_client::CoordinatorServiceClient;
use tonic::transport::{Channel, Endpoint};

/// Until the coordinator has said its timeout: a heartbeat this often.
const FIRST_INTERVAL: Duration = Duration::from_secs(2);
/// One heartbeat call at most this long.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);

/// This worker's membership of one coordinator.
pub struct Membership {
    client: CoordinatorServiceClient<Channel>,
    advertise: String,
    leaving: AtomicBool,
}

impl Membership {
    /// Reaches `coordinator` (HOST:PORT or a URL) lazily; `keepalive` pings a
    /// silent connection so a partition is noticed and the channel reconnects.
    pub fn new(
        coordinator: &str,
        advertise: String,
        keepalive: Option<Duration>,
    ) -> anyhow::Result<Arc<Membership>> {
        let url = if coordinator.contains("://") {
            coordinator.to_string()
        } else {
            format!("http://{coordinator}")
        };
        let mut endpoint = Endpoint::from_shared(url)?
            .connect_timeout(CALL_TIMEOUT)
            .tcp_nodelay(true);
        if let Some(keepalive) = keepalive {
            endpoint = endpoint
                .http2_keep_alive_interval(keepalive)
                .keep_alive_timeout(keepalive)
                .keep_alive_while_idle(true);
        }
        Ok(Arc::new(Membership {
            client: CoordinatorServiceClient::new(endpoint.connect_lazy()),
            advertise,
            leaving: AtomicBool::new(false),
        }))
    }

    /// One heartbeat; the coordinator's heartbeat timeout on success.
    async fn beat(&self) -> anyhow::Result<Duration> {
        let request = pb::HeartbeatRequest {
            address: self.advertise.clone(),
            draining: self.leaving.load(Ordering::Relaxed),
        };
        let mut client = self.client.clone();
        let response = tokio::time::timeout(CALL_TIMEOUT, client.heartbeat(request))
            .await
            .map_err(|_| anyhow::anyhow!("heartbeat timed out"))??
            .into_inner();
        Ok(Duration::try_from_secs_f64(response.heartbeat_timeout_seconds).unwrap_or_default())
    }

    /// Heartbeats forever: three per coordinator timeout, so one lost
    /// heartbeat does not get the worker forgotten.
    pub async fn heartbeats(self: Arc<Self>) {
        let mut interval = FIRST_INTERVAL;
        let mut reachable = None;
        loop {
            match self.beat().await {
                Ok(timeout) => {
                    if reachable != Some(true) {
                        tracing::info!(advertise = %self.advertise, "registered with the coordinator");
                    }
                    reachable = Some(true);
                    interval =
                        (timeout / 3).clamp(Duration::from_millis(100), Duration::from_secs(60));
                }
                Err(e) => {
                    if reachable != Some(false) {
                        tracing::warn!(error = %e, "cannot reach the coordinator; retrying");
                    }
                    reachable = Some(false);
                    interval = interval.min(FIRST_INTERVAL);
                }
            }
            tokio::time::sleep(interval).await;
        }
    }

    /// Tells the coordinator this worker is leaving: it leases it nothing
    /// more. Leases in flight are still served while the server drains.
    pub async fn leave(&self) {
        self.leaving.store(true, Ordering::Relaxed);
        match self.beat().await {
            Ok(_) => tracing::info!("told the coordinator this worker is draining"),
            Err(e) => {
                tracing::warn!(error = %e, "could not tell the coordinator this worker is draining")
            }
        }
    }
}
