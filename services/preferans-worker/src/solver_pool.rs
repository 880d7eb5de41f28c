//! The worker's long-lived solvers, with strain affinity.
//!
//! The pool slots' [`Solver`]s share one transposition table that survives
//! between requests. Its entries are tagged with their strain, so nothing is
//! cleared when the strain changes, and with the cards out of play, so an earlier
//! analysis's entries are the first replaced by the next one's. A lease still
//! prefers an idle slot that last solved the request's strain (its move-ordering
//! history is warm if that was the same analysis; a solver starts it afresh for
//! another one), and the coordinator gives a worker neighbouring chunks, whose
//! positions the shared table then serves to every slot. The table's size in use is
//! reset when an analysis of another view begins on an idle pool
//! (`SolverPool::begin_analysis`).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use deckhand::preferans::strain_name;
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::{DeclarerView, Solver, Strain, TableFileError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// One long-lived solver and its counters.
pub(crate) struct Slot {
    pub(crate) solver: Mutex<Solver>,
    pub(crate) busy: AtomicBool,
    pub(crate) layouts: AtomicU64,
    /// The strain this slot solved last, readable while the solver is busy.
    pub(crate) held: Mutex<Option<Strain>>,
    /// Table fill after the last piece of work (f64 bits).
    pub(crate) fill: AtomicU64,
    /// Table probes and hits, as of the last piece of work.
    pub(crate) probes: AtomicU64,
    pub(crate) hits: AtomicU64,
    /// Search nodes, as of the last piece of work.
    pub(crate) nodes: AtomicU64,
    /// Bytes of the table in use, as of the last piece of work.
    pub(crate) table_bytes_in_use: AtomicU64,
}

/// The worker's solvers; a semaphore counts the idle ones.
pub struct SolverPool {
    pub(crate) slots: Vec<Slot>,
    idle: Arc<Semaphore>,
    table_bytes: usize,
    /// For a table file, its identity (see [`shared_table_identity`]).
    shared_table: Option<String>,
    /// The view of the last request for layouts (see [`SolverPool::begin_analysis`]).
    last_view: Mutex<Option<Arc<DeclarerView>>>,
    /// How often the table was returned to its first size.
    pub(crate) table_shrinks: AtomicU64,
}

/// A slot checked out of the pool; returned when dropped.
pub(crate) struct Lease {
    pub(crate) pool: Arc<SolverPool>,
    pub(crate) index: usize,
    _permit: OwnedSemaphorePermit,
}

impl Slot {
    pub(crate) fn held(&self) -> Option<Strain> {
        *self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `work` on this slot's solver, then records what its table holds.
    pub(crate) fn with_solver<T>(&self, strain: Strain, work: impl FnOnce(&mut Solver) -> T) -> T {
        let mut solver = self.solver.lock().unwrap_or_else(|p| p.into_inner());
        *self.held.lock().unwrap_or_else(|p| p.into_inner()) = Some(strain);
        let result = work(&mut solver);
        let stats = solver.stats();
        let fill = stats.tt_used as f64 / stats.tt_capacity.max(1) as f64;
        self.fill.store(fill.to_bits(), Ordering::Relaxed);
        self.probes.store(stats.tt_probes, Ordering::Relaxed);
        self.hits.store(stats.tt_hits, Ordering::Relaxed);
        self.nodes.store(stats.nodes, Ordering::Relaxed);
        self.table_bytes_in_use
            .store(stats.tt_bytes_in_use as u64, Ordering::Relaxed);
        result
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.pool.slots[self.index]
            .busy
            .store(false, Ordering::Release);
    }
}

impl SolverPool {
    /// `threads` solvers sharing one table of `table_bytes_per_thread` × `threads`.
    pub fn new(threads: usize, table_bytes_per_thread: usize) -> Arc<SolverPool> {
        let table_bytes = table_bytes(threads, table_bytes_per_thread);
        SolverPool::with_solver(threads, Solver::new(table_bytes), table_bytes, None)
    }

    /// As [`SolverPool::new`], on the table file at `path`, which other workers on this
    /// host may share (see [`Solver::with_table_file`]).
    pub fn with_table_file(
        threads: usize,
        table_bytes_per_thread: usize,
        path: &Path,
    ) -> Result<Arc<SolverPool>, TableFileError> {
        let table_bytes = table_bytes(threads, table_bytes_per_thread);
        let solver = Solver::with_table_file(path, table_bytes)?;
        let shared_table = shared_table_identity(path);
        Ok(SolverPool::with_solver(
            threads,
            solver,
            table_bytes,
            Some(shared_table),
        ))
    }

    /// `threads` solvers on the table of `first`.
    fn with_solver(
        threads: usize,
        first: Solver,
        table_bytes: usize,
        shared_table: Option<String>,
    ) -> Arc<SolverPool> {
        let threads = threads.max(1);
        let mut solvers = vec![first];
        while solvers.len() < threads {
            solvers.push(solvers[0].share_table());
        }
        Arc::new(SolverPool {
            slots: solvers
                .into_iter()
                .map(|solver| Slot {
                    solver: Mutex::new(solver),
                    busy: AtomicBool::new(false),
                    layouts: AtomicU64::new(0),
                    held: Mutex::new(None),
                    fill: AtomicU64::new(0),
                    probes: AtomicU64::new(0),
                    hits: AtomicU64::new(0),
                    nodes: AtomicU64::new(0),
                    table_bytes_in_use: AtomicU64::new(0),
                })
                .collect(),
            idle: Arc::new(Semaphore::new(threads)),
            table_bytes,
            shared_table,
            last_view: Mutex::new(None),
            table_shrinks: AtomicU64::new(0),
        })
    }

    /// Called as a request for layouts of `view` begins. The first request of another
    /// view than the last one's, while no slot is busy, returns the table to the size a
    /// new table starts at ([`Solver::shrink_table`]): an analysis that grew the table
    /// left it large, and a large table costs the next analysis time per node unless
    /// that one needs the room (it then grows the table again). Not for a table file,
    /// which other workers' analyses may be using. Returns whether it asked the table to
    /// shrink (which does nothing to a table that never grew).
    pub(crate) fn begin_analysis(&self, view: &Arc<DeclarerView>) -> bool {
        let mut last = self.last_view.lock().unwrap_or_else(|p| p.into_inner());
        if last.as_deref() == Some(&**view) {
            return false;
        }
        *last = Some(view.clone());
        let busy = self.slots.iter().any(|s| s.busy.load(Ordering::Acquire));
        if busy || self.shared_table.is_some() {
            return false;
        }
        // An idle slot's solver is free (one leased since is passed over).
        let Some(solver) = self.slots.iter().find_map(|s| s.solver.try_lock().ok()) else {
            return false;
        };
        if solver.shrink_table() {
            self.table_shrinks.fetch_add(1, Ordering::Relaxed);
            tracing::info!("table returned to its first size for an analysis of another view");
        }
        true
    }

    pub fn threads(&self) -> usize {
        self.slots.len()
    }

    /// Waits for an idle slot, preferring one whose table already holds `strain`.
    pub(crate) async fn lease(self: &Arc<Self>, strain: Strain) -> Lease {
        let permit = self
            .idle
            .clone()
            .acquire_owned()
            .await
            .expect("the pool semaphore is never closed");
        // A permit guarantees at least one slot is idle.
        let idle: Vec<usize> = (0..self.slots.len())
            .filter(|&i| !self.slots[i].busy.load(Ordering::Acquire))
            .collect();
        let warm = idle
            .iter()
            .copied()
            .find(|&i| self.slots[i].held() == Some(strain));
        let candidates = warm.into_iter().chain(idle);
        for index in candidates {
            if self.slots[index]
                .busy
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Lease {
                    pool: self.clone(),
                    index,
                    _permit: permit,
                };
            }
        }
        unreachable!("a semaphore permit was held but no slot was idle")
    }

    pub(crate) fn status(&self) -> pb::StatusResponse {
        let threads = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, slot)| pb::ThreadStatus {
                thread: i as u32,
                trumps: strain_name(slot.held()),
                table_fill: f64::from_bits(slot.fill.load(Ordering::Relaxed)),
                layouts_solved: slot.layouts.load(Ordering::Relaxed),
                busy: slot.busy.load(Ordering::Relaxed),
                search_nodes: slot.nodes.load(Ordering::Relaxed),
            })
            .collect();
        pb::StatusResponse {
            threads,
            table_bytes: self.table_bytes as u64,
            instance: instance().to_string(),
            shared_table: self.shared_table.clone().unwrap_or_default(),
        }
    }
}

