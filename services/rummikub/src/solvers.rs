//! Solver reuse, with the solvers' memory bounded and counted in the
//! server's in-flight memory budget.
//!
//! A solver holds its tables (fixed by the rule set, at most
//! [`MAX_TABLE_BYTES`]) and a memo that grows with the hardest query it has
//! run and is kept for the next one. So that this memory is bounded:
//! * a solver at work may grow its memo to at most `memo_limit` (a harder
//!   query clears it and goes on: it costs time, not memory); at most one
//!   solver is at work per CPU-pool job, so at most `pool::size()` at once,
//!   and that much is reserved from the in-flight budget for as long as the
//!   service lives;
//! * idle solvers for the standard rules are kept for reuse, at most `keep`
//!   of them, each with its memo shrunk back to the starting size, and each
//!   holds a reservation of its memory from the in-flight budget while it
//!   waits (when the budget has no room, the solver is dropped instead).
//!
//! Solvers for other rule sets are built per request and not kept.

use std::sync::Mutex;

use deckhand::budget::{MemoryBudget, Reservation};
use deckhand::pool;
use deckhand_rummikub::{Error, RuleSet, Solver};

/// The most memory a solver's tables take, for any supported rule set
/// (measured: 1,222,445 bytes for 4 copies and 4 jokers; a test checks every
/// rule-set shape).
pub(crate) const MAX_TABLE_BYTES: usize = 1280 << 10;
/// A memo starts at 128 KiB; kept solvers shrink back to that.
const MEMO_START_BYTES: usize = 128 << 10;
/// Bounds of the memo limit of a solver at work. Below about 2 MiB some wide
/// rule sets search hundreds of times longer.
const MEMO_LIMIT_MAX: usize = 8 << 20;
const MEMO_LIMIT_MIN: usize = 2 << 20;

/// A solver kept for reuse and the budget it holds.
struct Kept {
    solver: Solver,
    _reserved: Reservation,
}

/// Solvers for the standard rules, checked out by one query at a time.
pub(crate) struct SolverPool {
    idle: Mutex<Vec<Kept>>,
    keep: usize,
    memo_limit: usize,
    budget: MemoryBudget,
    /// The memory of the solvers at work, reserved while the pool lives
    /// (`None` when the in-flight budget is too small to hold it).
    _at_work: Option<Reservation>,
}

impl std::fmt::Debug for SolverPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverPool")
            .field("idle", &self.idle().len())
            .field("keep", &self.keep)
            .field("memo_limit", &self.memo_limit)
            .finish()
    }
}

