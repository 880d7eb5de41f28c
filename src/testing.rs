//! Helpers shared by the services' end-to-end tests.

use tonic::{Code, Status};

/// Asserts that `result` failed with INVALID_ARGUMENT and that the message
/// contains every one of `words` (the offending item and the reason).
#[track_caller]
pub fn assert_invalid<T: std::fmt::Debug>(result: Result<T, Status>, words: &[&str]) {
    let status = result.expect_err("the request must fail");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    for word in words {
        assert!(
            status.message().contains(word),
            "message {:?} lacks {word:?}",
            status.message()
        );
    }
}
