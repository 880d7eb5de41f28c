//! gRPC adapter of the mahjong engine: validates and translates protobuf
//! messages, calls the engine, translates back. No game logic lives here.

use deckhand::batch_stream::{answer_each, AnswerStream};
use deckhand::budget::{BatchCost, MemoryBudget, Reservation};
use deckhand::pool::{self, Cost};
use deckhand::proto::mahjong::v1 as pb;
use deckhand::status::{check_batch, collect_batch, FieldResult, Invalid};
use std::convert::Infallible;

use tonic::{Request, Response, Status, Streaming};

use deckhand_mahjong::{check_win, shanten, waits, Decomposition, Form, Tile, TileCounts};

pub use pb::mahjong_service_server::MahjongServiceServer;

/// Default port of the mahjong service.
pub const DEFAULT_PORT: u16 = 50053;
/// Default largest number of hands in one batch request.
pub const DEFAULT_MAX_BATCH: usize = 100_000;

/// The MahjongService implementation.
#[derive(Debug, Clone)]
pub struct Mahjong {
    max_batch: usize,
    budget: MemoryBudget,
}

/// Bounds on one hand's answer for the memory budget: (in memory, encoded).
/// A win check lists its decompositions (a handful at most, each a few tile
/// lists); waits are at most the 34 tile kinds; shanten is four numbers.
#[derive(Clone, Copy)]
struct AnswerBound {
    memory: usize,
    encoded: usize,
    stream_form: &'static str,
}

const CHECK_WIN: AnswerBound = AnswerBound {
    memory: 4 * 160 + 32,
    encoded: 4 * 48 + 8,
    stream_form: "CheckWinStream",
};
const SHANTEN: AnswerBound = AnswerBound {
    memory: 24,
    encoded: 24,
    stream_form: "ShantenStream",
};
const WAITS: AnswerBound = AnswerBound {
    memory: 34 * 48 + 24,
    encoded: 34 * 10 + 4,
    stream_form: "WaitsStream",
};

/// Bounds on one Score answer (in memory, encoded): at most a dozen yaku, a
/// fu breakdown and one decomposition.
const SCORE_ANSWER: (usize, usize) = (2048, 1024);

impl Default for Mahjong {
    fn default() -> Self {
        Mahjong::new(DEFAULT_MAX_BATCH)
    }
}

impl Mahjong {
    pub fn new(max_batch: usize) -> Self {
        Mahjong {
            max_batch,
            budget: MemoryBudget::default(),
        }
    }

    /// Batches are checked against `budget` before they run.
    pub fn with_budget(mut self, budget: MemoryBudget) -> Self {
        self.budget = budget;
        self
    }

    /// The tonic server of this service with the message-size limit applied.
    pub fn into_server(self, max_message_bytes: usize) -> MahjongServiceServer<Mahjong> {
        MahjongServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }

    /// Checks the batch size, then converts every hand and answers it with
    /// `answer`, in request order, on the CPU pool by its policy (a hand
    /// costs about one unit). An error of `answer` is about the hand itself;
    /// a failed batch names every bad hand.
    async fn batch<T, E, F>(
        &self,
        hands: Vec<pb::Hand>,
        bound: AnswerBound,
        answer: F,
    ) -> Result<(Vec<T>, Reservation), Status>
    where
        T: Send + 'static,
        E: std::fmt::Display,
        F: Fn(&TileCounts) -> Result<T, E> + Send + 'static,
    {
        check_batch("hands", hands.len(), self.max_batch)?;
        // A decoded hand is 32 bytes plus its text or counts; 34 converted.
        let mut cost = BatchCost::new("hands", Some(bound.stream_form));
        for hand in &hands {
            let input = match &hand.tiles {
                Some(pb::hand::Tiles::Text(text)) => text.len(),
                Some(pb::hand::Tiles::Counts(counts)) => counts.len(),
                None => 0,
            };
            cost.item(
                32 + input + 34 + bound.memory + bound.encoded,
                bound.encoded,
            );
        }
        let reserved = self.budget.reserve(&cost)?;
        let hands_len = hands.len();
        let work = move || {
            collect_batch(hands.iter().enumerate().map(|(i, hand)| {
                let field = || format!("hands[{i}]");
                answer(&counts(hand, field)?).field(field)
            }))
        };
        Ok((pool::run(Cost(hands_len), work).await??, reserved))
    }
}

/// Converts a wire hand into tile counts; `field` names it in errors (e.g.
/// `hands[3]`) and is only called on error.
fn counts<F: Into<String>>(
    hand: &pb::Hand,
    field: impl FnOnce() -> F,
) -> Result<TileCounts, Invalid> {
    match &hand.tiles {
        None => Err(Invalid::missing(field())),
        Some(pb::hand::Tiles::Text(text)) => text.parse::<TileCounts>().field(field),
        Some(pb::hand::Tiles::Counts(bytes)) => TileCounts::try_from(bytes.as_slice()).field(field),
    }
}

