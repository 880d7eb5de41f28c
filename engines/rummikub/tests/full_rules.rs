//! Default rules at full size. Oracles that need no search: tiles built from
//! valid melds always arrange, and a rack holding whole melds can place at
//! least those tiles. Every answer is checked meld by meld and as a multiset.

mod common;

use common::{check_move, config, meld_ok, sorted};
use deckhand_rummikub::{BestMove, Colour, Objective, RuleSet, Solver, Tile};
use proptest::prelude::*;

/// A random valid meld of the default rules from a few numbers: a run
/// (colour, first, length 3..=5) or a group (number, 3 or 4 colours), with
/// some tiles turned into jokers.
fn meld(pick: (u8, u8, u8, u8, u8)) -> Vec<Tile> {
    let (kind, a, b, len, jokers) = pick;
    let mut tiles: Vec<Tile> = if kind % 2 == 0 {
        let len = 3 + len % 3;
        let first = 1 + a % (14 - len);
        (first..first + len)
            .map(|n| Tile::new(Colour::ALL[usize::from(b % 4)], n).unwrap())
            .collect()
    } else {
        let number = 1 + a % 13;
        let skip = usize::from(b % 5);
        (0..4)
            .filter(|&c| c != skip)
            .map(|c| Tile::new(Colour::ALL[c], number).unwrap())
            .collect()
    };
    // About one meld in eight gets a joker, one in 32 a second one.
    let len = tiles.len();
    if jokers >= 0xE0 {
        tiles[usize::from(jokers) % len] = Tile::JOKER;
    }
    if jokers >= 0xF8 {
        tiles[usize::from(jokers / 8) % len] = Tile::JOKER;
    }
    tiles
}

/// Adds melds while the default tile set (2 copies, 2 jokers) allows.
fn collect(picks: &[(u8, u8, u8, u8, u8)], used: &mut Vec<Tile>) -> Vec<Tile> {
    let mut out = Vec::new();
    for &p in picks {
        let m = meld(p);
        let mut trial = used.clone();
        trial.extend(&m);
        // Two copies of each number tile and two jokers.
        let fits = m
            .iter()
            .all(|t| trial.iter().filter(|x| *x == t).count() <= 2);
        if fits {
            *used = trial;
            out.extend(m);
        }
    }
    out
}

fn picks(max: usize) -> impl Strategy<Value = Vec<(u8, u8, u8, u8, u8)>> {
    prop::collection::vec(any::<(u8, u8, u8, u8, u8)>(), 1..max)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn built_from_melds_always_arranges(melds in picks(30)) {
        let rules = RuleSet::default();
        let tiles = collect(&melds, &mut Vec::new());
        let mut solver = Solver::new(rules).unwrap();
        let arranged = solver.arrange(&tiles).unwrap();
        prop_assert!(arranged.is_some(), "{:?}", tiles);
        let arranged = arranged.unwrap_or_default();
        for m in &arranged {
            prop_assert!(meld_ok(&rules, m), "invalid meld {}", m);
        }
        let laid: Vec<Tile> = arranged.iter().flat_map(|m| m.tiles.clone()).collect();
        prop_assert_eq!(sorted(laid), sorted(tiles));
    }

    #[test]
    fn rack_melds_can_be_placed(
        table in picks(16),
        rack_melds in picks(4),
        extra in prop::collection::vec((0usize..4, 1u8..=13), 0..8),
        by_value in any::<bool>(),
    ) {
        let rules = RuleSet::default();
        let mut used = Vec::new();
        let table = collect(&table, &mut used);
        let mut rack = collect(&rack_melds, &mut used);
        let whole = rack.len();
        for (c, n) in extra {
            let t = Tile::new(Colour::ALL[c], n).unwrap();
            if used.iter().filter(|x| **x == t).count() < 2 {
                used.push(t);
                rack.push(t);
            }
        }
        let objective = if by_value { Objective::MaxValue } else { Objective::MaxTiles };
        let mut solver = Solver::new(rules).unwrap();
        let mv: BestMove = solver.best_move(&table, &rack, objective, false).unwrap();
        check_move(&rules, &table, &rack, &mv);
        if !by_value {
            prop_assert!(mv.placed.len() >= whole, "placed {} < {}", mv.placed.len(), whole);
        }
    }
}