/// The same for every process on this host that opened the file at `path`: the
/// host's boot id, and the file's device and inode (a name may differ, or be reused
/// for another file).
fn shared_table_identity(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    match std::fs::metadata(path) {
        Ok(m) => format!("{}:{}:{}", boot.trim(), m.dev(), m.ino()),
        Err(_) => String::new(),
    }
}

fn table_bytes(threads: usize, table_bytes_per_thread: usize) -> usize {
    table_bytes_per_thread.saturating_mul(threads.max(1))
}

/// This process's identity: its pid and start time, so a restart shows.
fn instance() -> &'static str {
    static INSTANCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    INSTANCE.get_or_init(|| {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!("{}-{}", std::process::id(), started.as_nanos())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::ControlFlow;

    use deckhand_preferans::{solve_layouts, Contract, DeclarerView, Seat, SolverStats};

    /// Solves layouts 0..50 of preferansRu1 on `slot`: the stats before and after.
    fn solve_ru1(slot: &Slot) -> (SolverStats, SolverStats) {
        let contract: Contract = "6S".parse().unwrap();
        let view =
            DeclarerView::from_notation("QT7.KQJ.A*8*7.KQJ", Seat::N, contract, Seat::W).unwrap();
        slot.with_solver(contract.strain, |solver| {
            let before = solver.stats();
            solve_layouts(solver, &view, 0..50, |_| ControlFlow::Continue(())).unwrap();
            (before, solver.stats())
        })
    }

    #[test]
    fn slots_share_one_table_sized_per_thread() {
        let pool = SolverPool::new(2, 1 << 20);
        assert_eq!(pool.status().table_bytes, 2 << 20);
        let (_, first) = solve_ru1(&pool.slots[0]);
        // A table starts with 8 MB of it in use (here all of it).
        assert_eq!(first.tt_bytes_in_use, 8 << 20);
        let in_use = pool.slots[0].table_bytes_in_use.load(Ordering::Relaxed);
        assert_eq!(in_use, 8 << 20);
        // The other slot starts with the entries the first stored, and finds the
        // same layouts almost free.
        let (before, second) = solve_ru1(&pool.slots[1]);
        assert_eq!(before.tt_used, first.tt_used);
        assert!(second.nodes * 4 < first.nodes, "{first:?} {second:?}");
    }

    #[test]
    fn pools_on_one_table_file_share_it() {
        let path = std::env::temp_dir().join(format!("deckhand-pool-{}.table", std::process::id()));
        let _ = std::fs::remove_file(&path);
        // Two pools, each its own mapping of the file, as two worker processes.
        let one = SolverPool::with_table_file(1, 2 << 20, &path).unwrap();
        let other = SolverPool::with_table_file(1, 2 << 20, &path).unwrap();
        assert_eq!(other.status().table_bytes, 2 << 20);
        let (_, first) = solve_ru1(&one.slots[0]);
        let (before, second) = solve_ru1(&other.slots[0]);
        assert_eq!(before.tt_used, first.tt_used);
        assert!(second.nodes * 4 < first.nodes, "{first:?} {second:?}");
        // Both report the same table to the coordinator; a private table reports none.
        assert!(!one.status().shared_table.is_empty());
        assert_eq!(one.status().shared_table, other.status().shared_table);
        assert_eq!(SolverPool::new(1, 1 << 20).status().shared_table, "");
        // Other workers may be solving on the file: another view leaves it as it is.
        assert!(!one.begin_analysis(&spades_view("KQT7.AQJ.KJ*9.A*J")));
        std::fs::remove_file(&path).unwrap();
    }

    fn spades_view(text: &str) -> Arc<DeclarerView> {
        let contract: Contract = "6S".parse().unwrap();
        Arc::new(DeclarerView::from_notation(text, Seat::N, contract, Seat::W).unwrap())
    }

    #[test]
    fn another_view_while_no_slot_is_busy_returns_the_table_to_its_first_size() {
        let pool = SolverPool::new(2, 1 << 20);
        let (ru1, ru4) = (
            spades_view("QT7.KQJ.A*8*7.KQJ"),
            spades_view("KQT7.AQJ.KJ*9.A*J"),
        );
        assert!(pool.begin_analysis(&ru1));
        assert!(!pool.begin_analysis(&ru1), "the same view again");
        assert!(pool.begin_analysis(&ru4));
        // While a slot solves, the table serves that analysis too.
        pool.slots[1].busy.store(true, Ordering::Release);
        assert!(!pool.begin_analysis(&ru1));
        pool.slots[1].busy.store(false, Ordering::Release);
        assert!(!pool.begin_analysis(&ru1), "the same view again");
        assert!(pool.begin_analysis(&ru4));
    }
}
