//! What the request targets share: one current-thread runtime to drive the
//! async handlers (blocking work runs on its blocking pool).
//!
//! The blocking threads never retire: a thread that exits after its idle
//! time and a new one spawned by a later input look like a leak of the
//! thread's handle to LeakSanitizer, which checks between inputs.
#![allow(dead_code)] // not every target uses every helper

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use deckhand::budget::{MemoryBudget, DEFAULT_MAX_INFLIGHT_MEMORY, DEFAULT_MAX_REQUEST_MEMORY};

pub fn block_on<F: Future>(future: F) -> F::Output {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .thread_keep_alive(Duration::from_secs(24 * 3600))
                .build()
                .expect("a runtime")
        })
        .block_on(future)
}

/// A handler may refuse anything, but never with INTERNAL or UNKNOWN: those
/// mean a bug (a panic in a blocking task shows up as INTERNAL).
pub fn check<T>(result: Result<T, tonic::Status>) {
    if let Err(status) = result {
        assert!(
            !matches!(status.code(), tonic::Code::Internal | tonic::Code::Unknown),
            "{status:?}"
        );
        assert!(
            status.message().len() < 1024,
            "{} byte message",
            status.message().len()
        );
    }
}

/// The servers' memory budget with the answer-size limit `pick` asks for:
/// 0 is the default limit, k is 64·k bytes, so that the fuzzer can push a
/// batch right up against the limit.
pub fn budget(pick: u8) -> MemoryBudget {
    let limit = match pick {
        0 => MemoryBudget::default().max_message_bytes(),
        k => 64 * usize::from(k),
    };
    MemoryBudget::new(
        DEFAULT_MAX_REQUEST_MEMORY,
        DEFAULT_MAX_INFLIGHT_MEMORY,
        limit,
    )
}

/// [`check`], and for an RPC checked against `budget`: an answer it let
/// through fits the message limit (the budget's answer bound is an upper
/// bound, so an answer is never refused only after the work).
pub fn check_batch<T: prost::Message>(
    result: Result<tonic::Response<T>, tonic::Status>,
    budget: &MemoryBudget,
) {
    if let Ok(response) = &result {
        let len = response.get_ref().encoded_len();
        assert!(
            len <= budget.max_message_bytes(),
            "a {len} byte answer passed the budget of a {} byte message limit",
            budget.max_message_bytes()
        );
    }
    check(result);
}
