//! One problem of a job as the scheduler sees it: its chunks, who holds them,
//! and the answers of the chunks in progress, keyed by layout index (so an
//! answer that arrives twice is counted once). A chunk whose layouts are all
//! in leaves memory for the store; the problem's result is summed from there.

use std::ops::Range;
use std::sync::Mutex;

use deckhand_preferans::{Contract, DeclarerView, Strain};

/// State of one chunk of layouts.
#[derive(Debug, Clone, Default)]
struct Chunk {
    /// Workers currently solving it (two near the end of a job: first answer wins).
    holders: Vec<String>,
    /// Layouts of the chunk not solved yet (0: complete, in the store or on its way).
    missing: u32,
    /// While in progress: tricks per (layout - chunk start, opening) and which
    /// layouts are in.
    tricks: Vec<u8>,
    solved: Vec<bool>,
    /// Committed to the store.
    stored: bool,
}

/// What an answer did to its chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// New layouts (this many) were kept; the chunk is not complete.
    Progress(u32),
    /// This answer completed the chunk (`fresh` new layouts): its tricks, to commit.
    Complete { fresh: u32, tricks: Vec<u8> },
    /// The chunk was already complete (a duplicate lease lost the race).
    AlreadyComplete,
}

/// One problem being solved.
pub struct Problem {
    /// Its index in the job's submission order.
    pub index: u32,
    /// The problem's view, validated.
    pub view: DeclarerView,
    pub strain: Strain,
    pub contract: Contract,
    pub range: Range<u32>,
    pub chunk_size: u32,
    pub openings: Vec<String>,
    chunks: Mutex<Vec<Chunk>>,
}

impl Problem {
    /// A problem whose chunks `complete` are already stored.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: u32,
        view: DeclarerView,
        contract: Contract,
        range: Range<u32>,
        chunk_size: u32,
        openings: Vec<String>,
        complete: &[u32],
    ) -> Problem {
        let len = range.end - range.start;
        let chunk_size = chunk_size.max(1);
        let chunks = (0..len.div_ceil(chunk_size))
            .map(|i| Chunk {
                missing: if complete.contains(&i) {
                    0
                } else {
                    chunk_size.min(len - i * chunk_size)
                },
                stored: complete.contains(&i),
                ..Chunk::default()
            })
            .collect();
        Problem {
            index,
            view,
            strain: contract.strain,
            contract,
            range,
            chunk_size,
            openings,
            chunks: Mutex::new(chunks),
        }
    }

    fn chunks(&self) -> std::sync::MutexGuard<'_, Vec<Chunk>> {
        self.chunks.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks().len()
    }

    /// Layout range of chunk `i`.
    pub fn chunk_range(&self, i: usize) -> Range<u32> {
        let start = self.range.start + i as u32 * self.chunk_size;
        start..(start + self.chunk_size).min(self.range.end)
    }

    /// Layouts already complete (stored or on their way).
    pub fn complete_layouts(&self) -> u64 {
        let chunks = self.chunks();
        (0..chunks.len())
            .filter(|&i| chunks[i].missing == 0)
            .map(|i| u64::from(self.chunk_range(i).len() as u32))
            .sum()
    }

    /// Takes the first chunk nobody holds for `worker`.
    pub fn lease_pending(&self, worker: &str) -> Option<usize> {
        let mut chunks = self.chunks();
        let i = chunks
            .iter()
            .position(|c| c.missing > 0 && c.holders.is_empty())?;
        chunks[i].holders.push(worker.to_string());
        Some(i)
    }

    /// When nothing is pending: a second lease of an unfinished chunk held by
    /// exactly one other worker (a slow worker must not hold up the end).
    pub fn lease_duplicate(&self, worker: &str) -> Option<usize> {
        let mut chunks = self.chunks();
        if chunks.iter().any(|c| c.missing > 0 && c.holders.is_empty()) {
            return None;
        }
        let i = chunks
            .iter()
            .position(|c| c.missing > 0 && c.holders.len() == 1 && c.holders[0] != worker)?;
        chunks[i].holders.push(worker.to_string());
        Some(i)
    }

    /// Whether some chunk is waiting for a worker.
    pub fn has_pending(&self) -> bool {
        self.chunks()
            .iter()
            .any(|c| c.missing > 0 && c.holders.is_empty())
    }

    /// Leases currently out.
    pub fn leases(&self) -> usize {
        self.chunks().iter().map(|c| c.holders.len()).sum()
    }

    /// `worker` gives chunk `i` back (finished, failed or abandoned). Returns
    /// true when the chunk is unfinished and nobody holds it any more.
    pub fn release(&self, i: usize, worker: &str) -> bool {
        let mut chunks = self.chunks();
        let Some(chunk) = chunks.get_mut(i) else {
            return false;
        };
        if let Some(at) = chunk.holders.iter().position(|h| h == worker) {
            chunk.holders.swap_remove(at);
        }
        chunk.missing > 0 && chunk.holders.is_empty()
    }

    /// Keeps a worker's answer for layouts `start..start + count` of chunk `i`.
    /// Layouts already in keep their first answer.
    pub fn record(
        &self,
        i: usize,
        start: u32,
        count: u32,
        tricks: &[u8],
    ) -> Result<Recorded, String> {
        let range = self.chunk_range(i);
        let n = self.openings.len();
        let end = start.checked_add(count).ok_or("layout range overflows")?;
        if start < range.start || end > range.end || tricks.len() != count as usize * n {
            return Err(format!(
                "answer for layouts {start}..{end} with {} bytes does not fit chunk {}..{} x {n} openings",
                tricks.len(),
                range.start,
                range.end
            ));
        }
        if tricks.iter().any(|&t| t > 10) {
            return Err("answer holds a trick count above 10".into());
        }
        let mut chunks = self.chunks();
        let chunk = &mut chunks[i];
        if chunk.missing == 0 {
            return Ok(Recorded::AlreadyComplete);
        }
        let len = range.len();
        if chunk.solved.is_empty() {
            chunk.solved = vec![false; len];
            chunk.tricks = vec![0; len * n];
        }
        let mut fresh = 0u32;
        for (k, layout) in (start..end).enumerate() {
            let at = (layout - range.start) as usize;
            if !chunk.solved[at] {
                chunk.solved[at] = true;
                chunk.tricks[at * n..(at + 1) * n].copy_from_slice(&tricks[k * n..(k + 1) * n]);
                fresh += 1;
            }
        }
        chunk.missing -= fresh.min(chunk.missing);
        if chunk.missing > 0 {
            return Ok(Recorded::Progress(fresh));
        }
        chunk.solved = Vec::new();
        Ok(Recorded::Complete {
            fresh,
            tricks: std::mem::take(&mut chunk.tricks),
        })
    }

    /// Chunk `i` is in the store; returns true when every chunk is.
    pub fn mark_stored(&self, i: usize) -> bool {
        let mut chunks = self.chunks();
        chunks[i].stored = true;
        chunks.iter().all(|c| c.stored)
    }

    /// Whether every chunk is in the store.
    pub fn is_stored(&self) -> bool {
        self.chunks().iter().all(|c| c.stored)
    }

    pub fn is_chunk_complete(&self, i: usize) -> bool {
        self.chunks().get(i).is_none_or(|c| c.missing == 0)
    }
}
