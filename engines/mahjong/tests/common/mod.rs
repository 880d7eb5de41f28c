//! Independent references and generators shared by the integration tests.
//! Nothing here uses the engine's internals: plain counts in, plain tuples out.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::OnceLock;

use proptest::prelude::*;

/// A decomposition as plain data: (form 0 standard / 1 seven pairs /
/// 2 thirteen orphans, pair, triplets, sequence starts, seven pairs' tiles).
pub type RefDecomp = (u8, u8, Vec<u8>, Vec<u8>, Vec<u8>);

pub const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// Every decomposition of `counts` by plain backtracking: the lowest held
/// tile must be the pair, a triplet or the start of a sequence.
pub fn reference_decompositions(counts: &[u8; 34]) -> BTreeSet<RefDecomp> {
    let mut out = BTreeSet::new();
    let total: u32 = counts.iter().map(|&c| u32::from(c)).sum();
    if total % 3 == 2 {
        let mut c = *counts;
        standard(&mut c, None, &mut Vec::new(), &mut Vec::new(), &mut out);
    }
    if total == 14 {
        let pairs: Vec<u8> = (0..34u8).filter(|&i| counts[usize::from(i)] == 2).collect();
        if pairs.len() == 7 {
            out.insert((1, pairs[0], vec![], vec![], pairs));
        }
        let all_orphans = ORPHANS.iter().all(|&i| counts[i] >= 1);
        let only_orphans = (0..34).all(|i| counts[i] == 0 || ORPHANS.contains(&i));
        if all_orphans && only_orphans {
            if let Some(&d) = ORPHANS.iter().find(|&&i| counts[i] == 2) {
                out.insert((2, d as u8, vec![], vec![], vec![]));
            }
        }
    }
    out
}

fn standard(
    c: &mut [u8; 34],
    pair: Option<u8>,
    trips: &mut Vec<u8>,
    seqs: &mut Vec<u8>,
    out: &mut BTreeSet<RefDecomp>,
) {
    let Some(i) = (0..34).find(|&i| c[i] > 0) else {
        if let Some(p) = pair {
            let mut t = trips.clone();
            t.sort_unstable();
            let mut s = seqs.clone();
            s.sort_unstable();
            out.insert((0, p, t, s, vec![]));
        }
        return;
    };
    if pair.is_none() && c[i] >= 2 {
        c[i] -= 2;
        standard(c, Some(i as u8), trips, seqs, out);
        c[i] += 2;
    }
    if c[i] >= 3 {
        c[i] -= 3;
        trips.push(i as u8);
        standard(c, pair, trips, seqs, out);
        trips.pop();
        c[i] += 3;
    }
    if i < 27 && i % 9 <= 6 && c[i + 1] > 0 && c[i + 2] > 0 {
        c[i] -= 1;
        c[i + 1] -= 1;
        c[i + 2] -= 1;
        seqs.push(i as u8);
        standard(c, pair, trips, seqs, out);
        seqs.pop();
        c[i] += 1;
        c[i + 1] += 1;
        c[i + 2] += 1;
    }
}

/// The 55 meld kinds: 0..34 triplets, 34..55 sequences (7 per numbered suit).
pub fn meld_tiles(kind: u8) -> [u8; 3] {
    if kind < 34 {
        [kind; 3]
    } else {
        let s = kind - 34;
        let first = s / 7 * 9 + s % 7;
        [first, first + 1, first + 2]
    }
}

fn to_counts(tiles: &[u8]) -> Option<[u8; 34]> {
    let mut counts = [0u8; 34];
    for &t in tiles {
        let c = counts.get_mut(usize::from(t))?;
        *c += 1;
        if *c > 4 {
            return None;
        }
    }
    Some(counts)
}

