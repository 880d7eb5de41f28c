//! Win check against the backtracking reference, plus hand-picked answers.

mod common;

use std::collections::BTreeSet;

use common::{near_complete_hand, reference_decompositions, RefDecomp};
use deckhand_mahjong::{check_win, is_win, waits, Decomposition, Form, TileCounts};
use proptest::prelude::*;

fn plain(d: &Decomposition) -> RefDecomp {
    let ids = |l: &[deckhand_mahjong::Tile]| l.iter().map(|t| t.id()).collect::<Vec<u8>>();
    let form = match d.form {
        Form::Standard => 0,
        Form::SevenPairs => 1,
        Form::ThirteenOrphans => 2,
    };
    (
        form,
        d.pair.id(),
        ids(&d.triplets),
        ids(&d.sequences),
        ids(&d.pairs),
    )
}

fn hand(text: &str) -> TileCounts {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Engine output equals the reference set, in strictly ascending order.
fn assert_agrees(counts: &[u8; 34]) -> Result<(), TestCaseError> {
    let Ok(h) = TileCounts::new(*counts) else {
        return Ok(());
    };
    let result = check_win(&h);
    let got: Vec<RefDecomp> = result.decompositions.iter().map(plain).collect();
    let want: Vec<RefDecomp> = reference_decompositions(counts).into_iter().collect();
    prop_assert_eq!(&got, &want, "hand {}", h);
    prop_assert_eq!(result.win, !want.is_empty());
    prop_assert_eq!(is_win(&h), !want.is_empty());
    prop_assert!(
        result.decompositions.windows(2).all(|w| w[0] < w[1]),
        "order {}",
        h
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn win_check_matches_reference(counts in near_complete_hand(2)) {
        assert_agrees(&counts)?;
    }

    #[test]
    fn every_standard_decomposition_rebuilds_the_hand(counts in near_complete_hand(0)) {
        let Ok(h) = TileCounts::new(counts) else { return Ok(()) };
        for d in check_win(&h).decompositions {
            let mut c = [0u8; 34];
            match d.form {
                Form::Standard => {
                    c[d.pair.index()] += 2;
                    for t in d.triplets.iter() { c[t.index()] += 3; }
                    for t in d.sequences.iter() { for k in 0..3 { c[t.index() + k] += 1; } }
                }
                Form::SevenPairs => for t in d.pairs.iter() { c[t.index()] += 2; },
                Form::ThirteenOrphans => {
                    for i in common::ORPHANS { c[i] += 1; }
                    c[d.pair.index()] += 1;
                }
            }
            prop_assert_eq!(c, counts);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn waits_match_reference(counts in near_complete_hand(1), pos in 0usize..14) {
        let short = common::remove_nth(&counts, pos);
        let Ok(h) = TileCounts::new(short) else { return Ok(()) };
        let got: Vec<(u8, u8)> = waits(&h).unwrap().iter().map(|w| (w.tile.id(), w.unseen)).collect();
        let want: Vec<(u8, u8)> = (0..34usize)
            .filter(|&t| short[t] < 4)
            .filter(|&t| {
                let mut c = short;
                c[t] += 1;
                !reference_decompositions(&c).is_empty()
            })
            .map(|t| (t as u8, 4 - short[t]))
            .collect();
        prop_assert_eq!(got, want, "hand {}", h);
    }
}

/// Every hand of 2, 5 or 8 tiles drawn from a window of 5 tiles of one
/// suit (and one honour), exhaustively.
#[test]
fn exhaustive_small_windows() {
    let window: [usize; 6] = [0, 1, 2, 3, 4, 27];
    let mut checked = 0;
    let mut wins = 0;
    for code in 0..5usize.pow(6) {
        let mut counts = [0u8; 34];
        let mut c = code;
        for &t in &window {
            counts[t] = (c % 5) as u8;
            c /= 5;
        }
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        if total > 14 || total.is_multiple_of(3) {
            continue;
        }
        assert_agrees(&counts).unwrap();
        checked += 1;
        wins += usize::from(!reference_decompositions(&counts).is_empty());
    }
    assert!(checked > 1000 && wins > 100, "{checked} {wins}");
}

#[test]
fn several_decompositions() {
    // 111222333m: three triplets or three sequences.
    let r = check_win(&hand("11122233344455m"));
    assert!(r.win);
    let got: BTreeSet<RefDecomp> = r.decompositions.iter().map(plain).collect();
    let want: BTreeSet<RefDecomp> = reference_decompositions(hand("11122233344455m").as_array());
    assert_eq!(got, want);
    assert!(got.len() >= 3, "{got:?}");

    // Seven pairs that is also a standard hand (two sequences twice).
    let r = check_win(&hand("112233m445566p77z"));
    let forms: Vec<Form> = r.decompositions.iter().map(|d| d.form).collect();
    assert_eq!(forms, vec![Form::Standard, Form::SevenPairs]);
    let std = &r.decompositions[0];
    assert_eq!(std.pair.to_string(), "7z");
    let seqs: Vec<String> = std.sequences.iter().map(|t| t.to_string()).collect();
    assert_eq!(seqs, ["1m", "1m", "4p", "4p"]);

    // Four of a tile is not two pairs.
    assert!(!is_win(&hand("1111m2233p4455s66z")));
}

#[test]
fn called_melds_and_short_hands() {
    assert!(is_win(&hand("55z")));
    assert!(!is_win(&hand("56z")));
    assert!(is_win(&hand("123m55z")));
    assert!(is_win(&hand("11122m")));
    assert!(is_win(&hand("123456m11p")));
    assert!(!is_win(&hand("123457m11p")));
    // 3k+1 tiles are never complete.
    assert!(!check_win(&hand("1112m")).win);
    // Honours never form sequences; 8-9-1 across suits is no sequence.
    assert!(!is_win(&hand("123z11m")));
    assert!(!is_win(&hand("89m1p11s")));
}

#[test]
fn waits_known() {
    let w = |text: &str| -> Vec<String> {
        waits(&hand(text))
            .unwrap()
            .iter()
            .map(|w| format!("{}x{}", w.tile, w.unseen))
            .collect()
    };
    assert_eq!(
        w("1112345678999m"),
        ["1mx1", "2mx3", "3mx3", "4mx3", "5mx3", "6mx3", "7mx3", "8mx3", "9mx1"]
    );
    assert_eq!(w("19m19p19s1234567z").len(), 13);
    assert_eq!(w("1111m"), Vec::<String>::new()); // waits on a fifth 1m: no wait
    assert_eq!(w("1z"), ["1zx3"]);
    // Seven pairs waiting on its single.
    assert_eq!(w("1133m5577p99s116z"), ["6zx3"]);
}

#[test]
fn waits_needs_one_short() {
    assert!(waits(&hand("11m")).is_err());
    assert!(waits(&hand("123m45p")).is_err());
}

/// Exhaustive: every pair plus 0..=4 melds (about 15 million hands) is a win
/// whose decompositions include the one it was built from. About 14 s in the
/// release build CI runs; ignored in debug builds, where it is far slower (the
/// proptests above cover it by sampling there).
#[test]
#[cfg_attr(debug_assertions, ignore)]
fn every_complete_hand_is_found() {
    fn rec(start: u8, left: usize, melds: &mut Vec<u8>, checked: &mut usize) {
        for pair in 0..34u8 {
            let mut c = [0u8; 34];
            c[usize::from(pair)] += 2;
            for &k in melds.iter() {
                for t in common::meld_tiles(k) {
                    c[usize::from(t)] += 1;
                }
            }
            let Ok(h) = TileCounts::new(c) else { continue };
            assert!(is_win(&h), "{h}");
            let mut trips: Vec<u8> = melds.iter().copied().filter(|&k| k < 34).collect();
            let mut seqs: Vec<u8> = melds
                .iter()
                .filter(|&&k| k >= 34)
                .map(|&k| common::meld_tiles(k)[0])
                .collect();
            trips.sort_unstable();
            seqs.sort_unstable();
            let want: RefDecomp = (0, pair, trips, seqs, vec![]);
            assert!(
                check_win(&h)
                    .decompositions
                    .iter()
                    .map(plain)
                    .any(|d| d == want),
                "{h}"
            );
            *checked += 1;
        }
        if left == 0 {
            return;
        }
        for k in start..55 {
            melds.push(k);
            rec(k, left - 1, melds, checked);
            melds.pop();
        }
    }
    let mut checked = 0;
    rec(0, 4, &mut Vec::new(), &mut checked);
    println!("{checked} complete hands checked");
    assert!(checked > 10_000_000);
}
