//! Dou Dizhu hand algebra: the engine (pure, usable as a library) and its gRPC
//! adapter. The `hand-ops` binary serves the adapter.
pub mod grpc;
