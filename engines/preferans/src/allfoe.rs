//! Solving ranges of foe layouts and aggregating the results.

use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicU32, Ordering};

use super::cards::{Card, Cards, Suit};
use super::contract::{Contract, Strain};
use super::layouts::{LayoutOrder, LAYOUT_COUNT};
use super::search::RawPosition;
use super::solver::Solver;
use super::tt::DEFAULT_TT_BYTES;
use super::view::{DeclarerView, ViewError};

/// Declarer tricks (0..=10) per candidate opening, in the order of
/// [`DeclarerView::openings`]. At most 10 values; never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TricksPerOpening {
    len: u8,
    values: [u8; 10],
}

impl TricksPerOpening {
    pub fn as_slice(&self) -> &[u8] {
        &self.values[..usize::from(self.len)]
    }
}

impl std::ops::Deref for TricksPerOpening {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

/// The result of one layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutResult {
    /// The layout's index, or its position in the order it was solved in
    /// ([`solve_layouts_in`]).
    pub index: u32,
    pub tricks: TricksPerOpening,
}

/// Counts of layouts by declarer tricks 0..=10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Histogram {
    pub counts: [u32; 11],
}

impl Histogram {
    pub fn add(&mut self, tricks: u8) {
        if let Some(c) = self.counts.get_mut(usize::from(tricks)) {
            *c += 1;
        }
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }

    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Mean declarer tricks (0 when empty).
    pub fn mean(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let sum: u64 = self
            .counts
            .iter()
            .enumerate()
            .map(|(t, &c)| t as u64 * u64::from(c))
            .sum();
        sum as f64 / f64::from(total)
    }

    /// Fraction of layouts where the contract makes (0 when empty).
    pub fn make_share(&self, contract: Contract) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let made: u32 = (0..=10u8)
            .filter(|&t| contract.makes(t))
            .map(|t| self.counts[usize::from(t)])
            .sum();
        f64::from(made) / f64::from(total)
    }
}

/// Histogram of one candidate opening (`card` None: a defender's double-dummy lead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpeningAnalysis {
    pub card: Option<Card>,
    pub histogram: Histogram,
}

/// Aggregated all-foe results, one histogram per candidate opening.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub contract: Contract,
    pub openings: Vec<OpeningAnalysis>,
}

impl Analysis {
    pub fn new(view: &DeclarerView) -> Analysis {
        Analysis {
            contract: view.contract(),
            openings: view
                .openings()
                .into_iter()
                .map(|card| OpeningAnalysis {
                    card,
                    histogram: Histogram::default(),
                })
                .collect(),
        }
    }

    pub fn add(&mut self, result: &LayoutResult) {
        for (o, &t) in self.openings.iter_mut().zip(result.tricks.iter()) {
            o.histogram.add(t);
        }
    }

    pub fn merge(&mut self, other: &Analysis) {
        for (a, b) in self.openings.iter_mut().zip(&other.openings) {
            a.histogram.merge(&b.histogram);
        }
    }

    /// Layouts counted (from the first opening's histogram).
    pub fn layouts(&self) -> u32 {
        self.openings.first().map_or(0, |o| o.histogram.total())
    }
}

/// Solves the layouts of `range` in index order, calling `on_result` for each; returns
/// how many were solved. `on_result` returning `Break` stops after that layout.
pub fn solve_layouts(
    solver: &mut Solver,
    view: &DeclarerView,
    range: Range<u32>,
    on_result: impl FnMut(LayoutResult) -> ControlFlow<()>,
) -> Result<u32, ViewError> {
    solve_layouts_in(solver, view, LayoutOrder::STANDARD, range, on_result)
}

