//! Solving a layout range on the worker's solver pool.
//!
//! The range is cut into chunks that the slots a request gets take in order,
//! so each slot works on contiguous indices (neighbouring layouts share most
//! positions). Results stream back one message per chunk. A client that reads
//! nothing for the read-stall time loses its solve (see [`Output::send`]).

use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deckhand::pool::{self, Cost};
use deckhand::preferans::layout_order_to_proto;
use deckhand::proto::preferans::v1 as pb;
use deckhand::status::Invalid;
use deckhand_preferans::{solve_layouts_in, DeclarerView, LayoutOrder, Solver};
use tokio::sync::mpsc;
use tonic::Status;

use crate::solver_pool::SolverPool;

/// Starts solving the layouts at positions `range` of `order` of `view` on up to
/// all slots of `pool`, `chunk` layouts per message; the work stops when the
/// receiver is dropped.
pub(crate) fn solve(
    pool: &Arc<SolverPool>,
    view: Arc<DeclarerView>,
    order: LayoutOrder,
    range: Range<u32>,
    chunk: u32,
    openings: Arc<Vec<String>>,
    read_stall: Duration,
) -> mpsc::Receiver<Result<pb::SolveLayoutsResponse, Status>> {
    let chunks = (range.end - range.start).div_ceil(chunk) as usize;
    let threads = pool.threads().min(chunks);
    let (tx, rx) = mpsc::channel(2 * threads.max(1));
    let next = Arc::new(AtomicU32::new(range.start));
    let strain = view.contract().strain;
    for _ in 0..threads {
        let (pool, view, next, range, openings, tx) = (
            Arc::clone(pool),
            view.clone(),
            next.clone(),
            range.clone(),
            openings.clone(),
            tx.clone(),
        );
        tokio::spawn(async move {
            let lease = tokio::select! {
                lease = pool.lease(strain) => lease,
                _ = tx.closed() => return,
            };
            if next.load(Ordering::Relaxed) >= range.end {
                return; // the other slots finished the work meanwhile
            }
            let _ = pool::run(Cost::HEAVY, move || {
                let slot = &lease.pool.slots[lease.index];
                let solved = slot.with_solver(strain, |solver| {
                    let out = Output {
                        tx: &tx,
                        read_stall,
                    };
                    let work = Work {
                        view: &view,
                        order,
                        range,
                        chunk,
                        openings: &openings,
                    };
                    solve_chunks(solver, work, &next, out)
                });
                slot.layouts.fetch_add(solved, Ordering::Relaxed);
                drop(lease);
            })
            .await;
        });
    }
    rx
}

/// Solves `range` on one leased slot, sending a message per `chunk` layouts.
/// Stops as soon as the receiver is gone (client cancelled).
fn solve_chunks(solver: &mut Solver, work: Work<'_>, next: &AtomicU32, out: Output<'_>) -> u64 {
    let Work {
        view,
        order,
        range,
        chunk,
        openings,
    } = work;
    let mut solved = 0u64;
    loop {
        let start = next.fetch_add(chunk, Ordering::Relaxed);
        if start >= range.end {
            return solved;
        }
        let end = (start + chunk).min(range.end);
        let mut tricks = Vec::with_capacity((end - start) as usize * openings.len());
        let result = solve_layouts_in(solver, view, order, start..end, |r| {
            tricks.extend_from_slice(r.tricks.as_slice());
            if out.tx.is_closed() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let count = match result {
            Ok(count) => count,
            Err(e) => {
                out.send(Err(Invalid::new("range", e).into()));
                return solved;
            }
        };
        solved += u64::from(count);
        if count < end - start {
            return solved; // cancelled mid-chunk
        }
        let (layout_order, layout_group) = layout_order_to_proto(&order);
        let message = pb::SolveLayoutsResponse {
            start,
            count,
            openings: openings.to_vec(),
            tricks,
            layout_order,
            layout_group,
        };
        if !out.send(Ok(message)) {
            return solved;
        }
    }
}

/// What a request asks a slot to solve.
struct Work<'a> {
    view: &'a DeclarerView,
    order: LayoutOrder,
    range: Range<u32>,
    chunk: u32,
    openings: &'a [String],
}

/// Where a solve's messages go.
#[derive(Clone, Copy)]
struct Output<'a> {
    tx: &'a mpsc::Sender<Result<pb::SolveLayoutsResponse, Status>>,
    read_stall: Duration,
}

impl Output<'_> {
    /// Sends a message from a blocking thread, waiting at most `read_stall` for
    /// room. False when the solve should stop: the client is gone, or it read
    /// nothing for that long. Then a task without a solver thread waits to put
    /// DEADLINE_EXCEEDED after the results already queued (a client that reads
    /// again learns the solve is incomplete; one that never does is dropped with
    /// its stream).
    fn send(self, message: Result<pb::SolveLayoutsResponse, Status>) -> bool {
        let handle = tokio::runtime::Handle::current();
        match handle.block_on(tokio::time::timeout(self.read_stall, self.tx.send(message))) {
            Ok(sent) => sent.is_ok(),
            Err(_) => {
                let (tx, seconds) = (self.tx.clone(), self.read_stall.as_secs_f64());
                tracing::warn!(seconds, "the client read no result; solve stopped");
                handle.spawn(async move {
                    let status = Status::deadline_exceeded(format!(
                        "the client read no result for {seconds} s; the worker stopped this solve"
                    ));
                    let _ = tx.send(Err(status)).await;
                });
                false
            }
        }
    }
}
