//! Bad input: every error names the offending tile or parameter.

use deckhand_rummikub::{
    arrange, best_move, parse_tiles, Error, Objective, RawRules, Rule, RuleSet, Solver, Tile,
    TileCounts,
};

fn tiles(text: &str) -> Vec<Tile> {
    parse_tiles(text).unwrap()
}

#[test]
fn unknown_tile_text() {
    for text in ["x5", "k0", "k", "k1.5", "joker", "k 1"] {
        let err = text.parse::<Tile>().unwrap_err();
        assert_eq!(
            err,
            Error::UnknownTile {
                text: text.to_owned()
            }
        );
        assert!(err.to_string().contains(text), "{err}");
    }
    assert!(matches!(
        parse_tiles("k1 k2 q3"),
        Err(Error::UnknownTile { text }) if text == "q3"
    ));
}

#[test]
fn third_copy_and_third_joker() {
    let rules = RuleSet::default();
    let err = arrange(&rules, &tiles("k5 k5 k5")).unwrap_err();
    assert_eq!(
        err,
        Error::TooManyCopies {
            tile: "k5".parse().unwrap(),
            position: 2,
            copies: 2
        }
    );
    assert!(err.to_string().contains("k5"), "{err}");
    let err = arrange(&rules, &tiles("J J J k1")).unwrap_err();
    assert_eq!(
        err,
        Error::TooManyJokers {
            position: 2,
            jokers: 2
        }
    );
    // Table and rack together count.
    let err = best_move(
        &rules,
        &tiles("k5 b5 o5"),
        &tiles("k5 k5"),
        Objective::MaxTiles,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::TooManyCopies { position: 4, .. }),
        "{err:?}"
    );
    let err = best_move(
        &rules,
        &tiles("k5 b5 J"),
        &tiles("J J"),
        Objective::MaxTiles,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::TooManyJokers { position: 4, .. }),
        "{err:?}"
    );
}

#[test]
fn tiles_outside_the_rule_set() {
    let rules = RuleSet::default();
    let err = arrange(&rules, &tiles("k12 k13 k14")).unwrap_err();
    assert_eq!(
        err,
        Error::NumberOutOfRange {
            tile: "k14".parse().unwrap(),
            position: 2,
            numbers: 13
        }
    );
    assert!(err.to_string().contains("k14"), "{err}");
    let err = arrange(&rules, &tiles("k1 g1 b1")).unwrap_err();
    assert_eq!(
        err,
        Error::ColourOutOfRange {
            tile: "g1".parse().unwrap(),
            position: 1,
            colours: 4
        }
    );
    let small = RuleSet::try_from(RawRules {
        jokers: 0,
        ..RawRules::default()
    })
    .unwrap();
    assert!(matches!(
        TileCounts::new(&small, &tiles("J")),
        Err(Error::TooManyJokers {
            position: 0,
            jokers: 0
        })
    ));
}

#[test]
fn table_that_is_not_a_valid_arrangement() {
    let rules = RuleSet::default();
    let err = best_move(
        &rules,
        &tiles("k1 k2 k3 r9"),
        &tiles("r10 r11"),
        Objective::MaxTiles,
        false,
    )
    .unwrap_err();
    assert_eq!(
        err,
        Error::TableNotValid {
            leftover: tiles("r9")
        }
    );
    assert!(err.to_string().contains("r9"), "{err}");
    // The same in opening mode.
    let err = best_move(
        &rules,
        &tiles("k1 k2"),
        &tiles("r10 r11 r12"),
        Objective::MaxTiles,
        true,
    )
    .unwrap_err();
    assert_eq!(
        err,
        Error::TableNotValid {
            leftover: tiles("k1 k2")
        }
    );
}

#[test]
fn rule_sets_out_of_range() {
    for (raw, rule) in [
        (
            RawRules {
                numbers: 0,
                ..RawRules::default()
            },
            Rule::Numbers,
        ),
        (
            RawRules {
                numbers: 32,
                ..RawRules::default()
            },
            Rule::Numbers,
        ),
        (
            RawRules {
                colours: 9,
                ..RawRules::default()
            },
            Rule::Colours,
        ),
        (
            RawRules {
                copies: 0,
                ..RawRules::default()
            },
            Rule::Copies,
        ),
        (
            RawRules {
                jokers: 5,
                ..RawRules::default()
            },
            Rule::Jokers,
        ),
        (
            RawRules {
                min_len: 1,
                ..RawRules::default()
            },
            Rule::MinLen,
        ),
        (
            RawRules {
                opening_value: 256,
                ..RawRules::default()
            },
            Rule::OpeningValue,
        ),
    ] {
        match RuleSet::try_from(raw) {
            Err(Error::RuleOutOfRange { rule: got, .. }) => assert_eq!(got, rule),
            other => panic!("{raw:?}: {other:?}"),
        }
    }
    // Valid but too large for the packed search state.
    let huge = RuleSet::try_from(RawRules {
        colours: 8,
        copies: 4,
        jokers: 4,
        min_len: 6,
        allow_redundant_jokers: false,
        ..RawRules::default()
    })
    .unwrap();
    assert!(matches!(
        Solver::new(huge),
        Err(Error::RuleSetTooLarge { .. })
    ));
}

/// Small fixed cases with known answers.
#[test]
fn small_known_cases() {
    let rules = RuleSet::default();
    let yes = [
        "",
        "k1 k2 k3",
        "k1 b1 o1 r1",
        "k12 k13 J",
        "J k1 b1",
        "k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 k12 k13",
        "k5 b5 o5 r5 k5 b5 o5",
    ];
    let no = ["k1", "k1 k2", "k13 J", "k12 k13 k1", "k5 b5 o5 r5 k5"];
    for text in yes {
        let melds = arrange(&rules, &tiles(text)).unwrap();
        assert!(melds.is_some(), "{text} should arrange");
    }
    for text in no {
        assert_eq!(arrange(&rules, &tiles(text)).unwrap(), None, "{text}");
    }
    // Runs do not wrap around from 13 to 1.
    assert_eq!(arrange(&rules, &tiles("k12 k13 k1")).unwrap(), None);
    // Placing onto a table: r4 extends r1 r2 r3, b4 does not fit anywhere.
    let mv = best_move(
        &rules,
        &tiles("r1 r2 r3"),
        &tiles("r4 b4"),
        Objective::MaxTiles,
        false,
    )
    .unwrap();
    assert_eq!(mv.placed, tiles("r4"));
    // Opening needs 30 points from the rack alone: 9+10+11 = 30 is enough, 8+9+10 is not.
    let mv = best_move(&rules, &[], &tiles("k9 k10 k11"), Objective::MaxTiles, true).unwrap();
    assert_eq!(mv.placed.len(), 3);
    let mv = best_move(&rules, &[], &tiles("k8 k9 k10"), Objective::MaxTiles, true).unwrap();
    assert!(mv.placed.is_empty());
    // A joker counts as what it stands for: k10 k11 J is k10 k11 k12 = 33.
    let mv = best_move(
        &rules,
        &tiles("b1 b2 b3"),
        &tiles("k10 k11 J"),
        Objective::MaxTiles,
        true,
    )
    .unwrap();
    assert_eq!(mv.placed.len(), 3);
    assert_eq!(mv.melds.len(), 2);
}
