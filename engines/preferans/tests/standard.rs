//! The ten standard all-foe problems against their published histograms
//! (tests/data/standard.txt). Release builds only, as in CI.
//!
//! To keep CI short, the five short problems are checked over all 184,756 layouts
//! and the five long ones (10-20 s each on one thread) over their first 20,000;
//! `deckhand bench preferans` checks all ten in full.

use deckhand_preferans::{solve_all_foe, standard_problems, FIRST_LAYOUTS, LAYOUT_COUNT};

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
