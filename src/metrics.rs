//! Prometheus metrics shared by every binary: a small process-wide registry,
//! a tower layer that counts and times every gRPC request, and a minimal HTTP
//! endpoint serving the text exposition format at `GET /metrics`.
//!
//! Services add their own series with [`counter_add`], [`gauge_set`] and
//! [`register_collector`] (for values read on each scrape).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use anyhow::Context as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tonic::codegen::http;

/// Upper bounds (seconds) of the request-latency histogram buckets.
const LATENCY_BUCKETS: [f64; 12] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5, 10.0,
];

type Labels = Vec<(String, String)>;
type Collector = Box<dyn Fn() -> Vec<Sample> + Send + Sync>;

/// One value of a series, produced by a collector at scrape time.
pub struct Sample {
    pub name: &'static str,
    pub labels: Labels,
    pub value: f64,
}

#[derive(Default)]
struct Histogram {
    buckets: [u64; LATENCY_BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Registry {
    counters: BTreeMap<(&'static str, Labels), f64>,
    gauges: BTreeMap<(&'static str, Labels), f64>,
    histograms: BTreeMap<(&'static str, Labels), Histogram>,
    help: BTreeMap<&'static str, (&'static str, &'static str)>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

fn collectors() -> &'static Mutex<Vec<Collector>> {
    static COLLECTORS: OnceLock<Mutex<Vec<Collector>>> = OnceLock::new();
    COLLECTORS.get_or_init(Mutex::default)
}

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn with_registry<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    let mut registry = registry().lock().unwrap_or_else(|p| p.into_inner());
    f(&mut registry)
}

/// Declares a series' help text and type (`counter`, `gauge`, `histogram`).
pub fn describe(name: &'static str, kind: &'static str, help: &'static str) {
    with_registry(|r| r.help.insert(name, (kind, help)));
}

/// Adds `value` to a counter.
pub fn counter_add(name: &'static str, pairs: &[(&str, &str)], value: f64) {
    with_registry(|r| *r.counters.entry((name, labels(pairs))).or_default() += value);
}

/// Sets a gauge.
pub fn gauge_set(name: &'static str, pairs: &[(&str, &str)], value: f64) {
    with_registry(|r| r.gauges.insert((name, labels(pairs)), value));
}

/// Records one observation (seconds) in a latency histogram.
pub fn observe(name: &'static str, pairs: &[(&str, &str)], seconds: f64) {
    with_registry(|r| {
        let h = r.histograms.entry((name, labels(pairs))).or_default();
        for (bucket, bound) in h.buckets.iter_mut().zip(LATENCY_BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
    });
}

/// Registers a function called on every scrape (for values owned elsewhere).
pub fn register_collector(collector: impl Fn() -> Vec<Sample> + Send + Sync + 'static) {
    collectors()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Box::new(collector));
}

fn write_labels(out: &mut String, labels: &[(String, String)], extra: Option<(&str, String)>) {
    let mut all: Vec<(&str, String)> = labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    all.extend(extra);
    if all.is_empty() {
        return;
    }
    out.push('{');
    for (i, (k, v)) in all.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{k}=\"{v}\"");
    }
    out.push('}');
}

/// The whole registry in the Prometheus text exposition format.
pub fn render() -> String {
    let samples: Vec<Sample> = collectors()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .flat_map(|c| c())
        .collect();
    let r = registry().lock().unwrap_or_else(|p| p.into_inner());
    let mut out = String::new();
    let header = |out: &mut String, name: &str, seen: &mut Vec<String>| {
        if seen.iter().any(|s| s == name) {
            return;
        }
        seen.push(name.to_string());
        if let Some((kind, help)) = r.help.get(name) {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        }
    };
    let mut seen = Vec::new();
    let plain = r
        .counters
        .iter()
        .chain(&r.gauges)
        .map(|((name, labels), value)| (*name, labels, *value))
        .chain(samples.iter().map(|s| (s.name, &s.labels, s.value)));
    for (name, labels, value) in plain {
        header(&mut out, name, &mut seen);
        out.push_str(name);
        write_labels(&mut out, labels, None);
        let _ = writeln!(out, " {value}");
    }
    for ((name, labels), h) in &r.histograms {
        header(&mut out, name, &mut seen);
        for (count, bound) in h.buckets.iter().zip(LATENCY_BUCKETS) {
            let _ = write!(out, "{name}_bucket");
            write_labels(&mut out, labels, Some(("le", bound.to_string())));
            let _ = writeln!(out, " {count}");
        }
        let _ = write!(out, "{name}_bucket");
        write_labels(&mut out, labels, Some(("le", "+Inf".into())));
        let _ = writeln!(out, " {}", h.count);
        let _ = write!(out, "{name}_sum");
        write_labels(&mut out, labels, None);
        let _ = writeln!(out, " {}", h.sum);
        let _ = write!(out, "{name}_count");
        write_labels(&mut out, labels, None);
        let _ = writeln!(out, " {}", h.count);
    }
    out
}

/// Serves `GET /metrics` on `addr` until the process ends.
pub async fn serve(addr: SocketAddr) -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen for metrics on {addr}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, "metrics at /metrics");
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                // Read the request head (bounded; the body, if any, is ignored).
                while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 8192 {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&request);
                let (status, body) = if head.starts_with("GET /metrics") {
                    ("200 OK", render())
                } else {
                    ("404 Not Found", "try GET /metrics\n".to_string())
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    Ok(bound)
}

/// Tower layer counting and timing every gRPC request by method and status code.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestMetricsLayer;

impl<S> tower::Layer<S> for RequestMetricsLayer {
    type Service = RequestMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestMetrics { inner }
    }
}

/// See [`RequestMetricsLayer`].
#[derive(Debug, Clone)]
pub struct RequestMetrics<S> {
    inner: S,
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
        let method = request.uri().path().to_string();
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
            let seconds = start.elapsed().as_secs_f64();
            counter_add(
                "deckhand_grpc_requests_total",
                &[("method", &method), ("code", &code)],
                1.0,
            );
            if code != "0" {
                counter_add("deckhand_grpc_errors_total", &[("method", &method)], 1.0);
            }
            observe(
                "deckhand_grpc_request_duration_seconds",
                &[("method", &method)],
                seconds,
            );
            response
        })
    }
}

/// Help texts of the request series.
pub fn describe_requests() {
    describe(
        "deckhand_grpc_requests_total",
        "counter",
        "gRPC requests by method and status code",
    );
    describe(
        "deckhand_grpc_errors_total",
        "counter",
        "gRPC requests that ended with a non-OK status",
    );
    describe(
        "deckhand_grpc_request_duration_seconds",
        "histogram",
        "time to the response headers (whole call for unary RPCs)",
    );
}
