//! The cluster end to end: real `preferans-worker` processes on loopback ports,
//! a coordinator in this process, and a worker killed with SIGKILL mid-job.
//! (These tests live in this package because Cargo hands a test the path of its
//! own package's binaries only.)

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use coordinator::scheduler::SchedulerConfig;
use coordinator::{Discovery, RunningCoordinator};
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

/// solvealldeals1-1 of oracles.json: misère, N has led CJ.
const VIEW: &str = "T987.T987.*98.*Q#J";
const FIRST_20000: [u32; 11] = [906, 13958, 366, 2054, 2384, 325, 7, 0, 0, 0, 0];
const ALL_184756: [u32; 11] = [8544, 147660, 1340, 9050, 15156, 2876, 130, 0, 0, 0, 0];

/// A worker process; killed with SIGKILL when dropped.
struct WorkerProcess {
    child: Child,
    addr: String,
}

impl WorkerProcess {
    fn start(addr: &str) -> WorkerProcess {
        WorkerProcess::start_with(addr, &[])
    }

    /// A worker of one thread and a 16 MiB table, with more arguments.
    fn start_with(addr: &str, args: &[&str]) -> WorkerProcess {
        let child = Command::new(env!("CARGO_BIN_EXE_preferans-worker"))
            .args(["--listen", addr, "--threads", "1", "--table-mb", "16"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("worker process starts");
        WorkerProcess {
            child,
            addr: addr.to_string(),
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL on Unix
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

async fn wait_until_serving(addr: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(mut c) = PreferansWorkerServiceClient::connect(format!("http://{addr}")).await {
            if c.status(pb::StatusRequest {}).await.is_ok() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("worker {addr} did not start");
}

async fn coordinator(
    workers: Vec<String>,
    config: SchedulerConfig,
) -> (RunningCoordinator, CoordinatorServiceClient<Channel>) {
    let discovery = Discovery {
        workers,
        dns: vec![],
        interval: Duration::from_millis(200),
        client: Default::default(),
    };
    spawn_coordinator(discovery, config).await
}

async fn spawn_coordinator(
    discovery: Discovery,
    scheduler: SchedulerConfig,
) -> (RunningCoordinator, CoordinatorServiceClient<Channel>) {
    let config = coordinator::Config {
        scheduler,
        discovery,
        ..coordinator::Config::new(Vec::new())
    };
    let server = coordinator::spawn(config, ServerConfig::loopback())
        .await
        .unwrap();
    let client = CoordinatorServiceClient::connect(format!("http://{}", server.addr))
        .await
        .unwrap();
    (server, client)
}

fn request(start: u32, end: u32) -> pb::AnalyzeAllFoeRequest {
    pb::AnalyzeAllFoeRequest {
        view: Some(pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            contract: "misere".into(),
            leader: pb::Seat::N as i32,
            compact: VIEW.into(),
            ..Default::default()
        }),
        start,
        end,
    }
}

/// Runs an analysis, calling `on_progress` with each progress message.
async fn analyze(
    client: &mut CoordinatorServiceClient<Channel>,
    request: pb::AnalyzeAllFoeRequest,
    mut on_progress: impl FnMut(&pb::Progress),
) -> pb::AnalysisResult {
    let mut stream = client.analyze_all_foe(request).await.unwrap().into_inner();
    let mut result = None;
    while let Some(event) = stream.message().await.unwrap() {
        match event.event.unwrap() {
            pb::analyze_all_foe_response::Event::Progress(p) => on_progress(&p),
            pb::analyze_all_foe_response::Event::Result(r) => result = Some(r),
        }
    }
    result.expect("a result at the end of the stream")
}

fn small_chunks() -> SchedulerConfig {
    SchedulerConfig {
        chunk_size: 500,
        message_size: 100,
        lease_timeout: Duration::from_secs(30),
        progress_interval: Duration::from_millis(20),
        ..SchedulerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_job_loses_nothing_and_rejoins() {
    let mut workers = [
        WorkerProcess::start(&free_port()),
        WorkerProcess::start(&free_port()),
    ];
    for w in &workers {
        wait_until_serving(&w.addr).await;
    }
    let addresses = workers.iter().map(|w| w.addr.clone()).collect();
    let (server, mut client) = coordinator(addresses, small_chunks()).await;

    // All 184,756 layouts, so the job is still running when the victim has
    // started: it is killed at the first progress report that shows its work.
    let victim = workers[0].addr.clone();
    let mut killed_at = None;
    let result = analyze(&mut client, request(0, 184_756), |p| {
        let victim_share = p
            .workers
            .iter()
            .find(|w| w.address == victim)
            .map_or(0, |w| w.layouts);
        if killed_at.is_none() && victim_share > 0 && p.layouts_done < p.layouts_total {
            workers[0].kill();
            killed_at = Some(p.layouts_done);
        }
    })
    .await;
    let killed_at = killed_at.expect("the job ended before the worker could be killed");
    assert!(killed_at < 184_756);
    assert_eq!(result.layouts, 184_756);
    assert_eq!(result.openings.len(), 1);
    assert_eq!(result.openings[0].card, "CJ");
    assert_eq!(result.openings[0].histogram, ALL_184756.to_vec());

    let list = client
        .list_workers(pb::ListWorkersRequest {})
        .await
        .unwrap()
        .into_inner()
        .workers;
    let state = |list: &[pb::WorkerInfo], addr: &str| {
        list.iter().find(|w| w.address == addr).map(|w| w.state)
    };
    assert_eq!(state(&list, &victim), Some(pb::WorkerState::Down as i32));

    // The worker comes back on its address and rejoins.
    workers[0] = WorkerProcess::start(&victim);
    wait_until_serving(&victim).await;
    deckhand::testing::wait_for_workers(
        &mut client,
        Duration::from_secs(20),
        "the worker to rejoin",
        |list| state(list, &victim) == Some(pb::WorkerState::Idle as i32),
    )
    .await;
    // And gets work again: a second job spreads over both workers (many chunks,
    // so the warm worker cannot finish them all before the restarted one leases).
    let mut shares = Vec::new();
    let result = analyze(&mut client, request(20_000, 80_000), |p| {
        shares = p.workers.clone();
    })
    .await;
    assert_eq!(result.layouts, 60_000);
    assert!(
        shares.iter().any(|w| w.address == victim && w.layouts > 0),
        "{shares:?}"
    );
    server.shutdown().await.unwrap();
}

/// Sends a signal to a worker process (`STOP` freezes it: its socket stays open
/// and silent, as behind a cut link).
fn signal(worker: &WorkerProcess, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &worker.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -{name}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_worker_that_goes_silent_is_marked_down_and_rejoins() {
    let worker = WorkerProcess::start(&free_port());
    wait_until_serving(&worker.addr).await;
    let (server, mut client) = coordinator(vec![worker.addr.clone()], small_chunks()).await;
    let addr = worker.addr.clone();
    let state_is = |state: pb::WorkerState| {
        let addr = addr.clone();
        move |list: &[pb::WorkerInfo]| {
            list.iter()
                .any(|w| w.address == addr && w.state == state as i32)
        }
    };
    deckhand::testing::wait_for_workers(
        &mut client,
        Duration::from_secs(20),
        "the worker to be up",
        state_is(pb::WorkerState::Idle),
    )
    .await;

    // No job runs, so no lease would notice: the idle probe must.
    signal(&worker, "STOP");
    let frozen_at = Instant::now();
    deckhand::testing::wait_for_workers(
        &mut client,
        Duration::from_secs(20),
        "the frozen idle worker to be marked down",
        state_is(pb::WorkerState::Down),
    )
    .await;
    let noticed = frozen_at.elapsed();
    // The probe's interval (2 s) and its status timeout (5 s), with slack.
    assert!(
        noticed < Duration::from_secs(12),
        "noticed after {noticed:?}"
    );

    signal(&worker, "CONT");
    deckhand::testing::wait_for_workers(
        &mut client,
        Duration::from_secs(20),
        "the resumed worker to be up again",
        state_is(pb::WorkerState::Idle),
    )
    .await;
    let result = analyze(&mut client, request(0, 2_000), |_| {}).await;
    assert_eq!(result.layouts, 2_000);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_the_workers_and_the_queue_is_bounded() {
    let worker = WorkerProcess::start(&free_port());
    wait_until_serving(&worker.addr).await;
    let config = SchedulerConfig {
        max_jobs: 1,
        ..small_chunks()
    };
    let (server, mut client) = coordinator(vec![worker.addr.clone()], config).await;

    // preferansRu1, the slowest published problem (seconds on one thread).
    let mut slow = request(0, 184_756);
    let view = slow.view.as_mut().unwrap();
    (view.compact, view.contract, view.leader) =
        ("QT7.KQJ.A*8*7.KQJ".into(), "6S".into(), pb::Seat::W as i32);
    let mut stream = client.analyze_all_foe(slow).await.unwrap().into_inner();
    // Wait until the worker has started on it.
    loop {
        let event = stream.message().await.unwrap().unwrap().event.unwrap();
        if let pb::analyze_all_foe_response::Event::Progress(p) = event {
            if p.layouts_done > 0 {
                break;
            }
        }
    }
    // A second job while the first runs is over the bound.
    let second = client.analyze_all_foe(request(0, 100)).await;
    assert_eq!(second.unwrap_err().code(), Code::ResourceExhausted);

    drop(stream);
    let status = deckhand::testing::wait_until_worker_idle(&worker.addr).await;
    assert!(status.threads[0].layouts_solved < 184_756);
    // The slot is free again: a new job is accepted and completes.
    let result = analyze(&mut client, request(0, 300), |_| {}).await;
    assert_eq!(result.layouts, 300);

    let bad = client
        .analyze_all_foe(pb::AnalyzeAllFoeRequest {
            view: None,
            start: 0,
            end: 0,
        })
        .await;
    assert_eq!(bad.unwrap_err().code(), Code::InvalidArgument);
    server.shutdown().await.unwrap();
}

/// A worker server in this process (for tests that need no process to kill).
async fn in_process_worker(threads: usize) -> RunningServer {
    use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
    let service = Worker::new(SolverPool::new(threads, 16 << 20)).into_server(16 << 20);
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    spawn(
        ServerConfig::loopback(),
        Services::new(Routes::new(service), &[name]),
    )
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_oracle_problem_matches_through_the_cluster() {
    // oracles.json: solve_all_foe problems, first 20,000 layouts (declarer N).
    let problems = [
        (
            "T987.T987.*98.*Q#J",
            "misere",
            pb::Seat::N,
            "CJ",
            FIRST_20000,
        ),
        (
            "#A*8*7.AKT.KJ.A987",
            "6C",
            pb::Seat::N,
            "SA",
            [0, 0, 0, 0, 226, 1643, 11300, 6799, 32, 0, 0],
        ),
        (
            "QT7.KQJ.A*8*7.KQJ",
            "6S",
            pb::Seat::W,
            "",
            [0, 229, 828, 9058, 9807, 78, 0, 0, 0, 0, 0],
        ),
    ];
    let workers = [in_process_worker(1).await, in_process_worker(1).await];
    let addresses = workers.iter().map(|w| w.addr.to_string()).collect();
    let (server, mut client) = coordinator(addresses, small_chunks()).await;
    for (view, contract, leader, opening, histogram) in problems {
        let mut request = request(0, 20_000);
        let v = request.view.as_mut().unwrap();
        (v.compact, v.contract, v.leader) = (view.into(), contract.into(), leader as i32);
        let result = analyze(&mut client, request, |_| {}).await;
        assert_eq!(result.layouts, 20_000, "{view}");
        assert_eq!(result.openings.len(), 1);
        assert_eq!(result.openings[0].card, opening);
        assert_eq!(result.openings[0].histogram, histogram.to_vec(), "{view}");
    }
    server.shutdown().await.unwrap();
    for w in workers {
        w.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_found_by_dns_get_work_and_declarer_leads_give_every_opening() {
    let worker = in_process_worker(2).await;
    let discovery = Discovery {
        workers: vec![],
        dns: vec![format!("localhost:{}", worker.addr.port())],
        interval: Duration::from_millis(200),
        client: Default::default(),
    };
    let (server, mut client) = spawn_coordinator(discovery, small_chunks()).await;
    // The declarer (N) is on lead and has not played: one histogram per card.
    let request = pb::AnalyzeAllFoeRequest {
        view: Some(pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            hand: "AQJ8.KT8.KJ.9".into(),
            talon: vec!["D7".into(), "C8".into()],
            contract: "6S".into(),
            leader: pb::Seat::N as i32,
            ..Default::default()
        }),
        start: 0,
        end: 600,
    };
    let result = analyze(&mut client, request, |_| {}).await;
    assert_eq!(result.layouts, 600);
    let cards: Vec<&str> = result.openings.iter().map(|o| o.card.as_str()).collect();
    assert_eq!(
        cards,
        ["SA", "SQ", "SJ", "S8", "HK", "HT", "H8", "DK", "DJ", "C9"]
    );
    for o in &result.openings {
        assert_eq!(o.histogram.iter().sum::<u32>(), 600, "{}", o.card);
        let mean: f64 = o
            .histogram
            .iter()
            .enumerate()
            .map(|(t, &c)| t as f64 * f64::from(c))
            .sum::<f64>()
            / 600.0;
        assert!((mean - o.mean).abs() < 1e-9);
    }
    let workers = client
        .list_workers(pb::ListWorkersRequest {})
        .await
        .unwrap()
        .into_inner()
        .workers;
    let found = workers
        .iter()
        .find(|w| w.address == worker.addr.to_string())
        .expect("the DNS name resolved to the worker");
    assert!(found.layouts_solved >= 600);
    assert_eq!(found.trumps, "S");
    server.shutdown().await.unwrap();
    worker.shutdown().await.unwrap();
}

/// Runs a worker with `args` that must refuse to start; returns its stderr.
fn refused_at_start(args: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_preferans-worker"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("worker process starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("{args:?} was accepted: the worker is serving");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{args:?}: {status}");
    stderr
}

/// Zero threads, a zero-sized table or a zero read-stall time cannot work: the
/// worker refuses them at start, naming the argument, instead of serving.
#[test]
fn zero_sizes_are_refused_at_start() {
    for arg in ["--threads", "--table-mb", "--read-stall-secs"] {
        let stderr = refused_at_start(&[arg, "0"]);
        assert!(
            stderr.contains(arg) && stderr.contains('0'),
            "{arg}: {stderr}"
        );
    }
}

/// A table file that is not one, or one of another size, is refused at start with
/// the reason, and left as it was.
#[tokio::test]
async fn a_wrong_table_file_is_refused_at_start() {
    let path = std::env::temp_dir().join(format!("deckhand-worker-{}.table", std::process::id()));
    let file = path.to_str().unwrap();
    std::fs::write(&path, "not a table").unwrap();
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    std::fs::set_permissions(&path, private).unwrap();
    let stderr = refused_at_start(&["--table-file", file]);
    assert!(
        stderr.contains(file) && stderr.contains("not a table file"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"not a table");
    // A worker of 1 thread x 16 MiB makes the file a table; 2 threads x 16 MiB do not
    // fit it.
    std::fs::remove_file(&path).unwrap();
    let addr = free_port();
    let mut first = WorkerProcess::start_with(&addr, &["--table-file", file]);
    wait_until_serving(&addr).await;
    first.kill();
    let stderr = refused_at_start(&["--table-file", file, "--threads", "2", "--table-mb", "16"]);
    assert!(
        stderr.contains("holds 16 MiB") && stderr.contains("32 MiB"),
        "{stderr}"
    );
    std::fs::remove_file(&path).unwrap();
}
