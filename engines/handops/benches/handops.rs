//! Hand-ops benchmarks: SWAR `contains`/`remove` against the seed's naive
//! loops, a batch of 1M `contains`, and legal-play generation.
//!
//! `cargo bench -p hand-ops --bench handops -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use deckhand_handops::{
    beating_plays_into, classify, legal_plays, legal_plays_into, CardsVector, Play,
};

/// Fixed-seed xorshift64 so every run sees the same hands.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `n` cards dealt from a shuffled 54-card deck.
    fn hand(&mut self, n: usize) -> CardsVector {
        let mut deck: Vec<usize> = (0..54).collect();
        let mut counts = [0u8; 15];
        for i in 0..n {
            let j = i + self.below(54 - i);
            deck.swap(i, j);
            let card = deck[i];
            counts[if card < 52 { card / 4 } else { 13 + card - 52 }] += 1;
        }
        CardsVector::from_counts(counts).expect("a deal is valid")
    }

    /// A random sub-multiset of `hand` (each card kept with probability 1/2).
    fn part(&mut self, hand: CardsVector) -> CardsVector {
        let mut counts = hand.to_counts();
        for c in counts.iter_mut() {
            *c = (0..*c).filter(|_| self.next() & 1 == 0).count() as u8;
        }
        CardsVector::from_counts(counts).expect("a part of a valid hand")
    }
}

/// The seed's first version: one machine word per rank, 16 slots.
type NaiveVector = [i64; 16];

fn naive(cards: CardsVector) -> NaiveVector {
    let mut v = [0i64; 16];
    for (rank, count) in cards.iter() {
        v[rank.index()] = count as i64;
    }
    v
}

#[inline(never)]
fn naive_contains(v: &NaiveVector, other: &NaiveVector) -> bool {
    for i in 0..16 {
        if v[i] < other[i] {
            return false;
        }
    }
    true
}

#[inline(never)]
fn naive_remove(v: &NaiveVector, other: &NaiveVector) -> NaiveVector {
    let mut res = [0i64; 16];
    for i in 0..16 {
        res[i] = v[i] - other[i];
    }
    res
}

/// Hands and parts: half contained in the hand, half random hands.
fn pairs(rng: &mut XorShift, n: usize) -> Vec<(CardsVector, CardsVector)> {
    (0..n)
        .map(|i| {
            let size = 17 + rng.below(4);
            let hand = rng.hand(size);
            let part = if i % 2 == 0 {
                rng.part(hand)
            } else {
                let size = 1 + rng.below(8);
                rng.hand(size)
            };
            (hand, part)
        })
        .collect()
}

fn bench_ops(c: &mut Criterion) {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let sample = pairs(&mut rng, 1024);
    let naive_sample: Vec<(NaiveVector, NaiveVector)> =
        sample.iter().map(|&(a, b)| (naive(a), naive(b))).collect();
    let contained: Vec<(CardsVector, CardsVector)> =
        sample.iter().map(|&(a, _)| (a, rng.part(a))).collect();
    let naive_contained: Vec<(NaiveVector, NaiveVector)> = contained
        .iter()
        .map(|&(a, b)| (naive(a), naive(b)))
        .collect();

    let mut g = c.benchmark_group("ops");
    let mut i = 0usize;
    g.bench_function("contains/packed", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let (h, p) = sample[i];
            black_box(h).contains(black_box(p))
        })
    });
    g.bench_function("contains/naive_loop", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let (h, p) = &naive_sample[i];
            naive_contains(black_box(h), black_box(p))
        })
    });
    g.bench_function("remove/packed_unchecked", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let (h, p) = contained[i];
            black_box(h).remove_unchecked(black_box(p))
        })
    });
    g.bench_function("remove/packed_checked", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let (h, p) = sample[i];
            black_box(h).checked_remove(black_box(p))
        })
    });
    g.bench_function("remove/naive_loop", |b| {
        b.iter(|| {
            i = (i + 1) & 1023;
            let (h, p) = &naive_contained[i];
            naive_remove(black_box(h), black_box(p))
        })
    });
    g.finish();

    const BATCH: usize = 1 << 20;
    let big = pairs(&mut rng, BATCH);
    let big_naive: Vec<(NaiveVector, NaiveVector)> =
        big.iter().map(|&(a, b)| (naive(a), naive(b))).collect();
    let hits = big.iter().filter(|(h, p)| h.contains(*p)).count();
    println!("batch contains: {hits} of {BATCH} pairs contained");
    let mut g = c.benchmark_group("batch_contains_1M");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.sample_size(10);
    g.bench_function("packed", |b| {
        b.iter(|| {
            black_box(&big)
                .iter()
                .filter(|(h, p)| h.contains(*p))
                .count()
        })
    });
    g.bench_function("naive_loop", |b| {
        b.iter(|| {
            black_box(&big_naive)
                .iter()
                .filter(|(h, p)| naive_contains(h, p))
                .count()
        })
    });
    g.finish();
}

