//! CoordinatorService: translates requests to and from [`Jobs`] and streams
//! progress while workers solve a job's chunks.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use deckhand::proto::preferans::v1 as pb;
use pb::AnalysisState;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use deckhand::batch_stream::{answer_channel, Held};
use deckhand::budget::MemoryBudget;

use crate::jobs::{prepare, Job, Jobs};
use crate::scheduler::Scheduler;
use crate::workers::Registry;

pub use pb::coordinator_service_server::CoordinatorServiceServer;

/// Default port of the coordinator.
pub const DEFAULT_PORT: u16 = 50055;

/// The CoordinatorService implementation (a cheap clone; the state is shared).
#[derive(Clone)]
pub struct Coordinator {
    scheduler: Arc<Scheduler>,
    registry: Arc<Registry>,
    jobs: Arc<Jobs>,
    /// Answers with a job's results (GetAnalysis, WatchAnalysis) and pages of
    /// ListAnalyses hold their encoded size here until they are sent.
    budget: MemoryBudget,
}

impl Coordinator {
    pub(crate) fn new(
        scheduler: Arc<Scheduler>,
        registry: Arc<Registry>,
        jobs: Arc<Jobs>,
        budget: MemoryBudget,
    ) -> Coordinator {
        Coordinator {
            scheduler,
            registry,
            jobs,
            budget,
        }
    }

    pub fn scheduler(&self) -> &Arc<Scheduler> {
        &self.scheduler
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Exposes queue, lease and worker counts as Prometheus series (once per process).
    pub fn register_metrics(&self) {
        use deckhand::metrics::{describe, register_collector, Sample};
        use std::sync::atomic::Ordering;
        describe(
            "deckhand_coordinator_queue_depth",
            "gauge",
            "analyses running or waiting",
        );
        describe(
            "deckhand_coordinator_leases",
            "gauge",
            "chunks leased to workers now",
        );
        describe(
            "deckhand_coordinator_re_leases_total",
            "counter",
            "chunks given back after a worker failed or went silent",
        );
        describe(
            "deckhand_coordinator_duplicate_leases_total",
            "counter",
            "second leases of a chunk near the end of a job",
        );
        describe(
            "deckhand_coordinator_workers",
            "gauge",
            "known workers by state",
        );
        let (scheduler, registry) = (self.scheduler.clone(), self.registry.clone());
        register_collector(move || {
            let sample = |name, value: f64| Sample {
                name,
                labels: Vec::new(),
                value,
            };
            let workers = registry.list();
            let count = |state: pb::WorkerState| {
                workers.iter().filter(|w| w.worker_state() == state).count()
            };
            let by_state = |state: &str, n: usize| Sample {
                name: "deckhand_coordinator_workers",
                labels: vec![("state".to_string(), state.to_string())],
                value: n as f64,
            };
            vec![
                sample("deckhand_coordinator_queue_depth", scheduler.depth() as f64),
                sample("deckhand_coordinator_leases", scheduler.leases_out() as f64),
                sample(
                    "deckhand_coordinator_re_leases_total",
                    scheduler.re_leases.load(Ordering::Relaxed) as f64,
                ),
                sample(
                    "deckhand_coordinator_duplicate_leases_total",
                    scheduler.duplicate_leases.load(Ordering::Relaxed) as f64,
                ),
                by_state("idle", count(pb::WorkerState::Idle)),
                by_state("busy", count(pb::WorkerState::Busy)),
                by_state("down", count(pb::WorkerState::Down)),
                by_state("draining", count(pb::WorkerState::Draining)),
            ]
        });
    }
}

/// Runs blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Status::internal(format!("store task: {e}")))?
}

fn analyze_event(event: pb::analyze_all_foe_response::Event) -> pb::AnalyzeAllFoeResponse {
    pb::AnalyzeAllFoeResponse { event: Some(event) }
}

/// A job cannot run: every worker refuses the coordinator's certificate or token.
fn no_worker_accepts(reasons: &str) -> Status {
    Status::failed_precondition(format!("no worker accepts this coordinator: {reasons}"))
}

fn watch_event(event: pb::watch_analysis_response::Event) -> pb::WatchAnalysisResponse {
    pb::WatchAnalysisResponse { event: Some(event) }
}

