//! Double-dummy preferans: the solver engine (pure, usable as a library) and
//! its gRPC adapter. The `preferans-worker` binary serves the adapter.
pub mod grpc;
pub mod solver_pool;
