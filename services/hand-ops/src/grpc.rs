//! gRPC adapter of the hand-ops engine: validates and translates protobuf
//! messages, calls the engine, translates back. No game logic lives here.

use deckhand::proto::handops::v1 as pb;
use deckhand::status::{check_batch, invalid, missing};
use tonic::{Request, Response, Status};

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
}

impl Default for HandOps {
    fn default() -> Self {
        HandOps::new(DEFAULT_MAX_BATCH)
    }
}

impl HandOps {
    pub fn new(max_batch: usize) -> Self {
        HandOps { max_batch }
    }

    /// The tonic server of this service with the message-size limit applied.
    pub fn into_server(self, max_message_bytes: usize) -> HandOpsServiceServer<HandOps> {
        HandOpsServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }
}

/// Converts a wire hand into cards; `field` names it in errors (e.g. `pairs[3].part`).
fn cards(hand: Option<&pb::Hand>, field: &str) -> Result<CardsVector, Status> {
    match hand.and_then(|h| h.cards.as_ref()) {
        None => Err(missing(field)),
        Some(pb::hand::Cards::Packed(packed)) => {
            CardsVector::from_packed(*packed).map_err(|e| invalid(field, e))
        }
        Some(pb::hand::Cards::Text(text)) => {
            text.parse::<CardsVector>().map_err(|e| invalid(field, e))
        }
    }
}

fn pairs(pairs: &[pb::HandPair], max: usize) -> Result<Vec<(CardsVector, CardsVector)>, Status> {
    check_batch("pairs", pairs.len(), max)?;
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Ok((
                cards(p.hand.as_ref(), &format!("pairs[{i}].hand"))?,
                cards(p.part.as_ref(), &format!("pairs[{i}].part"))?,
            ))
        })
        .collect()
}

fn packed_pairs(
    packed: &pb::PackedPairs,
    max: usize,
) -> Result<Vec<(CardsVector, CardsVector)>, Status> {
    if packed.hands.len() != packed.parts.len() {
        return Err(invalid(
            "packed",
            format!(
                "{} hands but {} parts: the lists must have the same length",
                packed.hands.len(),
                packed.parts.len()
            ),
        ));
    }
    check_batch("packed", packed.hands.len(), max)?;
    let check = |value: u64, field: &str, i: usize| {
        CardsVector::from_packed(value).map_err(|e| invalid(format!("packed.{field}[{i}]"), e))
    };
    packed
        .hands
        .iter()
        .zip(&packed.parts)
        .enumerate()
        .map(|(i, (&hand, &part))| Ok((check(hand, "hands", i)?, check(part, "parts", i)?)))
        .collect()
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
        let request = request.get_ref();
        let pairs = match &request.packed {
            Some(packed) if request.pairs.is_empty() => packed_pairs(packed, self.max_batch)?,
            Some(_) => return Err(invalid("packed", "give either pairs or packed, not both")),
            None => pairs(&request.pairs, self.max_batch)?,
        };
        let contains = pairs
            .iter()
            .map(|(hand, part)| hand.contains(*part))
            .collect();
        Ok(Response::new(pb::ContainsResponse { contains }))
    }

    async fn remove(
        &self,
        request: Request<pb::RemoveRequest>,
    ) -> Result<Response<pb::RemoveResponse>, Status> {
        let pairs = pairs(&request.get_ref().pairs, self.max_batch)?;
        let remaining = pairs
            .iter()
            .enumerate()
            .map(|(i, (hand, part))| {
                let rest = hand.checked_remove(*part).ok_or_else(|| {
                    invalid(
                        format!("pairs[{i}]"),
                        format!("part {part} is not contained in hand {hand}"),
                    )
                })?;
                Ok(pb::Hand {
                    cards: Some(pb::hand::Cards::Packed(rest.packed())),
                })
            })
            .collect::<Result<_, Status>>()?;
        Ok(Response::new(pb::RemoveResponse { remaining }))
    }

    async fn classify(
        &self,
        request: Request<pb::ClassifyRequest>,
    ) -> Result<Response<pb::ClassifyResponse>, Status> {
        let hands = &request.get_ref().hands;
        check_batch("hands", hands.len(), self.max_batch)?;
        let results = hands
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let play = classify(cards(Some(h), &format!("hands[{i}]"))?);
                Ok(pb::Classification {
                    valid: play.is_some(),
                    r#move: play.as_ref().map(to_move),
                })
            })
            .collect::<Result<_, Status>>()?;
        Ok(Response::new(pb::ClassifyResponse { results }))
    }

    async fn legal_moves(
        &self,
        request: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        let request = request.get_ref();
        let hand = cards(request.hand.as_ref(), "hand")?;
        let beat = match &request.beat {
            None => None,
            Some(beat) => {
                let cards = cards(Some(beat), "beat")?;
                Some(
                    classify(cards)
                        .ok_or_else(|| invalid("beat", format!("{cards} is not a valid play")))?,
                )
            }
        };
        // A full deck has 27,471 plays: keep the work off the async I/O threads.
        let plays = tokio::task::spawn_blocking(move || match beat {
            None => legal_plays(hand),
            Some(beat) => beating_plays(hand, &beat),
        })
        .await
        .map_err(|e| Status::internal(format!("legal-move task failed: {e}")))?;
        let moves = plays.iter().map(to_move).collect();
        Ok(Response::new(pb::LegalMovesResponse { moves }))
    }
}
