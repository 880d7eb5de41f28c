//! Every coordinator request is bounded before anything is stored: the
//! problems of one job, the problems kept over all jobs, the answer that
//! carries a job's results, the pages of ListAnalyses and the workers that
//! may register. A coordinator and (where work is done) a worker run in this
//! process.

use coordinator::{spawn, Config, RunningCoordinator};
use deckhand::budget::MemoryBudget;
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::{RunningServer, ServerConfig, Services};
use pb::coordinator_service_client::CoordinatorServiceClient;
use prost::Message;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

/// The declarer (N) is on lead: ten candidate openings, the widest results.
fn on_lead(name: &str, end: u32) -> pb::Problem {
    pb::Problem {
        name: name.into(),
        view: Some(pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            leader: pb::Seat::N as i32,
            contract: "6S".into(),
            compact: "QT7.KQJ.A*8*7.KQJ".into(),
            ..Default::default()
        }),
        start: 0,
        end,
    }
}

async fn start(config: Config) -> (RunningCoordinator, CoordinatorServiceClient<Channel>) {
    let running = spawn(config, ServerConfig::loopback()).await.unwrap();
    let client = CoordinatorServiceClient::connect(format!("http://{}", running.addr))
        .await
        .unwrap();
    (running, client)
}

async fn worker() -> RunningServer {
    use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
    let service = Worker::new(SolverPool::new(1, 16 << 20)).into_server(16 << 20);
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    deckhand::server::spawn(
        ServerConfig::loopback(),
        Services::new(Routes::new(service), &[name]),
    )
    .await
    .unwrap()
}

fn submit(problems: Vec<pb::Problem>) -> pb::SubmitAnalysesRequest {
    pb::SubmitAnalysesRequest {
        problems,
        request_id: String::new(),
    }
}

async fn stored_jobs(client: &mut CoordinatorServiceClient<Channel>) -> usize {
    let list = client
        .list_analyses(pb::ListAnalysesRequest::default())
        .await
        .unwrap()
        .into_inner();
    list.analyses.len()
}

