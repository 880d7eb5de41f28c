//! `classify`, `legal_plays` and `beating_plays` against a brute-force
//! reference written here from the rule text alone: enumerate every
//! sub-multiset of a small hand, list every way it can be read as a play
//! ("core" cards of the kind plus a remainder checked against the kicker
//! rule), and compare.

// The reference is deliberately naive: plain index loops over the 15 ranks.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeSet;

use deckhand_handops::{beating_plays, classify, legal_plays, CardsVector, Play, PlayKind, Rank};
use proptest::prelude::*;

type Counts = [u8; 15];

const TWO: usize = 12;
const B: usize = 13;
const R: usize = 14;
const ACE: usize = 11;

/// One way to read a multiset: kind, key index, chain length.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Reading {
    kind: PlayKind,
    key: usize,
    len: usize,
}

/// A shape: the core cards of a reading and how to judge the remainder.
struct Shape {
    reading: Reading,
    core: Counts,
    /// Cards outside the core.
    extra: usize,
}

fn shapes() -> Vec<Shape> {
    let mut out = Vec::new();
    let mut add = |kind, key: usize, len: usize, per_rank: u8, extra: usize| {
        let mut core = [0u8; 15];
        for r in key..key + len {
            core[r] = per_rank;
        }
        out.push(Shape {
            reading: Reading { kind, key, len },
            core,
            extra,
        });
    };
    for r in 0..15 {
        add(PlayKind::Single, r, 1, 1, 0);
        add(PlayKind::Pair, r, 1, 2, 0);
        add(PlayKind::Trio, r, 1, 3, 0);
        add(PlayKind::Bomb, r, 1, 4, 0);
        add(PlayKind::TrioWithSingle, r, 1, 3, 1);
        add(PlayKind::TrioWithPair, r, 1, 3, 2);
        add(PlayKind::FourWithTwoSingles, r, 1, 4, 2);
        add(PlayKind::FourWithTwoPairs, r, 1, 4, 4);
    }
    // Chains: every rank of key..key+len-1 must be 3..=A.
    for key in 0..=ACE {
        for len in 1..=12 {
            if key + len - 1 > ACE {
                continue;
            }
            if (5..=12).contains(&len) {
                add(PlayKind::ChainOfSingles, key, len, 1, 0);
            }
            if (3..=10).contains(&len) {
                add(PlayKind::ChainOfPairs, key, len, 2, 0);
            }
            if (2..=6).contains(&len) {
                add(PlayKind::ChainOfTrios, key, len, 3, 0);
            }
            if (2..=5).contains(&len) {
                add(PlayKind::AirplaneWithSingles, key, len, 3, len);
            }
            if (2..=4).contains(&len) {
                add(PlayKind::AirplaneWithPairs, key, len, 3, 2 * len);
            }
        }
    }
    let mut rocket = [0u8; 15];
    rocket[B] = 1;
    rocket[R] = 1;
    out.push(Shape {
        reading: Reading {
            kind: PlayKind::Rocket,
            key: B,
            len: 1,
        },
        core: rocket,
        extra: 0,
    });
    out
}

/// Whether the remainder `rest` (cards outside the core) is a valid kicker
/// set for the reading, straight from the rule text.
fn kickers_ok(reading: Reading, rest: &Counts) -> bool {
    let Reading { kind, key, len } = reading;
    let in_core = |r: usize| r >= key && r < key + len;
    let total: usize = rest.iter().map(|&c| c as usize).sum();
    let ranks_used: Vec<usize> = (0..15).filter(|&r| rest[r] > 0).collect();
    let both_jokers = rest[B] > 0 && rest[R] > 0;
    match kind {
        PlayKind::TrioWithSingle => total == 1 && !in_core(ranks_used[0]),
        PlayKind::TrioWithPair => {
            ranks_used.len() == 1 && rest[ranks_used[0]] == 2 && !in_core(ranks_used[0])
        }
        PlayKind::FourWithTwoSingles => {
            total == 2 && ranks_used.iter().all(|&r| !in_core(r)) && !both_jokers
        }
        PlayKind::FourWithTwoPairs => {
            ranks_used.len() == 2 && ranks_used.iter().all(|&r| rest[r] == 2 && !in_core(r))
        }
        PlayKind::AirplaneWithSingles => {
            if total != len || both_jokers {
                return false;
            }
            for &r in &ranks_used {
                if in_core(r) || rest[r] > 3 {
                    return false;
                }
                let adjacent = r + 1 == key || r == key + len;
                if adjacent && r != TWO && rest[r] > 2 {
                    return false;
                }
            }
            true
        }
        PlayKind::AirplaneWithPairs => {
            ranks_used.len() == len && ranks_used.iter().all(|&r| rest[r] == 2 && !in_core(r))
        }
        _ => total == 0,
    }
}

