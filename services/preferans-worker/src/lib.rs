//! Engine only: no transport types.
pub mod engine;
