//! Shared test helpers: an independent meld checker and a brute-force reference.
#![allow(dead_code)]

pub mod reference;

use deckhand_rummikub::{BestMove, Meld, MeldKind, RuleSet, Tile};
use proptest::test_runner::Config as ProptestConfig;

/// `cases`, unless `PROPTEST_CASES` asks for another count (long release runs).
pub fn config(cases: u32) -> ProptestConfig {
    let env = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok());
    ProptestConfig {
        cases: env.unwrap_or(cases),
        ..ProptestConfig::default()
    }
}

/// Independent validity check of one meld under `rules`.
pub fn meld_ok(rules: &RuleSet, meld: &Meld) -> bool {
    let len = meld.tiles.len();
    if len < usize::from(rules.min_len()) || meld.represents.len() != len {
        return false;
    }
    for (t, r) in meld.tiles.iter().zip(&meld.represents) {
        let in_range = r.number().is_some_and(|n| n >= 1 && n <= rules.numbers())
            && r.colour()
                .is_some_and(|c| c.index() < usize::from(rules.colours()));
        if !in_range || (!t.is_joker() && t != r) {
            return false;
        }
    }
    let jokers: Vec<usize> = (0..len).filter(|&i| meld.tiles[i].is_joker()).collect();
    match meld.kind {
        MeldKind::Run => {
            let colour = meld.represents[0].colour();
            let first = meld.represents[0].number().unwrap_or(0);
            let consecutive = meld
                .represents
                .iter()
                .enumerate()
                .all(|(i, r)| r.colour() == colour && r.number() == Some(first + i as u8));
            let redundant = len > usize::from(rules.min_len())
                && (meld.tiles[0].is_joker() || meld.tiles[len - 1].is_joker());
            consecutive && (rules.allow_redundant_jokers() || !redundant)
        }
        MeldKind::Group => {
            let number = meld.represents[0].number();
            let mut colours: Vec<_> = meld.represents.iter().map(|r| r.colour()).collect();
            colours.sort();
            colours.dedup();
            let redundant = len > usize::from(rules.min_len()) && !jokers.is_empty();
            colours.len() == len
                && len <= usize::from(rules.colours())
                && meld.represents.iter().all(|r| r.number() == number)
                && (rules.allow_redundant_jokers() || !redundant)
        }
    }
}

pub fn sorted(mut tiles: Vec<Tile>) -> Vec<Tile> {
    tiles.sort();
    tiles
}

pub fn check_move(rules: &RuleSet, table: &[Tile], rack: &[Tile], mv: &BestMove) {
    for meld in &mv.melds {
        assert!(meld_ok(rules, meld), "invalid meld {meld}");
    }
    let laid: Vec<Tile> = mv.melds.iter().flat_map(|m| m.tiles.clone()).collect();
    let expected: Vec<Tile> = table.iter().chain(&mv.placed).copied().collect();
    assert_eq!(
        sorted(laid),
        sorted(expected),
        "melds are not table + placed"
    );
    let mut rest = rack.to_vec();
    for t in &mv.placed {
        let i = rest
            .iter()
            .position(|r| r == t)
            .expect("placed tile comes from the rack");
        rest.remove(i);
    }
}
