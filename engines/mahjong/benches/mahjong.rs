//! Win checks, shanten (ours, all forms, vs `xiangting`, like for like) and
//! scoring, on the same fixed-seed hand sets in one run.
//!
//! `cargo bench -p deckhand-mahjong --bench mahjong` prints the comparison
//! lines first (interleaved rounds, medians), then runs the criterion groups;
//! add `-- nomatch` to print the lines only.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use deckhand_mahjong::{
    check_win, is_win, score, shanten, shanten_table_stats, standard_shanten, win_table_stats,
    Riichi, Tile, TileCounts, WinInput, WinSituation, Wind,
};

const HANDS: usize = 4096;

/// Fixed-seed xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u8 {
        (self.next() % n) as u8
    }
}

/// A complete 14-tile hand: four random melds plus a pair.
fn winning_hand(rng: &mut Rng) -> TileCounts {
    loop {
        let mut c = [0u8; 34];
        let pair = rng.below(34);
        c[usize::from(pair)] += 2;
        for _ in 0..4 {
            let kind = rng.below(55);
            if kind < 34 {
                c[usize::from(kind)] += 3;
            } else {
                let s = kind - 34;
                let first = usize::from(s / 7 * 9 + s % 7);
                for t in &mut c[first..first + 3] {
                    *t += 1;
                }
            }
        }
        if let Ok(h) = TileCounts::new(c) {
            return h;
        }
    }
}

/// A uniformly random hand of `n` tiles (drawn from a 136-tile wall).
fn random_hand(rng: &mut Rng, n: usize) -> TileCounts {
    loop {
        let mut c = [0u8; 34];
        let mut placed = 0;
        while placed < n {
            let t = usize::from(rng.below(34));
            if c[t] < 4 {
                c[t] += 1;
                placed += 1;
            }
        }
        if let Ok(h) = TileCounts::new(c) {
            return h;
        }
    }
}

fn xiangting_shanten(h: &TileCounts) -> i8 {
    xiangting::calculate_replacement_number(h.as_array(), xiangting::PlayerCount::Four)
        .map_or(i8::MAX, |r| r as i8 - 1)
}