#[tokio::test]
async fn too_many_problems_are_refused_before_any_is_read() {
    let mut config = Config::new(Vec::new());
    config.jobs.max_problems = 3;
    let (running, mut client) = start(config).await;
    // Four problems without views: the count is refused, not problems[0].view.
    let blank = pb::Problem::default();
    let status = client
        .submit_analyses(submit(vec![blank; 4]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let message = status.message();
    assert!(
        message.starts_with("problems: 4 given, at most 3 per job"),
        "{message}"
    );
    assert!(message.contains("--max-problems-per-job"), "{message}");
    // A name past its bound is named.
    let long = on_lead(&"n".repeat(300), 10);
    let status = client
        .submit_analyses(submit(vec![on_lead("a", 10), long]))
        .await
        .unwrap_err();
    assert!(
        status
            .message()
            .starts_with("problems[1].name: 300 bytes, at most 256"),
        "{status:?}"
    );
    assert_eq!(stored_jobs(&mut client).await, 0, "nothing was stored");
    let problems = vec![on_lead("a", 10), on_lead("b", 10), on_lead("c", 10)];
    client.submit_analyses(submit(problems)).await.unwrap();
    assert_eq!(stored_jobs(&mut client).await, 1);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn problems_kept_over_all_jobs_are_bounded() {
    let mut config = Config::new(Vec::new());
    config.jobs.max_stored_problems = 5;
    let (running, mut client) = start(config).await;
    let three = || submit((0..3).map(|i| on_lead(&i.to_string(), 10)).collect());
    client.submit_analyses(three()).await.unwrap();
    let status = client.submit_analyses(three()).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("--max-stored-problems"),
        "{status:?}"
    );
    assert!(status.message().contains("holds 3"), "{status:?}");
    assert_eq!(stored_jobs(&mut client).await, 1);
    running.shutdown().await.unwrap();
}

/// A job whose results could not fit in one answer is refused with the
/// number that fits; a job of that many problems, all declarer-on-lead (ten
/// openings each), runs to its end and GetAnalysis and WatchAnalysis carry
/// every result within the message limit.
#[tokio::test]
async fn the_largest_allowed_job_answers_within_the_message_limit() {
    const LIMIT: usize = 64 << 10;
    let worker = worker().await;
    let mut config = Config::new(vec![worker.addr.to_string()]);
    config.max_message_bytes = LIMIT;
    let (running, mut client) = start(config).await;
    let problems = |n: usize| (0..n).map(|i| on_lead(&format!("p{i}"), 2)).collect();
    let status = client
        .submit_analyses(submit(problems(1000)))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(message.contains("--max-message-bytes"), "{message}");
    let fits: usize = message
        .rsplit_once("submit at most ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!((20..1000).contains(&fits), "{message}");
    assert_eq!(stored_jobs(&mut client).await, 0, "nothing was stored");

    let id = client
        .submit_analyses(submit(problems(fits)))
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let mut events = client
        .watch_analysis(pb::WatchAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner();
    let mut last = None;
    while let Some(event) = events.message().await.unwrap() {
        if let Some(pb::watch_analysis_response::Event::Analysis(a)) = event.event {
            last = Some(a);
        }
    }
    let watched = last.expect("the final analysis");
    assert_eq!(
        watched.state,
        pb::AnalysisState::Done as i32,
        "{}",
        watched.error
    );
    assert_eq!(watched.results.len(), fits);
    assert_eq!(
        watched.results[0].result.as_ref().unwrap().openings.len(),
        10
    );
    let got = client
        .get_analysis(pb::GetAnalysisRequest { job_id: id })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.results.len(), fits);
    assert!(got.encoded_len() <= LIMIT);
    running.shutdown().await.unwrap();
    worker.shutdown().await.unwrap();
}

/// ListAnalyses pages end before half the message limit, whatever the page
/// size asked for, and the tokens still walk every job once, newest first.
#[tokio::test]
async fn list_pages_stay_under_the_message_limit() {
    const LIMIT: usize = 8 << 10;
    let mut config = Config::new(Vec::new());
    config.max_message_bytes = LIMIT;
    config.scheduler.max_jobs = 100;
    let (running, mut client) = start(config).await;
    let mut ids = Vec::new();
    for i in 0..40 {
        let request = pb::SubmitAnalysesRequest {
            problems: vec![on_lead("p", 10)],
            // A long request id: each listed job is about 300 bytes.
            request_id: format!("{i:0>250}"),
        };
        ids.push(
            client
                .submit_analyses(request)
                .await
                .unwrap()
                .into_inner()
                .job_id,
        );
    }
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut page_token = String::new();
    loop {
        let page = client
            .list_analyses(pb::ListAnalysesRequest {
                page_size: 1000,
                page_token,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(
            page.encoded_len() <= LIMIT / 2,
            "{} bytes",
            page.encoded_len()
        );
        pages += 1;
        seen.extend(page.analyses.iter().map(|a| a.job_id));
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    ids.reverse();
    assert_eq!(seen, ids);
    assert!(pages > 1);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn registered_workers_are_bounded() {
    let mut config = Config::new(Vec::new());
    config.scheduler.max_workers = 2;
    let (running, mut client) = start(config).await;
    let heartbeat = |address: &str| pb::HeartbeatRequest {
        address: address.into(),
        draining: false,
    };
    client.heartbeat(heartbeat("127.0.0.1:1")).await.unwrap();
    client.heartbeat(heartbeat("127.0.0.1:2")).await.unwrap();
    let status = client
        .heartbeat(heartbeat("127.0.0.1:3"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("--max-workers"), "{status:?}");
    // Known workers go on beating.
    client.heartbeat(heartbeat("127.0.0.1:1")).await.unwrap();
    let listed = client
        .list_workers(pb::ListWorkersRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.workers.len(), 2);
    running.shutdown().await.unwrap();
}

/// Answers carrying a job (GetAnalysis, ListAnalyses) hold their memory in
/// the server's in-flight budget until sent; with no room they are refused.
#[tokio::test]
async fn job_answers_are_counted_in_the_in_flight_budget() {
    let budget = MemoryBudget::new(1 << 20, 1 << 20, 16 << 20);
    let mut config = Config::new(Vec::new());
    config.memory_budget = budget.clone();
    let (running, mut client) = start(config).await;
    let id = client
        .submit_analyses(submit(vec![on_lead("a", 10)]))
        .await
        .unwrap()
        .into_inner()
        .job_id;
    let get = pb::GetAnalysisRequest { job_id: id };
    client.get_analysis(get).await.unwrap();
    assert_eq!(stored_jobs(&mut client).await, 1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while budget.in_flight() > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(budget.in_flight(), 0, "given back once sent");
    let _taken = budget.take((1 << 20) - 16).unwrap();
    let status = client.get_analysis(get).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("--max-inflight-memory"),
        "{status:?}"
    );
    let status = client
        .list_analyses(pb::ListAnalysesRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    running.shutdown().await.unwrap();
}

/// A worker that answers its status but refuses every layout request (as a
/// worker would refuse a request it does not understand), counting them.
#[derive(Clone, Default)]
struct RefusingWorker {
    requests: std::sync::Arc<std::sync::atomic::AtomicU32>,
}

type NoLayouts = std::pin::Pin<
    Box<dyn tokio_stream::Stream<Item = Result<pb::SolveLayoutsResponse, tonic::Status>> + Send>,
>;

#[tonic::async_trait]
impl pb::preferans_worker_service_server::PreferansWorkerService for RefusingWorker {
    async fn solve_deal(
        &self,
        _: tonic::Request<pb::SolveDealRequest>,
    ) -> Result<tonic::Response<pb::SolveDealResponse>, tonic::Status> {
        Err(tonic::Status::unimplemented("refusing worker"))
    }

    type SolveLayoutsStream = NoLayouts;

    async fn solve_layouts(
        &self,
        _: tonic::Request<pb::SolveLayoutsRequest>,
    ) -> Result<tonic::Response<NoLayouts>, tonic::Status> {
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Err(tonic::Status::invalid_argument("layout_order: refused"))
    }

    async fn status(
        &self,
        _: tonic::Request<pb::StatusRequest>,
    ) -> Result<tonic::Response<pb::StatusResponse>, tonic::Status> {
        Ok(tonic::Response::new(pb::StatusResponse::default()))
    }
}

/// A worker that fails every lease at once is retried with a growing wait, not
/// in a loop: in 2 s, waits of 0.25, 0.5 and 1 s leave a few tries per slot.
#[tokio::test]
async fn a_worker_failing_every_lease_is_retried_with_a_backoff() {
    use pb::preferans_worker_service_server::PreferansWorkerServiceServer;
    let refusing = RefusingWorker::default();
    let service = PreferansWorkerServiceServer::new(refusing.clone());
    let name = <PreferansWorkerServiceServer<RefusingWorker> as NamedService>::NAME;
    let worker = deckhand::server::spawn(
        ServerConfig::loopback(),
        Services::new(Routes::new(service), &[name]),
    )
    .await
    .unwrap();
    let (running, mut client) = start(Config::new(vec![worker.addr.to_string()])).await;
    client
        .submit_analyses(submit(vec![on_lead("refused", 100)]))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let tries = refusing.requests.load(std::sync::atomic::Ordering::Relaxed);
    assert!((1..=16).contains(&tries), "{tries} tries in 2 s");
    running.shutdown().await.unwrap();
    worker.shutdown().await.unwrap();
}