/// [`solve_layouts`] for the layouts at positions `range` of `order`; each result's
/// index is its position in `order`.
pub fn solve_layouts_in(
    solver: &mut Solver,
    view: &DeclarerView,
    order: LayoutOrder,
    range: Range<u32>,
    mut on_result: impl FnMut(LayoutResult) -> ControlFlow<()>,
) -> Result<u32, ViewError> {
    if range.start > range.end || range.end > LAYOUT_COUNT {
        return Err(ViewError::Range {
            start: range.start,
            end: range.end,
        });
    }
    let unknown: Vec<u32> = view.unknown_cards().iter().map(|c| c.bit()).collect();
    let declarer = view.declarer().index();
    let subset_seat = view.subset_seat().index();
    let rest_seat = view.declarer().next().index();
    let table: Vec<u8> = view.played().iter().map(|c| c.id()).collect();
    let choose = view.declarer_chooses_opening();
    let strain = view.contract().strain;
    let openings: Vec<u8> = view.hand().iter().map(|c| c.id()).collect();
    let mut guesses = [5i32; 10];
    let mut done = 0;
    for (index, subset) in order.layouts(range) {
        let mut hands = [0u32; 3];
        hands[declarer] = view.hand().0;
        for (i, &bit) in unknown.iter().enumerate() {
            if subset & (1 << i) != 0 {
                hands[subset_seat] |= bit;
            } else {
                hands[rest_seat] |= bit;
            }
        }
        let raw = RawPosition {
            hands,
            table: &table,
            leader: view.leader().index(),
            declarer,
        };
        let mut tricks = TricksPerOpening {
            len: 1,
            values: [0; 10],
        };
        if choose {
            let values = solver.card_values_raw(strain, raw, guesses[0]);
            tricks.len = openings.len() as u8;
            for (slot, &c) in tricks.values.iter_mut().zip(&openings) {
                *slot = values[usize::from(c)];
            }
            guesses[0] = i32::from(tricks.values[0]);
        } else {
            tricks.values[0] = solver.solve_raw(strain, raw, guesses[0]);
            guesses[0] = i32::from(tricks.values[0]);
        }
        done += 1;
        if on_result(LayoutResult { index, tricks }).is_break() {
            break;
        }
    }
    Ok(done)
}

