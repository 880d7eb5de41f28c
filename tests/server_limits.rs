//! The server plumbing against hostile clients: malformed bytes, oversized
//! messages, reflection, and shutdown with open streams or unfinished work.
//! A stand-in HandOpsService (quick Contains, a Remove that never finishes)
//! is served through the same `deckhand::server` every binary uses.

use std::time::Duration;

use deckhand::batch_stream::AnswerStream;
use deckhand::budget::MemoryBudget;
use deckhand::proto::handops::v1 as pb;
use deckhand::server::{self, GraceExpired, ServerConfig, Services};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::{Code, Request, Response, Status};

use pb::hand_ops_service_client::HandOpsServiceClient;
use pb::hand_ops_service_server::{HandOpsService, HandOpsServiceServer};

const SERVICE: &str = <HandOpsServiceServer<Probe> as NamedService>::NAME;

#[derive(Debug, Default)]
struct Probe {
    /// When set, Contains answers 1,000,000 bools holding 1 MiB of it.
    budget: Option<MemoryBudget>,
}

#[tonic::async_trait]
impl HandOpsService for Probe {
    async fn contains(
        &self,
        request: Request<pb::ContainsRequest>,
    ) -> Result<Response<pb::ContainsResponse>, Status> {
        if let Some(budget) = &self.budget {
            let reserved = budget
                .take(1 << 20)
                .ok_or_else(|| Status::resource_exhausted("server busy"))?;
            let contains = vec![true; 1_000_000];
            return Ok(reserved.answer(pb::ContainsResponse { contains }));
        }
        let contains = vec![true; request.get_ref().pairs.len()];
        Ok(Response::new(pb::ContainsResponse { contains }))
    }

    async fn remove(
        &self,
        _: Request<pb::RemoveRequest>,
    ) -> Result<Response<pb::RemoveResponse>, Status> {
        std::future::pending().await
    }

    async fn classify(
        &self,
        _: Request<pb::ClassifyRequest>,
    ) -> Result<Response<pb::ClassifyResponse>, Status> {
        Err(Status::unimplemented("not in the probe"))
    }

    async fn legal_moves(
        &self,
        _: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        Err(Status::unimplemented("not in the probe"))
    }

    type ContainsStreamStream = AnswerStream<pb::ContainsResponse>;
    type RemoveStreamStream = AnswerStream<pb::RemoveResponse>;
    type ClassifyStreamStream = AnswerStream<pb::ClassifyResponse>;

    async fn contains_stream(
        &self,
        _: Request<tonic::Streaming<pb::ContainsRequest>>,
    ) -> Result<Response<Self::ContainsStreamStream>, Status> {
        Err(Status::unimplemented("not in the probe"))
    }

    async fn remove_stream(
        &self,
        _: Request<tonic::Streaming<pb::RemoveRequest>>,
    ) -> Result<Response<Self::RemoveStreamStream>, Status> {
        Err(Status::unimplemented("not in the probe"))
    }

    async fn classify_stream(
        &self,
        _: Request<tonic::Streaming<pb::ClassifyRequest>>,
    ) -> Result<Response<Self::ClassifyStreamStream>, Status> {
        Err(Status::unimplemented("not in the probe"))
    }
}

async fn start(config: ServerConfig) -> server::RunningServer {
    start_probe(config, Probe::default()).await
}

async fn start_probe(config: ServerConfig, probe: Probe) -> server::RunningServer {
    let service = HandOpsServiceServer::new(probe).max_decoding_message_size(64 << 10);
    server::spawn(config, Services::new(Routes::new(service), &[SERVICE]))
        .await
        .expect("server starts")
}

async fn channel(server: &server::RunningServer) -> Channel {
    Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect()
        .await
        .unwrap()
}

/// Sends and receives raw message bytes, as a client with a broken encoder would.
#[derive(Debug, Clone, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> Self::Encoder {
        RawCodec
    }

    fn decoder(&mut self) -> Self::Decoder {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let bytes = bytes::Buf::copy_to_bytes(buf, bytes::Buf::remaining(buf));
        Ok(Some(bytes.to_vec()))
    }
}

async fn raw_call(channel: Channel, path: &'static str, body: Vec<u8>) -> Result<Vec<u8>, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(path);
    grpc.unary(Request::new(body), path, RawCodec)
        .await
        .map(Response::into_inner)
}

