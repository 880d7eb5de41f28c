//! Win checks per second and shanten per hand (ours vs `xiangting`).
//!
//! `CARGO_TARGET_DIR=/work/main/target-mahjong cargo bench -p mahjong --bench mahjong -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use deckhand_mahjong::{
    check_win, is_win, shanten, shanten_table_stats, standard_shanten, win_table_stats, TileCounts,
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

/// Plain timing outside criterion, for the ratio line.
fn ns_per_hand(hands: &[TileCounts], f: impl Fn(&TileCounts) -> i8) -> (f64, i64) {
    let rounds = 50;
    let start = Instant::now();
    let mut sum = 0i64;
    for _ in 0..rounds {
        for h in hands {
            sum += i64::from(f(black_box(h)));
        }
    }
    (
        start.elapsed().as_nanos() as f64 / (rounds * hands.len()) as f64,
        sum / rounds as i64,
    )
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

    for (name, hands) in [
        ("random14", &random14),
        ("random13", &random13),
        ("near13", &near),
    ] {
        let (ours, s1) = ns_per_hand(hands, |h| shanten(h).minimum);
        let (std_only, _) = ns_per_hand(hands, standard_shanten);
        let (theirs, s2) = ns_per_hand(hands, xiangting_shanten);
        println!(
            "shanten {name}: ours (all forms) {ours:.1} ns/hand, ours standard {std_only:.1} ns/hand, \
             xiangting {theirs:.1} ns/hand, ratio ours/xiangting {:.2}; shanten sums {s1} vs {s2}",
            ours / theirs
        );
    }

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
