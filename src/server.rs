//! Server plumbing written once for every Deckhand binary: listen address,
//! health (`grpc.health.v1`), reflection, message-size and concurrency limits,
//! request timeouts (client deadlines are honoured by tonic as well), and a
//! graceful shutdown on SIGTERM / Ctrl-C that first flips health to
//! NOT_SERVING, lets in-flight requests finish, and gives up after a deadline.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;
use tonic::service::Routes;
use tonic::transport::Server;
use tonic_health::ServingStatus;

use crate::auth::{AuthLayer, Tokens};
use crate::budget::{MemoryBudget, DEFAULT_MAX_INFLIGHT_MEMORY, DEFAULT_MAX_REQUEST_MEMORY};
use crate::listener::{ActivityLayer, ConnectionArgs, ConnectionLimits};
use crate::telemetry::LogFormat;
use crate::tls::{Security, SecurityArgs};

/// Flags and environment variables shared by every service binary.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    /// Address to listen on, HOST:PORT (default: 0.0.0.0 and the service's port).
    #[arg(long, env = "DECKHAND_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// Log format.
    #[arg(long, env = "DECKHAND_LOG_FORMAT", value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
    /// Largest request or response message, in bytes.
    #[arg(long, env = "DECKHAND_MAX_MESSAGE_BYTES", default_value_t = 16 << 20)]
    pub max_message_bytes: usize,
    /// Requests served at once on one connection.
    #[arg(
        long,
        env = "DECKHAND_CONCURRENCY_PER_CONNECTION",
        default_value_t = 256
    )]
    pub concurrency_per_connection: usize,
    /// Upper bound on any request's duration in seconds (a shorter client deadline wins).
    #[arg(long, env = "DECKHAND_REQUEST_TIMEOUT_SECS", default_value_t = 3600)]
    pub request_timeout_secs: u64,
    /// Seconds in-flight requests get to finish after SIGTERM / Ctrl-C.
    #[arg(long, env = "DECKHAND_SHUTDOWN_GRACE_SECS", default_value_t = 20)]
    pub shutdown_grace_secs: u64,
    /// Serve Prometheus metrics at http://HOST:PORT/metrics (off when not given).
    #[arg(long, env = "DECKHAND_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Memory one batch request may hold at its peak, in bytes (estimated before it runs).
    #[arg(long, env = "DECKHAND_MAX_REQUEST_MEMORY", default_value_t = DEFAULT_MAX_REQUEST_MEMORY)]
    pub max_request_memory: usize,
    /// Memory all requests in flight may hold together, in bytes.
    #[arg(long, env = "DECKHAND_MAX_INFLIGHT_MEMORY", default_value_t = DEFAULT_MAX_INFLIGHT_MEMORY)]
    pub max_inflight_memory: usize,
    /// HTTP/2 keepalive: after this many seconds without a frame from a peer, ping
    /// it; a peer that does not answer within as long again is dropped, so a
    /// vanished peer (partition, frozen host) is noticed within twice this (0: off).
    #[arg(long, env = "DECKHAND_KEEPALIVE_SECS", default_value_t = 4)]
    pub keepalive_secs: u64,
    /// Also serve the health service alone on HOST:PORT, in plaintext and without
    /// tokens, for probes that cannot speak TLS (such as the kubelet's gRPC probe).
    #[arg(long, env = "DECKHAND_HEALTH_LISTEN")]
    pub health_listen: Option<SocketAddr>,
    #[command(flatten)]
    pub security: SecurityArgs,
    #[command(flatten)]
    pub connections: ConnectionArgs,
}

/// Validated server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    pub max_message_bytes: usize,
    pub concurrency_per_connection: usize,
    pub request_timeout: Duration,
    pub shutdown_grace: Duration,
    pub metrics_listen: Option<SocketAddr>,
    pub max_request_memory: usize,
    pub max_inflight_memory: usize,
    pub keepalive: Option<Duration>,
    pub health_listen: Option<SocketAddr>,
    pub security: Security,
    pub connections: ConnectionLimits,
}

