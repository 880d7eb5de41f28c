//! The ten standard all-foe problems with their published histograms, the yardstick
//! of the solver's speed (`deckhand bench preferans`) and of its exactness (tests).

use super::allfoe::Histogram;
use super::cards::Seat;
use super::contract::Contract;
use super::view::DeclarerView;

/// The data file: one problem a line (see its header).
const TEXT: &str = include_str!("../tests/data/standard.txt");

/// One standard problem: declarer North, every layout.
#[derive(Debug, Clone, PartialEq)]
pub struct StandardProblem {
    pub name: &'static str,
    /// The declarer view in the published notation, e.g. `T987.T987.*98.*Q#J`.
    pub notation: &'static str,
    pub view: DeclarerView,
    /// Declarer tricks over all 184,756 layouts.
    pub histogram: Histogram,
    /// Declarer tricks over the first [`FIRST_LAYOUTS`] layouts.
    pub first_histogram: Histogram,
}

/// Layouts counted by [`StandardProblem::first_histogram`].
pub const FIRST_LAYOUTS: u32 = 20_000;

/// The ten problems, in the order of the published table.
pub fn standard_problems() -> Vec<StandardProblem> {
    TEXT.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let contract: Contract = f[2].parse().expect("standard.txt: contract");
            let leader =
                Seat::from_char(f[3].chars().next().unwrap_or('?')).expect("standard.txt: leader");
            let view = DeclarerView::from_notation(f[1], Seat::N, contract, leader)
                .expect("standard.txt: view");
            let histogram = |counts: &[&str]| {
                let mut h = Histogram::default();
                assert_eq!(counts.len(), 11, "standard.txt: histogram length");
                for (slot, v) in h.counts.iter_mut().zip(counts) {
                    *slot = v.parse().expect("standard.txt: histogram");
                }
                h
            };
            StandardProblem {
                name: f[0],
                notation: f[1],
                view,
                histogram: histogram(&f[4..15]),
                first_histogram: histogram(&f[16..]),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LAYOUT_COUNT;

    #[test]
    fn ten_problems_with_complete_histograms() {
        let problems = standard_problems();
        assert_eq!(problems.len(), 10);
        for p in &problems {
            assert_eq!(p.histogram.total(), LAYOUT_COUNT, "{}", p.name);
            assert_eq!(p.first_histogram.total(), FIRST_LAYOUTS, "{}", p.name);
        }
    }

    /// Writing a view gives back the published notation it was read from (talon
    /// cards, a played lead, empty suits).
    #[test]
    fn views_write_the_notation_they_were_read_from() {
        for p in &standard_problems() {
            assert_eq!(p.view.notation(), p.notation, "{}", p.name);
        }
    }
}
