//! The accept path of every server: a cap on open connections, a handshake
//! deadline (TLS hello and the HTTP/2 preface must arrive in time), an idle
//! timeout (no request open for a while closes the connection), and TLS.
//!
//! An accept task takes TCP connections; over the cap they are closed at
//! once. Each accepted connection gets its own task for the TLS handshake, so
//! a slow client never holds up the others, and is then handed to tonic as a
//! [`Conn`]. [`ActivityLayer`] counts the requests open on each connection
//! (until their response bodies end), which is what the idle timeout reads.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::codegen::http;
use tonic::transport::server::Connected;
use tonic::Status;

use crate::reload::Reloading;

/// The client's first bytes on an HTTP/2 connection.
const PREFACE_LEN: usize = 24;

/// Bounds on connections.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Open connections at once; more are closed on accept.
    pub max_connections: usize,
    /// Time from accept to the end of the TLS handshake and the HTTP/2 preface.
    pub handshake_timeout: Duration,
    /// A connection with no open request for this long is closed (`None`: never).
    pub idle_timeout: Option<Duration>,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 1024,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Some(Duration::from_secs(300)),
        }
    }
}

/// Requests open on one connection, and since when there were none.
#[derive(Debug)]
pub struct Activity {
    open: AtomicUsize,
    idle_since: Mutex<Instant>,
}

impl Activity {
    fn new() -> Self {
        Activity {
            open: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
        }
    }

    fn idle_since(&self) -> Option<Instant> {
        let since = *self.idle_since.lock().unwrap_or_else(|p| p.into_inner());
        (self.open.load(Ordering::Acquire) == 0).then_some(since)
    }
}

/// Marks a request open until dropped.
struct OpenRequest(Arc<Activity>);

impl OpenRequest {
    fn new(activity: Arc<Activity>) -> Self {
        activity.open.fetch_add(1, Ordering::AcqRel);
        OpenRequest(activity)
    }
}

impl Drop for OpenRequest {
    fn drop(&mut self) {
        *self.0.idle_since.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What handlers can learn about the connection a request came on.
#[derive(Debug, Clone)]
pub struct ConnInfo {
    pub remote_addr: Option<SocketAddr>,
    activity: Arc<Activity>,
}

trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// One accepted connection (plain or TLS) with its deadlines.
pub struct Conn {
    io: Box<dyn Io>,
    info: ConnInfo,
    handshake_deadline: Instant,
    idle_timeout: Option<Duration>,
    read: usize,
    timer: Pin<Box<Sleep>>,
    _permit: OwnedSemaphorePermit,
}

impl Connected for Conn {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> ConnInfo {
        self.info.clone()
    }
}

impl Conn {
    /// When the connection must close unless something happens first; `Err`
    /// when that time has come.
    fn deadline(&self) -> Result<Option<Instant>, &'static str> {
        let now = Instant::now();
        let (at, why) = if self.read < PREFACE_LEN {
            (self.handshake_deadline, "no HTTP/2 preface in time")
        } else if let Some(idle) = self.idle_timeout {
            match self.info.activity.idle_since() {
                Some(since) => (since + idle, "idle"),
                // Busy: look again later (keeping a timer still ahead saves resets).
                None if self.timer.deadline() > now => return Ok(Some(self.timer.deadline())),
                None => return Ok(Some(now + idle)),
            }
        } else {
            return Ok(None);
        };
        if now >= at {
            Err(why)
        } else {
            Ok(Some(at))
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        if let Poll::Ready(result) = Pin::new(&mut this.io).poll_read(cx, buf) {
            this.read += buf.filled().len() - before;
            return Poll::Ready(result);
        }
        // Nothing to read: the timer decides whether to close.
        loop {
            match this.deadline() {
                Err(why) => {
                    tracing::debug!(remote = ?this.info.remote_addr, why, "closing connection");
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why)));
                }
                Ok(None) => return Poll::Pending,
                Ok(Some(at)) => {
                    if this.timer.deadline() != at {
                        this.timer.as_mut().reset(at);
                    }
                    ready!(this.timer.as_mut().poll(cx));
                }
            }
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// Connections closed on accept because the cap was reached (all servers of the process).
static REFUSED: AtomicU64 = AtomicU64::new(0);

fn register_metrics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use crate::metrics::{describe, register_collector, Sample};
        describe(
            "deckhand_connections_refused_total",
            "counter",
            "connections closed on accept because --max-connections were open",
        );
        register_collector(|| {
            vec![Sample {
                name: "deckhand_connections_refused_total",
                labels: Vec::new(),
                value: REFUSED.load(Ordering::Relaxed) as f64,
            }]
        });
    });
}

