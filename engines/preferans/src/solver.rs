//! The public solver: a transposition table that persists across solves. Entries are
//! tagged with their strain, so a table serves any strain without clearing, and
//! several solvers (one per thread) may share one table.

use std::path::Path;
use std::sync::Arc;

use super::cards::Card;
use super::contract::Strain;
use super::history::History;
use super::position::Position;
use super::rules;
use super::search::{RawPosition, Search};
use super::table_memory::TableFileError;
use super::tt::{Table, TableHandle, DEFAULT_TT_BYTES};

/// Counters of a solver since creation (table fill since the last clear).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolverStats {
    /// Search nodes visited.
    pub nodes: u64,
    /// Zero-window searches ("can the declarer take t tricks?").
    pub searches: u64,
    pub tt_probes: u64,
    pub tt_hits: u64,
    pub tt_stores: u64,
    /// Occupied table entries.
    pub tt_used: usize,
    pub tt_capacity: usize,
    /// Bytes of the table in use now: it grows when that pays, up to its whole size,
    /// and shrinks back ([`Solver::shrink_table`]).
    pub tt_bytes_in_use: usize,
    /// Number of solve calls.
    pub solves: u64,
}

/// Double-dummy solver with a persistent transposition table.
pub struct Solver {
    tt: TableHandle,
    history: History,
    strain: Option<Strain>,
    /// The cards out of play in the last solve's position.
    out_of_play: Option<u32>,
    nodes: u64,
    searches: u64,
    solves: u64,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new(DEFAULT_TT_BYTES)
    }
}

impl Solver {
    /// A solver whose transposition table uses about `tt_bytes` bytes (rounded down to a
    /// power of two number of 128-byte buckets, at least 8 MB).
    pub fn new(tt_bytes: usize) -> Solver {
        Solver::with_table(Arc::new(Table::new(tt_bytes)))
    }

    /// A solver on the table file at `path` (about `tt_bytes` bytes, created if
    /// missing), which other processes on this host may open too: what any of them
    /// stores, all find, and the entries outlive the processes. Put it on a memory
    /// file system (`/dev/shm`), and let no other program write or truncate it.
    /// Every process opening one file must ask for the same size.
    pub fn with_table_file(path: &Path, tt_bytes: usize) -> Result<Solver, TableFileError> {
        Ok(Solver::with_table(Arc::new(Table::open_file(
            path, tt_bytes,
        )?)))
    }

    /// A solver using `table`, which other solvers may share.
    fn with_table(table: Arc<Table>) -> Solver {
        Solver {
            tt: TableHandle::new(table),
            history: History::default(),
            strain: None,
            out_of_play: None,
            nodes: 0,
            searches: 0,
            solves: 0,
        }
    }

    /// A new solver on this solver's table (for another thread): what either stores,
    /// both find. Each keeps its own move-ordering history and counters.
    pub fn share_table(&self) -> Solver {
        Solver::with_table(self.tt.shared_table())
    }

    /// Sets the strain of the next solves. The table keeps the entries of other
    /// strains (tagged, so never used for this one; replaced first); the move-ordering
    /// history starts afresh.
    pub fn prepare(&mut self, strain: Strain) {
        if self.strain != Some(strain) {
            self.history.clear();
            self.tt.set_strain(strain);
            self.strain = Some(strain);
        }
    }

    /// The strain of the last solves.
    pub fn strain(&self) -> Option<Strain> {
        self.strain
    }

    /// Returns the table to the size a new one uses (for every solver sharing it), for
    /// an analysis of other cards, keeping the entries of that part; the analysis grows
    /// it again if growing pays. An analysis that grew the table leaves it large, and a
    /// larger table costs time per node: fewer probes hit the caches. Other solvers may
    /// be solving meanwhile; they lose only time. Returns whether the table was larger.
    ///
    /// Measured on one solver solving all layouts of the 60 random views of `deckhand
    /// bench preferans --random 60 --seed 7` in turn, the costliest misère view first
    /// (it grows the table to its whole 128 MB), against the same without shrinking,
    /// both at once on one core each: the other 59 views took 94.36 -> 83.79 s (trump
    /// 38.79 -> 32.23 s, no-trump 16.65 -> 14.51 s, misère 38.92 -> 37.05 s), for 3.6%,
    /// 4.1% and 8.5% more nodes; no view took longer.
    pub fn shrink_table(&self) -> bool {
        self.tt.table().shrink()
    }

