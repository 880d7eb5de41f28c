//! Solver reuse: a solver keeps its tables and memo memory between queries,
//! so solvers for the standard rules are kept in a small pool; other rule
//! sets get a solver per request (per batch job).

use std::collections::HashMap;
use std::sync::Mutex;

use deckhand_rummikub::{Error, RuleSet, Solver};

/// Solvers for the standard rules, checked out by one query at a time.
pub(crate) struct SolverPool {
    idle: Mutex<Vec<Solver>>,
    keep: usize,
}

impl std::fmt::Debug for SolverPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverPool")
            .field("idle", &self.idle().len())
            .field("keep", &self.keep)
            .finish()
    }
}

impl SolverPool {
    pub(crate) fn new(keep: usize) -> SolverPool {
        SolverPool {
            idle: Mutex::new(Vec::new()),
            keep,
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Solver>> {
        // A panic while holding the lock cannot leave the Vec inconsistent.
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A solver for `rules`: a pooled one for the standard rules, else a new one.
    pub(crate) fn take(&self, rules: RuleSet) -> Result<Solver, Error> {
        if rules == RuleSet::default() {
            if let Some(solver) = self.idle().pop() {
                return Ok(solver);
            }
        }
        Solver::new(rules)
    }

    /// Returns a solver; only standard-rules solvers are kept, at most `keep`.
    pub(crate) fn give(&self, solver: Solver) {
        if *solver.rules() == RuleSet::default() {
            let mut idle = self.idle();
            if idle.len() < self.keep {
                idle.push(solver);
            }
        }
    }
}

/// Solvers of one batch job, one per rule set; standard ones go back to the pool.
pub(crate) struct Solvers<'a> {
    pool: &'a SolverPool,
    by_rules: HashMap<RuleSet, Solver>,
}

impl<'a> Solvers<'a> {
    pub(crate) fn new(pool: &'a SolverPool) -> Self {
        Solvers {
            pool,
            by_rules: HashMap::new(),
        }
    }

    /// The job's solver for `rules`, built on first use.
    pub(crate) fn get(&mut self, rules: RuleSet) -> Result<&mut Solver, Error> {
        use std::collections::hash_map::Entry;
        match self.by_rules.entry(rules) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(e) => Ok(e.insert(self.pool.take(rules)?)),
        }
    }
}

impl Drop for Solvers<'_> {
    fn drop(&mut self) {
        for (_, solver) in self.by_rules.drain() {
            self.pool.give(solver);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deckhand_rummikub::RawRules;

    #[test]
    fn pool_keeps_only_standard_solvers() {
        let pool = SolverPool::new(1);
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
}