fn bench_plays(c: &mut Criterion) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    const POOL: usize = 1024;
    let mut g = c.benchmark_group("legal_plays");
    for size in [17usize, 20] {
        let hands: Vec<CardsVector> = (0..POOL).map(|_| rng.hand(size)).collect();
        let total: usize = hands.iter().map(|&h| legal_plays(h).len()).sum();
        println!(
            "legal_plays: {POOL} random {size}-card hands, {total} plays ({:.1} per hand)",
            total as f64 / POOL as f64
        );
        let mut buf: Vec<Play> = Vec::with_capacity(4096);
        let mut i = 0usize;
        g.bench_function(format!("{size}_cards/reused_buffer"), |b| {
            b.iter(|| {
                i = (i + 1) % POOL;
                buf.clear();
                legal_plays_into(black_box(hands[i]), &mut buf);
                buf.len()
            })
        });
        g.bench_function(format!("{size}_cards/vec"), |b| {
            b.iter(|| {
                i = (i + 1) % POOL;
                legal_plays(black_box(hands[i])).len()
            })
        });
    }
    let deck = CardsVector::FULL_DECK;
    println!("legal_plays: full deck, {} plays", legal_plays(deck).len());
    let mut buf: Vec<Play> = Vec::with_capacity(32_768);
    g.bench_function("full_deck/reused_buffer", |b| {
        b.iter(|| {
            buf.clear();
            legal_plays_into(black_box(deck), &mut buf);
            buf.len()
        })
    });
    g.finish();

    // Beating: a 20-card hand answers a random play of another hand.
    let cases: Vec<(CardsVector, Play)> = (0..POOL)
        .map(|_| {
            let hand = rng.hand(20);
            let other = legal_plays(rng.hand(17));
            let target = other[rng.below(other.len())];
            (hand, target)
        })
        .collect();
    let total: usize = cases
        .iter()
        .map(|(h, t)| {
            let mut v = Vec::new();
            beating_plays_into(*h, t, &mut v);
            v.len()
        })
        .sum();
    println!("beating_plays: {POOL} cases, {total} plays");
    let mut buf: Vec<Play> = Vec::with_capacity(4096);
    let mut i = 0usize;
    c.bench_function("beating_plays/20_cards", |b| {
        b.iter(|| {
            i = (i + 1) % POOL;
            let (h, t) = &cases[i];
            buf.clear();
            beating_plays_into(black_box(*h), t, &mut buf);
            buf.len()
        })
    });

    let plays: Vec<CardsVector> = legal_plays(deck).iter().map(|p| p.cards).collect();
    c.bench_function("classify/full_deck_plays", |b| {
        b.iter_batched(
            || (),
            |()| plays.iter().filter_map(|&p| classify(black_box(p))).count(),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, bench_ops, bench_plays);
criterion_main!(benches);
