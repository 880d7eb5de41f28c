//! Deckhand's shared library: the gRPC code generated from `proto/` and the
//! server plumbing every service binary uses (flags, telemetry, health,
//! reflection, limits, graceful shutdown).
//!
//! Engines live in `engines/<game>/` crates and never depend on this crate's
//! transport types; the adapters (`grpc.rs` of each service) do.

/// Every binary and test linking this crate allocates with mimalloc: glibc's
/// malloc kept freed solver tables in per-thread arenas (RSS grew to 790 MiB
/// under a SolveDeal load that needs well under 100 MiB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod auth;
pub mod batch_stream;
pub mod budget;
pub mod client;
pub mod listener;
pub mod metrics;
pub mod pool;
pub mod preferans;
pub mod reload;
pub mod server;
pub mod status;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tls;
pub mod transport_errors;

/// Generated protobuf messages, clients and servers.
pub mod proto {
    #![allow(clippy::all, missing_docs)]

    pub mod handops {
        pub mod v1 {
            tonic::include_proto!("deckhand.handops.v1");
        }
    }
    pub mod rummikub {
        pub mod v1 {
            tonic::include_proto!("deckhand.rummikub.v1");
        }
    }
    pub mod mahjong {
        pub mod v1 {
            tonic::include_proto!("deckhand.mahjong.v1");
        }
    }
    pub mod preferans {
        pub mod v1 {
            tonic::include_proto!("deckhand.preferans.v1");
        }
    }

    /// The encoded descriptor set of every Deckhand proto, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/deckhand_descriptor.bin"));
}
