//! Batch jobs end to end: the `coordinator` binary as a real process (killed
//! with SIGKILL mid-batch and restarted on its data dir), preferans workers in
//! this process, references from the engine solved directly.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use coordinator::store::Store;
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use deckhand_preferans::{solve_all_foe, DeclarerView, Seat, LAYOUT_COUNT};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::AnalysisState;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

/// The published all-foe problems (declarer N): view, contract, leader.
const MISERE: (&str, &str, Seat) = ("T987.T987.*98.*Q#J", "misere", Seat::N);
const CLUBS: (&str, &str, Seat) = ("#A*8*7.AKT.KJ.A987", "6C", Seat::N);
const SPADES: (&str, &str, Seat) = ("QT7.KQJ.A*8*7.KQJ", "6S", Seat::W);

type Spec = ((&'static str, &'static str, Seat), u32, u32);

fn wire_seat(seat: Seat) -> i32 {
    deckhand::preferans::seat_to_proto(seat) as i32
}

fn problem(((view, contract, leader), start, end): Spec) -> pb::Problem {
    pb::Problem {
        name: format!("{contract} {start}..{end}"),
        view: Some(pb::DeclarerView {
            declarer: wire_seat(Seat::N),
            contract: contract.into(),
            leader: wire_seat(leader),
            compact: view.into(),
            ..Default::default()
        }),
        start,
        end,
    }
}

/// The histograms of the engine solving the range directly.
fn reference(((view, contract, leader), start, end): Spec) -> Vec<Vec<u32>> {
    let view =
        DeclarerView::from_notation(view, Seat::N, contract.parse().unwrap(), leader).unwrap();
    solve_all_foe(&view, start..end, 2, |_| {})
        .unwrap()
        .openings
        .iter()
        .map(|o| o.histogram.counts.to_vec())
        .collect()
}

