//! One problem of a job as the scheduler sees it: its chunks, who holds them,
//! and the answers of the chunks in progress, keyed by layout index (so an
//! answer that arrives twice is counted once). A chunk whose layouts are all
//! in leaves memory for the store; the problem's result is summed from there.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use deckhand_preferans::{Contract, DeclarerView, LayoutOrder, Strain};

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

impl Chunk {
    fn is_waiting(&self) -> bool {
        self.missing > 0 && self.holders.is_empty()
    }
}

/// A waiting chunk for a run with none of its own to continue, and the way it goes
/// from there. In the longest run of waiting chunks:
/// - its first chunk, forwards, when nobody works into it from before;
/// - when the chunk before it is held (that worker continues into it): for a run
///   whose own run has ended (`resuming`), its last chunk, backwards, so that the two
///   meet once; for a new run, its middle chunk, forwards (at a job's start, where the
///   split order's halves meet; see `split_order`);
/// - its middle, forwards, when workers come into it from both ends.
fn pick_waiting(chunks: &[Chunk], resuming: bool) -> Option<RunEnd> {
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < chunks.len() {
        if !chunks[i].is_waiting() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chunks.len() && chunks[i].is_waiting() {
            i += 1;
        }
        if best.is_none_or(|(_, len)| i - start > len) {
            best = Some((start, i - start));
        }
    }
    let (start, len) = best?;
    let held = |i: usize| chunks.get(i).is_some_and(|c| !c.holders.is_empty());
    let from_before = start > 0 && held(start - 1);
    let from_after = held(start + len);
    let forwards = |chunk| RunEnd {
        chunk,
        backwards: false,
    };
    Some(match (from_before, from_after) {
        (false, _) => forwards(start),
        (true, false) if resuming => RunEnd {
            chunk: start + len - 1,
            backwards: true,
        },
        (true, _) => forwards(start + len / 2),
    })
}

/// The chunk a run leased last, and which way the run goes.
#[derive(Debug, Clone, Copy)]
struct RunEnd {
    chunk: usize,
    backwards: bool,
}

impl RunEnd {
    /// The run's next chunk, if there is one.
    fn next(self) -> Option<usize> {
        if self.backwards {
            self.chunk.checked_sub(1)
        } else {
            Some(self.chunk + 1)
        }
    }
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
    /// Layout positions: the range, and the chunks of it, are positions in this
    /// order (see `jobs::prepare`).
    pub range: Range<u32>,
    pub order: LayoutOrder,
    pub chunk_size: u32,
    pub openings: Vec<String>,
    chunks: Mutex<Vec<Chunk>>,
    /// The chunk each run (a worker's address, or a shared table's identity) leased
    /// last, and its way.
    previous: Mutex<HashMap<String, RunEnd>>,
}