#[tokio::test]
async fn malformed_request_bytes_are_invalid_argument() {
    let server = start(ServerConfig::loopback()).await;
    let path = "/deckhand.handops.v1.HandOpsService/Contains";
    let status = raw_call(channel(&server).await, path, vec![0xff; 16])
        .await
        .expect_err("0xff * 16 is no ContainsRequest");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("malformed request"), "{status:?}");
    // A well-formed message through the same path still works.
    let ok = raw_call(channel(&server).await, path, Vec::new()).await;
    assert!(ok.is_ok(), "{ok:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn request_over_the_size_limit_is_resource_exhausted() {
    let server = start(ServerConfig::loopback()).await;
    let mut client = HandOpsServiceClient::new(channel(&server).await);
    let pair = pb::HandPair {
        hand: Some(pb::Hand {
            cards: Some(pb::hand::Cards::Packed(1)),
        }),
        part: Some(pb::Hand {
            cards: Some(pb::hand::Cards::Packed(1)),
        }),
    };
    // 24 bytes a pair: 10,000 pairs are 240 KB against a 64 KiB limit.
    let request = pb::ContainsRequest {
        pairs: vec![pair; 10_000],
        packed: None,
    };
    let status = client.contains(request).await.expect_err("too large");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("smaller batches"), "{status:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn reflection_lists_only_the_services_served() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;

    let server = start(ServerConfig::loopback()).await;
    let mut client = ServerReflectionClient::new(channel(&server).await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.message().await.unwrap().expect("a reply");
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("unexpected reply {reply:?}");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "deckhand.handops.v1.HandOpsService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
        ]
    );
    drop(replies);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn open_health_watch_does_not_hold_the_shutdown() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::HealthCheckRequest;

    let config = ServerConfig {
        shutdown_grace: Duration::from_secs(60),
        ..ServerConfig::loopback()
    };
    let server = start(config).await;
    let mut health = HealthClient::new(channel(&server).await);
    let mut watch = health
        .watch(HealthCheckRequest {
            service: SERVICE.to_string(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(watch.message().await.unwrap().is_some());
    // The watch stays open in this task while the server shuts down.
    let done = tokio::time::timeout(Duration::from_secs(10), server.shutdown())
        .await
        .expect("shutdown does not wait out the 60 s grace period for a Watch stream");
    done.expect("a clean shutdown");
    let last = watch.message().await.unwrap().expect("NOT_SERVING first");
    assert_eq!(
        last.status(),
        tonic_health::pb::health_check_response::ServingStatus::NotServing
    );
    assert!(watch.message().await.unwrap().is_none(), "then the end");
}

#[tokio::test]
async fn requests_cut_at_the_grace_period_make_shutdown_fail() {
    let config = ServerConfig {
        shutdown_grace: Duration::from_millis(300),
        ..ServerConfig::loopback()
    };
    let server = start(config).await;
    let mut client = HandOpsServiceClient::new(channel(&server).await);
    let stuck = tokio::spawn(async move { client.remove(pb::RemoveRequest::default()).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let error = server.shutdown().await.expect_err("in-flight request cut");
    assert!(error.downcast_ref::<GraceExpired>().is_some(), "{error:?}");
    // In a binary, main returns this error (exit status 1) and the runtime's
    // end drops the request; here the client task is simply abandoned.
    stuck.abort();
}

#[tokio::test]
async fn idle_server_shuts_down_cleanly() {
    let server = start(ServerConfig::loopback()).await;
    let mut client = HandOpsServiceClient::new(channel(&server).await);
    let reply = client
        .contains(pb::ContainsRequest::default())
        .await
        .unwrap();
    assert!(reply.into_inner().contains.is_empty());
    server.shutdown().await.unwrap();
}

/// An answer the client does not read stays in the server's send buffers, so
/// its memory reservation is held until it has been sent: a client that
/// sends call after call and reads none of the answers fills the in-flight
/// budget and is then refused, instead of growing the server's memory.
#[tokio::test]
async fn unread_answers_keep_their_memory_reserved() {
    use tonic::codegen::http;
    let budget = MemoryBudget::new(1 << 20, 4 << 20, 16 << 20);
    let probe = Probe {
        budget: Some(budget.clone()),
    };
    let server = start_probe(ServerConfig::loopback(), probe).await;
    // An HTTP/2 client whose receive windows are tiny, and that never reads.
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(1024)
        .initial_connection_window_size(1024)
        .handshake::<_, bytes::Bytes>(tcp)
        .await
        .unwrap();
    let driver = tokio::spawn(connection);
    let mut unread = Vec::new();
    let mut codes = Vec::new();
    for _ in 0..6 {
        let mut client = client.clone().ready().await.unwrap();
        let request = http::Request::post(format!(
            "http://{}/deckhand.handops.v1.HandOpsService/Contains",
            server.addr
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
        let (answer, mut body) = client.send_request(request, false).unwrap();
        // An empty ContainsRequest: five bytes of gRPC framing.
        body.send_data(bytes::Bytes::from_static(&[0; 5]), true)
            .unwrap();
        let answer = answer.await.unwrap();
        // grpc-status in the headers: refused before any answer (trailers-only).
        codes.push(answer.headers().get("grpc-status").cloned());
        unread.push((answer, body));
    }
    let busy = Some(http::HeaderValue::from_static("8"));
    assert_eq!(codes[..4], [None, None, None, None], "{codes:?}");
    assert_eq!(codes[4..], [busy.clone(), busy], "{codes:?}");
    assert_eq!(budget.in_flight(), 4 << 20);
    // Gone with the connection.
    drop((unread, client));
    driver.abort();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while budget.in_flight() > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(budget.in_flight(), 0);
    server.shutdown().await.unwrap();
}
