//! Double-dummy preferans: the solver engine (pure, usable as a library) and
//! its gRPC adapter. The `preferans-worker` binary serves the adapter.
pub mod grpc;
mod layouts;
pub mod membership;
pub mod solver_pool;
pub mod worker_metrics;