/// The layout order for workers with a table each that split all layouts between
/// them, in parts whose layouts share few positions.
///
/// Its group (see [`LayoutOrder`]) is every unknown card of one suit other than
/// trumps: the one with the most unknown cards, then with the most of the
/// declarer's, then the first in suit order. So the halves differ in how many cards
/// of that suit each defender holds, and a position of one half meets one of the
/// other only once a defender has discarded from it or it is played out. Trumps,
/// drawn early, split worst: with each half solved on a table of its own, the
/// whole's nodes against the slower half's were 1.35, 0.94 and 1.40 with trumps on
/// preferansRu1, Ru4 and solvealldeals3, 1.63-1.76, 1.08-1.46 and 1.95-1.96 with
/// the other suits.
///
/// The other cards are numbered first, those whose holders divide the layouts into
/// parts that share the fewest positions first: cards alone between two of the
/// declarer's cards of their suit (or a suit's end), at the top of the suit in
/// trump and no-trump games, at the bottom in misère; then cards with the fewest
/// unknown cards beside them; ties in card order. That numbering alone was the
/// split order before groups: measured on all layouts, the two halves each solved
/// with a table of its own against the whole on one table, in nodes, preferansRu1
/// 1.07 (the ace of hearts first; the standard order, the ace of spades first:
/// 1.22), Ru5 1.06 (the seven of hearts; 1.21), Ru7 1.09 (the ace of clubs; 1.31).
/// But the halves could cost very different amounts (preferansRu7: 819 and 537
/// nodes per layout), the faster worker then took over part of the other half with a
/// cold table, and no first card let 2 workers with a table each reach more than
/// 1.65× one on preferansRu7 (each of its 20 unknown cards tried first).
///
/// Replaying the coordinator's leases (4,096-layout chunks) for 2 workers with a
/// table each of 128 MB on all layouts, nodes standing for time, against one worker
/// in the same order (the numbering alone -> with the group):
/// - preferansRu7 1.58× -> 1.80×, Ru4 1.44× -> 1.90×, Ru3 1.49× -> 1.96×, Ru6
///   1.74× -> 1.86×, Ru5 1.75× -> 1.77×, solvealldeals1-1 1.78× -> 1.85×,
///   solvealldeals1-2 1.91× -> 1.92×, solvealldeals2 1.85× -> 2.01×; lower on
///   solvealldeals3 (1.73× -> 1.62×, but its one worker took 14% fewer nodes and 2
///   workers 8% fewer) and Ru1 (2.14× -> 1.96×, 2 workers 5% more nodes);
/// - the ten's later finishes together 835.5 -> 769.9 nodes per layout (-7.9%),
///   one worker 1,414.0 -> 1,399.6;
/// - 26 random views (random hands, talons, contracts and leaders): the later
///   finishes together 3,526.6 -> 3,150.6 nodes per layout (-10.7%; fewer on 22
///   views, at most 13% more on the other 4), one worker 5,966.0 -> 5,819.8 (-2.5%;
///   over 5% more on 7 views); 2 workers against one higher on 25 views, the
///   median 1.74× -> 1.87×, the least 1.42× -> 1.65×, 20 views below 1.8× -> 4.
///
/// The order alone moves a whole run's nodes by up to a third (preferansRu4: 102.3
/// per layout with the aces first and the sevens last, 150.6 in the standard order),
/// but no fixed order does better in general. Against the standard order on all
/// layouts of 54 random trump and no-trump views, by rank across suits (aces first)
/// took 4.0% more nodes, the standard reversed 1.1% more, the suits reversed 0.5%
/// more; the best of the four for each view would save 2.3%. On six random misère
/// views the suits reversed took 10% fewer, but not on the ten's four misère
/// problems (Ru5 +2.5%, Ru6 +3.1%).
pub fn split_order(view: &DeclarerView) -> LayoutOrder {
    let unknown = view.unknown_cards();
    let unknown_set = unknown.iter().fold(Cards::EMPTY, |set, &c| set.with(c));
    // The declarer's cards in play divide each suit into runs of unknown cards.
    let declarer = view
        .played()
        .iter()
        .fold(view.hand(), |set, &c| set.with(c));
    let misere = view.contract().strain.is_misere();
    let key = |card: Card| {
        let suit = card.suit().cards().0;
        let above = declarer.0 & suit & (card.bit() - 1);
        let below = declarer.0 & suit & !(card.bit() << 1).wrapping_sub(1);
        // The suit's cards strictly between the nearest declarer's cards around it.
        let from = if above == 0 {
            0
        } else {
            32 - above.leading_zeros()
        };
        let to = if below == 0 {
            32
        } else {
            below.trailing_zeros()
        };
        let between = suit & (u64::from(u32::MAX) << from) as u32 & ((1u64 << to) - 1) as u32;
        let run = (between & unknown_set.0).count_ones();
        let at_preferred_end = if misere { below == 0 } else { above == 0 };
        (run, !at_preferred_end)
    };
    let mut cards: Vec<u32> = (0..unknown.len() as u32).collect();
    // A stable sort: ties stay in card order.
    cards.sort_by_key(|&i| key(unknown[i as usize]));
    // The group: the suit other than trumps with the most unknown cards, then with the
    // most of the declarer's; its cards go last, in the order above.
    let trumps = match view.contract().strain {
        Strain::Trump(suit) => Some(suit),
        _ => None,
    };
    let group_suit = Suit::ALL
        .into_iter()
        .filter(|&suit| Some(suit) != trumps)
        .rev()
        .max_by_key(|&suit| {
            let held = |set: Cards| set.suit(suit).len();
            (held(unknown_set), held(declarer))
        })
        .expect("three suits at least");
    cards.sort_by_key(|&i| unknown[i as usize].suit() == group_suit);
    let group = unknown_set.suit(group_suit).len() as u32;
    LayoutOrder::new(&cards, group).expect("a permutation of the unknown cards")
}

