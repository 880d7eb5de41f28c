//! Preferans proto <-> engine conversions (declarer view, seats, layout
//! range, openings), shared by the preferans worker and the coordinator.
//! Errors name the request field they are about.

use std::ops::Range;

use deckhand_preferans::{
    Card, Cards, Contract, DeclarerView, LayoutOrder, LayoutOrderError, Seat, Strain, LAYOUT_COUNT,
};

use crate::proto::preferans::v1 as pb;
use crate::status::{FieldResult, Invalid};

/// Request metadata key carrying a coordinator's job id: the coordinator sets
/// it on SolveLayouts calls, the worker logs it.
pub const JOB_ID_HEADER: &str = "x-deckhand-job-id";

/// Converts a wire seat.
pub fn seat(value: i32, field: &str) -> Result<Seat, Invalid> {
    match pb::Seat::try_from(value) {
        Ok(pb::Seat::N) => Ok(Seat::N),
        Ok(pb::Seat::E) => Ok(Seat::E),
        Ok(pb::Seat::W) => Ok(Seat::W),
        _ => Err(Invalid::new(
            field,
            format!("seat {value} is not one of N, E, W"),
        )),
    }
}

/// The wire form of a seat.
pub fn seat_to_proto(seat: Seat) -> pb::Seat {
    match seat {
        Seat::N => pb::Seat::N,
        Seat::E => pb::Seat::E,
        Seat::W => pb::Seat::W,
    }
}

/// Converts a wire contract (`7S`, `misere`, ...).
pub fn contract(text: &str, field: &str) -> Result<Contract, Invalid> {
    text.parse::<Contract>().field(|| field)
}

/// Converts a wire hand of cards.
pub fn cards(text: &str, field: &str) -> Result<Cards, Invalid> {
    text.parse::<Cards>().field(|| field)
}

/// Converts a wire list of at most `max` cards, one per entry (a longer list
/// is refused before any entry is read).
pub fn card_list(texts: &[String], field: &str, max: usize) -> Result<Vec<Card>, Invalid> {
    if texts.len() > max {
        return Err(Invalid::new(
            field,
            format!("{} cards, at most {max}", texts.len()),
        ));
    }
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| t.parse::<Card>().field(|| format!("{field}[{i}]")))
        .collect()
}

/// Name of a strain as reported by Status / ListWorkers.
pub fn strain_name(strain: Option<Strain>) -> String {
    strain.map(|s| s.to_string()).unwrap_or_default()
}

/// Converts and validates a wire declarer view.
pub fn view_from_proto(view: Option<&pb::DeclarerView>) -> Result<DeclarerView, Invalid> {
    let view = view.ok_or_else(|| Invalid::missing("view"))?;
    let declarer = seat(view.declarer, "view.declarer")?;
    let leader = seat(view.leader, "view.leader")?;
    let contract = contract(&view.contract, "view.contract")?;
    if !view.compact.is_empty() {
        if !view.hand.is_empty() || !view.talon.is_empty() || !view.played.is_empty() {
            return Err(Invalid::new(
                "view.compact",
                "give either compact or hand/talon/played, not both",
            ));
        }
        return DeclarerView::from_notation(&view.compact, declarer, contract, leader)
            .field(|| "view.compact");
    }
    let hand = cards(&view.hand, "view.hand")?;
    let mut talon = Cards::EMPTY;
    for (i, card) in card_list(&view.talon, "view.talon", 2)?
        .into_iter()
        .enumerate()
    {
        if !talon.insert(card) {
            return Err(Invalid::new(
                format!("view.talon[{i}]"),
                format!("{card} given twice"),
            ));
        }
    }
    let played = card_list(&view.played, "view.played", 2)?;
    DeclarerView::new(declarer, hand, talon, contract, leader, played).field(|| "view")
}

/// Checks a layout range: non-empty and inside [0, LAYOUT_COUNT).
pub fn layout_range(start: u32, end: u32) -> Result<Range<u32>, Invalid> {
    if start >= end || end > LAYOUT_COUNT {
        return Err(Invalid::new(
            "range",
            format!(
                "layout range [{start}, {end}) must be non-empty and inside [0, {LAYOUT_COUNT})"
            ),
        ));
    }
    Ok(start..end)
}

/// Checks a layout order (`layout_order` and `layout_group` of
/// SolveLayoutsRequest): no cards or each unknown card's number once, and a group
/// of at most 20 cards.
pub fn layout_order(cards: &[u32], group: u32) -> Result<LayoutOrder, Invalid> {
    LayoutOrder::new(cards, group).map_err(|error| {
        let field = match error {
            LayoutOrderError::Group { .. } => "layout_group",
            _ => "layout_order",
        };
        Invalid::new(field, error.to_string())
    })
}

/// The wire form of a layout order, `(layout_order, layout_group)`: no cards for
/// the standard numbering.
pub fn layout_order_to_proto(order: &LayoutOrder) -> (Vec<u32>, u32) {
    let cards = if order.cards() == LayoutOrder::STANDARD.cards() {
        Vec::new()
    } else {
        order.cards().to_vec()
    };
    (cards, order.group())
}

/// Wire names of the candidate openings ("" when a defender's unknown card opens).
pub fn opening_names(view: &DeclarerView) -> Vec<String> {
    view.openings()
        .into_iter()
        .map(|c| c.map(|c| c.to_string()).unwrap_or_default())
        .collect()
}

/// The wire form of a validated view (hand, talon and played cards listed).
pub fn view_to_proto(view: &DeclarerView) -> pb::DeclarerView {
    pb::DeclarerView {
        declarer: seat_to_proto(view.declarer()) as i32,
        leader: seat_to_proto(view.leader()) as i32,
        contract: view.contract().to_string(),
        hand: view.hand().to_string(),
        talon: view.talon().iter().map(|c| c.to_string()).collect(),
        played: view.played().iter().map(Card::to_string).collect(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_round_trip_through_the_wire_form() {
        let wire = pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            hand: "AQJ8.KT8.KJ.9".into(),
            talon: vec!["D7".into(), "C8".into()],
            contract: "6S".into(),
            leader: pb::Seat::N as i32,
            ..Default::default()
        };
        let view = view_from_proto(Some(&wire)).unwrap();
        assert_eq!(view_from_proto(Some(&view_to_proto(&view))).unwrap(), view);
    }

    #[test]
    fn card_lists_longer_than_a_trick_are_refused_before_reading() {
        let wire = pb::DeclarerView {
            declarer: pb::Seat::N as i32,
            hand: "AQJ8.KT8.KJ.9".into(),
            talon: vec!["D7".into(), "C8".into()],
            contract: "6S".into(),
            leader: pb::Seat::E as i32,
            played: vec!["not a card".into(); 100_000],
            ..Default::default()
        };
        let bad = view_from_proto(Some(&wire)).unwrap_err();
        assert_eq!(bad.field, "view.played");
        assert_eq!(bad.reason, "100000 cards, at most 2");
    }
}