    /// Empties the table (for every solver sharing it: call it only when none is
    /// solving).
    pub fn clear(&mut self) {
        self.tt.table().clear();
        self.history.clear();
        self.strain = None;
        self.out_of_play = None;
    }

    pub fn stats(&self) -> SolverStats {
        SolverStats {
            nodes: self.nodes,
            searches: self.searches,
            tt_probes: self.tt.probes,
            tt_hits: self.tt.hits,
            tt_stores: self.tt.stores,
            tt_used: self.tt.table().used(),
            tt_capacity: self.tt.capacity(),
            tt_bytes_in_use: self.tt.table().bytes_in_use(),
            solves: self.solves,
        }
    }

    /// Declarer tricks from the current trick (inclusive) to the end, under best play.
    pub fn solve(&mut self, pos: &Position) -> u8 {
        let table: Vec<u8> = pos.played().iter().map(|c| c.id()).collect();
        let raw = raw_position(pos, &table);
        let n = i32::from(pos.tricks_left());
        self.solve_raw(pos.strain(), raw, (n + 1) / 2)
    }

    /// The value (declarer tricks from the current trick on) of every legal card of the
    /// player to move, in card-id order.
    pub fn solve_cards(&mut self, pos: &Position) -> Vec<(Card, u8)> {
        let table: Vec<u8> = pos.played().iter().map(|c| c.id()).collect();
        let raw = raw_position(pos, &table);
        let n = i32::from(pos.tricks_left());
        let values = self.card_values_raw(pos.strain(), raw, (n + 1) / 2);
        let legal = pos.legal_moves();
        legal.iter().map(|c| (c, values[c.id() as usize])).collect()
    }

    /// The start of every solve of `raw` in `strain`: the strain, a new table
    /// generation, and the scope. The position's cards out of play tag the table
    /// entries stored from now on, and a new set of them (another analysis, or a later
    /// trick of a deal) starts the move-ordering history afresh, as a new strain does.
    /// (Kept, another view's history costs its next analysis up to 2.5% more nodes.)
    fn begin_solve(&mut self, strain: Strain, raw: &RawPosition<'_>) {
        self.prepare(strain);
        self.tt.next_generation();
        self.solves += 1;
        let out = out_of_play(raw);
        if self.out_of_play != Some(out) {
            self.history.clear();
            self.tt.set_scope(out);
            self.out_of_play = Some(out);
        }
    }

    pub(crate) fn solve_raw(&mut self, strain: Strain, raw: RawPosition<'_>, guess: i32) -> u8 {
        self.begin_solve(strain, &raw);
        let ply = raw.table.len();
        let n = raw.hands[(raw.leader + ply) % 3].count_ones() as i32;
        let mut search = Search::new(&mut self.tt, &mut self.history, raw, strain);
        let v = search.exact(0, n, guess, |s, t| s.node(ply, t));
        let (nodes, searches) = (search.nodes, search.searches);
        self.tt.finish_solve();
        self.nodes += nodes;
        self.searches += searches;
        v
    }

    /// Values indexed by card id for every legal card of the player to move (other
    /// entries are 0). Equivalent cards are searched once.
    pub(crate) fn card_values_raw(
        &mut self,
        strain: Strain,
        raw: RawPosition<'_>,
        guess: i32,
    ) -> [u8; 32] {
        self.begin_solve(strain, &raw);
        let ply = raw.table.len();
        let p = (raw.leader + ply) % 3;
        let hand = raw.hands[p];
        let n = hand.count_ones() as i32;
        let mut search = Search::new(&mut self.tt, &mut self.history, raw, strain);
        let legal = rules::legal(hand, raw.table.first().copied(), search.trumps);
        let mut values = [0u8; 32];
        let mut guess = guess;
        // Walk each suit from the bottom so a card's equivalent lower neighbour is known.
        let mut last_rep: Option<u8> = None;
        for c in (0..32u8).rev().filter(|&c| legal & (1 << c) != 0) {
            let reps = rules::representatives(1 << c, hand, search.live);
            let v = match last_rep {
                Some(r) if reps == 0 && rules::suit_of(r) == rules::suit_of(c) => {
                    values[r as usize]
                }
                _ => {
                    let v = search.exact(0, n, guess, |s, t| s.play(ply, c, t));
                    guess = i32::from(v);
                    v
                }
            };
            values[c as usize] = v;
            last_rep = Some(c);
        }
        let (nodes, searches) = (search.nodes, search.searches);
        self.tt.finish_solve();
        self.nodes += nodes;
        self.searches += searches;
        values
    }
}

