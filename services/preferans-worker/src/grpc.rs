//! gRPC adapter of the preferans solver: validates and translates protobuf
//! messages, calls the engine, translates back.
//!
//! Solvers live in [`crate::solver_pool`]; layout ranges are solved on them by
//! `layouts`; the worker's metrics are in [`crate::worker_metrics`].

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use deckhand::pool::{self, Cost};

pub use crate::solver_pool::SolverPool;
use deckhand::preferans::{
    card_list, cards, contract, layout_order, layout_range, opening_names, seat, seat_to_proto,
    view_from_proto, JOB_ID_HEADER,
};
use deckhand::proto::preferans::v1 as pb;
use deckhand::status::{FieldResult, Invalid};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use deckhand_preferans::{BySeat, Cards, Position, Seat, Solver, LAYOUT_COUNT};

use crate::layouts;

pub use pb::preferans_worker_service_server::PreferansWorkerServiceServer;

/// Default port of the preferans-worker service.
pub const DEFAULT_PORT: u16 = 50054;
/// Default layouts per streamed SolveLayouts message.
pub const DEFAULT_CHUNK: u32 = 512;
/// How long a SolveLayouts solve waits for a client that reads nothing.
pub const DEFAULT_READ_STALL: Duration = Duration::from_secs(60);
/// Table size of the solver used for single deals (a fresh one per call).
const DEAL_TABLE_BYTES: usize = 8 << 20;

/// The PreferansWorkerService implementation.
#[derive(Clone)]
pub struct Worker {
    pool: Arc<SolverPool>,
    /// Largest answer message: SolveLayouts messages are cut to fit it.
    max_message_bytes: usize,
    /// How long a SolveLayouts solve waits for its client to read a result.
    read_stall: Duration,
}

impl Worker {
    pub fn new(pool: Arc<SolverPool>) -> Worker {
        Worker {
            pool,
            max_message_bytes: usize::MAX,
            read_stall: DEFAULT_READ_STALL,
        }
    }

    /// A SolveLayouts client that reads no result for `read_stall` loses its
    /// solve: the solver threads go back to the pool, and the stream ends with
    /// DEADLINE_EXCEEDED after the results already sent. Default
    /// [`DEFAULT_READ_STALL`].
    pub fn with_read_stall(mut self, read_stall: Duration) -> Worker {
        self.read_stall = read_stall;
        self
    }

    pub fn into_server(mut self, max_message_bytes: usize) -> PreferansWorkerServiceServer<Worker> {
        self.max_message_bytes = max_message_bytes;
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
    // At most two cards precede the player to move in a trick.
    let played = card_list(&request.played, "played", 2)?;
    Position::new(parsed, contract.strain, declarer, leader, &played).field(|| "deal")
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
        let order = layout_order(&request.layout_order, request.layout_group)?;
        tracing::info!(job_id, start = range.start, end = range.end, layout_order = ?request.layout_order, layout_group = request.layout_group, strain = %view.contract().strain, "solving layouts");
        self.pool.begin_analysis(&view);
        let openings = Arc::new(opening_names(&view));
        // A message holds a byte per layout and opening; it must fit the
        // message limit (the openings' names and framing take well under 1 KiB).
        let fits = self.max_message_bytes.saturating_sub(1024) / openings.len().max(1);
        let chunk = match request.chunk_size {
            0 => DEFAULT_CHUNK,
            n => n.min(LAYOUT_COUNT),
        }
        .min(u32::try_from(fits).unwrap_or(u32::MAX))
        .max(1);
        let rx = layouts::solve(
            &self.pool,
            view,
            order,
            range,
            chunk,
            openings,
            self.read_stall,
        );
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn status(
        &self,
        _request: Request<pb::StatusRequest>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        Ok(Response::new(self.pool.status()))
    }
}
