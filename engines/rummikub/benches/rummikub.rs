//! Criterion benches for Arrange and BestMove on random instances of the
//! default rule set (fixed-seed xorshift, so every run sees the same tiles).
//!
//! Before the criterion groups, every instance is also timed on its own and
//! the median and maximum per category are printed with a repeatable count
//! (how many instances were solvable / how many tiles were placed).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use deckhand_rummikub::{Colour, Objective, RuleSet, Solver, Tile};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The 106 tiles of the default game.
fn pool() -> Vec<Tile> {
    let mut out = Vec::new();
    for colour in &Colour::ALL[..4] {
        for n in 1..=13 {
            let tile = Tile::new(*colour, n).unwrap();
            out.push(tile);
            out.push(tile);
        }
    }
    out.push(Tile::JOKER);
    out.push(Tile::JOKER);
    out
}

fn take(left: &mut Vec<Tile>, tile: Tile) -> bool {
    match left.iter().position(|&t| t == tile) {
        Some(i) => {
            left.swap_remove(i);
            true
        }
        None => false,
    }
}

/// A random meld of the default rules (each tile replaced by a joker with
/// probability 1/12), taken from `left` if all its tiles are still there.
fn random_meld(rng: &mut XorShift, left: &mut Vec<Tile>, jokers_ok: bool) -> Vec<Tile> {
    let mut meld = Vec::new();
    if rng.below(2) == 0 {
        let colour = Colour::ALL[rng.below(4)];
        let len = 3 + rng.below(3);
        let first = 1 + rng.below(14 - len) as u8;
        for n in first..first + len as u8 {
            meld.push(Tile::new(colour, n).unwrap());
        }
    } else {
        let n = 1 + rng.below(13) as u8;
        let skip = if rng.below(2) == 0 { rng.below(4) } else { 4 };
        for (i, colour) in Colour::ALL[..4].iter().enumerate() {
            if i != skip {
                meld.push(Tile::new(*colour, n).unwrap());
            }
        }
    }
    if jokers_ok {
        for t in meld.iter_mut() {
            if rng.below(12) == 0 {
                *t = Tile::JOKER;
            }
        }
    }
    let mut trial = left.clone();
    if meld.iter().all(|&t| take(&mut trial, t)) {
        *left = trial;
        meld
    } else {
        Vec::new()
    }
}

/// About `size` tiles made of random melds: always arrangeable.
fn solvable(rng: &mut XorShift, size: usize) -> Vec<Tile> {
    let mut left = pool();
    let mut out = Vec::new();
    let mut misses = 0;
    while out.len() < size && misses < 200 {
        let meld = random_meld(rng, &mut left, true);
        if meld.is_empty() || out.len() + meld.len() > size + 2 {
            misses += 1;
            for t in meld {
                left.push(t);
            }
            continue;
        }
        out.extend(meld);
    }
    out
}

/// `size` tiles drawn at random from the 106.
fn random(rng: &mut XorShift, size: usize) -> Vec<Tile> {
    let mut left = pool();
    (0..size)
        .map(|_| {
            let i = rng.below(left.len());
            left.swap_remove(i)
        })
        .collect()
}

/// A valid table of about `table` tiles and a rack of `rack` tiles.
fn game(rng: &mut XorShift, table: usize, rack: usize) -> (Vec<Tile>, Vec<Tile>) {
    let mut left = pool();
    let mut out = Vec::new();
    let mut misses = 0;
    while out.len() < table && misses < 200 {
        let meld = random_meld(rng, &mut left, true);
        if meld.is_empty() {
            misses += 1;
        }
        out.extend(meld);
    }
    let rack = (0..rack.min(left.len()))
        .map(|_| {
            let i = rng.below(left.len());
            left.swap_remove(i)
        })
        .collect();
    (out, rack)
}

const SIZES: [usize; 5] = [14, 30, 50, 80, 106];

struct Instances {
    solvable: Vec<(usize, Vec<Vec<Tile>>)>,
    random: Vec<(usize, Vec<Vec<Tile>>)>,
    games: Vec<(Vec<Tile>, Vec<Tile>)>,
}

