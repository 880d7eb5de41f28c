//! One all-foe analysis: its chunks of layouts, who holds them, and the results
//! keyed by layout index (so a chunk solved twice is counted once).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;
use std::time::Instant;

use deckhand_preferans::{Contract, DeclarerView, Histogram, Strain};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// State of one chunk of layouts.
#[derive(Debug, Clone, Default)]
struct Chunk {
    /// Workers currently solving it (two near the end of a job: first answer wins).
    holders: Vec<String>,
    /// Layouts of the chunk not solved yet.
    missing: u32,
}

/// What a job needs to know about a finished piece of a worker's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// New layouts were stored; the chunk is not finished.
    Progress,
    /// The chunk is finished (by this answer or an earlier duplicate).
    ChunkDone,
}

struct State {
    chunks: Vec<Chunk>,
    /// Declarer tricks per (layout - range.start, opening); valid where `solved`.
    tricks: Vec<u8>,
    solved: Vec<bool>,
    solved_count: u64,
    /// Layouts solved per worker address.
    share: BTreeMap<String, u64>,
}

/// One analysis in flight.
pub struct Job {
    pub id: u64,
    /// The request's view, forwarded to workers as is.
    pub view: DeclarerView,
    pub strain: Strain,
    pub contract: Contract,
    pub range: Range<u32>,
    pub chunk_size: u32,
    pub openings: Vec<String>,
    pub started: Instant,
    /// Cancelled when the client goes away: workers stop its chunks.
    pub cancel: CancellationToken,
    /// Notified when the last layout is solved.
    pub finished: Notify,
    state: Mutex<State>,
}

/// The final answer of a job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    pub layouts: u32,
    pub histograms: Vec<(String, Histogram)>,
}

impl Job {
    pub fn new(
        id: u64,
        view: DeclarerView,
        strain: Strain,
        contract: Contract,
        range: Range<u32>,
        chunk_size: u32,
        openings: Vec<String>,
    ) -> Job {
        let len = range.end - range.start;
        let chunk_size = chunk_size.max(1);
        let chunks = (0..len.div_ceil(chunk_size))
            .map(|i| Chunk {
                holders: Vec::new(),
                missing: chunk_size.min(len - i * chunk_size),
            })
            .collect();
        Job {
            id,
            view,
            strain,
            contract,
            chunk_size,
            started: Instant::now(),
            cancel: CancellationToken::new(),
            finished: Notify::new(),
            state: Mutex::new(State {
                chunks,
                tricks: vec![0; len as usize * openings.len()],
                solved: vec![false; len as usize],
                solved_count: 0,
                share: BTreeMap::new(),
            }),
            openings,
            range,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn total(&self) -> u64 {
        u64::from(self.range.end - self.range.start)
    }

    /// Layout range of chunk `i`.
    pub fn chunk_range(&self, i: usize) -> Range<u32> {
        let start = self.range.start + i as u32 * self.chunk_size;
        start..(start + self.chunk_size).min(self.range.end)
    }

    /// Takes the first chunk nobody holds for `worker`.
    pub fn lease_pending(&self, worker: &str) -> Option<usize> {
        let mut state = self.state();
        let i = state
            .chunks
            .iter()
            .position(|c| c.missing > 0 && c.holders.is_empty())?;
        state.chunks[i].holders.push(worker.to_string());
        Some(i)
    }

    /// Near the end: a second lease of an unfinished chunk held by exactly one
    /// other worker (a slow worker must not hold up the end of the job).
    pub fn lease_duplicate(&self, worker: &str) -> Option<usize> {
        let mut state = self.state();
        if state
            .chunks
            .iter()
            .any(|c| c.missing > 0 && c.holders.is_empty())
        {
            return None;
        }
        let i = state
            .chunks
            .iter()
            .position(|c| c.missing > 0 && c.holders.len() == 1 && c.holders[0] != worker)?;
        state.chunks[i].holders.push(worker.to_string());
        Some(i)
    }

    /// Whether some chunk is waiting for a worker.
    pub fn has_pending(&self) -> bool {
        self.state()
            .chunks
            .iter()
            .any(|c| c.missing > 0 && c.holders.is_empty())
    }

    /// Leases currently out.
    pub fn leases(&self) -> usize {
        self.state().chunks.iter().map(|c| c.holders.len()).sum()
    }

    /// `worker` gives chunk `i` back (finished, failed or abandoned). Returns
    /// true when the chunk is unfinished and nobody holds it any more.
    pub fn release(&self, i: usize, worker: &str) -> bool {
        let mut state = self.state();
        let Some(chunk) = state.chunks.get_mut(i) else {
            return false;
        };
        if let Some(at) = chunk.holders.iter().position(|h| h == worker) {
            chunk.holders.swap_remove(at);
        }
        chunk.missing > 0 && chunk.holders.is_empty()
    }

    /// Stores a worker's answer for layouts `start..start + count` of chunk `i`.
    /// Layouts already solved keep their first answer.
    pub fn record(
        &self,
        i: usize,
        worker: &str,
        start: u32,
        count: u32,
        tricks: &[u8],
    ) -> Result<Recorded, String> {
        let chunk = self.chunk_range(i);
        let n = self.openings.len();
        let end = start.checked_add(count).ok_or("layout range overflows")?;
        if start < chunk.start || end > chunk.end || tricks.len() != count as usize * n {
            return Err(format!(
                "answer for layouts {start}..{end} with {} bytes does not fit chunk {}..{} x {n} openings",
                tricks.len(),
                chunk.start,
                chunk.end
            ));
        }
        if tricks.iter().any(|&t| t > 10) {
            return Err("answer holds a trick count above 10".into());
        }
        let mut state = self.state();
        let mut fresh = 0u32;
        for (k, layout) in (start..end).enumerate() {
            let at = (layout - self.range.start) as usize;
            if !state.solved[at] {
                state.solved[at] = true;
                state.tricks[at * n..(at + 1) * n].copy_from_slice(&tricks[k * n..(k + 1) * n]);
                fresh += 1;
            }
        }
        state.solved_count += u64::from(fresh);
        *state.share.entry(worker.to_string()).or_default() += u64::from(fresh);
        let chunk = &mut state.chunks[i];
        chunk.missing -= fresh.min(chunk.missing);
        let done = chunk.missing == 0;
        if state.solved_count == self.total() {
            self.finished.notify_one();
        }
        Ok(if done {
            Recorded::ChunkDone
        } else {
            Recorded::Progress
        })
    }

    pub fn is_chunk_done(&self, i: usize) -> bool {
        self.state().chunks.get(i).is_none_or(|c| c.missing == 0)
    }

    pub fn solved(&self) -> u64 {
        self.state().solved_count
    }

    pub fn is_finished(&self) -> bool {
        self.solved() == self.total()
    }

    /// Layouts solved per worker.
    pub fn share(&self) -> BTreeMap<String, u64> {
        self.state().share.clone()
    }

    /// The histograms per opening (meaningful once finished).
    pub fn result(&self) -> JobResult {
        let state = self.state();
        let n = self.openings.len();
        let mut histograms: Vec<(String, Histogram)> = self
            .openings
            .iter()
            .map(|o| (o.clone(), Histogram::default()))
            .collect();
        for (layout, _) in state.solved.iter().enumerate().filter(|(_, s)| **s) {
            for (j, (_, h)) in histograms.iter_mut().enumerate() {
                h.add(state.tricks[layout * n + j]);
            }
        }
        JobResult {
            layouts: state.solved_count as u32,
            histograms,
        }
    }
}
