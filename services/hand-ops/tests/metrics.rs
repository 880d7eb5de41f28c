//! The request metrics stay bounded: calls to paths the binary does not serve
//! all count under one `method="unknown"` label (issue 13, defect 3).

use std::str::FromStr;

use deckhand::testing::serve_on_loopback;
use hand_ops::grpc::{HandOps, HandOpsServiceServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;

const SERVICE: &str = <HandOpsServiceServer<HandOps> as NamedService>::NAME;

/// A fresh UUID-shaped string from a xorshift generator.
fn uuid(state: &mut u64) -> String {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    let (a, b) = (next(), next());
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// Calls `path` with an empty message and returns the status code.
async fn call(channel: &Channel, path: &str) -> tonic::Code {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.expect("channel ready");
    let codec = tonic_prost::ProstCodec::<(), ()>::default();
    let path = PathAndQuery::from_str(path).expect("valid path");
    match grpc.unary(tonic::Request::new(()), path, codec).await {
        Ok(_) => tonic::Code::Ok,
        Err(status) => status.code(),
    }
}

async fn scrape(addr: std::net::SocketAddr) -> String {
    let mut socket = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    socket
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .await
        .expect("sends");
    let mut response = String::new();
    socket
        .read_to_string(&mut response)
        .await
        .expect("reads the response");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let body = response.split_once("\r\n\r\n").expect("a body").1;
    body.to_string()
}

#[tokio::test]
async fn unknown_paths_leave_metrics_flat() {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(HandOps::default().into_server(config.max_message_bytes))
    })
    .await;
    let metrics = deckhand::metrics::serve("127.0.0.1:0".parse().unwrap())
        .await
        .expect("metrics endpoint starts");

    // A served method keeps its own label (an empty request is refused, which is fine here).
    let served = format!("/{SERVICE}/Contains");
    assert_ne!(call(&channel, &served).await, tonic::Code::Unimplemented);

    let mut state = 0x9e37_79b9_7f4a_7c15;
    let mut unknown = || format!("/x.{}/{}", uuid(&mut state), uuid(&mut state));
    for _ in 0..10 {
        assert_eq!(call(&channel, &unknown()).await, tonic::Code::Unimplemented);
    }
    let before = scrape(metrics).await;
    for _ in 0..2_000 {
        assert_eq!(call(&channel, &unknown()).await, tonic::Code::Unimplemented);
    }
    // An unknown method of a served service is unknown too.
    let guessed = format!("/{SERVICE}/{}", uuid(&mut state));
    assert_eq!(call(&channel, &guessed).await, tonic::Code::Unimplemented);
    let after = scrape(metrics).await;

    assert_eq!(before.lines().count(), after.lines().count(), "{after}");
    // Only counter values change (a few more digits each).
    assert!(after.len() < before.len() + 256, "{before}\n---\n{after}");
    assert!(after.contains(&format!("{{method=\"{served}\"")), "{after}");
    assert!(after.contains("deckhand_grpc_requests_total{method=\"unknown\",code=\"12\"} 2011"));
    assert!(!after.contains("/x."), "{after}");
    server.shutdown().await.expect("clean shutdown");
}
