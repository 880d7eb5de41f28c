//! Prometheus metrics shared by every binary, kept in a `prometheus-client`
//! registry: a tower layer that counts and times every gRPC request, and an
//! HTTP endpoint (hyper) serving the Prometheus text format at `GET /metrics`.
//!
//! Services add series whose values live elsewhere with [`describe`] and
//! [`register_collector`]; the collector is read on every scrape.

use std::collections::{BTreeMap, HashSet};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use prometheus_client::encoding::{
    prometheus_text, DescriptorEncoder, EncodeLabelSet, EncodeMetric,
};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use prost::Message as _;
use tokio::net::TcpListener;
use tonic::codegen::http;

/// Upper bounds (seconds) of the request-latency histogram buckets.
const LATENCY_BUCKETS: [f64; 12] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5, 10.0,
];

/// The `method` label of every request to a path the binary does not serve,
/// so that arbitrary paths cannot create new series.
pub const UNKNOWN_METHOD: &str = "unknown";

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// The whole registry in the Prometheus text format (version 0.0.4).
pub fn render() -> String {
    let mut out = String::new();
    // Writing to a String cannot fail; collectors report no errors of their own.
    let _ = prometheus_text::encode(&mut out, &lock(registry()));
    out
}

/// Serves `GET /metrics` on `addr` in a background task until the process ends.
pub async fn serve(addr: SocketAddr) -> anyhow::Result<SocketAddr> {
    use hyper::server::conn::http1;
    use hyper_util::rt::TokioIo;

    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen for metrics on {addr}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, "metrics at /metrics");
    tokio::spawn(async move {
        loop {
            let socket = match listener.accept().await {
                Ok((socket, _)) => socket,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "metrics endpoint cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|request| async move {
                    Ok::<_, Infallible>(respond(&request))
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(socket), service)
                    .await;
            });
        }
    });
    Ok(bound)
}

fn respond<B>(request: &http::Request<B>) -> http::Response<String> {
    let (status, content_type, body) =
        if request.method() == http::Method::GET && request.uri().path() == "/metrics" {
            (
                http::StatusCode::OK,
                prometheus_text::CONTENT_TYPE,
                render(),
            )
        } else {
            (
                http::StatusCode::NOT_FOUND,
                "text/plain; charset=utf-8",
                "try GET /metrics\n".to_string(),
            )
        };
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    response
}

/// One value of a series, produced by a collector at scrape time.
pub struct Sample {
    pub name: &'static str,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

fn descriptions() -> &'static Mutex<BTreeMap<&'static str, (MetricType, &'static str)>> {
    static DESCRIPTIONS: OnceLock<Mutex<BTreeMap<&'static str, (MetricType, &'static str)>>> =
        OnceLock::new();
    DESCRIPTIONS.get_or_init(Mutex::default)
}

/// Declares the type (`counter` or `gauge`) and help text of a collected series.
pub fn describe(name: &'static str, kind: &'static str, help: &'static str) {
    let kind = match kind {
        "counter" => MetricType::Counter,
        _ => MetricType::Gauge,
    };
    lock(descriptions()).insert(name, (kind, help));
}

/// Registers a function called on every scrape (for values owned elsewhere).
/// Its series are described with [`describe`] first; counters' names end in `_total`.
pub fn register_collector(collector: impl Fn() -> Vec<Sample> + Send + Sync + 'static) {
    lock(registry()).register_collector(Box::new(SampleCollector(Box::new(collector))));
}

/// Adapts a [`register_collector`] function to prometheus-client.
struct SampleCollector(Box<dyn Fn() -> Vec<Sample> + Send + Sync>);

impl std::fmt::Debug for SampleCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SampleCollector")
    }
}