impl Problem {
    /// A problem whose chunks `complete` are already stored.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: u32,
        view: DeclarerView,
        contract: Contract,
        range: Range<u32>,
        order: LayoutOrder,
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
            order,
            chunk_size,
            openings,
            chunks: Mutex::new(chunks),
            previous: Mutex::new(HashMap::new()),
        }
    }

    fn chunks(&self) -> std::sync::MutexGuard<'_, Vec<Chunk>> {
        self.chunks.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks().len()
    }

    /// Layout positions of chunk `i`.
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

    /// Takes a chunk nobody holds for `worker`: the one after the chunk its `run`
    /// leased last, so that each run is of neighbouring layouts (they share many
    /// positions, so its table keeps paying), else one from `pick_waiting`.
    ///
    /// A run is a worker's own (`run` its address), or that of all the workers on one
    /// shared table: they then take turns along one run, as the threads of one worker
    /// do. (Two threads on one table, on halves of preferansRu7: 4.65-4.88 s; on
    /// alternate 4,096-layout chunks: 3.92-4.24 s, the same nodes: the positions in
    /// use stay in the cache they share.)
    ///
    /// Workers with a table each keep runs of their own. Replaying these leases for 2
    /// such workers on all layouts, with nodes standing for time, in the split order
    /// as it was before its group of one suit's cards (see `split_order`), gave 1.63×
    /// one worker on preferansRu7 (`bench cluster` measured 1.60×), 1.78× on
    /// preferansRu1, 1.77× on solvealldeals3 and 2.01× on preferansRu4. preferansRu7
    /// stayed lower because its split halves cost 819 and 537 nodes per layout on
    /// tables of their own, so the faster worker took over the middle of the other's
    /// run cold. The group brought preferansRu7 to 1.80× in that replay.
    ///
    /// A worker whose run has ended now takes the far end of the longest waiting
    /// run, backwards, where it took its middle, forwards: the two workers meet once,
    /// where halving the rest again and again started a cold run each time. In the
    /// same replay, in the grouped split order (later finish of 2 workers, nodes per
    /// layout of the analysis): preferansRu7 291.4 -> 277.3 (1.80× -> 1.89× one
    /// worker), preferansRu5 141.5 -> 132.7 (1.77× -> 1.88×), Ru6 135.0 -> 133.8; the
    /// other seven of the ten, 6 random views of seed 11 and 8 of seed 23 within 0.1%
    /// in sum. A worker's first chunk stays the middle: at a job's start that is where
    /// the split order's halves meet. That replay gives each worker one lease at a
    /// time. With the default 2 slots per worker (each worker's next chunk leased
    /// while it solves one) the rule changed nothing on preferansRu7, Ru1, Ru4, Ru5,
    /// Ru6 and solvealldeals3 (the same later finishes within 0.1; preferansRu7 280.5,
    /// 1.87×): a worker's run then ends with at most 2 chunks left waiting, where the
    /// middle is the far end.
    ///
    /// Measured on preferansRu7 in the order before the group, and not kept:
    /// - alternate chunks on tables of their own: 861 nodes per layout, against 678
    ///   for the halves and 621 for one worker;
    /// - the second worker starting at the last chunk and going backwards: 1.61×;
    /// - the second worker starting before the split point, at chunk 12, 16 or 19 of
    ///   46: 1.52×, 1.57×, 1.64×;
    /// - workers passing each other, through the coordinator, the table entries their
    ///   solves stored for positions with 6 or more tricks left (29.6 entries a
    ///   layout, 16 bytes each, sent with each 512-layout message and stored in the
    ///   other worker's table by a call of its own): in nodes, with two solvers in
    ///   one process taking turns of 512 layouts (the one that runs out taking the
    ///   back half of the other's rest), the later finish went from 316.0 to 279.3
    ///   per layout of the analysis (one worker 520.7: 1.65× to 1.86×); but an entry
    ///   cost about 90 ns to store in the other table, against about 77 ns a node,
    ///   and in `bench cluster` (3 rounds, one run) 2 workers reached 1.56× one with
    ///   the entries passed and 1.58× without.
    ///   Fewer entries, each from a costlier search (3 or more tricks left, 32 or more
    ///   nodes: 13.7 a layout), gave 286.4 (1.82× in nodes, before the cost of
    ///   storing them and of the transport); not tried in the cluster.
    ///
    /// Measured in the same replay in the grouped split order, and not kept (later
    /// finish of 2 workers, nodes per layout of the analysis):
    /// - chunks cut from each half's start, so that the second worker starts exactly
    ///   where the halves meet (now 1,830 layouts past it): preferansRu7 291.4 ->
    ///   275.1 (1.80× -> 1.90×), Ru1 66.8 -> 62.3, but Ru4 34.4 -> 38.8 and Ru3
    ///   13.0 -> 14.1; the ten together -2.7%, 6 random views -1.6% and 8 others
    ///   +0.6%: no gain beyond preferansRu7, and a stored job's chunks would change;
    /// - the second worker starting at the last chunk and going backwards until the
    ///   workers meet: preferansRu7 287.3 (1.82×), Ru1 77.4 (1.69×), Ru4 39.9 (1.64×).
    pub fn lease_pending(&self, worker: &str, run: &str) -> Option<usize> {
        let mut chunks = self.chunks();
        let mut previous = self.previous.lock().unwrap_or_else(|p| p.into_inner());
        let last = previous.get(run).copied();
        let continued = last.and_then(|end| {
            let chunk = end.next()?;
            chunks
                .get(chunk)
                .is_some_and(Chunk::is_waiting)
                .then_some(RunEnd { chunk, ..end })
        });
        let end = continued.or_else(|| pick_waiting(&chunks, last.is_some()))?;
        chunks[end.chunk].holders.push(worker.to_string());
        previous.insert(run.to_string(), end);
        Some(end.chunk)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(chunks: u32) -> Problem {
        use deckhand_preferans::Seat;
        let contract: Contract = "misere".parse().unwrap();
        let view =
            DeclarerView::from_notation("T987.T987.*98.*Q#J", Seat::N, contract, Seat::N).unwrap();
        Problem::new(
            0,
            view,
            contract,
            0..chunks * 10,
            LayoutOrder::STANDARD,
            10,
            Vec::new(),
            &[],
        )
    }

    #[test]
    fn workers_on_one_shared_table_take_turns_along_one_run() {
        let p = problem(10);
        // a and b share table t; c has its own.
        assert_eq!(p.lease_pending("a", "t"), Some(0));
        assert_eq!(p.lease_pending("b", "t"), Some(1));
        assert_eq!(p.lease_pending("c", "c"), Some(6));
        assert_eq!(p.lease_pending("b", "t"), Some(2));
        assert_eq!(p.lease_pending("a", "t"), Some(3));
        // Each lease is held by the worker that took it, not by the run.
        assert!(!p.release(1, "a"), "a does not hold chunk 1");
        assert!(p.release(1, "b"));
    }

    #[test]
    fn workers_take_long_runs_of_neighbouring_chunks() {
        let p = problem(10);
        // The first worker starts at the beginning, the second in the middle of the rest.
        assert_eq!(p.lease_pending("a", "a"), Some(0));
        assert_eq!(p.lease_pending("b", "b"), Some(5));
        // Each continues its own run, whether or not it still holds its last chunk.
        assert!(p.release(0, "a"));
        assert_eq!(p.lease_pending("a", "a"), Some(1));
        assert_eq!(p.lease_pending("b", "b"), Some(6));
        // A third worker splits the longest waiting run (2..5, after a's chunk 1).
        assert_eq!(p.lease_pending("c", "c"), Some(3));
        // When its run is taken, a worker moves to the longest waiting run.
        for i in 7..10 {
            assert_eq!(p.lease_pending("b", "b"), Some(i));
        }
        assert_eq!(
            p.lease_pending("b", "b"),
            Some(0),
            "chunk 0 was given back unfinished"
        );
        assert_eq!(p.lease_pending("b", "b"), Some(2));
        assert_eq!(p.lease_pending("a", "a"), Some(4));
        assert_eq!(p.lease_pending("a", "a"), None);
    }

    /// Records chunk `i` of `p` as solved (the problem has no openings) and has
    /// `worker` give it back.
    fn finish(p: &Problem, i: usize, worker: &str) {
        let range = p.chunk_range(i);
        let recorded = p.record(i, range.start, range.len() as u32, &[]).unwrap();
        assert!(matches!(recorded, Recorded::Complete { .. }));
        assert!(!p.release(i, worker));
    }

    #[test]
    fn a_worker_whose_run_ended_takes_the_far_end_of_another_run_backwards() {
        let p = problem(10);
        assert_eq!(p.lease_pending("a", "a"), Some(0));
        assert_eq!(p.lease_pending("b", "b"), Some(5));
        finish(&p, 5, "b");
        for i in 6..10 {
            assert_eq!(p.lease_pending("b", "b"), Some(i));
            finish(&p, i, "b");
        }
        // a works into 1..5 from chunk 0: b starts at its far end and goes back.
        assert_eq!(p.lease_pending("b", "b"), Some(4));
        finish(&p, 4, "b");
        assert_eq!(p.lease_pending("b", "b"), Some(3));
        finish(&p, 0, "a");
        assert_eq!(p.lease_pending("a", "a"), Some(1));
        // Where the runs meet, nothing is left between them.
        assert_eq!(p.lease_pending("b", "b"), Some(2));
        assert_eq!(p.lease_pending("a", "a"), None);
        assert_eq!(p.lease_pending("b", "b"), None);
    }

    #[test]
    fn a_waiting_run_is_entered_where_nobody_works_into_it() {
        // h: held, w: waiting, d: done.
        let chunks = |pattern: &str| -> Vec<Chunk> {
            pattern
                .chars()
                .map(|c| Chunk {
                    holders: if c == 'h' { vec!["x".into()] } else { vec![] },
                    missing: u32::from(c != 'd'),
                    ..Chunk::default()
                })
                .collect()
        };
        let pick = |pattern: &str, resuming: bool| {
            pick_waiting(&chunks(pattern), resuming).map(|end| (end.chunk, end.backwards))
        };
        // Nobody comes from before the longest run (chunk 2 is done): its start.
        assert_eq!(pick("hwdwwwd", true), Some((3, false)));
        assert_eq!(pick("dwwwh", true), Some((1, false)));
        // A worker continues into it from before: a new run takes its middle, a
        // resuming one its far end, backwards.
        assert_eq!(pick("hwwwd", false), Some((2, false)));
        assert_eq!(pick("hwwwd", true), Some((3, true)));
        assert_eq!(pick("hwww", true), Some((3, true)));
        // Workers come into it from both ends: its middle.
        assert_eq!(pick("hwwwh", true), Some((2, false)));
        assert_eq!(pick("hdhd", true), None);
    }
}
