//! gRPC adapter of the preferans solver: validates and translates protobuf
//! messages, runs the engine on a pool of long-lived solvers, streams results.
//!
//! Solvers live in [`crate::solver_pool`]. A request for a layout range is cut into chunks
//! that the slots it gets take in order, so each slot works on contiguous
//! indices (neighbouring layouts share most positions).

use std::ops::{ControlFlow, Range};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use deckhand::pool::{self, Cost};

pub use crate::solver_pool::SolverPool;
use deckhand::preferans::{
    card_list, cards, contract, layout_range, opening_names, seat, seat_to_proto, view_from_proto,
    JOB_ID_HEADER,
};
use deckhand::proto::preferans::v1 as pb;
use deckhand::status::{FieldResult, Invalid};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use deckhand_preferans::{
    solve_layouts, BySeat, Cards, DeclarerView, Position, Seat, Solver, LAYOUT_COUNT,
};

pub use pb::preferans_worker_service_server::PreferansWorkerServiceServer;

/// Default port of the preferans-worker service.
pub const DEFAULT_PORT: u16 = 50054;
/// Default layouts per streamed SolveLayouts message.
pub const DEFAULT_CHUNK: u32 = 512;
/// Table size of the solver used for single deals (a fresh one per call).
const DEAL_TABLE_BYTES: usize = 8 << 20;

/// Exposes the pool's counters as Prometheus series (call once per process).
pub fn register_metrics(pool: Arc<SolverPool>) {
    use deckhand::metrics::{describe, register_collector, Sample};
    describe(
        "deckhand_worker_layouts_solved_total",
        "counter",
        "layouts solved by each solver thread",
    );
    describe(
        "deckhand_worker_table_fill",
        "gauge",
        "share of transposition-table entries in use",
    );
    describe(
        "deckhand_worker_table_hit_rate",
        "gauge",
        "transposition-table hits per probe since the table was created",
    );
    describe(
        "deckhand_worker_trumps_held",
        "gauge",
        "1 for the strain each thread's table holds",
    );
    describe(
        "deckhand_worker_busy",
        "gauge",
        "1 while a thread is solving",
    );
    register_collector(move || {
        let mut samples = Vec::new();
        for (i, slot) in pool.slots.iter().enumerate() {
            let thread = vec![("thread".to_string(), i.to_string())];
            let probes = slot.probes.load(Ordering::Relaxed);
            let hits = slot.hits.load(Ordering::Relaxed);
            let mut push = |name, value: f64| {
                samples.push(Sample {
                    name,
                    labels: thread.clone(),
                    value,
                });
            };
            push(
                "deckhand_worker_layouts_solved_total",
                slot.layouts.load(Ordering::Relaxed) as f64,
            );
            push(
                "deckhand_worker_table_fill",
                f64::from_bits(slot.fill.load(Ordering::Relaxed)),
            );
            push(
                "deckhand_worker_table_hit_rate",
                if probes == 0 {
                    0.0
                } else {
                    hits as f64 / probes as f64
                },
            );
            push(
                "deckhand_worker_busy",
                f64::from(u8::from(slot.busy.load(Ordering::Relaxed))),
            );
            if let Some(strain) = slot.held() {
                let mut labels = thread.clone();
                labels.push(("trumps".to_string(), strain.to_string()));
                samples.push(Sample {
                    name: "deckhand_worker_trumps_held",
                    labels,
                    value: 1.0,
                });
            }
        }
        samples
    });
}

/// The PreferansWorkerService implementation.
#[derive(Clone)]
pub struct Worker {
    pool: Arc<SolverPool>,
}

impl Worker {
    pub fn new(pool: Arc<SolverPool>) -> Worker {
        Worker { pool }
    }

    pub fn into_server(self, max_message_bytes: usize) -> PreferansWorkerServiceServer<Worker> {
        PreferansWorkerServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }
}

type ResultStream = Pin<Box<dyn Stream<Item = Result<pb::SolveLayoutsResponse, Status>> + Send>>;

fn position(request: &pb::SolveDealRequest) -> Result<Position, Invalid> {
    let contract = contract(&request.contract, "contract")?;
    let hands = BySeat::from_fn(|s| match s {
        Seat::N => (&request.north, "north"),
        Seat::E => (&request.east, "east"),
        Seat::W => (&request.west, "west"),
    });
    let mut parsed = BySeat::<Cards>::default();
    for (s, (text, field)) in hands.iter() {
        parsed[s] = cards(text, field)?;
    }
    let declarer = seat(request.declarer, "declarer")?;
    let leader = seat(request.leader, "leader")?;
    let played = card_list(&request.played, "played")?;
    Position::new(parsed, contract.strain, declarer, leader, &played).field(|| "deal")
}