impl prometheus_client::collector::Collector for SampleCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut by_name: BTreeMap<&'static str, Vec<Sample>> = BTreeMap::new();
        for sample in (self.0)() {
            by_name.entry(sample.name).or_default().push(sample);
        }
        let descriptions = lock(descriptions());
        for (name, samples) in by_name {
            let (kind, help) = descriptions
                .get(name)
                .copied()
                .unwrap_or((MetricType::Gauge, ""));
            // The encoder appends `_total` to counter names itself.
            let base = match kind {
                MetricType::Counter => name.strip_suffix("_total").unwrap_or(name),
                _ => name,
            };
            let mut family = encoder.encode_descriptor(base, help, None, kind)?;
            for sample in samples {
                let metric = family.encode_family(&sample.labels)?;
                match kind {
                    MetricType::Counter => ConstCounter::new(sample.value).encode(metric)?,
                    _ => ConstGauge::new(sample.value).encode(metric)?,
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodCode {
    method: String,
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabel {
    method: String,
}

/// The request series, registered once per process.
struct RequestSeries {
    requests: Family<MethodCode, Counter>,
    errors: Family<MethodLabel, Counter>,
    duration: Family<MethodLabel, Histogram>,
}

fn request_series() -> &'static RequestSeries {
    static SERIES: OnceLock<RequestSeries> = OnceLock::new();
    SERIES.get_or_init(|| {
        let series = RequestSeries {
            requests: Family::default(),
            errors: Family::default(),
            duration: Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS)),
        };
        let mut registry = lock(registry());
        registry.register(
            "deckhand_grpc_requests",
            "gRPC requests by method and status code",
            series.requests.clone(),
        );
        registry.register(
            "deckhand_grpc_errors",
            "gRPC requests that ended with a non-OK status",
            series.errors.clone(),
        );
        registry.register(
            "deckhand_grpc_request_duration_seconds",
            "time to the response headers (whole call for unary RPCs)",
            series.duration.clone(),
        );
        series
    })
}

/// The paths (`/package.Service/Method`) of every method of `services` found in
/// the encoded descriptor sets `sets`.
pub fn method_paths(sets: &[&[u8]], services: &[&str]) -> HashSet<String> {
    let mut paths = HashSet::new();
    for set in sets {
        let Ok(set) = prost_types::FileDescriptorSet::decode(*set) else {
            continue;
        };
        for file in set.file {
            for service in &file.service {
                let full = format!("{}.{}", file.package(), service.name());
                if services.contains(&full.as_str()) {
                    paths.extend(
                        service
                            .method
                            .iter()
                            .map(|m| format!("/{full}/{}", m.name())),
                    );
                }
            }
        }
    }
    paths
}

/// Tower layer counting and timing every gRPC request by method and status code.
/// Only the methods in its set get their own `method` label; every other path
/// counts as [`UNKNOWN_METHOD`].
#[derive(Debug, Clone)]
pub struct RequestMetricsLayer {
    methods: Arc<HashSet<String>>,
}

impl RequestMetricsLayer {
    /// Labels the requests to `methods` (paths, see [`method_paths`]).
    pub fn new(methods: HashSet<String>) -> Self {
        request_series();
        RequestMetricsLayer {
            methods: Arc::new(methods),
        }
    }
}

impl<S> tower::Layer<S> for RequestMetricsLayer {
    type Service = RequestMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestMetrics {
            inner,
            methods: self.methods.clone(),
        }
    }
}

/// See [`RequestMetricsLayer`].
#[derive(Debug, Clone)]
pub struct RequestMetrics<S> {
    inner: S,
    methods: Arc<HashSet<String>>,
}

impl<S, B, R> tower::Service<http::Request<B>> for RequestMetrics<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let path = request.uri().path();
        let method = if self.methods.contains(path) {
            path.to_string()
        } else {
            UNKNOWN_METHOD.to_string()
        };
        let start = Instant::now();
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await;
            // Handler errors travel as trailers-only responses: the code is a header.
            let code = match &response {
                Ok(r) => r
                    .headers()
                    .get("grpc-status")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("0")
                    .to_string(),
                Err(_) => "transport".to_string(),
            };
            let series = request_series();
            let label = MethodLabel { method };
            if code != "0" {
                series.errors.get_or_create(&label).inc();
            }
            series
                .duration
                .get_or_create(&label)
                .observe(start.elapsed().as_secs_f64());
            series
                .requests
                .get_or_create(&MethodCode {
                    method: label.method,
                    code,
                })
                .inc();
            response
        })
    }
}
