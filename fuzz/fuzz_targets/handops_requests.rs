//! Every hand-ops request message: arbitrary bytes decoded as the request of
//! the RPC the first byte picks (`% 4`; `/ 4` picks the answer-size limit of
//! the budget), then passed to the service's handler.
#![no_main]

mod common;

use deckhand::proto::handops::v1 as pb;
use hand_ops::grpc::HandOps;
use libfuzzer_sys::fuzz_target;
use pb::hand_ops_service_server::HandOpsService;
use prost::Message;
use tonic::Request;

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, bytes)) = data.split_first() else {
        return;
    };
    let budget = common::budget(rpc / 4);
    let service = HandOps::default().with_budget(budget.clone());
    common::block_on(async {
        match rpc % 4 {
            0 => {
                if let Ok(m) = pb::ContainsRequest::decode(bytes) {
                    common::check_batch(service.contains(Request::new(m)).await, &budget);
                }
            }
            1 => {
                if let Ok(m) = pb::RemoveRequest::decode(bytes) {
                    common::check_batch(service.remove(Request::new(m)).await, &budget);
                }
            }
            2 => {
                if let Ok(m) = pb::ClassifyRequest::decode(bytes) {
                    common::check_batch(service.classify(Request::new(m)).await, &budget);
                }
            }
            _ => {
                if let Ok(m) = pb::LegalMovesRequest::decode(bytes) {
                    common::check_batch(service.legal_moves(Request::new(m)).await, &budget);
                }
            }
        }
    });
});
