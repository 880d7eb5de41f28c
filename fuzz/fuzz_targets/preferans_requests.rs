//! Every preferans-worker request message: arbitrary bytes decoded as the
//! request of the RPC the first byte picks, then passed to the handler.
//! SolveLayouts is cut to its first layout (the conversion is what is fuzzed,
//! not the length of the search).
#![no_main]

mod common;

use std::sync::{Arc, OnceLock};

use deckhand::proto::preferans::v1 as pb;
use libfuzzer_sys::fuzz_target;
use pb::preferans_worker_service_server::PreferansWorkerService;
use preferans_worker::grpc::{SolverPool, Worker};
use prost::Message;
use tonic::Request;

fn pool() -> Arc<SolverPool> {
    static POOL: OnceLock<Arc<SolverPool>> = OnceLock::new();
    POOL.get_or_init(|| SolverPool::new(1, 1 << 20)).clone()
}

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, bytes)) = data.split_first() else {
        return;
    };
    let worker = Worker::new(pool());
    common::block_on(async {
        match rpc % 2 {
            0 => {
                if let Ok(m) = pb::SolveDealRequest::decode(bytes) {
                    common::check(worker.solve_deal(Request::new(m)).await);
                }
            }
            _ => {
                if let Ok(mut m) = pb::SolveLayoutsRequest::decode(bytes) {
                    m.end = m.end.min(m.start.saturating_add(1));
                    m.chunk_size = 1;
                    match worker.solve_layouts(Request::new(m)).await {
                        Ok(response) => {
                            use tonic::codegen::tokio_stream::StreamExt;
                            let mut stream = response.into_inner();
                            while let Some(item) = stream.next().await {
                                common::check(item);
                            }
                        }
                        Err(status) => common::check::<()>(Err(status)),
                    }
                }
            }
        }
    });
});