fn free_port() -> String {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deckhand-jobs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The coordinator binary; SIGKILLed when dropped.
struct CoordinatorProcess {
    child: Child,
    addr: String,
}

impl CoordinatorProcess {
    async fn start(addr: &str, workers: &[String], extra: &[&str]) -> CoordinatorProcess {
        let child = Command::new(env!("CARGO_BIN_EXE_coordinator"))
            .args(["--listen", addr, "--workers", &workers.join(",")])
            .args(["--chunk-size", "500"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("coordinator starts");
        let process = CoordinatorProcess {
            child,
            addr: addr.to_string(),
        };
        // Serving, and every worker seen.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(mut client) = process.try_client().await {
                if let Ok(list) = client.list_workers(pb::ListWorkersRequest {}).await {
                    let up = list
                        .into_inner()
                        .workers
                        .iter()
                        .filter(|w| w.state != pb::WorkerState::Down as i32)
                        .count();
                    if up == workers.len() {
                        return process;
                    }
                }
            }
            assert!(Instant::now() < deadline, "coordinator did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn try_client(
        &self,
    ) -> Result<CoordinatorServiceClient<Channel>, tonic::transport::Error> {
        CoordinatorServiceClient::connect(format!("http://{}", self.addr)).await
    }

    async fn client(&self) -> CoordinatorServiceClient<Channel> {
        self.try_client().await.unwrap()
    }

    fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL on Unix
        let _ = self.child.wait();
    }
}

impl Drop for CoordinatorProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs the binary expecting it to refuse to start; returns its stderr.
fn refused(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_coordinator"))
        .args(["--listen", &free_port(), "--workers", "127.0.0.1:1"])
        .args(args)
        .output()
        .unwrap();
    assert!(!output.status.success(), "started with {args:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn worker(threads: usize) -> RunningServer {
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

async fn get(client: &mut CoordinatorServiceClient<Channel>, id: u64) -> pb::Analysis {
    client
        .get_analysis(pb::GetAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner()
}

/// Watches a job to its end; returns the final analysis.
async fn watch(client: &mut CoordinatorServiceClient<Channel>, id: u64) -> pb::Analysis {
    let mut stream = client
        .watch_analysis(pb::WatchAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner();
    while let Some(event) = stream.message().await.unwrap() {
        if let Some(pb::watch_analysis_response::Event::Analysis(a)) = event.event {
            return a;
        }
    }
    panic!("the watch ended without the final analysis");
}

fn histograms(result: &pb::ProblemResult) -> Vec<Vec<u32>> {
    let result = result.result.as_ref().unwrap();
    result
        .openings
        .iter()
        .map(|o| o.histogram.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_killed_mid_batch_resumes_and_counts_every_layout_once() {
    // The last problem covers all layouts: it is solved in its split order (see
    // `jobs::prepare`), and resumes in it.
    let specs: [Spec; 6] = [
        (MISERE, 0, 6_000),
        (CLUBS, 0, 5_000),
        (SPADES, 0, 2_500),
        (MISERE, 6_000, 12_000),
        (CLUBS, 5_000, 9_000),
        (CLUBS, 0, LAYOUT_COUNT),
    ];
    let workers = [worker(1).await, worker(1).await];
    let addresses: Vec<String> = workers.iter().map(|w| w.addr.to_string()).collect();
    let dir = temp_dir("kill");
    let data_dir = ["--data-dir", dir.to_str().unwrap()];
    let addr = free_port();
    let mut first = CoordinatorProcess::start(&addr, &addresses, &data_dir).await;
    let mut client = first.client().await;
    let id = client
        .submit_analyses(pb::SubmitAnalysesRequest {
            problems: specs.map(problem).to_vec(),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .job_id;
    // Kill it once a third of the layouts are in.
    let total: u64 = specs.iter().map(|s| u64::from(s.2 - s.1)).sum();
    loop {
        let a = get(&mut client, id).await;
        assert_ne!(
            a.state,
            AnalysisState::Done as i32,
            "the job ended before the kill"
        );
        if a.progress.unwrap().layouts_done * 3 >= total {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill();
    drop(client);

    let second = CoordinatorProcess::start(&addr, &addresses, &data_dir).await;
    let mut client = second.client().await;
    let resumed = get(&mut client, id).await;
    assert!(
        resumed.progress.unwrap().layouts_done > 0,
        "the job resumed from nothing"
    );
    let analysis = watch(&mut client, id).await;
    assert_eq!(
        analysis.state,
        AnalysisState::Done as i32,
        "{}",
        analysis.error
    );
    assert_eq!(analysis.results.len(), specs.len());
    let references: Vec<Vec<Vec<u32>>> = specs.iter().map(|&s| reference(s)).collect();
    for ((r, spec), expected) in analysis.results.iter().zip(specs).zip(&references) {
        assert_eq!(r.problem.as_ref().unwrap().start, spec.1);
        assert_eq!(
            histograms(r),
            *expected,
            "{}",
            r.problem.as_ref().unwrap().name
        );
    }
    drop(second); // SIGKILL: the store must be consistent without a clean close.

    // The stored per-layout results: every chunk of every problem once, exactly
    // covering its range, and summing to the reference.
    let store = Store::open(&dir).unwrap();
    for (index, (spec, expected)) in specs.iter().zip(&references).enumerate() {
        let chunks = store.chunks(id, index as u32).unwrap();
        let len = spec.2 - spec.1;
        let indices: Vec<u32> = chunks.iter().map(|(i, _)| *i).collect();
        assert_eq!(indices, (0..len.div_ceil(500)).collect::<Vec<_>>());
        let openings = expected.len();
        let mut counts = vec![vec![0u32; 11]; openings];
        let mut layouts = 0;
        for (i, tricks) in &chunks {
            let chunk_len = 500.min(len - i * 500);
            assert_eq!(tricks.len(), (chunk_len as usize) * openings);
            for layout in tricks.chunks_exact(openings) {
                for (o, &t) in layout.iter().enumerate() {
                    counts[o][t as usize] += 1;
                }
            }
            layouts += chunk_len;
        }
        assert_eq!(layouts, len);
        assert_eq!(counts, *expected, "problem {index}");
    }
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    for w in workers {
        w.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_come_and_go_and_a_retried_submit_queues_nothing() {
    let workers = [worker(1).await];
    let addresses: Vec<String> = workers.iter().map(|w| w.addr.to_string()).collect();
    let coordinator = CoordinatorProcess::start(&free_port(), &addresses, &[]).await;
    let mut client = coordinator.client().await;
    let request = pb::SubmitAnalysesRequest {
        problems: vec![problem((MISERE, 0, 4_000)), problem((CLUBS, 0, 3_000))],
        request_id: "nightly-42".into(),
    };
    let id = client
        .submit_analyses(request.clone())
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let again = client.submit_analyses(request).await.unwrap().into_inner();
    assert_eq!(again.job_id, id);
    let list = client
        .list_analyses(pb::ListAnalysesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.analyses.len(), 1);

    // A watcher reads one event and goes away; the job goes on.
    let mut stream = client
        .watch_analysis(pb::WatchAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner();
    stream.message().await.unwrap().unwrap();
    drop(stream);
    // Two watchers from new connections see the same end.
    let mut other = coordinator.client().await;
    let (a, b) = tokio::join!(watch(&mut client, id), watch(&mut other, id));
    assert_eq!(a.state, AnalysisState::Done as i32);
    assert_eq!(a.results, b.results);
    assert_eq!(get(&mut client, id).await.results, a.results);
    assert_eq!(histograms(&a.results[0]), reference((MISERE, 0, 4_000)));
    assert_eq!(histograms(&a.results[1]), reference((CLUBS, 0, 3_000)));

    // Bad input names the problem and field; unknown jobs are NOT_FOUND.
    let mut bad = problem((CLUBS, 0, 10));
    bad.view.as_mut().unwrap().compact = "XYZ".into();
    let error = client
        .submit_analyses(pb::SubmitAnalysesRequest {
            problems: vec![problem((CLUBS, 0, 10)), bad],
            request_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(error.code(), Code::InvalidArgument);
    assert!(
        error.message().starts_with("problems[1].view"),
        "{}",
        error.message()
    );
    let missing = client
        .get_analysis(pb::GetAnalysisRequest { job_id: 999 })
        .await;
    assert_eq!(missing.unwrap_err().code(), Code::NotFound);
    drop(coordinator);
    for w in workers {
        w.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_the_workers() {
    let worker = worker(1).await;
    let addresses = vec![worker.addr.to_string()];
    let coordinator = CoordinatorProcess::start(&free_port(), &addresses, &[]).await;
    let mut client = coordinator.client().await;
    let id = client
        .submit_analyses(pb::SubmitAnalysesRequest {
            problems: vec![problem((SPADES, 0, 184_756))],
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .job_id;
    while get(&mut client, id).await.progress.unwrap().layouts_done == 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled = client
        .cancel_analysis(pb::CancelAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(cancelled.state, AnalysisState::Cancelled as i32);
    let status = deckhand::testing::wait_until_worker_idle(&worker.addr.to_string()).await;
    assert!(status.threads[0].layouts_solved < 184_756);
    // A watcher of a cancelled job gets its end at once.
    assert_eq!(
        watch(&mut client, id).await.state,
        AnalysisState::Cancelled as i32
    );
    drop(coordinator);
    worker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_jobs_expire_and_the_number_of_jobs_is_bounded() {
    let worker = worker(1).await;
    let addresses = vec![worker.addr.to_string()];
    let dir = temp_dir("retention");
    let args = [
        "--data-dir",
        dir.to_str().unwrap(),
        "--retention",
        "1s",
        "--max-stored-jobs",
        "2",
    ];
    let coordinator = CoordinatorProcess::start(&free_port(), &addresses, &args).await;
    let mut client = coordinator.client().await;
    let submit = |end| pb::SubmitAnalysesRequest {
        problems: vec![problem((MISERE, 0, end))],
        request_id: String::new(),
    };
    let first = client
        .submit_analyses(submit(100))
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let second = client
        .submit_analyses(submit(200))
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let full = client.submit_analyses(submit(300)).await.unwrap_err();
    assert_eq!(full.code(), Code::ResourceExhausted);
    assert!(
        full.message().contains("--max-stored-jobs"),
        "{}",
        full.message()
    );
    assert_eq!(
        watch(&mut client, first).await.state,
        AnalysisState::Done as i32
    );
    assert_eq!(
        watch(&mut client, second).await.state,
        AnalysisState::Done as i32
    );
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let gone = client
        .get_analysis(pb::GetAnalysisRequest { job_id: first })
        .await;
    assert_eq!(gone.unwrap_err().code(), Code::NotFound);
    client.submit_analyses(submit(300)).await.unwrap();
    drop(coordinator);
    // Deleted from the store too.
    let store = Store::open(&dir).unwrap();
    assert!(store
        .jobs()
        .unwrap()
        .iter()
        .all(|(id, _)| *id != first && *id != second));
    assert!(store.chunks(first, 0).unwrap().is_empty());
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    worker.shutdown().await.unwrap();
}

#[test]
fn unusable_data_dirs_are_refused_at_start() {
    // Not a store: garbage in the database file.
    let corrupt = temp_dir("corrupt");
    std::fs::create_dir_all(&corrupt).unwrap();
    std::fs::write(
        corrupt.join(coordinator::store::FILE_NAME),
        vec![0x42; 16_384],
    )
    .unwrap();
    let stderr = refused(&["--data-dir", corrupt.to_str().unwrap()]);
    assert!(stderr.contains("--data-dir"), "{stderr}");
    std::fs::remove_dir_all(&corrupt).unwrap();

    // Not writable: the path is a file, not a directory.
    let file = temp_dir("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let stderr = refused(&["--data-dir", file.to_str().unwrap()]);
    assert!(stderr.contains("--data-dir"), "{stderr}");
    std::fs::remove_file(&file).unwrap();

    // Not writable: a read-only directory (meaningless as root, who writes anyway).
    let readonly = temp_dir("readonly");
    std::fs::create_dir_all(&readonly).unwrap();
    set_mode(&readonly, 0o500);
    if std::fs::write(readonly.join("probe"), b"").is_err() {
        let stderr = refused(&["--data-dir", readonly.to_str().unwrap()]);
        assert!(stderr.contains("--data-dir"), "{stderr}");
    }
    set_mode(&readonly, 0o700);
    std::fs::remove_dir_all(&readonly).unwrap();
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}