type Events<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl pb::coordinator_service_server::CoordinatorService for Coordinator {
    type AnalyzeAllFoeStream = Events<pb::AnalyzeAllFoeResponse>;
    type WatchAnalysisStream = Events<pb::WatchAnalysisResponse>;

    /// A one-problem job that lives as long as the client's stream.
    async fn analyze_all_foe(
        &self,
        request: Request<pb::AnalyzeAllFoeRequest>,
    ) -> Result<Response<Self::AnalyzeAllFoeStream>, Status> {
        let request = request.into_inner();
        let problem = pb::Problem {
            name: String::new(),
            view: request.view,
            start: request.start,
            end: request.end,
        };
        if let Some(reasons) = self.registry.all_refuse() {
            return Err(no_worker_accepts(&reasons));
        }
        // The request's own field names (view, range) are the problem's.
        let problem = prepare(0, &problem, self.jobs.chunk_size(), &[], None)?;
        let jobs = self.jobs.clone();
        let job = blocking(move || jobs.submit(vec![problem], String::new(), true)).await?;
        tracing::info!(
            job_id = job.id,
            workers = self.registry.up_count(),
            "analysis queued"
        );

        let (tx, rx) = mpsc::channel(16);
        let (jobs, interval) = (self.jobs.clone(), self.scheduler.config.progress_interval);
        let registry = self.registry.clone();
        tokio::spawn(async move {
            use pb::analyze_all_foe_response::Event;
            let mut ended = job.subscribe();
            let mut tick = tokio::time::interval(interval);
            loop {
                tokio::select! {
                    _ = ended_signal(&mut ended) => {
                        let _ = tx.send(Ok(analyze_event(Event::Progress(job.progress())))).await;
                        let last = match (job.state(), job.result(0)) {
                            (AnalysisState::Done, Some(result)) => Ok(analyze_event(Event::Result(result))),
                            (AnalysisState::Failed, _) => Err(Status::internal(job.error())),
                            _ => Err(Status::cancelled("the analysis was cancelled")),
                        };
                        let _ = tx.send(last).await;
                        break;
                    }
                    _ = tick.tick() => {
                        if let Some(reasons) = registry.all_refuse() {
                            tracing::error!(job_id = job.id, reasons, "no worker accepts this coordinator; analysis failed");
                            let _ = tx.send(Err(no_worker_accepts(&reasons))).await;
                            break;
                        }
                        if tx.send(Ok(analyze_event(Event::Progress(job.progress())))).await.is_err() {
                            break;
                        }
                    }
                    _ = tx.closed() => {
                        tracing::info!(job_id = job.id, "client went away; analysis cancelled");
                        break;
                    }
                }
            }
            // Stops every worker still on this job and forgets it.
            let _ = tokio::task::spawn_blocking(move || jobs.delete(&job)).await;
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn list_workers(
        &self,
        _request: Request<pb::ListWorkersRequest>,
    ) -> Result<Response<pb::ListWorkersResponse>, Status> {
        let workers = self.registry.list().iter().map(|w| w.info()).collect();
        Ok(Response::new(pb::ListWorkersResponse { workers }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatResponse>, Status> {
        let request = request.into_inner();
        self.registry
            .heartbeat(&request.address, request.draining)?;
        Ok(Response::new(pb::HeartbeatResponse {
            heartbeat_timeout_seconds: self.scheduler.config.heartbeat_timeout.as_secs_f64(),
        }))
    }

    async fn drain_worker(
        &self,
        request: Request<pb::DrainWorkerRequest>,
    ) -> Result<Response<pb::DrainWorkerResponse>, Status> {
        self.registry.drain(&request.into_inner().address)?;
        Ok(Response::new(pb::DrainWorkerResponse {}))
    }

    async fn submit_analyses(
        &self,
        request: Request<pb::SubmitAnalysesRequest>,
    ) -> Result<Response<pb::SubmitAnalysesResponse>, Status> {
        let request = request.into_inner();
        self.jobs.check_count(request.problems.len())?;
        let chunk_size = self.jobs.chunk_size();
        let problems = request
            .problems
            .iter()
            .enumerate()
            .map(|(i, p)| {
                prepare(i as u32, p, chunk_size, &[], None)
                    .map_err(|e| e.within(format!("problems[{i}]")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let jobs = self.jobs.clone();
        let job = blocking(move || jobs.submit(problems, request.request_id, false)).await?;
        Ok(Response::new(pb::SubmitAnalysesResponse { job_id: job.id }))
    }

    async fn watch_analysis(
        &self,
        request: Request<pb::WatchAnalysisRequest>,
    ) -> Result<Response<Self::WatchAnalysisStream>, Status> {
        let job = self.lookup(request.into_inner().job_id).await?;
        let (tx, events) = answer_channel(16);
        let interval = self.scheduler.config.progress_interval;
        tokio::spawn(watch(job, tx, interval, self.budget.clone()));
        Ok(Response::new(Box::pin(events)))
    }

    async fn get_analysis(
        &self,
        request: Request<pb::GetAnalysisRequest>,
    ) -> Result<Response<pb::Analysis>, Status> {
        let job = self.lookup(request.into_inner().job_id).await?;
        let analysis = job.analysis(true);
        let reserved = self.budget.reserve_answer(analysis.encoded_len())?;
        Ok(reserved.answer(analysis))
    }

    async fn list_analyses(
        &self,
        request: Request<pb::ListAnalysesRequest>,
    ) -> Result<Response<pb::ListAnalysesResponse>, Status> {
        let request = request.into_inner();
        let state = match AnalysisState::try_from(request.state) {
            Ok(AnalysisState::Unspecified) => None,
            Ok(state) => Some(state),
            Err(_) => {
                return Err(Status::invalid_argument(format!(
                    "state: unknown value {}",
                    request.state
                )))
            }
        };
        let before = if request.page_token.is_empty() {
            u64::MAX
        } else {
            request.page_token.parse().map_err(|_| {
                Status::invalid_argument(format!(
                    "page_token: {:?} is not ours",
                    request.page_token
                ))
            })?
        };
        let limit = match request.page_size {
            0 => 100,
            n => n.min(1000) as usize,
        };
        let jobs = self.jobs.clone();
        let page = blocking(move || jobs.list(state, before, limit)).await?;
        // A page also ends before its answer could pass half the message
        // limit (each job's progress names every worker that helped it).
        let room = self.jobs.max_message_bytes() / 2;
        let mut analyses: Vec<pb::Analysis> = Vec::new();
        let mut bytes = 0;
        for job in &page {
            let analysis = job.analysis(false);
            let len = analysis.encoded_len() + 6;
            if bytes + len > room && !analyses.is_empty() {
                break;
            }
            bytes += len;
            analyses.push(analysis);
        }
        let next_page_token = match analyses.last() {
            Some(last) if analyses.len() < page.len() || page.len() == limit => {
                last.job_id.to_string()
            }
            _ => String::new(),
        };
        let reserved = self.budget.reserve_answer(bytes)?;
        Ok(reserved.answer(pb::ListAnalysesResponse {
            analyses,
            next_page_token,
        }))
    }

    async fn cancel_analysis(
        &self,
        request: Request<pb::CancelAnalysisRequest>,
    ) -> Result<Response<pb::Analysis>, Status> {
        let job = self.lookup(request.into_inner().job_id).await?;
        let jobs = self.jobs.clone();
        let cancelled = job.clone();
        blocking(move || jobs.cancel(&cancelled)).await?;
        Ok(Response::new(job.analysis(true)))
    }
}

impl Coordinator {
    /// A job by id, or NOT_FOUND; AnalyzeAllFoe jobs belong to their stream.
    async fn lookup(&self, id: u64) -> Result<Arc<Job>, Status> {
        let jobs = self.jobs.clone();
        let job = blocking(move || jobs.get(id)).await?;
        if job.is_ephemeral() {
            return Err(Status::not_found(format!(
                "job {id}: an AnalyzeAllFoe stream, not a batch job"
            )));
        }
        Ok(job)
    }
}

/// Progress every `interval` until the job ends, then the final state and
/// results, which hold their memory in `budget` until they are sent.
async fn watch(
    job: Arc<Job>,
    tx: mpsc::Sender<Held<pb::WatchAnalysisResponse>>,
    interval: Duration,
    budget: MemoryBudget,
) {
    use pb::watch_analysis_response::Event;
    let progress = |job: &Job| (Ok(watch_event(Event::Progress(job.progress()))), None);
    let mut ended = job.subscribe();
    let mut tick = tokio::time::interval(interval);
    while !job.is_ended() {
        tokio::select! {
            _ = ended_signal(&mut ended) => break,
            _ = tick.tick() => {
                if tx.send(progress(&job)).await.is_err() {
                    return; // The watcher went away; the job goes on.
                }
            }
        }
    }
    let _ = tx.send(progress(&job)).await;
    let last = watch_event(Event::Analysis(job.analysis(true)));
    let last = match budget.reserve_answer(last.encoded_len()) {
        Ok(reserved) => (Ok(last), Some(reserved.held())),
        Err(busy) => (Err(busy), None),
    };
    let _ = tx.send(last).await;
}

/// Completes when the job has ended.
async fn ended_signal(ended: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = ended.wait_for(|e| *e).await.map(|_| ());
}
