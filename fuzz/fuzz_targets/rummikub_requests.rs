//! Every rummikub request message: arbitrary bytes decoded as the request of
//! the RPC the first byte picks (`% 3`; `/ 3` picks the answer-size limit of
//! the budget), then passed to the service's handler.
#![no_main]

mod common;

use deckhand::proto::rummikub::v1 as pb;
use libfuzzer_sys::fuzz_target;
use pb::rummikub_service_server::RummikubService;
use prost::Message;
use rummikub::grpc::Rummikub;
use tonic::Request;

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, bytes)) = data.split_first() else {
        return;
    };
    let budget = common::budget(rpc / 3);
    let service = Rummikub::default().with_budget(budget.clone());
    common::block_on(async {
        match rpc % 3 {
            0 => {
                if let Ok(m) = pb::ArrangeRequest::decode(bytes) {
                    common::check(service.arrange(Request::new(m)).await);
                }
            }
            1 => {
                if let Ok(m) = pb::ArrangeBatchRequest::decode(bytes) {
                    common::check_batch(service.arrange_batch(Request::new(m)).await, &budget);
                }
            }
            _ => {
                if let Ok(m) = pb::BestMoveRequest::decode(bytes) {
                    common::check(service.best_move(Request::new(m)).await);
                }
            }
        }
    });
});
