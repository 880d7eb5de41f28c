//! Membership: workers that register themselves with heartbeats, are forgotten
//! when the heartbeats stop, and leave cleanly on SIGTERM.
//! (The network faults themselves are exercised across hosts by tests/hosts/run.py.)

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use coordinator::scheduler::SchedulerConfig;
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use deckhand::testing::wait_for_workers;
use pb::coordinator_service_client::CoordinatorServiceClient;
use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

/// solvealldeals1-1 of oracles.json, its first 20,000 layouts.
const VIEW: &str = "T987.T987.*98.*Q#J";
const FIRST_20000: [u32; 11] = [906, 13958, 366, 2054, 2384, 325, 7, 0, 0, 0, 0];

/// A coordinator with no static workers: they must register.
async fn coordinator(
    heartbeat_timeout: Duration,
) -> (
    coordinator::RunningCoordinator,
    CoordinatorServiceClient<Channel>,
) {
    let mut config = coordinator::Config::new(vec![]);
    config.scheduler = SchedulerConfig {
        chunk_size: 4096,
        heartbeat_timeout,
        ..SchedulerConfig::default()
    };
    config.discovery.interval = Duration::from_secs(3600);
    let running = coordinator::spawn(config, ServerConfig::loopback())
        .await
        .unwrap();
    let client = CoordinatorServiceClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    (running, client)
}

async fn in_process_worker() -> RunningServer {
    let service = Worker::new(SolverPool::new(1, 16 << 20)).into_server(16 << 20);
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    spawn(
        ServerConfig::loopback(),
        Services::new(Routes::new(service), &[name]),
    )
    .await
    .unwrap()
}

async fn workers(client: &mut CoordinatorServiceClient<Channel>) -> Vec<pb::WorkerInfo> {
    client
        .list_workers(pb::ListWorkersRequest {})
        .await
        .unwrap()
        .into_inner()
        .workers
}

async fn first_20000(client: &mut CoordinatorServiceClient<Channel>) -> Vec<u32> {
    let request = pb::AnalyzeAllFoeRequest {
        view: Some(pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            compact: VIEW.into(),
            contract: "misere".into(),
            leader: pb::Seat::N as i32,
            ..Default::default()
        }),
        start: 0,
        end: 20_000,
    };
    let mut stream = client.analyze_all_foe(request).await.unwrap().into_inner();
    while let Some(message) = stream.message().await.unwrap() {
        if let Some(pb::analyze_all_foe_response::Event::Result(result)) = message.event {
            assert_eq!(result.layouts, 20_000);
            return result.openings[0].histogram.clone();
        }
    }
    panic!("the analysis ended without a result");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_worker_gets_work_and_is_forgotten_when_its_heartbeats_stop() {
    let (server, mut client) = coordinator(Duration::from_secs(1)).await;
    let worker = in_process_worker().await;
    let address = worker.addr.to_string();

    let beat = pb::HeartbeatRequest {
        address: address.clone(),
        draining: false,
    };
    let answer = client.heartbeat(beat.clone()).await.unwrap().into_inner();
    assert_eq!(answer.heartbeat_timeout_seconds, 1.0);
    wait_for_workers(&mut client, Duration::from_secs(10), "the worker up", |w| {
        w.len() == 1 && w[0].state == pb::WorkerState::Idle as i32
    })
    .await;
    let listed = &workers(&mut client).await[0];
    assert_eq!(listed.address, address);
    assert_eq!(listed.source, pb::WorkerSource::Registered as i32);

    // Heartbeats keep it while it works.
    let mut beating = client.clone();
    let heartbeats = tokio::spawn(async move {
        loop {
            let _ = beating.heartbeat(beat.clone()).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    assert_eq!(first_20000(&mut client).await, FIRST_20000);
    assert_eq!(workers(&mut client).await[0].layouts_solved, 20_000);

    // No more heartbeats: forgotten after the timeout (1 s; checked once a second).
    heartbeats.abort();
    let stopped = Instant::now();
    wait_for_workers(
        &mut client,
        Duration::from_secs(5),
        "the worker forgotten",
        |w| w.is_empty(),
    )
    .await;
    assert!(stopped.elapsed() >= Duration::from_millis(500));

    // Bad requests name the field.
    for bad in ["", "no-port", ":50054", "host:0", "host:70000"] {
        let status = client
            .heartbeat(pb::HeartbeatRequest {
                address: bad.into(),
                draining: false,
            })
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{bad:?}");
        assert!(status.message().starts_with("address"), "{status:?}");
    }
    let status = client
        .drain_worker(pb::DrainWorkerRequest {
            address: "10.0.0.1:50054".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    server.shutdown().await.unwrap();
    worker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_process_registers_itself_and_leaves_on_sigterm() {
    // A long heartbeat timeout: leaving must not wait for it.
    let (server, mut client) = coordinator(Duration::from_secs(60)).await;
    let listen = {
        let probe = TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().to_string()
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_preferans-worker"))
        .args(["--listen", &listen, "--threads", "1", "--table-mb", "16"])
        .args([
            "--coordinator",
            &server.addr.to_string(),
            "--advertise",
            &listen,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("worker process starts");
    wait_for_workers(
        &mut client,
        Duration::from_secs(20),
        "the worker registered",
        |w| w.len() == 1 && w[0].state == pb::WorkerState::Idle as i32,
    )
    .await;
    assert_eq!(first_20000(&mut client).await, FIRST_20000);

    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // It says it drains, the coordinator lets it go at once, and it exits cleanly.
    wait_for_workers(
        &mut client,
        Duration::from_secs(10),
        "the worker gone",
        |w| w.is_empty(),
    )
    .await;
    assert!(child.wait().unwrap().success());
    server.shutdown().await.unwrap();
}
