//! What the request targets share: one current-thread runtime to drive the
//! async handlers (blocking work runs on its blocking pool).

use std::future::Future;
use std::sync::OnceLock;

pub fn block_on<F: Future>(future: F) -> F::Output {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
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
        assert!(status.message().len() < 4096, "{} byte message", status.message().len());
    }
}