impl ServerArgs {
    /// The validated configuration; `default_port` is the service's documented port.
    pub fn into_config(self, default_port: u16) -> anyhow::Result<ServerConfig> {
        anyhow::ensure!(
            self.max_message_bytes >= 1024,
            "--max-message-bytes must be at least 1024"
        );
        anyhow::ensure!(
            self.concurrency_per_connection > 0,
            "--concurrency-per-connection must be positive"
        );
        anyhow::ensure!(
            self.request_timeout_secs > 0,
            "--request-timeout-secs must be positive"
        );
        anyhow::ensure!(
            self.max_request_memory <= self.max_inflight_memory,
            "--max-request-memory must not exceed --max-inflight-memory"
        );
        Ok(ServerConfig {
            listen: self
                .listen
                .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], default_port))),
            max_message_bytes: self.max_message_bytes,
            concurrency_per_connection: self.concurrency_per_connection,
            request_timeout: Duration::from_secs(self.request_timeout_secs),
            shutdown_grace: Duration::from_secs(self.shutdown_grace_secs),
            metrics_listen: self.metrics_listen,
            max_request_memory: self.max_request_memory,
            max_inflight_memory: self.max_inflight_memory,
            keepalive: (self.keepalive_secs > 0).then(|| Duration::from_secs(self.keepalive_secs)),
            health_listen: self.health_listen,
            security: self.security.into(),
            connections: self.connections.into_limits()?,
        })
    }
}

impl ServerConfig {
    /// Defaults for an in-process server on an ephemeral loopback port (tests, embedded cluster).
    pub fn loopback() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_message_bytes: 16 << 20,
            concurrency_per_connection: 256,
            request_timeout: Duration::from_secs(3600),
            shutdown_grace: Duration::from_secs(5),
            metrics_listen: None,
            max_request_memory: DEFAULT_MAX_REQUEST_MEMORY,
            max_inflight_memory: DEFAULT_MAX_INFLIGHT_MEMORY,
            keepalive: Some(Duration::from_secs(4)),
            health_listen: None,
            security: Security::default(),
            connections: ConnectionLimits::default(),
        }
    }

    /// The memory budget the services of this server share.
    pub fn memory_budget(&self) -> MemoryBudget {
        MemoryBudget::new(
            self.max_request_memory,
            self.max_inflight_memory,
            self.max_message_bytes,
        )
    }
}

/// The gRPC services of one binary: their routes and their names for health checks.
pub struct Services {
    routes: Routes,
    names: Vec<&'static str>,
}

impl Services {
    /// `routes` holds the binary's services (`Routes::new(a).add_service(b)`), `names`
    /// their full gRPC names (`NamedService::NAME`), which health checks report on.
    pub fn new(routes: Routes, names: &[&'static str]) -> Self {
        Services {
            routes,
            names: names.to_vec(),
        }
    }
}

/// A server running in this process (tests, the CLI's embedded cluster).
pub struct RunningServer {
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    handle: JoinHandle<anyhow::Result<()>>,
}

impl RunningServer {
    /// Starts a graceful shutdown and waits for the server to stop.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.handle.await.context("server task failed")?
    }

    /// Stops abruptly, as a killed process would (no drain).
    pub fn abort(self) {
        self.handle.abort();
    }
}

/// Binds `config.listen` and serves in a background task until shut down.
pub async fn spawn(config: ServerConfig, services: Services) -> anyhow::Result<RunningServer> {
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(serve(config, listener, services, async {
        let _ = rx.await;
    }));
    Ok(RunningServer {
        addr,
        shutdown: Some(tx),
        handle,
    })
}

/// Binds `config.listen` and serves until SIGTERM or Ctrl-C.
pub async fn run(config: ServerConfig, services: Services) -> anyhow::Result<()> {
    run_until(config, services, shutdown_signal()).await
}

/// Like [`run`], but shutdown starts when `shutdown` completes (a binary that
/// has something to do first, such as a worker telling its coordinator it leaves).
pub async fn run_until(
    config: ServerConfig,
    services: Services,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let security = &config.security;
    tracing::info!(
        addr = %listener.local_addr()?,
        services = ?services.names,
        tls = security.tls.is_some(),
        mutual_tls = security.tls.as_ref().is_some_and(|t| t.client_ca.is_some()),
        tokens = security.auth_tokens.is_some(),
        "serving"
    );
    if let Some(addr) = config.metrics_listen {
        crate::metrics::serve(addr).await?;
    }
    serve(config, listener, services, shutdown).await
}

