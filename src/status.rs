//! Building `tonic::Status` values the same way in every service.

use tonic::Status;

/// INVALID_ARGUMENT naming the offending item: `"<item>: <reason>"`.
pub fn invalid(item: impl std::fmt::Display, reason: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("{item}: {reason}"))
}

/// Checks a batch size: not empty and at most `max` items.
pub fn check_batch(field: &str, len: usize, max: usize) -> Result<(), Status> {
    if len == 0 {
        return Err(invalid(field, "empty batch: give at least one item"));
    }
    if len > max {
        return Err(invalid(
            field,
            format!("batch of {len} items is over the limit of {max}"),
        ));
    }
    Ok(())
}

/// A required message field that the client left unset.
pub fn missing(field: &str) -> Status {
    invalid(field, "required field is missing")
}