impl SolverPool {
    /// A pool keeping at most `keep` idle solvers, its memory counted in `budget`.
    pub(crate) fn new(keep: usize, budget: MemoryBudget) -> SolverPool {
        // The solvers at work take at most a quarter of the in-flight budget.
        let share = budget.inflight_limit() / 4 / pool::size();
        let memo_limit = share
            .saturating_sub(MAX_TABLE_BYTES)
            .clamp(MEMO_LIMIT_MIN, MEMO_LIMIT_MAX);
        let at_work = budget.take(pool::size() * (MAX_TABLE_BYTES + memo_limit));
        SolverPool {
            idle: Mutex::new(Vec::new()),
            keep,
            memo_limit,
            budget,
            _at_work: at_work,
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        // A panic while holding the lock cannot leave the Vec inconsistent.
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The most a solver at work may hold.
    #[cfg(test)]
    pub(crate) fn solver_limit(&self) -> usize {
        MAX_TABLE_BYTES + self.memo_limit
    }

    /// A solver for `rules`: a pooled one for the standard rules, else a new one.
    pub(crate) fn take(&self, rules: RuleSet) -> Result<Solver, Error> {
        if rules == RuleSet::default() {
            if let Some(kept) = self.idle().pop() {
                return Ok(kept.solver);
            }
        }
        let mut solver = Solver::new(rules)?;
        solver.set_memo_limit(self.memo_limit);
        Ok(solver)
    }

    /// Returns a solver; only standard-rules solvers are kept, at most `keep`,
    /// and only while the in-flight budget has room for them.
    pub(crate) fn give(&self, mut solver: Solver) {
        if *solver.rules() != RuleSet::default() {
            return;
        }
        let mut idle = self.idle();
        if idle.len() >= self.keep {
            return;
        }
        solver.shrink_memo(MEMO_START_BYTES);
        if let Some(reserved) = self.budget.take(solver.memory_bytes()) {
            idle.push(Kept {
                solver,
                _reserved: reserved,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deckhand_rummikub::{parse_tiles, Colour, RawRules, Tile};

    fn budget(inflight: usize) -> MemoryBudget {
        MemoryBudget::new(inflight, inflight, 16 << 20)
    }

    #[test]
    fn pool_keeps_only_standard_solvers() {
        let pool = SolverPool::new(1, MemoryBudget::default());
        let a = pool.take(RuleSet::default()).unwrap();
        let b = pool.take(RuleSet::default()).unwrap();
        let odd = pool
            .take(
                RuleSet::try_from(RawRules {
                    numbers: 9,
                    ..RawRules::default()
                })
                .unwrap(),
            )
            .unwrap();
        pool.give(a);
        pool.give(b);
        pool.give(odd);
        assert_eq!(pool.idle().len(), 1);
    }

    #[test]
    fn solvers_at_work_and_kept_solvers_hold_the_in_flight_budget() {
        let budget = budget(256 << 20);
        let pool = SolverPool::new(4, budget.clone());
        let at_work = pool::size() * pool.solver_limit();
        assert_eq!(budget.in_flight(), at_work);
        let mut solvers: Vec<Solver> = (0..6)
            .map(|_| pool.take(RuleSet::default()).unwrap())
            .collect();
        let tiles = parse_tiles("k1 k2 k3 b5 o5 r5 J").unwrap();
        for solver in &mut solvers {
            assert!(solver.arrange(&tiles).unwrap().is_some());
        }
        let each = solvers[0].memory_bytes();
        for solver in solvers {
            pool.give(solver);
        }
        // Four kept, each counted; the others dropped.
        assert_eq!(pool.idle().len(), 4);
        assert_eq!(budget.in_flight(), at_work + 4 * each);
        // Taking one out gives its reservation back.
        let solver = pool.take(RuleSet::default()).unwrap();
        assert_eq!(budget.in_flight(), at_work + 3 * each);
        drop(solver);
        drop(pool);
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn a_full_budget_drops_solvers_instead_of_keeping_them() {
        let budget = budget(64 << 20);
        let pool = SolverPool::new(4, budget.clone());
        let solver = pool.take(RuleSet::default()).unwrap();
        let _rest = budget
            .take(budget.inflight_limit() - budget.in_flight())
            .expect("the rest of the budget");
        pool.give(solver);
        assert_eq!(pool.idle().len(), 0);
    }

    #[test]
    fn a_kept_solver_gives_a_grown_memo_back() {
        let pool = SolverPool::new(1, MemoryBudget::default());
        let wide = RuleSet::try_from(RawRules {
            numbers: 31,
            colours: 8,
            copies: 4,
            jokers: 4,
            ..RawRules::default()
        })
        .unwrap();
        // A solver at work never holds more than its limit, though these
        // draws grow an unlimited memo to about 16 MiB.
        let mut solver = pool.take(wide).unwrap();
        let game: Vec<Tile> = Colour::ALL
            .iter()
            .flat_map(|&c| (1..=31).map(move |n| Tile::new(c, n).unwrap()))
            .flat_map(|t| [t; 4])
            .chain([Tile::JOKER; 4])
            .collect();
        let mut state = 12345u64;
        for _ in 0..3 {
            let draw: Vec<Tile> = game
                .iter()
                .copied()
                .filter(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    !state.is_multiple_of(4)
                })
                .collect();
            solver.arrange(&draw).unwrap();
            assert!(solver.memory_bytes() <= pool.solver_limit());
        }
        // A standard solver whose memo grew shrinks back before it is kept.
        let mut standard = pool.take(RuleSet::default()).unwrap();
        let before = standard.memory_bytes();
        let rack = parse_tiles(
            "k1 k1 k2 k2 k3 k3 k4 k6 k8 k8 k9 k10 k10 k12 k13 k13 b1 b1 b2 b2 b4 b5 b6 b7 b8 b9 \
             b9 b11 b12 b12 b13 o1 o2 o3 o3 o4 o4 o5 o6 o10 o11 o11 o12 o12 r1 r1 r2 r3 r3 r4 \
             r4 r5 r5 r6 r6 r7 r7 r8 r8 r9 r9 r10 r11 r12 r13 r13 J J",
        )
        .unwrap();
        standard
            .best_move(&[], &rack, deckhand_rummikub::Objective::MaxValue, false)
            .unwrap();
        assert!(standard.memory_bytes() > before, "the memo grew");
        pool.give(standard);
        let kept = pool.idle().pop().unwrap().solver;
        assert_eq!(kept.memory_bytes(), before);
    }

    #[test]
    fn every_rule_set_shape_fits_the_table_bound() {
        // Numbers and colours only widen the packed state, not the tables;
        // one colour makes the most shapes supported.
        let mut largest = 0;
        for copies in 1..=4 {
            for jokers in 0..=4 {
                for min_len in 2..=6 {
                    for allow_redundant_jokers in [true, false] {
                        let rules = RuleSet::try_from(RawRules {
                            colours: 1,
                            copies,
                            jokers,
                            min_len,
                            allow_redundant_jokers,
                            ..RawRules::default()
                        })
                        .unwrap();
                        if let Ok(solver) = Solver::new(rules) {
                            let tables = solver.memory_bytes() - MEMO_START_BYTES;
                            largest = largest.max(tables);
                            assert!(tables <= MAX_TABLE_BYTES, "{rules:?}: {tables}");
                        }
                    }
                }
            }
        }
        eprintln!("largest tables: {largest} bytes");
    }
}