fn all_readings(cards: &Counts, shapes: &[Shape]) -> Vec<Reading> {
    let n: usize = cards.iter().map(|&c| c as usize).sum();
    let mut found = Vec::new();
    for shape in shapes {
        let core_n: usize = shape.core.iter().map(|&c| c as usize).sum();
        if core_n + shape.extra != n {
            continue;
        }
        if (0..15).any(|r| shape.core[r] > cards[r]) {
            continue;
        }
        let mut rest = *cards;
        for r in 0..15 {
            rest[r] -= shape.core[r];
        }
        if kickers_ok(shape.reading, &rest) {
            found.push(shape.reading);
        }
    }
    found
}

fn ref_beats(a: Reading, b: Reading) -> bool {
    use PlayKind::{Bomb, Rocket};
    if b.kind == Rocket {
        return false;
    }
    if a.kind == Rocket {
        return true;
    }
    if a.kind == Bomb {
        return b.kind != Bomb || a.key > b.key;
    }
    if b.kind == Bomb {
        return false;
    }
    a.kind == b.kind && a.len == b.len && a.key > b.key
}

fn to_cards(c: &Counts) -> CardsVector {
    CardsVector::from_counts(*c).expect("valid counts")
}

fn play_of(r: Reading, cards: &Counts) -> Play {
    Play {
        kind: r.kind,
        key: Rank::ALL[r.key],
        chain_len: r.len as u8,
        cards: to_cards(cards),
    }
}

/// Every non-empty sub-multiset of `hand` with its reading; also checks that
/// no multiset has two readings and that `classify` agrees on every subset
/// (including those that are no play).
fn reference_plays(hand: &Counts, shapes: &[Shape]) -> Vec<(Reading, Counts)> {
    let mut plays = Vec::new();
    let mut sub = [0u8; 15];
    loop {
        // Odometer step over 0..=hand[r] per rank.
        let mut r = 0;
        while r < 15 && sub[r] == hand[r] {
            sub[r] = 0;
            r += 1;
        }
        if r == 15 {
            break;
        }
        sub[r] += 1;
        let readings = all_readings(&sub, shapes);
        assert!(
            readings.len() <= 1,
            "{} has several readings: {readings:?}",
            to_cards(&sub)
        );
        let want = readings.first().map(|&rd| play_of(rd, &sub));
        assert_eq!(
            classify(to_cards(&sub)),
            want,
            "classify {}",
            to_cards(&sub)
        );
        if let Some(&rd) = readings.first() {
            plays.push((rd, sub));
        }
    }
    plays
}

fn sorted(plays: impl IntoIterator<Item = Play>) -> Vec<(PlayKind, Rank, u8, u64)> {
    let mut v: Vec<_> = plays
        .into_iter()
        .map(|p| (p.kind, p.key, p.chain_len, p.cards.packed()))
        .collect();
    v.sort();
    v
}

fn check_hand(hand: &Counts, opponent: &Counts, shapes: &[Shape]) -> Result<(), TestCaseError> {
    let hv = to_cards(hand);
    let reference = reference_plays(hand, shapes);
    let engine = legal_plays(hv);
    for p in &engine {
        prop_assert!(hv.contains(p.cards), "{p:?} not in {hv}");
        prop_assert_eq!(classify(p.cards), Some(*p));
    }
    let distinct: BTreeSet<u64> = engine.iter().map(|p| p.cards.packed()).collect();
    prop_assert_eq!(distinct.len(), engine.len(), "duplicates in {}", hv);
    prop_assert_eq!(
        sorted(engine.iter().copied()),
        sorted(reference.iter().map(|(r, c)| play_of(*r, c))),
        "legal plays of {}",
        hv
    );

    // Plays to beat: some of the hand's own and every play of a second hand.
    let mut targets: Vec<(Reading, Counts)> = reference.iter().step_by(7).copied().collect();
    targets.extend(reference_plays(opponent, shapes));
    for (t, tc) in targets {
        let target = play_of(t, &tc);
        let want = reference
            .iter()
            .filter(|(r, _)| ref_beats(*r, t))
            .map(|(r, c)| play_of(*r, c));
        let got = beating_plays(hv, &target);
        for p in &got {
            prop_assert!(p.beats(&target));
        }
        prop_assert_eq!(sorted(got), sorted(want), "{} beating {}", hv, tc_text(&tc));
    }
    Ok(())
}

fn tc_text(c: &Counts) -> String {
    to_cards(c).to_string()
}

/// A uniform deal of `n` cards from the 54-card deck.
fn deal(max_cards: usize) -> impl Strategy<Value = Counts> {
    (
        Just((0..54usize).collect::<Vec<_>>()).prop_shuffle(),
        0..=max_cards,
    )
        .prop_map(|(deck, n)| {
            let mut c = [0u8; 15];
            for &card in &deck[..n] {
                c[if card < 52 { card / 4 } else { 13 + card - 52 }] += 1;
            }
            c
        })
}

