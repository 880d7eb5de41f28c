//! CoordinatorService: validates an analysis request, queues it as a job,
//! streams progress while workers solve its chunks, then the result.

use std::pin::Pin;
use std::sync::Arc;

use deckhand::preferans::{layout_range, opening_names, view_from_proto};
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::LAYOUT_COUNT;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::job::Job;
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
}

impl Coordinator {
    pub(crate) fn new(scheduler: Arc<Scheduler>, registry: Arc<Registry>) -> Coordinator {
        Coordinator {
            scheduler,
            registry,
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
            let up = workers.iter().filter(|w| w.is_up()).count();
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
                by_state("up", up),
                by_state("down", workers.len() - up),
            ]
        });
    }
}

fn progress(job: &Job) -> pb::AnalyzeAllFoeResponse {
    let done = job.solved();
    let total = job.total();
    let seconds = job.started.elapsed().as_secs_f64();
    let rate = if seconds > 0.0 {
        done as f64 / seconds
    } else {
        0.0
    };
    let eta = if rate > 0.0 {
        (total - done) as f64 / rate
    } else {
        -1.0
    };
    let workers = job
        .share()
        .into_iter()
        .map(|(address, layouts)| pb::WorkerShare { address, layouts })
        .collect();
    pb::AnalyzeAllFoeResponse {
        event: Some(pb::analyze_all_foe_response::Event::Progress(
            pb::Progress {
                layouts_done: done,
                layouts_total: total,
                layouts_per_second: rate,
                eta_seconds: eta,
                workers,
            },
        )),
    }
}

fn result(job: &Job) -> pb::AnalyzeAllFoeResponse {
    let result = job.result();
    let openings = result
        .histograms
        .into_iter()
        .map(|(card, h)| pb::OpeningResult {
            card,
            histogram: h.counts.to_vec(),
            mean: h.mean(),
            make: h.make_share(job.contract),
        })
        .collect();
    pb::AnalyzeAllFoeResponse {
        event: Some(pb::analyze_all_foe_response::Event::Result(
            pb::AnalysisResult {
                layouts: result.layouts,
                seconds: job.started.elapsed().as_secs_f64(),
                openings,
            },
        )),
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::AnalyzeAllFoeResponse, Status>> + Send>>;

#[tonic::async_trait]
impl pb::coordinator_service_server::CoordinatorService for Coordinator {
    type AnalyzeAllFoeStream = EventStream;

    async fn analyze_all_foe(
        &self,
        request: Request<pb::AnalyzeAllFoeRequest>,
    ) -> Result<Response<Self::AnalyzeAllFoeStream>, Status> {
        let request = request.into_inner();
        let view = view_from_proto(request.view.as_ref())?;
        let end = if request.end == 0 {
            LAYOUT_COUNT
        } else {
            request.end
        };
        let range = layout_range(request.start, end)?;
        let id = self.scheduler.next_job_id();
        let job = Arc::new(Job::new(
            id,
            view.clone(),
            view.contract().strain,
            view.contract(),
            range.clone(),
            self.scheduler.config.chunk_size,
            opening_names(&view),
        ));
        self.scheduler.submit(job.clone()).map_err(|full| {
            Status::resource_exhausted(format!(
                "the coordinator already runs {} analyses; try again later",
                full.max_jobs
            ))
        })?;
        tracing::info!(job_id = id, start = range.start, end = range.end, strain = %job.strain, workers = self.registry.up_count(), "analysis queued");

        let (tx, rx) = mpsc::channel(16);
        let scheduler = self.scheduler.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(scheduler.config.progress_interval);
            loop {
                tokio::select! {
                    _ = job.finished.notified() => {
                        let _ = tx.send(Ok(progress(&job))).await;
                        let _ = tx.send(Ok(result(&job))).await;
                        tracing::info!(job_id = id, seconds = job.started.elapsed().as_secs_f64(), "analysis finished");
                        break;
                    }
                    _ = tick.tick() => {
                        if tx.send(Ok(progress(&job))).await.is_err() {
                            break;
                        }
                    }
                    _ = tx.closed() => {
                        tracing::info!(job_id = id, "client went away; analysis cancelled");
                        break;
                    }
                }
            }
            // Stops every worker still on this job (cancelled, or duplicate leases).
            job.cancel.cancel();
            scheduler.remove(id);
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
}
