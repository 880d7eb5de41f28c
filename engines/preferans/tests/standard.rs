//! The ten standard all-foe problems against their published histograms
//! (tests/data/standard.txt), and six random trump views against the established
//! solver's (tests/data/trump_views.txt, tests/data/trump_views_all_layouts.txt).
//! Release builds only, as in CI.
//!
//! To keep CI short, the five short problems are checked over all 184,756 layouts
//! and the five long ones (10-20 s each on one thread) over their first 20,000;
//! `deckhand bench preferans` checks all ten in full.

use std::ops::ControlFlow;

use deckhand_preferans::{
    solve_all_foe, solve_layouts, standard_problems, Contract, DeclarerView, Histogram, Seat,
    Solver, DEFAULT_TT_BYTES, FIRST_LAYOUTS, LAYOUT_COUNT,
};

/// The problems the published test driver flags as long.
const LONG: [&str; 5] = [
    "solvealldeals3",
    "preferansRu4",
    "preferansRu5",
    "preferansRu6",
    "preferansRu7",
];

#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
fn standard_problems_match_published_histograms() {
    for p in standard_problems() {
        let start = std::time::Instant::now();
        let (layouts, expected) = if LONG.contains(&p.name) {
            (FIRST_LAYOUTS, p.first_histogram)
        } else {
            (LAYOUT_COUNT, p.histogram)
        };
        let analysis = solve_all_foe(&p.view, 0..layouts, 2, |_| {}).unwrap();
        assert_eq!(analysis.openings.len(), 1, "{}", p.name);
        assert_eq!(analysis.openings[0].histogram, expected, "{}", p.name);
        eprintln!(
            "{}: {layouts} layouts in {:.2} s (2 threads)",
            p.name,
            start.elapsed().as_secs_f64()
        );
    }
}

/// Trump views where class entries once went wrong late in a run (see
/// tests/data/trump_views.txt): one solver, its table warm from layout to layout, as an
/// analysis on one thread runs them.
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
fn trump_views_on_a_warm_table_match_the_established_solver() {
    let rows = trump_view_rows(include_str!("data/trump_views.txt"));
    assert_eq!(rows.len(), 3);
    for (row, view, expected) in rows {
        let mut solver = Solver::new(DEFAULT_TT_BYTES);
        let mut histogram = Histogram::default();
        solve_layouts(&mut solver, &view, 0..FIRST_LAYOUTS, |r| {
            histogram.add(r.tricks.as_slice()[0]);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(histogram.counts.to_vec(), expected, "{row}");
    }
}

/// Trump views whose analyses over all layouts once went wrong (see
/// tests/data/trump_views_all_layouts.txt): the analysis of all layouts on one thread, in
/// its split order, as `deckhand preferans solve-all-foe` runs it.
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
fn trump_views_over_all_layouts_match_the_established_solver() {
    let rows = trump_view_rows(include_str!("data/trump_views_all_layouts.txt"));
    assert_eq!(rows.len(), 4);
    for (row, view, expected) in rows {
        let analysis = solve_all_foe(&view, 0..LAYOUT_COUNT, 1, |_| {}).unwrap();
        assert_eq!(
            analysis.openings[0].histogram.counts.to_vec(),
            expected,
            "{row}"
        );
    }
}

/// The rows of a trump view file, each with its view (declarer North; the row's
/// declarer view, contract and leader) and its histogram of declarer tricks 0..10.
fn trump_view_rows(data: &str) -> Vec<(&str, DeclarerView, Vec<u32>)> {
    data.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|row| {
            let fields: Vec<&str> = row.split_whitespace().collect();
            let contract: Contract = fields[1].parse().unwrap();
            let leader = Seat::from_char(fields[2].chars().next().unwrap()).unwrap();
            let view = DeclarerView::from_notation(fields[0], Seat::N, contract, leader).unwrap();
            let expected = fields[3..].iter().map(|n| n.parse().unwrap()).collect();
            (row, view, expected)
        })
        .collect()
}
