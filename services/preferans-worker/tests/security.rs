//! Transport security and connection bounds end to end, on in-process
//! servers with certificates made here (rcgen): TLS, mutual TLS, bearer
//! tokens, certificate rotation, the coordinator refused by its workers,
//! silent and idle connections, and the connection cap.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use coordinator::scheduler::SchedulerConfig;
use deckhand::client::{classify, ClientOptions, Failure};
use deckhand::listener::ConnectionLimits;
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use deckhand::tls::{Security, TlsFiles};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;
use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{health_client::HealthClient, HealthCheckRequest};

/// A directory for one test's files, removed at the end.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("deckhand-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        // Written aside and renamed, as Kubernetes swaps secrets.
        let temporary = self.0.join(format!(".{name}.tmp"));
        std::fs::write(&temporary, contents).unwrap();
        std::fs::rename(&temporary, &path).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A certificate authority.
struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

/// A certificate and its key, in PEM.
struct Leaf {
    cert: String,
    key: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let pem = params.self_signed(&key).unwrap().pem();
        Ca {
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    fn leaf(&self, purpose: ExtendedKeyUsagePurpose, expired: bool) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        params.extended_key_usages = vec![purpose];
        if expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        Leaf {
            cert: params.signed_by(&key, &self.issuer).unwrap().pem(),
            key: key.serialize_pem(),
        }
    }

    fn server(&self) -> Leaf {
        self.leaf(ExtendedKeyUsagePurpose::ServerAuth, false)
    }

    fn client(&self) -> Leaf {
        self.leaf(ExtendedKeyUsagePurpose::ClientAuth, false)
    }
}

/// Server TLS files in `dir` (and a client CA for mutual TLS).
fn tls_files(dir: &Dir, leaf: &Leaf, client_ca: Option<&Ca>) -> TlsFiles {
    TlsFiles {
        cert: dir.write("server.pem", &leaf.cert),
        key: dir.write("server.key", &leaf.key),
        client_ca: client_ca.map(|ca| dir.write("client-ca.pem", &ca.pem)),
    }
}

fn security(tls: Option<TlsFiles>, tokens: Option<PathBuf>) -> Security {
    Security {
        tls,
        auth_tokens: tokens,
        reload_interval: Duration::from_millis(100),
        reflection: true,
    }
}

/// A preferans worker in this process with `security` and `limits`.
async fn worker(security: Security, limits: ConnectionLimits) -> RunningServer {
    worker_with_health(security, limits, None).await
}

async fn worker_with_health(
    security: Security,
    limits: ConnectionLimits,
    health_listen: Option<std::net::SocketAddr>,
) -> RunningServer {
    let mut config = ServerConfig::loopback();
    config.security = security;
    config.connections = limits;
    config.health_listen = health_listen;
    let service = Worker::new(SolverPool::new(1, 1 << 20)).into_server(16 << 20);
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    spawn(config, Services::new(Routes::new(service), &[name]))
        .await
        .unwrap()
}

/// Client options trusting `ca`, with `client` as our certificate.
fn trusting(dir: &Dir, ca: &Ca, client: Option<(&str, &Leaf)>) -> ClientOptions {
    let mut options = ClientOptions {
        ca: Some(dir.write("ca.pem", &ca.pem)),
        ..ClientOptions::default()
    };
    if let Some((name, leaf)) = client {
        options.cert = Some(dir.write(&format!("{name}.pem"), &leaf.cert));
        options.key = Some(dir.write(&format!("{name}.key"), &leaf.key));
    }
    options
}

/// Connects with `options` and calls Status; the failure, classified.
async fn status(options: &ClientOptions, server: &RunningServer) -> Result<(), Failure> {
    let addr = format!("127.0.0.1:{}", server.addr.port());
    let channel = options
        .connect(&addr)
        .await
        .map_err(|e| classify(e.as_ref()))?;
    let mut client = PreferansWorkerServiceClient::new(channel);
    let call = client.status(pb::StatusRequest {});
    match tokio::time::timeout(Duration::from_secs(10), call).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(status)) => Err(classify(&status)),
        Err(_) => panic!("the call hung"),
    }
}

fn refused(result: Result<(), Failure>, words: &str) {
    match result {
        Err(Failure::Refused(reason)) => {
            assert!(reason.contains(words), "{reason:?} lacks {words:?}")
        }
        other => panic!("expected a refusal naming {words:?}, got {other:?}"),
    }
}

