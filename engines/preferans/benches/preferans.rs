//! Criterion benches: a few thousand layouts of each published all-foe problem
//! (fresh solver per run, 1 thread) and one full-deal solve. Before the timed runs it
//! prints layouts/s, nodes and table hit rate of one run per problem.
//!
//! `PREFERANS_BENCH_LAYOUTS=n` changes the layout count (default 4000).

use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use deckhand_preferans::{
    solve_layouts, Analysis, Contract, DeclarerView, Position, Seat, Solver, Strain, Suit,
};

/// The published problems: name, notation, strain, leader (declarer North).
const PROBLEMS: [(&str, &str, Strain, Seat); 3] = [
    (
        "solvealldeals1-1",
        "T987.T987.*98.*Q#J",
        Strain::Misere,
        Seat::N,
    ),
    (
        "solvealldeals2",
        "#A*8*7.AKT.KJ.A987",
        Strain::Trump(Suit::Clubs),
        Seat::N,
    ),
    (
        "preferansRu1",
        "QT7.KQJ.A*8*7.KQJ",
        Strain::Trump(Suit::Spades),
        Seat::W,
    ),
];

fn view(notation: &str, strain: Strain, leader: Seat) -> DeclarerView {
    let contract = Contract {
        level: None,
        strain,
    };
    DeclarerView::from_notation(notation, Seat::N, contract, leader).expect("valid problem")
}

/// Table size: `PREFERANS_BENCH_TT_MB` (default 64).
fn new_solver() -> Solver {
    let mb: usize = std::env::var("PREFERANS_BENCH_TT_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    Solver::new(mb << 20)
}

fn run(view: &DeclarerView, n: u32) -> (Analysis, Solver) {
    let mut solver = new_solver();
    let mut analysis = Analysis::new(view);
    solve_layouts(&mut solver, view, 0..n, |r| {
        analysis.add(&r);
        ControlFlow::Continue(())
    })
    .expect("valid range");
    (analysis, solver)
}

fn layouts(c: &mut Criterion) {
    let n: u32 = std::env::var("PREFERANS_BENCH_LAYOUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut group = c.benchmark_group("all_foe");
    group.sample_size(10);
    for (name, notation, strain, leader) in PROBLEMS {
        let view = view(notation, strain, leader);
        let start = Instant::now();
        let (analysis, solver) = run(&view, n);
        let secs = start.elapsed().as_secs_f64();
        let s = solver.stats();
        println!(
            "{name}: {n} layouts in {secs:.3} s = {:.0} layouts/s; nodes {} ({:.0}/layout); searches/layout {:.2}; tt hits {:.1}% used {}; histogram {:?}",
            f64::from(n) / secs,
            s.nodes,
            s.nodes as f64 / f64::from(n),
            s.searches as f64 / f64::from(n),
            100.0 * s.tt_hits as f64 / s.tt_probes.max(1) as f64,
            s.tt_used,
            analysis.openings[0].histogram.counts,
        );
        group.bench_function(format!("{name}/{n}"), |b| {
            b.iter_batched(
                new_solver,
                |mut solver| {
                    let mut sum = 0u32;
                    solve_layouts(&mut solver, &view, 0..n, |r| {
                        sum += u32::from(r.tricks[0]);
                        ControlFlow::Continue(())
                    })
                    .expect("valid range");
                    black_box(sum)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn full_deal(c: &mut Criterion) {
    // "Difficult deal" (preferansEn.bts deal 7): 6NT by North, West leads.
    let hands = deckhand_preferans::BySeat::new(
        "A8.AJ7.AJ8.KT".parse().expect("hand"),
        "QT.KT8.KT7.Q8".parse().expect("hand"),
        "KJ7.Q9.Q9.AJ7".parse().expect("hand"),
    );
    let pos = Position::new(hands, Strain::NoTrump, Seat::N, Seat::W, &[]).expect("valid");
    c.bench_function("full_deal/solve_cards_6NT", |b| {
        b.iter_batched(
            || Solver::new(16 << 20),
            |mut solver| black_box(solver.solve_cards(&pos)),
            BatchSize::PerIteration,
        )
    });
}

criterion_group!(benches, layouts, full_deal);
criterion_main!(benches);
