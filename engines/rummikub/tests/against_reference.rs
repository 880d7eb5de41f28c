//! Property tests: the engine agrees with the brute-force reference on small
//! rule sets (4-6 numbers, 2-5 colours, 1-2 copies, 0-2 jokers, melds of
//! 2 or 3), and every arrangement it returns is valid and uses exactly the
//! tiles it was given.

mod common;

use common::reference::{score, Reference};
use common::{check_move, config, meld_ok, sorted};
use deckhand_rummikub::{
    BestMove, Colour, Error, Objective, RawRules, RuleSet, SearchOrder, Solver, Tile,
};
use proptest::prelude::*;

fn rules() -> impl Strategy<Value = RuleSet> {
    (
        4u8..=6,
        2u8..=4,
        1u8..=2,
        0u8..=2,
        2u8..=3,
        any::<bool>(),
        0u16..=24,
    )
        .prop_map(
            |(numbers, colours, copies, jokers, min_len, allow, opening_value)| {
                RuleSet::try_from(RawRules {
                    numbers: numbers.into(),
                    colours: colours.into(),
                    copies: copies.into(),
                    jokers: jokers.into(),
                    min_len: min_len.into(),
                    opening_value: opening_value.into(),
                    allow_redundant_jokers: allow,
                })
                .unwrap()
            },
        )
}

/// Every physical tile of the rule set: each number tile `copies` times, then the jokers.
fn pool(rules: &RuleSet) -> Vec<Tile> {
    let mut out = Vec::new();
    for c in 0..usize::from(rules.colours()) {
        for n in 1..=rules.numbers() {
            for _ in 0..rules.copies() {
                out.push(Tile::new(Colour::ALL[c], n).unwrap());
            }
        }
    }
    out.extend(std::iter::repeat_n(
        Tile::JOKER,
        usize::from(rules.jokers()),
    ));
    out
}

/// Draws tiles from what is left of the pool (so counts stay within the rules).
struct Box_ {
    left: Vec<Tile>,
}

impl Box_ {
    fn new(rules: &RuleSet) -> Box_ {
        Box_ { left: pool(rules) }
    }

    fn draw(&mut self, pick: usize) -> Option<Tile> {
        if self.left.is_empty() {
            None
        } else {
            Some(self.left.remove(pick % self.left.len()))
        }
    }

    /// Takes a whole meld if every tile of it is still available.
    fn take_meld(&mut self, meld: &[Tile]) -> bool {
        let mut left = self.left.clone();
        for t in meld {
            match left.iter().position(|x| x == t) {
                Some(i) => {
                    left.remove(i);
                }
                None => return false,
            }
        }
        self.left = left;
        true
    }
}

/// Tiles from `meld_picks` whole melds plus `extra` random tiles.
fn build(
    reference: &Reference,
    tiles: &mut Box_,
    meld_picks: &[usize],
    extra: &[usize],
) -> Vec<Tile> {
    let mut out = Vec::new();
    for &m in meld_picks {
        let meld = reference.meld(m).to_vec();
        if tiles.take_meld(&meld) {
            out.extend(meld);
        }
    }
    for &e in extra {
        out.extend(tiles.draw(e));
    }
    out
}

fn order() -> impl Strategy<Value = SearchOrder> {
    prop_oneof![
        Just(SearchOrder::Race),
        Just(SearchOrder::Upwards),
        Just(SearchOrder::Downwards)
    ]
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn arrange_agrees(
        rules in rules(),
        meld_picks in prop::collection::vec(0usize..10_000, 0..4),
        extra in prop::collection::vec(0usize..10_000, 0..4),
        order in order(),
    ) {
        let reference = Reference::new(rules);
        let mut tiles = Box_::new(&rules);
        let input = build(&reference, &mut tiles, &meld_picks, &extra);
        let mut solver = Solver::new(rules).unwrap();
        solver.set_order(order);
        let melds = solver.arrange(&input).unwrap();
        prop_assert_eq!(melds.is_some(), reference.arrangeable(&input), "{:?}", input);
        prop_assert_eq!(solver.is_arrangeable(&input).unwrap(), melds.is_some());
        if let Some(melds) = melds {
            for meld in &melds {
                prop_assert!(meld_ok(&rules, meld), "invalid meld {}", meld);
            }
            let laid: Vec<Tile> = melds.iter().flat_map(|m| m.tiles.clone()).collect();
            prop_assert_eq!(sorted(laid), sorted(input));
        }
    }

}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn best_move_agrees(
        rules in rules(),
        table_melds in prop::collection::vec(0usize..10_000, 0..3),
        spoil in prop::option::weighted(0.15, 0usize..10_000),
        rack_melds in prop::collection::vec(0usize..10_000, 0..2),
        rack_picks in prop::collection::vec(0usize..10_000, 0..5),
        max_value in any::<bool>(),
        opening in any::<bool>(),
        order in order(),
    ) {
        let reference = Reference::new(rules);
        let mut tiles = Box_::new(&rules);
        // A spoilt table has one stray tile and usually cannot be arranged.
        let table = build(&reference, &mut tiles, &table_melds, spoil.as_slice());
        let mut rack = build(&reference, &mut tiles, &rack_melds, &rack_picks);
        rack.truncate(8);
        let objective = if max_value { Objective::MaxValue } else { Objective::MaxTiles };
        let mut solver = Solver::new(rules).unwrap();
        solver.set_order(order);
        let result = solver.best_move(&table, &rack, objective, opening);
        match reference.best_move(&table, &rack, objective, opening) {
            None => {
                let Err(Error::TableNotValid { leftover }) = result else {
                    return Err(TestCaseError::fail(format!("expected TableNotValid, got {result:?}")));
                };
                // The leftover tiles come from the table, and the rest arranges.
                prop_assert!(!leftover.is_empty());
                let mut rest = table.clone();
                for t in &leftover {
                    let i = rest.iter().position(|x| x == t);
                    prop_assert!(i.is_some(), "leftover {} not on the table", t);
                    rest.remove(i.unwrap_or(0));
                }
                prop_assert!(reference.arrangeable(&rest));
            }
            Some(best) => {
                let mv: BestMove = result.unwrap();
                check_move(&rules, &table, &rack, &mv);
                prop_assert_eq!(score(objective, &mv.placed), best, "placed {:?}", mv.placed);
                if opening && !mv.placed.is_empty() {
                    prop_assert!(reference.partition_value(&mv.placed).unwrap_or(0) >= u32::from(rules.opening_value()));
                }
            }
        }
    }
}
