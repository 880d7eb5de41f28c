//! gRPC adapter of the hand-ops engine: validates and translates protobuf
//! messages, calls the engine, translates back. No game logic lives here.

use deckhand::batch_stream::{answer_each, AnswerStream};
use deckhand::budget::{BatchCost, MemoryBudget};
use deckhand::pool::{self, Cost};
use deckhand::proto::handops::v1 as pb;
use deckhand::status::{check_batch, collect_batch, FieldResult, Invalid, Violations};
use tonic::{Request, Response, Status, Streaming};

use deckhand_handops::{beating_plays, classify, legal_plays, CardsVector, Play, PlayKind};

pub use pb::hand_ops_service_server::HandOpsServiceServer;

/// Default port of the hand-ops service.
pub const DEFAULT_PORT: u16 = 50051;
/// Default largest number of items in one batch request.
pub const DEFAULT_MAX_BATCH: usize = 100_000;

/// The HandOpsService implementation.
#[derive(Debug, Clone)]
pub struct HandOps {
    max_batch: usize,
    budget: MemoryBudget,
}

impl Default for HandOps {
    fn default() -> Self {
        HandOps::new(DEFAULT_MAX_BATCH)
    }
}

impl HandOps {
    pub fn new(max_batch: usize) -> Self {
        HandOps {
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
    pub fn into_server(self, max_message_bytes: usize) -> HandOpsServiceServer<HandOps> {
        HandOpsServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }
}

// Memory bounds per item for the budget: the decoded message (a `Hand` is 32
// bytes plus its text), the converted cards, the answer in memory and encoded.
/// A decoded `HandPair` and its two converted hands.
const PAIR_BYTES: usize = 2 * 32 + 2 * 8 + 32;
/// Most bytes of one encoded `Move` (a test measures every play of a full
/// deck): 20 cards of text, the packed value, the type, the key, the length.
const MOVE_BYTES: usize = 48;

fn text_len(hand: Option<&pb::Hand>) -> usize {
    match hand.and_then(|h| h.cards.as_ref()) {
        Some(pb::hand::Cards::Text(text)) => text.len(),
        _ => 0,
    }
}

/// The cost of a pairs batch whose answer is `answer_bytes` per pair encoded
/// and `answer_memory` in memory.
fn pairs_cost(
    request_pairs: &[pb::HandPair],
    packed: usize,
    answer_memory: usize,
    answer_bytes: usize,
    stream_form: &'static str,
) -> BatchCost {
    let field = if packed > 0 { "packed" } else { "pairs" };
    let mut cost = BatchCost::new(field, Some(stream_form));
    for pair in request_pairs {
        let text = text_len(pair.hand.as_ref()) + text_len(pair.part.as_ref());
        cost.item(
            PAIR_BYTES + text + answer_memory + answer_bytes,
            answer_bytes,
        );
    }
    // Packed pairs: two u64 decoded, two converted.
    cost.items(packed, 32 + answer_memory + answer_bytes, answer_bytes);
    cost
}

/// Converts a wire hand into cards; `field` names it in errors (e.g.
/// `pairs[3].part`) and is only called on error.
fn cards<F: Into<String>>(
    hand: Option<&pb::Hand>,
    field: impl FnOnce() -> F,
) -> Result<CardsVector, Invalid> {
    match hand.and_then(|h| h.cards.as_ref()) {
        None => Err(Invalid::missing(field())),
        Some(pb::hand::Cards::Packed(packed)) => CardsVector::from_packed(*packed).field(field),
        Some(pb::hand::Cards::Text(text)) => text.parse::<CardsVector>().field(field),
    }
}

/// Both sides of a pair, or each side that is bad.
fn both(
    hand: Result<CardsVector, Invalid>,
    part: Result<CardsVector, Invalid>,
) -> Result<(CardsVector, CardsVector), Violations> {
    match (hand, part) {
        (Ok(hand), Ok(part)) => Ok((hand, part)),
        (hand, part) => Err(hand.err().into_iter().chain(part.err()).collect()),
    }
}

fn pairs(
    pairs: &[pb::HandPair],
    max: usize,
) -> Result<Vec<(CardsVector, CardsVector)>, Violations> {
    check_batch("pairs", pairs.len(), max)?;
    collect_batch(pairs.iter().enumerate().map(|(i, p)| {
        both(
            cards(p.hand.as_ref(), || format!("pairs[{i}].hand")),
            cards(p.part.as_ref(), || format!("pairs[{i}].part")),
        )
    }))
}

fn packed_pairs(
    packed: &pb::PackedPairs,
    max: usize,
) -> Result<Vec<(CardsVector, CardsVector)>, Violations> {
    if packed.hands.len() != packed.parts.len() {
        return Err(Invalid::new(
            "packed",
            format!(
                "{} hands but {} parts: the lists must have the same length",
                packed.hands.len(),
                packed.parts.len()
            ),
        )
        .into());
    }
    check_batch("packed", packed.hands.len(), max)?;
    let check = |value: u64, field: &str, i: usize| {
        CardsVector::from_packed(value).field(|| format!("packed.{field}[{i}]"))
    };
    collect_batch(
        packed
            .hands
            .iter()
            .zip(&packed.parts)
            .enumerate()
            .map(|(i, (&hand, &part))| both(check(hand, "hands", i), check(part, "parts", i))),
    )
}

fn move_type(kind: PlayKind) -> pb::MoveType {
    use pb::MoveType as T;
    match kind {
        PlayKind::Single => T::Single,
        PlayKind::Pair => T::Pair,
        PlayKind::Trio => T::Trio,
        PlayKind::TrioWithSingle => T::TrioWithSingle,
        PlayKind::TrioWithPair => T::TrioWithPair,
        PlayKind::ChainOfSingles => T::ChainOfSingles,
        PlayKind::ChainOfPairs => T::ChainOfPairs,
        PlayKind::ChainOfTrios => T::ChainOfTrios,
        PlayKind::AirplaneWithSingles => T::AirplaneWithSingles,
        PlayKind::AirplaneWithPairs => T::AirplaneWithPairs,
        PlayKind::FourWithTwoSingles => T::FourWithTwoSingles,
        PlayKind::FourWithTwoPairs => T::FourWithTwoPairs,
        PlayKind::Bomb => T::Bomb,
        PlayKind::Rocket => T::Rocket,
    }
}

fn to_move(play: &Play) -> pb::Move {
    pb::Move {
        text: play.cards.to_string(),
        packed: play.cards.packed(),
        r#type: move_type(play.kind) as i32,
        key: play.key.to_char().to_string(),
        chain_length: u32::from(play.chain_len),
    }
}

#[tonic::async_trait]
impl pb::hand_ops_service_server::HandOpsService for HandOps {
    async fn contains(
        &self,
        request: Request<pb::ContainsRequest>,
    ) -> Result<Response<pb::ContainsResponse>, Status> {
        let (request, max) = (request.into_inner(), self.max_batch);
        let packed = request.packed.as_ref().map_or(0, |p| p.hands.len());
        // A bool a pair: one byte in memory and packed on the wire.
        let reserved =
            self.budget
                .reserve(&pairs_cost(&request.pairs, packed, 1, 1, "ContainsStream"))?;
        let cost = Cost(request.pairs.len() + packed);
        let contains = pool::run(cost, move || -> Result<_, Violations> {
            let pairs = match &request.packed {
                Some(packed) if request.pairs.is_empty() => packed_pairs(packed, max)?,
                Some(_) => {
                    return Err(
                        Invalid::new("packed", "give either pairs or packed, not both").into(),
                    )
                }
                None => pairs(&request.pairs, max)?,
            };
            Ok(pairs
                .iter()
                .map(|(hand, part)| hand.contains(*part))
                .collect())
        })
        .await??;
        Ok(reserved.answer(pb::ContainsResponse { contains }))
    }

    async fn remove(
        &self,
        request: Request<pb::RemoveRequest>,
    ) -> Result<Response<pb::RemoveResponse>, Status> {
        let (request, max) = (request.into_inner(), self.max_batch);
        // A packed Hand a pair: 32 bytes in memory, 11 encoded plus the field's 2.
        let reserved =
            self.budget
                .reserve(&pairs_cost(&request.pairs, 0, 32, 13, "RemoveStream"))?;
        let remaining = pool::run(Cost(request.pairs.len()), move || {
            let pairs = pairs(&request.pairs, max)?;
            collect_batch(pairs.iter().enumerate().map(|(i, (hand, part))| {
                let rest = hand.checked_remove(*part).ok_or_else(|| {
                    Invalid::new(
                        format!("pairs[{i}]"),
                        format!("part {part} is not contained in hand {hand}"),
                    )
                })?;
                Ok::<_, Invalid>(pb::Hand {
                    cards: Some(pb::hand::Cards::Packed(rest.packed())),
                })
            }))
        })
        .await??;
        Ok(reserved.answer(pb::RemoveResponse { remaining }))
    }

    async fn classify(
        &self,
        request: Request<pb::ClassifyRequest>,
    ) -> Result<Response<pb::ClassifyResponse>, Status> {
        let (hands, max) = (request.into_inner().hands, self.max_batch);
        check_batch("hands", hands.len(), max)?;
        // A Classification: a Move with two short strings, about 160 bytes in
        // memory, and its encoding.
        let mut cost = BatchCost::new("hands", Some("ClassifyStream"));
        for hand in &hands {
            cost.item(32 + text_len(Some(hand)) + 8 + 160 + MOVE_BYTES, MOVE_BYTES);
        }
        let reserved = self.budget.reserve(&cost)?;
        let results = pool::run(Cost(hands.len()), move || {
            collect_batch(hands.iter().enumerate().map(|(i, h)| {
                let play = classify(cards(Some(h), || format!("hands[{i}]"))?);
                Ok::<_, Invalid>(pb::Classification {
                    valid: play.is_some(),
                    r#move: play.as_ref().map(to_move),
                })
            }))
        })
        .await??;
        Ok(reserved.answer(pb::ClassifyResponse { results }))
    }

    async fn legal_moves(
        &self,
        request: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        let request = request.get_ref();
        let hand = cards(request.hand.as_ref(), || "hand")?;
        let beat =
            match &request.beat {
                None => None,
                Some(beat) => {
                    let cards = cards(Some(beat), || "beat")?;
                    Some(classify(cards).ok_or_else(|| {
                        Invalid::new("beat", format!("{cards} is not a valid play"))
                    })?)
                }
            };
        // A full deck has 27,471 plays: always the pool's work, about a
        // millisecond. The answer is then checked against the budget before
        // it is built, and holds its memory until it has been sent.
        let plays = pool::run(Cost::HEAVY, move || match beat {
            None => legal_plays(hand),
            Some(beat) => beating_plays(hand, &beat),
        })
        .await?;
        let mut cost = BatchCost::listing(
            "hand",
            "plays",
            "give a `beat` play to list only the plays that beat it",
        );
        // A Move in memory as in Classify, and the Play it is made from.
        cost.items(plays.len(), 16 + 160 + MOVE_BYTES, MOVE_BYTES);
        let reserved = self.budget.reserve(&cost)?;
        let moves = plays.iter().map(to_move).collect();
        Ok(reserved.answer(pb::LegalMovesResponse { moves }))
    }

    type ContainsStreamStream = AnswerStream<pb::ContainsResponse>;

    async fn contains_stream(
        &self,
        request: Request<Streaming<pb::ContainsRequest>>,
    ) -> Result<Response<Self::ContainsStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.contains(Request::new(m)).await }
        })))
    }

    type RemoveStreamStream = AnswerStream<pb::RemoveResponse>;

    async fn remove_stream(
        &self,
        request: Request<Streaming<pb::RemoveRequest>>,
    ) -> Result<Response<Self::RemoveStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.remove(Request::new(m)).await }
        })))
    }

    type ClassifyStreamStream = AnswerStream<pb::ClassifyResponse>;

    async fn classify_stream(
        &self,
        request: Request<Streaming<pb::ClassifyRequest>>,
    ) -> Result<Response<Self::ClassifyStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.classify(Request::new(m)).await }
        })))
    }
}
