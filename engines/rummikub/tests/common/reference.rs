//! Brute-force reference, written from the rules alone: list every meld of a
//! (small) rule set explicitly, then search partitions of the tile multiset.
//! Shares no code with the engine.

use std::collections::HashMap;

use deckhand_rummikub::{Colour, Objective, RuleSet, Tile};

pub struct Reference {
    rules: RuleSet,
    /// Every valid meld as a sorted multiset, with the best value it can count
    /// for (jokers counting as the numbers they stand for).
    melds: Vec<(Vec<Tile>, u32)>,
}

fn tile(c: usize, n: usize) -> Tile {
    Tile::new(Colour::ALL[c], n as u8).unwrap()
}

impl Reference {
    pub fn new(rules: RuleSet) -> Reference {
        let numbers = usize::from(rules.numbers());
        let colours = usize::from(rules.colours());
        let min = usize::from(rules.min_len());
        let jokers = usize::from(rules.jokers());
        let mut best: HashMap<Vec<Tile>, u32> = HashMap::new();
        let mut add = |represented: &[Tile], joker_mask: u32, redundant: bool| {
            if joker_mask.count_ones() as usize > jokers
                || (redundant && !rules.allow_redundant_jokers())
            {
                return;
            }
            let mut laid: Vec<Tile> = represented
                .iter()
                .enumerate()
                .map(|(i, &t)| {
                    if joker_mask & (1 << i) != 0 {
                        Tile::JOKER
                    } else {
                        t
                    }
                })
                .collect();
            laid.sort();
            let value: u32 = represented
                .iter()
                .map(|t| u32::from(t.number().unwrap()))
                .sum();
            let slot = best.entry(laid).or_insert(0);
            *slot = (*slot).max(value);
        };
        // Runs: colour, first number, length; any positions may be jokers.
        for c in 0..colours {
            for first in 1..=numbers {
                for len in min..=numbers + 1 - first {
                    let run: Vec<Tile> = (first..first + len).map(|n| tile(c, n)).collect();
                    for mask in 0u32..(1 << len) {
                        let end_joker = mask & 1 != 0 || mask & (1 << (len - 1)) != 0;
                        add(&run, mask, len > min && end_joker);
                    }
                }
            }
        }
        // Groups: number, set of distinct colours; any members may be jokers.
        for n in 1..=numbers {
            for set in 1u32..(1 << colours) {
                let len = set.count_ones() as usize;
                if len < min {
                    continue;
                }
                let group: Vec<Tile> = (0..colours)
                    .filter(|c| set & (1 << c) != 0)
                    .map(|c| tile(c, n))
                    .collect();
                for mask in 0u32..(1 << len) {
                    add(&group, mask, len > min && mask != 0);
                }
            }
        }
        Reference {
            rules,
            melds: best.into_iter().collect(),
        }
    }

    /// The `i`-th meld of the list (modulo its length), as a sorted multiset.
    pub fn meld(&self, i: usize) -> &[Tile] {
        &self.melds[i % self.melds.len()].0
    }

    pub fn meld_count(&self) -> usize {
        self.melds.len()
    }

    /// Best total value over partitions of `tiles` into melds, `None` if none.
    pub fn partition_value(&self, tiles: &[Tile]) -> Option<u32> {
        let mut tiles = tiles.to_vec();
        tiles.sort();
        let mut memo = HashMap::new();
        self.partition(&tiles, &mut memo)
    }

    fn partition(&self, tiles: &[Tile], memo: &mut HashMap<Vec<Tile>, Option<u32>>) -> Option<u32> {
        let Some(&first) = tiles.first() else {
            return Some(0);
        };
        if let Some(&v) = memo.get(tiles) {
            return v;
        }
        let mut best = None;
        for (meld, value) in &self.melds {
            if !meld.contains(&first) {
                continue;
            }
            if let Some(rest) = minus(tiles, meld) {
                if let Some(v) = self.partition(&rest, memo) {
                    best = best.max(Some(v + value));
                }
            }
        }
        memo.insert(tiles.to_vec(), best);
        best
    }

    pub fn arrangeable(&self, tiles: &[Tile]) -> bool {
        self.partition_value(tiles).is_some()
    }

    /// Best objective score of a move (0 when nothing can be placed), or
    /// `None` when the table itself is not arrangeable.
    pub fn best_move(
        &self,
        table: &[Tile],
        rack: &[Tile],
        objective: Objective,
        opening: bool,
    ) -> Option<u32> {
        if !self.arrangeable(table) {
            return None;
        }
        let mut best = 0;
        for subset in sub_multisets(rack) {
            let valid = if opening {
                self.partition_value(&subset)
                    .is_some_and(|v| v >= u32::from(self.rules.opening_value()))
            } else {
                let all: Vec<Tile> = table.iter().chain(&subset).copied().collect();
                self.arrangeable(&all)
            };
            if valid {
                best = best.max(score(objective, &subset));
            }
        }
        Some(best)
    }
}

/// The primary objective of placing `tiles`.
pub fn score(objective: Objective, tiles: &[Tile]) -> u32 {
    match objective {
        Objective::MaxTiles => tiles.len() as u32,
        Objective::MaxValue => tiles.iter().map(|t| t.number().map_or(30, u32::from)).sum(),
    }
}

/// `tiles - part` if `part` is a sub-multiset (both sorted).
fn minus(tiles: &[Tile], part: &[Tile]) -> Option<Vec<Tile>> {
    let mut out = Vec::with_capacity(tiles.len());
    let mut j = 0;
    for &t in tiles {
        if j < part.len() && part[j] == t {
            j += 1;
        } else {
            out.push(t);
        }
    }
    (j == part.len()).then_some(out)
}

/// Every sub-multiset of `tiles`.
fn sub_multisets(tiles: &[Tile]) -> Vec<Vec<Tile>> {
    let mut distinct: Vec<(Tile, usize)> = Vec::new();
    let mut sorted = tiles.to_vec();
    sorted.sort();
    for t in sorted {
        match distinct.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => distinct.push((t, 1)),
        }
    }
    let mut out = vec![Vec::new()];
    for (t, n) in distinct {
        let mut next = Vec::new();
        for base in &out {
            for k in 0..=n {
                let mut s = base.clone();
                s.extend(std::iter::repeat_n(t, k));
                next.push(s);
            }
        }
        out = next;
    }
    out
}
