//! The solver's memory: a memo limit bounds it without changing answers, a
//! kept solver gives a grown memo back, and `supports` is `new`'s check.

use deckhand_rummikub::{Colour, Objective, RawRules, RuleSet, Solver, Tile};

/// Every tile of the game of `rules`.
fn game(rules: &RuleSet) -> Vec<Tile> {
    let mut tiles = Vec::new();
    for colour in Colour::ALL.iter().take(usize::from(rules.colours())) {
        for number in 1..=rules.numbers() {
            let tile = Tile::new(*colour, number).unwrap();
            tiles.extend(std::iter::repeat_n(tile, usize::from(rules.copies())));
        }
    }
    tiles.extend(std::iter::repeat_n(
        Tile::JOKER,
        usize::from(rules.jokers()),
    ));
    tiles
}

/// Three quarters of the game's tiles, drawn by a fixed xorshift.
fn draws(rules: &RuleSet, count: usize) -> Vec<Vec<Tile>> {
    let all = game(rules);
    let mut state = 12345u64;
    (0..count)
        .map(|_| {
            all.iter()
                .copied()
                .filter(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    !state.is_multiple_of(4)
                })
                .collect()
        })
        .collect()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "a few hard searches; run in release")]
fn a_memo_limit_bounds_memory_and_keeps_the_answers() {
    // Wide rules whose third draw grows an unlimited memo to about 16 MiB.
    let rules = RuleSet::try_from(RawRules {
        numbers: 31,
        colours: 8,
        copies: 4,
        jokers: 4,
        ..RawRules::default()
    })
    .unwrap();
    let limit = 2 << 20;
    let mut free = Solver::new(rules).unwrap();
    let mut limited = Solver::new(rules).unwrap();
    let tables = limited.memory_bytes() - (128 << 10);
    limited.set_memo_limit(limit);
    for tiles in draws(&rules, 4) {
        let half = &tiles[..tiles.len() / 2];
        assert_eq!(
            free.arrange(&tiles).unwrap(),
            limited.arrange(&tiles).unwrap()
        );
        let best = |s: &mut Solver| s.best_move(&[], half, Objective::MaxValue, false).unwrap();
        assert_eq!(best(&mut free).placed, best(&mut limited).placed);
        assert!(limited.memory_bytes() <= tables + limit);
    }
    assert!(
        free.memory_bytes() > tables + 4 * limit,
        "the draws grow an unlimited memo: {} bytes",
        free.memory_bytes()
    );
    free.shrink_memo(1 << 20);
    assert!(free.memory_bytes() <= tables + (128 << 10));
}

#[test]
fn supports_is_what_new_checks() {
    for copies in 1..=4 {
        for jokers in 0..=4 {
            for min_len in 2..=6 {
                for allow_redundant_jokers in [true, false] {
                    let rules = RuleSet::try_from(RawRules {
                        copies,
                        jokers,
                        min_len,
                        allow_redundant_jokers,
                        colours: 8,
                        ..RawRules::default()
                    })
                    .unwrap();
                    let built = Solver::new(rules).map(|_| ());
                    assert_eq!(Solver::supports(&rules), built, "{rules:?}");
                }
            }
        }
    }
}
