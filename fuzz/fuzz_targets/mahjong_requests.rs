//! Every mahjong request message: arbitrary bytes decoded as the request of
//! the RPC the first byte picks, then passed to the service's handler.
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
    let service = Mahjong::default();
    common::block_on(async {
        match rpc % 3 {
            0 => {
                if let Ok(m) = pb::CheckWinRequest::decode(bytes) {
                    common::check(service.check_win(Request::new(m)).await);
                }
            }
            1 => {
                if let Ok(m) = pb::ShantenRequest::decode(bytes) {
                    common::check(service.shanten(Request::new(m)).await);
                }
            }
            _ => {
                if let Ok(m) = pb::WaitsRequest::decode(bytes) {
                    common::check(service.waits(Request::new(m)).await);
                }
            }
        }
    });
});