/// One timed pass over `hands`: ns per hand and the sum of the answers.
fn pass<T>(hands: &[T], f: &impl Fn(&T) -> i64) -> (f64, i64) {
    let start = Instant::now();
    let mut sum = 0i64;
    for h in hands {
        sum += f(black_box(h));
    }
    (start.elapsed().as_nanos() as f64 / hands.len() as f64, sum)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times several functions on the same hands in interleaved rounds (so load
/// from other processes hits all alike): median ns per hand of each, and
/// each one's answer sum (they must agree where they compute the same thing).
fn compare<T>(hands: &[T], fs: &[&dyn Fn(&T) -> i64]) -> Vec<(f64, i64)> {
    const ROUNDS: usize = 31;
    let mut times = vec![Vec::with_capacity(ROUNDS); fs.len()];
    let mut sums = vec![0i64; fs.len()];
    for _ in 0..ROUNDS {
        for (k, f) in fs.iter().enumerate() {
            let (ns, sum) = pass(hands, &|h| f(h));
            times[k].push(ns);
            sums[k] = sum;
        }
    }
    times.into_iter().map(median).zip(sums).collect()
}

/// A scoring situation on a winning hand: random win tile, tsumo, riichi,
/// winds, one or two dora indicators.
fn situation(rng: &mut Rng, hand: &TileCounts) -> Option<WinSituation> {
    let concealed: Vec<Tile> = hand.tiles().collect();
    let win_tile = concealed[usize::from(rng.below(14))];
    let wind = |x: u8| [Wind::East, Wind::South, Wind::West, Wind::North][usize::from(x % 4)];
    let input = WinInput {
        concealed,
        win_tile,
        tsumo: rng.below(2) == 0,
        riichi: if rng.below(2) == 0 {
            Riichi::Riichi
        } else {
            Riichi::None
        },
        seat_wind: wind(rng.below(4)),
        round_wind: wind(rng.below(2)),
        dora_indicators: (0..1 + rng.below(2))
            .filter_map(|_| Tile::new(rng.below(34)))
            .collect(),
        ..WinInput::default()
    };
    WinSituation::try_from(input).ok()
}

/// A plain loop over the same hands (sum of the 34 counts), so that win-check
/// times can be compared across machines.
fn reference(h: &TileCounts) -> i64 {
    h.as_array().iter().map(|&c| i64::from(c)).sum()
}

fn benches(c: &mut Criterion) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let winning: Vec<TileCounts> = (0..HANDS).map(|_| winning_hand(&mut rng)).collect();
    let random14: Vec<TileCounts> = (0..HANDS).map(|_| random_hand(&mut rng, 14)).collect();
    let random13: Vec<TileCounts> = (0..HANDS).map(|_| random_hand(&mut rng, 13)).collect();
    // Near-complete hands: a winning hand with one tile swapped, minus one tile.
    let near: Vec<TileCounts> = winning
        .iter()
        .map(|h| {
            let mut c = *h.as_array();
            let from = c.iter().position(|&x| x > 0).unwrap_or(0);
            c[from] -= 1;
            TileCounts::new(c).unwrap_or(*h)
        })
        .collect();

    let start = Instant::now();
    let w = win_table_stats();
    let win_build = start.elapsed();
    let start = Instant::now();
    let (suits, honours, bytes) = shanten_table_stats();
    let shanten_build = start.elapsed();
    println!("table build: win {win_build:?}, shanten {shanten_build:?}");
    println!(
        "win table: {} keys, {} decompositions, {} bytes; shanten tables: {suits} + {honours} patterns, {bytes} bytes",
        w.keys, w.decompositions, w.bytes
    );
    let wins = |hs: &[TileCounts]| hs.iter().filter(|h| is_win(h)).count();
    println!(
        "is_win counts: winning set {}/{HANDS}, random set {}/{HANDS}",
        wins(&winning),
        wins(&random14)
    );

    let ours_all: &dyn Fn(&TileCounts) -> i64 = &|h| i64::from(shanten(h).minimum);
    let ours_standard: &dyn Fn(&TileCounts) -> i64 = &|h| i64::from(standard_shanten(h));
    let theirs: &dyn Fn(&TileCounts) -> i64 = &|h| i64::from(xiangting_shanten(h));
    for (name, hands) in [
        ("random14", &random14),
        ("random13", &random13),
        ("near13", &near),
    ] {
        let r = compare(hands, &[ours_all, theirs, ours_standard]);
        let ((ours, s1), (xt, s2), (std_only, _)) = (r[0], r[1], r[2]);
        assert_eq!(s1, s2, "all-forms shanten sums must agree with xiangting");
        println!(
            "SHANTEN {name}: ours all forms {ours:.1} ns/hand, xiangting (all forms) {xt:.1} ns/hand \
             -> ours is {:.2}x faster (goal >= 2x); ours standard only {std_only:.1} ns/hand; sums {s1} = {s2}",
            xt / ours
        );
    }

    let win_fn: &dyn Fn(&TileCounts) -> i64 = &|h| i64::from(is_win(h));
    for (name, hands) in [("winning14", &winning), ("random14", &random14)] {
        let r = compare(hands, &[win_fn, &reference]);
        println!(
            "WIN CHECK {name}: is_win {:.1} ns/hand (goal <= 20 ns on winning14), reference loop (sum of 34 counts) \
             {:.1} ns/hand, ratio {:.2}; wins {}/{HANDS}",
            r[0].0,
            r[1].0,
            r[0].0 / r[1].0,
            r[0].1
        );
    }

    let situations: Vec<WinSituation> = winning
        .iter()
        .filter_map(|h| situation(&mut rng, h))
        .collect();
    // Median over situations of the time per call (each timed over 16 calls).
    let mut per_situation = Vec::with_capacity(situations.len());
    let mut scored = 0;
    for s in &situations {
        let start = Instant::now();
        for _ in 0..16 {
            black_box(score(black_box(s)));
        }
        per_situation.push(start.elapsed().as_nanos() as f64 / 16.0);
        scored += usize::from(score(s).verdict == deckhand_mahjong::Verdict::Scored);
    }
    let mut sorted = per_situation.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "SCORE: median {:.0} ns per situation (goal <= 1000 ns), p90 {:.0} ns; {} situations, {scored} with a yaku",
        median(per_situation),
        sorted[sorted.len() * 9 / 10],
        situations.len()
    );

    let mut g = c.benchmark_group("win");
    g.throughput(Throughput::Elements(HANDS as u64));
    g.bench_function("is_win/winning14", |b| {
        b.iter(|| winning.iter().filter(|h| is_win(black_box(h))).count())
    });
    g.bench_function("is_win/random14", |b| {
        b.iter(|| random14.iter().filter(|h| is_win(black_box(h))).count())
    });
    g.bench_function("check_win/winning14", |b| {
        b.iter(|| {
            winning
                .iter()
                .map(|h| check_win(black_box(h)).decompositions.len())
                .sum::<usize>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("score");
    g.throughput(Throughput::Elements(situations.len() as u64));
    g.bench_function("score/winning14", |b| {
        b.iter(|| {
            situations
                .iter()
                .map(|s| u32::from(score(black_box(s)).han))
                .sum::<u32>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("shanten");
    g.throughput(Throughput::Elements(HANDS as u64));
    for (name, hands) in [("random14", &random14), ("near13", &near)] {
        g.bench_function(format!("ours_all_forms/{name}"), |b| {
            b.iter(|| {
                hands
                    .iter()
                    .map(|h| i32::from(shanten(black_box(h)).minimum))
                    .sum::<i32>()
            })
        });
        g.bench_function(format!("ours_standard/{name}"), |b| {
            b.iter(|| {
                hands
                    .iter()
                    .map(|h| i32::from(standard_shanten(black_box(h))))
                    .sum::<i32>()
            })
        });
        g.bench_function(format!("xiangting/{name}"), |b| {
            b.iter(|| {
                hands
                    .iter()
                    .map(|h| i32::from(xiangting_shanten(black_box(h))))
                    .sum::<i32>()
            })
        });
    }
    g.finish();
}

criterion_group!(mahjong_benches, benches);
criterion_main!(mahjong_benches);
