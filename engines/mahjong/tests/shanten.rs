//! Shanten against a brute force (small hands), against the `xiangting`
//! crate (all sizes), and known values.

mod common;

use common::{brute_force_standard_shanten, near_complete_hand, remove_nth, ORPHANS};
use deckhand_mahjong::{shanten, shanten_table_stats, standard_shanten, TileCounts};
use proptest::prelude::*;

fn hand(text: &str) -> TileCounts {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `xiangting` returns the replacement number (shanten + 1) over all forms;
/// seven pairs and thirteen orphans only count for 13/14 tiles, as here.
fn xiangting_shanten(counts: &[u8; 34]) -> i8 {
    let rn = xiangting::calculate_replacement_number(counts, xiangting::PlayerCount::Four)
        .unwrap_or_else(|e| panic!("xiangting rejected {counts:?}: {e}"));
    rn as i8 - 1
}

/// Seven distinct pairs by overlap: keep the 7 tiles with the most copies (up to 2).
fn reference_seven_pairs(counts: &[u8; 34]) -> i8 {
    let mut kept: Vec<u8> = counts.iter().map(|&c| c.min(2)).collect();
    kept.sort_unstable_by(|a, b| b.cmp(a));
    let overlap: u8 = kept.iter().take(7).sum();
    (14 - overlap) as i8 - 1
}

/// Thirteen orphans by overlap with each of the 13 targets.
fn reference_orphans(counts: &[u8; 34]) -> i8 {
    let best = ORPHANS
        .iter()
        .map(|&dup| {
            ORPHANS
                .iter()
                .map(|&o| counts[o].min(1 + u8::from(o == dup)))
                .sum::<u8>()
        })
        .max()
        .unwrap_or(0);
    (14 - best) as i8 - 1
}

fn sized(counts: [u8; 34], drop: usize, pos: usize) -> [u8; 34] {
    let mut c = counts;
    for k in 0..drop {
        c = remove_nth(&c, pos + k);
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Every hand size 1..=14 (not 3k), compared with xiangting.
    #[test]
    fn agrees_with_xiangting(counts in near_complete_hand(3), drop in 0usize..2, pos in 0usize..14) {
        let c = sized(counts, drop, pos);
        let Ok(h) = TileCounts::new(c) else { return Ok(()) };
        let s = shanten(&h);
        let theirs = xiangting_shanten(&c);
        prop_assert_eq!(s.minimum, theirs, "hand {} {:?}", h, s);
        if h.total() < 13 {
            prop_assert_eq!(s.standard, theirs, "hand {}", h);
        }
        prop_assert_eq!(standard_shanten(&h), s.standard);
        prop_assert!(s.minimum <= s.standard);
    }

    /// Seven pairs and thirteen orphans against overlap references.
    #[test]
    fn special_forms(counts in near_complete_hand(4), drop in 0usize..2, pos in 0usize..14) {
        let c = sized(counts, drop, pos);
        let Ok(h) = TileCounts::new(c) else { return Ok(()) };
        let s = shanten(&h);
        if h.total() >= 13 {
            prop_assert_eq!(s.seven_pairs, Some(reference_seven_pairs(&c)), "hand {}", h);
            prop_assert_eq!(s.thirteen_orphans, Some(reference_orphans(&c)), "hand {}", h);
        } else {
            prop_assert_eq!(s.seven_pairs, None);
            prop_assert_eq!(s.thirteen_orphans, None);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Hands of 1, 2, 4, 5, 7, 8 tiles against the brute force over all targets.
    #[test]
    fn small_hands_match_brute_force(tiles in prop::collection::vec(0u8..34, 1..=8), near in any::<bool>()) {
        // Half of the cases crowd the tiles into one suit to make shapes.
        let tiles: Vec<u8> = if near { tiles.iter().map(|t| t % 9).collect() } else { tiles };
        let mut c = [0u8; 34];
        for &t in &tiles { c[usize::from(t)] += 1; }
        let Ok(h) = TileCounts::new(c) else { return Ok(()) };
        prop_assert_eq!(standard_shanten(&h), brute_force_standard_shanten(&c), "hand {}", h);
    }
}

/// 11 (and 10) tiles against the brute force: slower, fewer cases.
#[test]
fn eleven_tiles_match_brute_force() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..12 {
        let n = if case % 2 == 0 { 11 } else { 10 };
        let mut c = [0u8; 34];
        let mut placed = 0;
        while placed < n {
            // Mostly man and pin, so that shapes form.
            let t = (next() % 20) as usize;
            if c[t] < 4 {
                c[t] += 1;
                placed += 1;
            }
        }
        let h = TileCounts::new(c).unwrap();
        assert_eq!(
            standard_shanten(&h),
            brute_force_standard_shanten(&c),
            "hand {h}"
        );
    }
}

#[test]
fn known_values() {
    let s = |t: &str| shanten(&hand(t));
    assert_eq!(s("123m456p789s11222z").minimum, -1);
    assert_eq!(s("123m456p789s1122z").minimum, 0);
    assert_eq!(s("19m19p19s1234567z").thirteen_orphans, Some(0));
    assert_eq!(s("19m19p19s1234567z").standard, 8);
    assert_eq!(s("1188m288p55s1177z").seven_pairs, Some(0));
    // Four copies: a "wait" on the fifth copy is no wait.
    assert_eq!(s("1111m").standard, 1);
    assert_eq!(s("1111m123p112233s").standard, 1);
    assert_eq!(s("11112222333444z").standard, 1);
    assert_eq!(s("1z").standard, 0);
    assert_eq!(s("12z").standard, 0);
    assert_eq!(s("1234z").standard, 2);
    assert_eq!(s("1188m288p55s1111z").seven_pairs, Some(2));
}

#[test]
fn table_sizes_are_reported() {
    let (suit, honours, bytes) = shanten_table_stats();
    println!("shanten tables: {suit} suit patterns, {honours} honour patterns, {bytes} bytes");
    assert_eq!(suit, 405_350);
    assert!(honours > 10_000 && honours < 78_125);
}