fn id(tile: Tile) -> i32 {
    i32::from(tile.id())
}

fn form(form: Form) -> pb::Form {
    match form {
        Form::Standard => pb::Form::Standard,
        Form::SevenPairs => pb::Form::SevenPairs,
        Form::ThirteenOrphans => pb::Form::ThirteenOrphans,
    }
}

fn to_decomposition(d: &Decomposition) -> pb::Decomposition {
    pb::Decomposition {
        pair: id(d.pair),
        triplets: d.triplets.iter().copied().map(id).collect(),
        sequences: d.sequences.iter().copied().map(id).collect(),
        form: form(d.form) as i32,
        pairs: d.pairs.iter().copied().map(id).collect(),
    }
}

#[tonic::async_trait]
impl pb::mahjong_service_server::MahjongService for Mahjong {
    async fn check_win(
        &self,
        request: Request<pb::CheckWinRequest>,
    ) -> Result<Response<pb::CheckWinResponse>, Status> {
        let (results, reserved) = self
            .batch(request.into_inner().hands, CHECK_WIN, |hand| {
                let result = check_win(hand);
                Ok::<_, Infallible>(pb::WinResult {
                    win: result.win,
                    decompositions: result.decompositions.iter().map(to_decomposition).collect(),
                })
            })
            .await?;
        Ok(reserved.answer(pb::CheckWinResponse { results }))
    }

    async fn shanten(
        &self,
        request: Request<pb::ShantenRequest>,
    ) -> Result<Response<pb::ShantenResponse>, Status> {
        let (results, reserved) = self
            .batch(request.into_inner().hands, SHANTEN, |hand| {
                let s = shanten(hand);
                Ok::<_, Infallible>(pb::ShantenResult {
                    standard: i32::from(s.standard),
                    seven_pairs: s.seven_pairs.map(i32::from),
                    thirteen_orphans: s.thirteen_orphans.map(i32::from),
                    minimum: i32::from(s.minimum),
                })
            })
            .await?;
        Ok(reserved.answer(pb::ShantenResponse { results }))
    }

    async fn waits(
        &self,
        request: Request<pb::WaitsRequest>,
    ) -> Result<Response<pb::WaitsResponse>, Status> {
        let (results, reserved) = self
            .batch(request.into_inner().hands, WAITS, |hand| {
                let waits = waits(hand)?;
                Ok::<_, deckhand_mahjong::HandError>(pb::WaitsResult {
                    waits: waits
                        .iter()
                        .map(|w| pb::Wait {
                            tile: id(w.tile),
                            text: w.tile.to_string(),
                            unseen: u32::from(w.unseen),
                        })
                        .collect(),
                })
            })
            .await?;
        Ok(reserved.answer(pb::WaitsResponse { results }))
    }

    async fn score(
        &self,
        request: Request<pb::ScoreRequest>,
    ) -> Result<Response<pb::ScoreResponse>, Status> {
        let situations = request.into_inner().situations;
        check_batch("situations", situations.len(), self.max_batch)?;
        // A decoded situation is a few short strings.
        let (answer_memory, answer_encoded) = SCORE_ANSWER;
        let mut cost = BatchCost::new("situations", None);
        for s in &situations {
            let strings: usize = [&s.hand, &s.win_tile]
                .into_iter()
                .chain(&s.melds)
                .chain(&s.dora_indicators)
                .chain(&s.ura_indicators)
                .map(|t| t.len() + 24)
                .sum();
            cost.item(
                160 + strings + answer_memory + answer_encoded,
                answer_encoded,
            );
        }
        let reserved = self.budget.reserve(&cost)?;
        let results = crate::score::score_batch(situations, self.max_batch).await?;
        Ok(reserved.answer(pb::ScoreResponse { results }))
    }

    type CheckWinStreamStream = AnswerStream<pb::CheckWinResponse>;

    async fn check_win_stream(
        &self,
        request: Request<Streaming<pb::CheckWinRequest>>,
    ) -> Result<Response<Self::CheckWinStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.check_win(Request::new(m)).await }
        })))
    }

    type ShantenStreamStream = AnswerStream<pb::ShantenResponse>;

    async fn shanten_stream(
        &self,
        request: Request<Streaming<pb::ShantenRequest>>,
    ) -> Result<Response<Self::ShantenStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.shanten(Request::new(m)).await }
        })))
    }

    type WaitsStreamStream = AnswerStream<pb::WaitsResponse>;

    async fn waits_stream(
        &self,
        request: Request<Streaming<pb::WaitsRequest>>,
    ) -> Result<Response<Self::WaitsStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.waits(Request::new(m)).await }
        })))
    }
}