/// Layouts a thread takes at a time. Neighbouring layouts share many positions, so
/// the threads work on neighbouring blocks and share one table. Blocks of 64 cost
/// more nodes on 2 threads: solvealldeals3 took 140.1 nodes per layout against 126.2
/// with blocks of 512 (one thread: 121.0), and 1.62 s against 1.36 s (one thread:
/// 2.50 s; medians of 5 alternating runs). Blocks of 2,048 did no better, and a
/// longer block leaves one thread idle longer at the end.
const BLOCK: u32 = 512;

/// The order an analysis of the layouts of `range` solves them in: all layouts in
/// their [`split_order`], a part of them in the standard order (where positions are
/// layout indices). Neighbours in the split order share more positions, for one
/// thread too: on all layouts of the 60 views of `bench preferans --random 60`, one
/// thread, against the standard order (nodes per layout, CPU seconds, both orders at
/// once on the two cores):
/// - misère: seed 7 (6 views) 1,299.4 -> 1,217.6 (-6.3%), 59.92 -> 52.96 s; seed 11
///   (10 views) -7.4%, 117.31 -> 100.60 s; seed 101 (10 views) -12.9%, 148.41 ->
///   121.80 s;
/// - no-trump: -0.1% to -1.8% nodes, 0.6-6.3% less CPU; trump: -0.2% to -3.3%
///   nodes, 3.8-10.6% less CPU (some views more: up to 44% more nodes on one of
///   0.2 s).
pub fn analysis_order(view: &DeclarerView, range: &Range<u32>) -> LayoutOrder {
    if *range == (0..LAYOUT_COUNT) {
        split_order(view)
    } else {
        LayoutOrder::STANDARD
    }
}

/// Solves `range` on `threads` threads and aggregates. The threads share one table of
/// the default size and take blocks of neighbouring layouts in the
/// [`analysis_order`], so each finds in the table what the others just stored (as
/// one thread would). `progress` receives the running total of layouts solved, every
/// 256 layouts per thread and at the end.
pub fn solve_all_foe(
    view: &DeclarerView,
    range: Range<u32>,
    threads: usize,
    progress: impl Fn(u32) + Sync,
) -> Result<Analysis, ViewError> {
    solve_all_foe_with(
        view,
        analysis_order(view, &range),
        range,
        threads,
        DEFAULT_TT_BYTES,
        progress,
    )
}

/// [`solve_all_foe`] for the layouts at positions `range` of `order` (as
/// [`solve_layouts_in`]), with an explicit size of the shared table.
pub fn solve_all_foe_with(
    view: &DeclarerView,
    order: LayoutOrder,
    range: Range<u32>,
    threads: usize,
    tt_bytes: usize,
    progress: impl Fn(u32) + Sync,
) -> Result<Analysis, ViewError> {
    if range.start > range.end || range.end > LAYOUT_COUNT {
        return Err(ViewError::Range {
            start: range.start,
            end: range.end,
        });
    }
    let threads = threads.clamp(1, 64);
    // Every thread's solver shares this one's table.
    let table_owner = Solver::new(tt_bytes);
    let next_block = AtomicU32::new(range.start);
    let total = AtomicU32::new(0);
    let results: Vec<Result<Analysis, ViewError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (table_owner, next_block, total, progress) =
                    (&table_owner, &next_block, &total, &progress);
                scope.spawn(move || {
                    let mut solver = table_owner.share_table();
                    let mut analysis = Analysis::new(view);
                    let mut pending = 0;
                    loop {
                        let start = next_block.fetch_add(BLOCK, Ordering::Relaxed);
                        if start >= range.end {
                            break;
                        }
                        let end = (start + BLOCK).min(range.end);
                        solve_layouts_in(&mut solver, view, order, start..end, |r| {
                            analysis.add(&r);
                            pending += 1;
                            if pending == 256 {
                                progress(total.fetch_add(pending, Ordering::Relaxed) + pending);
                                pending = 0;
                            }
                            ControlFlow::Continue(())
                        })?;
                    }
                    if pending > 0 {
                        progress(total.fetch_add(pending, Ordering::Relaxed) + pending);
                    }
                    Ok(analysis)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut analysis = Analysis::new(view);
    for r in results {
        analysis.merge(&r?);
    }
    Ok(analysis)
}