/// Solves `range` on one leased slot, sending a message per `chunk` layouts.
/// Stops as soon as the receiver is gone (client cancelled).
fn solve_chunks(
    solver: &mut Solver,
    view: &DeclarerView,
    next: &AtomicU32,
    range: Range<u32>,
    chunk: u32,
    openings: &[String],
    tx: &mpsc::Sender<Result<pb::SolveLayoutsResponse, Status>>,
) -> u64 {
    let mut solved = 0u64;
    loop {
        let start = next.fetch_add(chunk, Ordering::Relaxed);
        if start >= range.end {
            return solved;
        }
        let end = (start + chunk).min(range.end);
        let mut tricks = Vec::with_capacity((end - start) as usize * openings.len());
        let result = solve_layouts(solver, view, start..end, |r| {
            tricks.extend_from_slice(r.tricks.as_slice());
            if tx.is_closed() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let count = match result {
            Ok(count) => count,
            Err(e) => {
                let _ = tx.blocking_send(Err(Invalid::new("range", e).into()));
                return solved;
            }
        };
        solved += u64::from(count);
        if count < end - start {
            return solved; // cancelled mid-chunk
        }
        let message = pb::SolveLayoutsResponse {
            start,
            count,
            openings: openings.to_vec(),
            tricks,
        };
        if tx.blocking_send(Ok(message)).is_err() {
            return solved;
        }
    }
}

#[tonic::async_trait]
impl pb::preferans_worker_service_server::PreferansWorkerService for Worker {
    async fn solve_deal(
        &self,
        request: Request<pb::SolveDealRequest>,
    ) -> Result<Response<pb::SolveDealResponse>, Status> {
        let position = position(request.get_ref())?;
        let to_move = position.to_move();
        // The declarer wants tricks (none in misère); the defenders want the opposite.
        let wants_tricks = (to_move == position.declarer()) != position.strain().is_misere();
        let values = pool::run(Cost::HEAVY, move || {
            // A small fresh table: a single deal must not clear a warm layout table.
            Solver::new(DEAL_TABLE_BYTES).solve_cards(&position)
        })
        .await?;
        // The position's value is the best card's value for the player to move
        // (a validated position always has a legal card).
        let tricks = values.iter().map(|&(_, v)| v);
        let tricks = if wants_tricks {
            tricks.max()
        } else {
            tricks.min()
        }
        .ok_or_else(|| Status::internal("no legal card in a validated position"))?;
        let cards = values
            .into_iter()
            .map(|(card, value)| pb::CardValue {
                card: card.to_string(),
                declarer_tricks: u32::from(value),
                best: value == tricks,
            })
            .collect();
        Ok(Response::new(pb::SolveDealResponse {
            declarer_tricks: u32::from(tricks),
            to_move: seat_to_proto(to_move) as i32,
            cards,
        }))
    }

    type SolveLayoutsStream = ResultStream;

    async fn solve_layouts(
        &self,
        request: Request<pb::SolveLayoutsRequest>,
    ) -> Result<Response<Self::SolveLayoutsStream>, Status> {
        // Set by a coordinator, so worker logs can be matched with its job.
        let job_id = request
            .metadata()
            .get(JOB_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-")
            .to_string();
        let request = request.into_inner();
        let view = Arc::new(view_from_proto(request.view.as_ref())?);
        let range = layout_range(request.start, request.end)?;
        tracing::info!(job_id, start = range.start, end = range.end, strain = %view.contract().strain, "solving layouts");
        let chunk = match request.chunk_size {
            0 => DEFAULT_CHUNK,
            n => n.min(LAYOUT_COUNT),
        };
        let openings = Arc::new(opening_names(&view));
        let chunks = (range.end - range.start).div_ceil(chunk) as usize;
        let threads = self.pool.threads().min(chunks);
        let (tx, rx) = mpsc::channel(2 * threads.max(1));
        let next = Arc::new(AtomicU32::new(range.start));
        let strain = view.contract().strain;
        for _ in 0..threads {
            let (pool, view, next, range, openings, tx) = (
                self.pool.clone(),
                view.clone(),
                next.clone(),
                range.clone(),
                openings.clone(),
                tx.clone(),
            );
            tokio::spawn(async move {
                let lease = tokio::select! {
                    lease = pool.lease(strain) => lease,
                    _ = tx.closed() => return,
                };
                if next.load(Ordering::Relaxed) >= range.end {
                    return; // the other slots finished the work meanwhile
                }
                let _ = pool::run(Cost::HEAVY, move || {
                    let slot = &lease.pool.slots[lease.index];
                    let solved = slot.with_solver(strain, |solver| {
                        solve_chunks(solver, &view, &next, range, chunk, &openings, &tx)
                    });
                    slot.layouts.fetch_add(solved, Ordering::Relaxed);
                    drop(lease);
                })
                .await;
            });
        }
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn status(
        &self,
        _request: Request<pb::StatusRequest>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        Ok(Response::new(self.pool.status()))
    }
}