/// Serves on `listener` until `shutdown` completes, then drains within the grace period.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    services: Services,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    for name in &services.names {
        health_reporter
            .set_service_status(*name, ServingStatus::Serving)
            .await;
    }
    // The descriptor set holds every Deckhand service; list only this binary's.
    let reflection = config
        .security
        .reflection
        .then(|| {
            services
                .names
                .iter()
                .chain(&[HEALTH_SERVICE, REFLECTION_SERVICE])
                .fold(
                    tonic_reflection::server::Builder::configure()
                        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
                        .register_encoded_file_descriptor_set(
                            tonic_health::pb::FILE_DESCRIPTOR_SET,
                        ),
                    |builder, name| builder.with_service_name(*name),
                )
                .build_v1()
                .context("building the reflection service")
        })
        .transpose()?;
    let interval = config.security.reload_interval;
    let tls = (config.security.tls.as_ref())
        .map(|files| crate::tls::reloading(files, interval))
        .transpose()?;
    let tokens = (config.security.auth_tokens.clone())
        .map(|path| Tokens::reloading(path, interval))
        .transpose()?;
    let limits = config.connections.clone();
    let health_only = match config.health_listen {
        Some(addr) => Some(serve_health(addr, health_service.clone(), limits.clone()).await?),
        None => None,
    };

    let draining = Arc::new(Notify::new());
    let names = services.names.clone();
    let signal = {
        let draining = draining.clone();
        async move {
            shutdown.await;
            tracing::info!("shutting down: health NOT_SERVING, draining in-flight requests");
            let mut health_reporter = health_reporter;
            for name in names.iter().copied().chain([""]) {
                health_reporter
                    .set_service_status(name, ServingStatus::NotServing)
                    .await;
                // Dropping the status channel ends the Watch streams once they
                // have sent NOT_SERVING, so they do not hold the drain open;
                // Check keeps answering NOT_SERVING from a fresh entry.
                health_reporter.clear_service_status(name).await;
                health_reporter
                    .set_service_status(name, ServingStatus::NotServing)
                    .await;
            }
            draining.notify_one();
        }
    };

    let methods = crate::metrics::method_paths(
        &[
            crate::proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        ],
        &[
            &services.names[..],
            &[
                "grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection",
            ],
        ]
        .concat(),
    );
    let server = Server::builder()
        .layer(ActivityLayer)
        .layer(crate::metrics::RequestMetricsLayer::new(methods))
        .layer(crate::transport_errors::TransportErrorsLayer)
        .layer(AuthLayer::new(tokens))
        .layer(crate::budget::AnswerMemoryLayer)
        .concurrency_limit_per_connection(config.concurrency_per_connection)
        .http2_keepalive_interval(config.keepalive)
        .http2_keepalive_timeout(config.keepalive)
        .timeout(config.request_timeout)
        .add_routes(services.routes)
        .add_service(health_service)
        .add_optional_service(reflection)
        .serve_with_incoming_shutdown(crate::listener::incoming(listener, limits, tls), signal);
    tokio::pin!(server);
    // The health-only listener lives as long as this server.
    let _health_only = health_only.map(AbortOnDrop);

    tokio::select! {
        result = &mut server => return result.context("server error"),
        _ = draining.notified() => {}
    }
    match tokio::time::timeout(config.shutdown_grace, server).await {
        Ok(result) => result.context("server error"),
        Err(_) => {
            tracing::warn!(grace = ?config.shutdown_grace, "grace period over; dropping unfinished requests");
            Err(anyhow::Error::new(GraceExpired(config.shutdown_grace)))
        }
    }
}

/// The error of a shutdown that cut in-flight requests at the end of the
/// grace period (the process then exits non-zero).
#[derive(Debug, thiserror::Error)]
#[error("shutdown grace period of {0:?} over: unfinished requests were dropped")]
pub struct GraceExpired(pub Duration);

const HEALTH_SERVICE: &str = "grpc.health.v1.Health";
const REFLECTION_SERVICE: &str = "grpc.reflection.v1.ServerReflection";

/// Serves `health` alone on `addr` (plaintext, no tokens) in a background task.
async fn serve_health<S>(
    addr: SocketAddr,
    health: S,
    limits: ConnectionLimits,
) -> anyhow::Result<JoinHandle<()>>
where
    S: tower::Service<
            tonic::codegen::http::Request<tonic::body::Body>,
            Response = tonic::codegen::http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + tonic::server::NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} (--health-listen)"))?;
    tracing::info!(%addr, "serving health checks in plaintext");
    let server = Server::builder()
        .add_service(health)
        .serve_with_incoming(crate::listener::incoming(listener, limits, None));
    Ok(tokio::spawn(async move {
        if let Err(e) = server.await {
            tracing::warn!(error = %e, "health listener failed");
        }
    }))
}

struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Completes on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
