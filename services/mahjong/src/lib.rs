//! Mahjong win check, shanten and waits: the engine (pure, usable as a
//! library) and its gRPC adapter. The `mahjong` binary serves the adapter.
pub mod grpc;
pub mod score;
