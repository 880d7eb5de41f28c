//! Rummikub: the engine (pure, usable as a library) and its gRPC adapter.
//! The `rummikub` binary serves the adapter.
pub mod grpc;
mod solvers;
