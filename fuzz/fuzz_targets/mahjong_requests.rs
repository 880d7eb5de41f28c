//! Every mahjong request message: arbitrary bytes decoded as the request of
//! the RPC the first byte picks (`% 4`; `/ 4` picks the answer-size limit of
//! the budget), then passed to the service's handler.
#![no_main]

mod common;

use deckhand::proto::mahjong::v1 as pb;
use libfuzzer_sys::fuzz_target;
use mahjong::grpc::Mahjong;
use pb::mahjong_service_server::MahjongService;
use prost::Message;
use tonic::Request;

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, bytes)) = data.split_first() else {
        return;
    };
    let budget = common::budget(rpc / 4);
    let service = Mahjong::default().with_budget(budget.clone());
    common::block_on(async {
        match rpc % 4 {
            0 => {
                if let Ok(m) = pb::CheckWinRequest::decode(bytes) {
                    common::check_batch(service.check_win(Request::new(m)).await, &budget);
                }
            }
            1 => {
                if let Ok(m) = pb::ShantenRequest::decode(bytes) {
                    common::check_batch(service.shanten(Request::new(m)).await, &budget);
                }
            }
            2 => {
                if let Ok(m) = pb::WaitsRequest::decode(bytes) {
                    common::check_batch(service.waits(Request::new(m)).await, &budget);
                }
            }
            _ => {
                if let Ok(m) = pb::ScoreRequest::decode(bytes) {
                    common::check_batch(service.score(Request::new(m)).await, &budget);
                }
            }
        }
    });
});
