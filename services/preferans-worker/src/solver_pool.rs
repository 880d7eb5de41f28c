//! The worker's long-lived solvers, with strain affinity.
//!
//! Each pool slot owns one [`Solver`] whose transposition table survives
//! between requests; it is cleared only when a request's strain differs from
//! the one the table holds, so a lease prefers an idle slot whose table
//! already holds the request's strain.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use deckhand::preferans::strain_name;
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::{Solver, Strain};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// One long-lived solver and its counters.
pub(crate) struct Slot {
    pub(crate) solver: Mutex<Solver>,
    pub(crate) busy: AtomicBool,
    pub(crate) layouts: AtomicU64,
    /// What the table holds, readable while the solver is busy.
    pub(crate) held: Mutex<Option<Strain>>,
    /// Table fill after the last piece of work (f64 bits).
    pub(crate) fill: AtomicU64,
    /// Table probes and hits, as of the last piece of work.
    pub(crate) probes: AtomicU64,
    pub(crate) hits: AtomicU64,
}

/// The worker's solvers; a semaphore counts the idle ones.
pub struct SolverPool {
    pub(crate) slots: Vec<Slot>,
    idle: Arc<Semaphore>,
    table_bytes: usize,
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
    /// `threads` solvers with a table of `table_bytes` each (allocated lazily by the OS).
    pub fn new(threads: usize, table_bytes: usize) -> Arc<SolverPool> {
        let threads = threads.max(1);
        Arc::new(SolverPool {
            slots: (0..threads)
                .map(|_| Slot {
                    solver: Mutex::new(Solver::new(table_bytes)),
                    busy: AtomicBool::new(false),
                    layouts: AtomicU64::new(0),
                    held: Mutex::new(None),
                    fill: AtomicU64::new(0),
                    probes: AtomicU64::new(0),
                    hits: AtomicU64::new(0),
                })
                .collect(),
            idle: Arc::new(Semaphore::new(threads)),
            table_bytes,
        })
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
            })
            .collect();
        pb::StatusResponse {
            threads,
            table_bytes: self.table_bytes as u64,
            instance: instance().to_string(),
        }
    }
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