/// Hands biased toward complete and nearly complete ones: a pair plus
/// `melds` random melds (or seven pairs, or thirteen orphans), then up to
/// `max_changes` tiles replaced by random tiles; plus some uniform random hands.
/// `melds` in 0..=4 decides the size (`3 * melds + 2`).
pub fn near_complete_hand(max_changes: usize) -> impl Strategy<Value = [u8; 34]> {
    let standard = (
        0usize..=4,
        prop::collection::vec(0u8..55, 4),
        0u8..34,
        prop::collection::vec((0usize..14, 0u8..34), 0..=max_changes),
    )
        .prop_filter_map("fifth copy", |(melds, kinds, pair, changes)| {
            let mut tiles = vec![pair, pair];
            for &k in kinds.iter().take(melds) {
                tiles.extend(meld_tiles(k));
            }
            for (pos, tile) in changes {
                let n = tiles.len();
                tiles[pos % n] = tile;
            }
            to_counts(&tiles)
        });
    let seven_pairs = (
        prop::collection::btree_set(0u8..34, 7),
        prop::collection::vec((0usize..14, 0u8..34), 0..=max_changes),
    )
        .prop_filter_map("fifth copy", |(pairs, changes)| {
            let mut tiles: Vec<u8> = pairs.iter().flat_map(|&p| [p, p]).collect();
            for (pos, tile) in changes {
                tiles[pos % 14] = tile;
            }
            to_counts(&tiles)
        });
    let orphans = (
        0usize..13,
        prop::collection::vec((0usize..14, 0u8..34), 0..=max_changes),
    )
        .prop_filter_map("fifth copy", |(dup, changes)| {
            let mut tiles: Vec<u8> = ORPHANS.iter().map(|&i| i as u8).collect();
            tiles.push(ORPHANS[dup] as u8);
            for (pos, tile) in changes {
                tiles[pos % 14] = tile;
            }
            to_counts(&tiles)
        });
    let random = prop::sample::select(vec![2usize, 5, 8, 11, 14])
        .prop_flat_map(|n| prop::collection::vec(0u8..34, n))
        .prop_filter_map("fifth copy", |tiles| to_counts(&tiles));
    // Runs of one suit give the most decompositions: bias toward them too.
    let one_suit = (0u8..3, prop::sample::select(vec![5usize, 8, 11, 14]))
        .prop_flat_map(|(suit, n)| prop::collection::vec(suit * 9..suit * 9 + 9, n))
        .prop_filter_map("fifth copy", |tiles| to_counts(&tiles));
    prop_oneof![
        6 => standard,
        1 => seven_pairs,
        1 => orphans,
        1 => random,
        2 => one_suit,
    ]
}

/// Removes the `pos % total`-th tile (in id order) from a hand.
pub fn remove_nth(counts: &[u8; 34], pos: usize) -> [u8; 34] {
    let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
    let mut out = *counts;
    if total == 0 {
        return out;
    }
    let mut k = pos % total;
    for c in out.iter_mut() {
        if usize::from(*c) > k {
            *c -= 1;
            break;
        }
        k -= usize::from(*c);
    }
    out
}

/// A target as (tile, count) pairs.
type Target = Vec<(u8, u8)>;

/// Every complete standard target of `3 * melds + 2` tiles within four
/// copies, as (tile, count) lists.
fn targets(melds: usize) -> &'static [Target] {
    static TARGETS: [OnceLock<Vec<Target>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    TARGETS[melds].get_or_init(|| {
        fn rec(start: u8, left: usize, tiles: &mut Vec<u8>, out: &mut Vec<Target>) {
            if left == 0 {
                for pair in 0..34u8 {
                    let mut all = tiles.clone();
                    all.extend([pair, pair]);
                    if let Some(c) = to_counts(&all) {
                        out.push(
                            (0..34u8)
                                .filter(|&i| c[usize::from(i)] > 0)
                                .map(|i| (i, c[usize::from(i)]))
                                .collect(),
                        );
                    }
                }
                return;
            }
            for kind in start..55 {
                let n = tiles.len();
                tiles.extend(meld_tiles(kind));
                rec(kind, left - 1, tiles, out);
                tiles.truncate(n);
            }
        }
        let mut out = Vec::new();
        rec(0, melds, &mut Vec::new(), &mut out);
        out
    })
}

/// Brute-force standard shanten: the fewest tiles a hand must draw to hold
/// some complete target (pair plus `total / 3` melds), minus one.
pub fn brute_force_standard_shanten(counts: &[u8; 34]) -> i8 {
    let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
    let melds = total / 3;
    assert!(melds <= 3, "brute force is for small hands");
    let best = targets(melds)
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(tile, c)| c.saturating_sub(counts[usize::from(tile)]))
                .sum::<u8>()
        })
        .min()
        .unwrap_or(u8::MAX);
    best as i8 - 1
}