#[tokio::test]
async fn tls_needs_the_ca_and_plaintext_fails() {
    let dir = Dir::new("tls-basic");
    let ca = Ca::new("deckhand test CA");
    let health_addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let server = worker_with_health(
        security(Some(tls_files(&dir, &ca.server(), None)), None),
        ConnectionLimits::default(),
        Some(health_addr),
    )
    .await;

    // Probes that cannot speak TLS use the plaintext health-only listener
    // (bound by the server task, so perhaps a moment after `spawn` returns).
    let deadline = Instant::now() + Duration::from_secs(5);
    let channel = loop {
        match ClientOptions::default()
            .connect(&health_addr.to_string())
            .await
        {
            Ok(channel) => break channel,
            Err(e) => assert!(Instant::now() < deadline, "{e:#}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let health = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(health.into_inner().status(), ServingStatus::Serving);

    let plaintext = status(&ClientOptions::default(), &server).await;
    assert!(matches!(plaintext, Err(Failure::Other(_))), "{plaintext:?}");
    status(&trusting(&dir, &ca, None), &server).await.unwrap();

    let stranger = Ca::new("another CA");
    refused(
        status(&trusting(&dir, &stranger, None), &server).await,
        "unknown CA",
    );

    // An https:// address without a CA cannot be verified: said before dialling.
    let https = ClientOptions::default().endpoint(&format!("https://{}", server.addr));
    assert!(https.unwrap_err().to_string().contains("--ca"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_refuses_missing_foreign_and_expired_client_certificates() {
    let dir = Dir::new("tls-mutual");
    let ca = Ca::new("deckhand test CA");
    let server = worker(
        security(Some(tls_files(&dir, &ca.server(), Some(&ca))), None),
        ConnectionLimits::default(),
    )
    .await;

    refused(
        status(&trusting(&dir, &ca, None), &server).await,
        "requires a client certificate",
    );
    let stranger = Ca::new("another CA").client();
    refused(
        status(&trusting(&dir, &ca, Some(("stranger", &stranger))), &server).await,
        "unknown CA",
    );
    let expired = ca.leaf(ExtendedKeyUsagePurpose::ClientAuth, true);
    refused(
        status(&trusting(&dir, &ca, Some(("expired", &expired))), &server).await,
        "expired",
    );
    let good = ca.client();
    status(&trusting(&dir, &ca, Some(("good", &good))), &server)
        .await
        .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn tokens_guard_every_rpc_but_health_and_reload() {
    let dir = Dir::new("tokens");
    let tokens = dir.write("tokens", "# operators\nfirst-token\nsecond-token # ci\n");
    let server = worker(security(None, Some(tokens)), ConnectionLimits::default()).await;
    let with = |token: Option<&str>| ClientOptions {
        token: token.map(str::to_string),
        ..ClientOptions::default()
    };

    for token in [None, Some("wrong-token"), Some("first-toke")] {
        match status(&with(token), &server).await {
            Err(Failure::Refused(reason)) => {
                // No hint about which tokens exist.
                assert_eq!(reason, "token refused: missing or unknown bearer token");
            }
            other => panic!("{token:?}: {other:?}"),
        }
    }
    status(&with(Some("first-token")), &server).await.unwrap();
    status(&with(Some("second-token")), &server).await.unwrap();

    // Health stays open for probes.
    let channel = ClientOptions::default()
        .connect(&server.addr.to_string())
        .await
        .unwrap();
    let health = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(health.into_inner().status(), ServingStatus::Serving);

    // A rewritten token file takes effect without a restart.
    dir.write("tokens", "third-token\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    while status(&with(Some("third-token")), &server).await.is_err() {
        assert!(Instant::now() < deadline, "the token file was not reloaded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(status(&with(Some("first-token")), &server).await.is_err());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn certificate_rotation_keeps_streams_and_serves_the_new_certificate() {
    let dir = Dir::new("rotation");
    let (old_ca, new_ca) = (Ca::new("old CA"), Ca::new("new CA"));
    let files = tls_files(&dir, &old_ca.server(), None);
    let server = worker(security(Some(files), None), ConnectionLimits::default()).await;
    let (old, new) = (
        trusting(&dir, &old_ca, None),
        ClientOptions {
            ca: Some(dir.write("new-ca.pem", &new_ca.pem)),
            ..ClientOptions::default()
        },
    );

    // A stream opened under the old certificate.
    let channel = old.connect(&server.addr.to_string()).await.unwrap();
    let mut watch = HealthClient::new(channel)
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.message().await.unwrap().unwrap();
    assert_eq!(first.status(), ServingStatus::Serving);

    let rotated = new_ca.server();
    dir.write("server.key", &rotated.key);
    dir.write("server.pem", &rotated.cert);
    let deadline = Instant::now() + Duration::from_secs(10);
    while status(&new, &server).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "the new certificate was not loaded"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    refused(status(&old, &server).await, "unknown CA");

    // The old stream still delivers: shutting down flips health on it.
    let shutdown = tokio::spawn(server.shutdown());
    let next = tokio::time::timeout(Duration::from_secs(5), watch.message())
        .await
        .expect("the stream is still alive")
        .unwrap()
        .unwrap();
    assert_eq!(next.status(), ServingStatus::NotServing);
    drop(watch);
    shutdown.await.unwrap().unwrap();
}

/// A coordinator in this process dialling `worker` with `client`.
async fn coordinator(
    worker: &RunningServer,
    client: ClientOptions,
) -> (
    coordinator::RunningCoordinator,
    CoordinatorServiceClient<tonic::transport::Channel>,
) {
    let mut config = coordinator::Config::new(vec![format!("127.0.0.1:{}", worker.addr.port())]);
    config.discovery.interval = Duration::from_millis(200);
    config.discovery.client = client;
    config.scheduler = SchedulerConfig {
        progress_interval: Duration::from_millis(100),
        ..SchedulerConfig::default()
    };
    let running = coordinator::spawn(config, ServerConfig::loopback())
        .await
        .unwrap();
    let client = CoordinatorServiceClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    (running, client)
}

fn small_analysis() -> pb::AnalyzeAllFoeRequest {
    pb::AnalyzeAllFoeRequest {
        view: Some(pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            contract: "misere".into(),
            leader: pb::Seat::N as i32,
            compact: "T987.T987.*98.*Q#J".into(),
            ..Default::default()
        }),
        start: 0,
        end: 300,
    }
}

/// Runs the analysis; its result's layout count, or the status it failed with.
async fn analyze(
    client: &mut CoordinatorServiceClient<tonic::transport::Channel>,
) -> Result<u32, tonic::Status> {
    let run = async {
        let mut stream = client.analyze_all_foe(small_analysis()).await?.into_inner();
        while let Some(message) = stream.message().await? {
            if let Some(pb::analyze_all_foe_response::Event::Result(result)) = message.event {
                return Ok(result.layouts);
            }
        }
        Err(tonic::Status::internal("stream ended without a result"))
    };
    tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the analysis must not hang")
}

/// Waits until ListWorkers shows the worker down with a reason containing `words`.
async fn wait_down(client: &mut CoordinatorServiceClient<tonic::transport::Channel>, words: &str) {
    deckhand::testing::wait_for_workers(
        client,
        Duration::from_secs(10),
        "the worker shown down",
        |workers| {
            workers.first().is_some_and(|info| {
                info.state() == pb::WorkerState::Down && info.down_reason.contains(words)
            })
        },
    )
    .await;
}

#[tokio::test]
async fn a_worker_refusing_the_coordinator_is_down_with_the_reason_and_jobs_fail_fast() {
    let dir = Dir::new("cluster");
    let ca = Ca::new("cluster CA");
    let tokens = dir.write("tokens", "worker-token\n");
    let server = worker(
        security(Some(tls_files(&dir, &ca.server(), Some(&ca))), Some(tokens)),
        ConnectionLimits::default(),
    )
    .await;

    // No client certificate.
    let (first, mut client) = coordinator(&server, trusting(&dir, &ca, None)).await;
    wait_down(&mut client, "requires a client certificate").await;
    let failed = analyze(&mut client).await.unwrap_err();
    assert_eq!(failed.code(), Code::FailedPrecondition, "{failed:?}");
    assert!(failed.message().contains("requires a client certificate"));
    first.shutdown().await.unwrap();

    // A certificate but no token.
    let identity = ca.client();
    let mut options = trusting(&dir, &ca, Some(("coordinator", &identity)));
    let (second, mut client) = coordinator(&server, options.clone()).await;
    wait_down(&mut client, "token refused").await;
    let failed = analyze(&mut client).await.unwrap_err();
    assert!(failed.message().contains("token refused"), "{failed:?}");
    second.shutdown().await.unwrap();

    // Certificate and token: the analysis runs.
    options.token_file = Some(dir.write("worker-token", "worker-token\n"));
    let (third, mut client) = coordinator(&server, options).await;
    assert_eq!(analyze(&mut client).await.unwrap(), 300);
    third.shutdown().await.unwrap();
    server.shutdown().await.unwrap();
}

/// Reads until the server closes the connection; how long that took.
async fn time_to_close(stream: &mut tokio::net::TcpStream) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 256];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return start.elapsed(),
            Ok(Ok(_)) => continue, // The server's SETTINGS and the like.
            Err(_) => panic!("the connection was never closed"),
        }
    }
}

#[tokio::test]
async fn silent_and_idle_connections_are_closed_and_the_cap_holds() {
    let limits = ConnectionLimits {
        max_connections: 2,
        handshake_timeout: Duration::from_millis(300),
        idle_timeout: Some(Duration::from_millis(300)),
    };
    let server = worker(security(None, None), limits).await;
    let connect = || tokio::net::TcpStream::connect(server.addr);

    // Two silent connections fill the cap; a third is closed at once.
    let mut silent = [connect().await.unwrap(), connect().await.unwrap()];
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut over = connect().await.unwrap();
    assert!(time_to_close(&mut over).await < Duration::from_millis(250));
    // The silent ones are closed at the handshake deadline, which frees the slots.
    for stream in &mut silent {
        let waited = time_to_close(stream).await;
        assert!(waited < Duration::from_secs(3), "{waited:?}");
    }
    status(&ClientOptions::default(), &server).await.unwrap();

    // A connection that sends the preface but never a request is idle.
    let mut idle = connect().await.unwrap();
    idle.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .await
        .unwrap();
    let waited = time_to_close(&mut idle).await;
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    server.shutdown().await.unwrap();
}