/// The connections accepted on `listener`, bounded by `limits`, with TLS when
/// `tls` is given. Accepting stops when the stream is dropped.
pub fn incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
    tls: Option<Reloading<rustls::ServerConfig>>,
) -> impl Stream<Item = io::Result<Conn>> {
    register_metrics();
    let (tx, rx) = mpsc::channel::<Conn>(64);
    tokio::spawn(accept_loop(listener, limits, tls, tx));
    ReceiverStream::new(rx).map(Ok)
}

async fn accept_loop(
    listener: TcpListener,
    limits: ConnectionLimits,
    tls: Option<Reloading<rustls::ServerConfig>>,
    tx: mpsc::Sender<Conn>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let accepted = tokio::select! {
            _ = tx.closed() => return,
            accepted = listener.accept() => accepted,
        };
        let (tcp, remote) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: wait instead of spinning.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            REFUSED.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(%remote, max = limits.max_connections, "connection cap reached; closing");
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let handshake_deadline = Instant::now() + limits.handshake_timeout;
        let tls = tls
            .as_ref()
            .map(|t| tokio_rustls::TlsAcceptor::from(t.get()));
        let (tx, idle_timeout) = (tx.clone(), limits.idle_timeout);
        tokio::spawn(async move {
            let Some(io) = handshake(tcp, remote, tls, handshake_deadline).await else {
                return;
            };
            let conn = Conn {
                io,
                info: ConnInfo {
                    remote_addr: Some(remote),
                    activity: Arc::new(Activity::new()),
                },
                handshake_deadline,
                idle_timeout,
                read: 0,
                timer: Box::pin(tokio::time::sleep_until(handshake_deadline)),
                _permit: permit,
            };
            let _ = tx.send(conn).await;
        });
    }
}

async fn handshake(
    tcp: TcpStream,
    remote: SocketAddr,
    tls: Option<tokio_rustls::TlsAcceptor>,
    deadline: Instant,
) -> Option<Box<dyn Io>> {
    let Some(acceptor) = tls else {
        return Some(Box::new(tcp));
    };
    match tokio::time::timeout_at(deadline, acceptor.accept(tcp)).await {
        Ok(Ok(stream)) => Some(Box::new(stream)),
        Ok(Err(e)) => {
            tracing::info!(%remote, error = %e, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!(%remote, "TLS handshake timed out");
            None
        }
    }
}

/// Tower layer marking each request open on its connection until its
/// response body is finished, for the idle timeout.
#[derive(Debug, Clone, Copy, Default)]
pub struct ActivityLayer;

impl<S> tower::Layer<S> for ActivityLayer {
    type Service = TrackActivity<S>;

    fn layer(&self, inner: S) -> Self::Service {
        TrackActivity { inner }
    }
}

/// See [`ActivityLayer`].
#[derive(Debug, Clone)]
pub struct TrackActivity<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower::Service<http::Request<B>> for TrackActivity<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let open = request
            .extensions()
            .get::<ConnInfo>()
            .map(|info| OpenRequest::new(info.activity.clone()));
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await?;
            Ok(match open {
                Some(open) => response.map(|body| {
                    tonic::body::Body::new(OpenBody {
                        inner: body,
                        _open: open,
                    })
                }),
                None => response,
            })
        })
    }
}

/// A response body that keeps its request marked open until it is dropped.
struct OpenBody {
    inner: tonic::body::Body,
    _open: OpenRequest,
}

impl http_body::Body for OpenBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Connection-bound flags shared by every server binary.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionArgs {
    /// Open connections at once; more are closed as they arrive.
    #[arg(long, env = "DECKHAND_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,
    /// Seconds a new connection gets to finish the TLS handshake and send the HTTP/2 preface.
    #[arg(long, env = "DECKHAND_HANDSHAKE_TIMEOUT_SECS", default_value_t = 10)]
    pub handshake_timeout_secs: u64,
    /// Seconds a connection may stay without an open request before it is closed (0: never).
    #[arg(long, env = "DECKHAND_IDLE_TIMEOUT_SECS", default_value_t = 300)]
    pub idle_timeout_secs: u64,
}

impl ConnectionArgs {
    pub fn into_limits(self) -> anyhow::Result<ConnectionLimits> {
        anyhow::ensure!(
            self.max_connections > 0,
            "--max-connections must be positive"
        );
        anyhow::ensure!(
            self.handshake_timeout_secs > 0,
            "--handshake-timeout-secs must be positive"
        );
        let secs = |s: u64| (s > 0).then(|| Duration::from_secs(s));
        Ok(ConnectionLimits {
            max_connections: self.max_connections,
            handshake_timeout: Duration::from_secs(self.handshake_timeout_secs),
            idle_timeout: secs(self.idle_timeout_secs),
        })
    }
}