fn instances() -> Instances {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let per_size = 40;
    let solvable = SIZES
        .iter()
        .map(|&s| (s, (0..per_size).map(|_| solvable(&mut rng, s)).collect()))
        .collect();
    let random = SIZES
        .iter()
        .map(|&s| (s, (0..per_size).map(|_| random(&mut rng, s)).collect()))
        .collect();
    let games = (0..60)
        .map(|_| {
            let table = 40 + rng.below(21);
            let rack = 14 + rng.below(7);
            game(&mut rng, table, rack)
        })
        .collect();
    Instances {
        solvable,
        random,
        games,
    }
}

fn time_one(mut f: impl FnMut()) -> Duration {
    // Best of three runs, to keep noise from other processes out.
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn summary(label: &str, mut times: Vec<Duration>, count: &str) {
    if times.is_empty() {
        return;
    }
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let max = times.last().copied().unwrap_or_default();
    println!(
        "{label:<28} n={:<3} median {:>9.1?} max {:>9.1?}  {count}",
        times.len(),
        median,
        max
    );
}

fn report(inst: &Instances) {
    let mut solver = Solver::new(RuleSet::default()).unwrap();
    for (name, sets) in [("solvable", &inst.solvable), ("random", &inst.random)] {
        for (size, tiles) in sets.iter() {
            let mut yes = 0;
            let times = tiles
                .iter()
                .map(|t| {
                    let mut ok = false;
                    let d = time_one(|| ok = solver.arrange(t).unwrap().is_some());
                    yes += usize::from(ok);
                    d
                })
                .collect();
            summary(
                &format!("arrange/{name}/{size}"),
                times,
                &format!("solvable {yes}/{}", tiles.len()),
            );
        }
    }
    for objective in [Objective::MaxTiles, Objective::MaxValue] {
        let mut placed = 0;
        let times = inst
            .games
            .iter()
            .map(|(table, rack)| {
                let mut n = 0;
                let d = time_one(|| {
                    n = solver
                        .best_move(table, rack, objective, false)
                        .unwrap()
                        .placed
                        .len()
                });
                placed += n;
                d
            })
            .collect();
        summary(
            &format!("best_move/{objective:?}"),
            times,
            &format!("placed {placed} tiles in total"),
        );
    }
    for jokers in 0..=2 {
        let mut placed = 0;
        let times = inst
            .games
            .iter()
            .filter(|(t, r)| t.iter().chain(r).filter(|x| x.is_joker()).count() == jokers)
            .map(|(table, rack)| {
                let mut n = 0;
                let d = time_one(|| {
                    n = solver
                        .best_move(table, rack, Objective::MaxTiles, false)
                        .unwrap()
                        .placed
                        .len()
                });
                placed += n;
                d
            })
            .collect();
        summary(
            &format!("best_move/MaxTiles/jokers={jokers}"),
            times,
            &format!("placed {placed} tiles in total"),
        );
    }
    let mut placed = 0;
    let times = inst
        .games
        .iter()
        .map(|(table, rack)| {
            let mut n = 0;
            let d = time_one(|| {
                n = solver
                    .best_move(table, rack, Objective::MaxTiles, true)
                    .unwrap()
                    .placed
                    .len()
            });
            placed += n;
            d
        })
        .collect();
    summary(
        "best_move/opening",
        times,
        &format!("placed {placed} tiles in total"),
    );
}

fn benches(c: &mut Criterion) {
    let inst = instances();
    report(&inst);
    let mut solver = Solver::new(RuleSet::default()).unwrap();
    for (name, sets) in [("solvable", &inst.solvable), ("random", &inst.random)] {
        let mut group = c.benchmark_group(format!("arrange/{name}"));
        for (size, tiles) in sets.iter() {
            let mut i = 0;
            group.bench_function(size.to_string(), |b| {
                b.iter(|| {
                    i = (i + 1) % tiles.len();
                    black_box(solver.arrange(&tiles[i]).unwrap())
                })
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("best_move");
    for (label, objective, opening) in [
        ("max_tiles", Objective::MaxTiles, false),
        ("max_value", Objective::MaxValue, false),
        ("opening", Objective::MaxTiles, true),
    ] {
        let mut i = 0;
        group.bench_function(label, |b| {
            b.iter(|| {
                i = (i + 1) % inst.games.len();
                let (table, rack) = &inst.games[i];
                black_box(solver.best_move(table, rack, objective, opening).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
