//! The coordinator: shards one all-foe analysis (184,756 layouts) across
//! preferans workers, leasing chunks of layouts to them.
//!
//! - [`job`]: one analysis: its chunks, the results keyed by layout index, the aggregate.
//! - [`scheduler`]: the job queue and the lease rules (affinity by trumps, fairness
//!   between jobs, re-leasing after a failure, duplicate leases at the end of a job).
//! - [`workers`]: discovery (static list and DNS) and one driver task per worker.
//! - [`grpc`]: the CoordinatorService adapter.

pub mod grpc;
pub mod job;
pub mod scheduler;
pub mod workers;