/// Hands dense in a few neighbouring ranks (where chains, airplanes and
/// fours live), plus a few stray cards, capped at `max_subsets` sub-multisets.
fn clustered(max_subsets: u64) -> impl Strategy<Value = Counts> {
    (
        0usize..15,
        prop::collection::vec(0u8..=4, 2..=6),
        prop::collection::vec(0usize..15, 0..=3),
    )
        .prop_map(move |(start, window, strays)| {
            let mut c = [0u8; 15];
            for (i, &n) in window.iter().enumerate() {
                if let Some(slot) = c.get_mut(start + i) {
                    *slot = n;
                }
            }
            for r in strays {
                c[r] += 1;
            }
            for r in 0..15 {
                c[r] = c[r].min(if r >= B { 1 } else { 4 });
            }
            // Trim the highest-count ranks until the enumeration is small.
            while c.iter().map(|&x| x as u64 + 1).product::<u64>() > max_subsets {
                let (r, _) = c
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, &x)| x)
                    .expect("15 ranks");
                c[r] -= 1;
            }
            c
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn random_deals_match_reference(hand in deal(10), opp in deal(6)) {
        check_hand(&hand, &opp, &shapes())?;
    }

    #[test]
    fn clustered_hands_match_reference(hand in clustered(3000), opp in clustered(200)) {
        check_hand(&hand, &opp, &shapes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Heavier variant (bigger hands, more cases): about 6 s in the release
    /// build CI runs; ignored in debug builds.
    #[test]
    #[cfg_attr(debug_assertions, ignore)]
    fn big_hands_match_reference(
        hand in prop_oneof![clustered(60_000), deal(15)],
        opp in deal(12),
    ) {
        check_hand(&hand, &opp, &shapes())?;
    }
}

/// Hand-picked multisets and their readings (and some that are no play).
#[test]
fn fixed_readings() {
    let shapes = shapes();
    type Case = (&'static str, Option<(PlayKind, Rank, usize)>);
    let cases: &[Case] = &[
        ("", None),
        ("BR", Some((PlayKind::Rocket, Rank::BlackJoker, 1))),
        ("22", Some((PlayKind::Pair, Rank::Two, 1))),
        ("2B", None),
        ("3334", Some((PlayKind::TrioWithSingle, Rank::Three, 1))),
        ("333B", Some((PlayKind::TrioWithSingle, Rank::Three, 1))),
        ("33344", Some((PlayKind::TrioWithPair, Rank::Three, 1))),
        ("333BR", None),
        ("34567", Some((PlayKind::ChainOfSingles, Rank::Three, 5))),
        ("TJQKA", Some((PlayKind::ChainOfSingles, Rank::Ten, 5))),
        ("JQKA2", None),
        ("334455", Some((PlayKind::ChainOfPairs, Rank::Three, 3))),
        ("333444", Some((PlayKind::ChainOfTrios, Rank::Three, 2))),
        ("KKKAAA", Some((PlayKind::ChainOfTrios, Rank::King, 2))),
        ("AAA222", None),
        (
            "33344455",
            Some((PlayKind::AirplaneWithSingles, Rank::Three, 2)),
        ),
        ("333444BR", None),
        (
            "333444555666",
            Some((PlayKind::ChainOfTrios, Rank::Three, 4)),
        ),
        (
            "333444555777",
            Some((PlayKind::AirplaneWithSingles, Rank::Three, 3)),
        ),
        (
            "QQQKKKAAA222",
            Some((PlayKind::AirplaneWithSingles, Rank::Queen, 3)),
        ),
        (
            "3334445566",
            Some((PlayKind::AirplaneWithPairs, Rank::Three, 2)),
        ),
        ("3334445555", None),
        (
            "333345",
            Some((PlayKind::FourWithTwoSingles, Rank::Three, 1)),
        ),
        (
            "333355",
            Some((PlayKind::FourWithTwoSingles, Rank::Three, 1)),
        ),
        ("3333BR", None),
        (
            "33334455",
            Some((PlayKind::FourWithTwoPairs, Rank::Three, 1)),
        ),
        ("33334444", None),
        ("3333", Some((PlayKind::Bomb, Rank::Three, 1))),
    ];
    for (text, want) in cases {
        let cards: CardsVector = text.parse().unwrap();
        let got = classify(cards).map(|p| (p.kind, p.key, p.chain_len as usize));
        assert_eq!(got, *want, "{text}");
        let reference = all_readings(&cards.to_counts(), &shapes)
            .first()
            .map(|r| (r.kind, Rank::ALL[r.key], r.len));
        assert_eq!(reference, *want, "reference {text}");
    }
}