/// The cards in no hand and not on the table.
fn out_of_play(raw: &RawPosition<'_>) -> u32 {
    let on_table = raw.table.iter().fold(0u32, |m, &c| m | 1 << c);
    !(raw.hands[0] | raw.hands[1] | raw.hands[2] | on_table)
}

fn raw_position<'a>(pos: &Position, table: &'a [u8]) -> RawPosition<'a> {
    let h = pos.hands();
    RawPosition {
        hands: [h.n.0, h.e.0, h.w.0],
        table,
        leader: pos.leader().index(),
        declarer: pos.declarer().index(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BySeat, Cards, Contract, DeclarerView, Seat};

    fn history_is_empty(solver: &Solver) -> bool {
        (0..3).all(|p| (0..32).all(|c| solver.history.bonus(p, c) == 0))
    }

    /// Declarer tricks per opening of layouts `0..n` of preferansRu1, and the nodes.
    fn ru1_layouts(solver: &mut Solver, n: u32) -> (Vec<Vec<u8>>, u64) {
        let contract: Contract = "6S".parse().unwrap();
        let view =
            DeclarerView::from_notation("QT7.KQJ.A*8*7.KQJ", Seat::N, contract, Seat::W).unwrap();
        let before = solver.stats().nodes;
        let mut tricks = Vec::new();
        crate::solve_layouts(solver, &view, 0..n, |r| {
            tricks.push(r.tricks.to_vec());
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
        (tricks, solver.stats().nodes - before)
    }

    #[test]
    fn a_table_file_gives_the_same_answers_and_serves_the_next_process() {
        let file = crate::tt::tests::TempTableFile::new("solver");
        let (expected, _) = ru1_layouts(&mut Solver::new(1 << 20), 40);
        let mut first = Solver::with_table_file(&file.0, 1 << 20).unwrap();
        let (tricks, first_nodes) = ru1_layouts(&mut first, 40);
        assert_eq!(tricks, expected);
        drop(first);
        // A solver of a later process on the same file finds the layouts almost free.
        let mut next = Solver::with_table_file(&file.0, 1 << 20).unwrap();
        let (tricks, next_nodes) = ru1_layouts(&mut next, 40);
        assert_eq!(tricks, expected);
        assert!(
            next_nodes * 4 < first_nodes,
            "{first_nodes} then {next_nodes}"
        );
    }

    #[test]
    fn new_cards_out_of_play_start_the_history_afresh() {
        let contract: Contract = "6S".parse().unwrap();
        let view =
            DeclarerView::from_notation("QT7.KQJ.A*8*7.KQJ", Seat::N, contract, Seat::W).unwrap();
        let mut solver = Solver::new(1 << 20);
        let layout = view.layout_hands(0).unwrap();
        let deal = Position::from_full_hands(layout, contract.strain, Seat::N, Seat::W, &[]);
        solver.solve(&deal.unwrap());
        assert!(!history_is_empty(&solver));
        // Same strain, other cards out of play; one trick left, so nothing is recorded.
        let last = BySeat {
            n: Cards(1 << 0),
            e: Cards(1 << 1),
            w: Cards(1 << 2),
        };
        let last = Position::from_full_hands(last, contract.strain, Seat::N, Seat::W, &[]);
        solver.solve(&last.unwrap());
        assert!(history_is_empty(&solver));
    }
}
