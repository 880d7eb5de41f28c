//! The stream forms of the mahjong batches answer message by message, in
//! order, like the unary batches.

use deckhand::proto::mahjong::v1 as pb;
use deckhand::testing::serve_on_loopback;
use mahjong::grpc::{Mahjong, MahjongServiceServer};
use pb::mahjong_service_client::MahjongServiceClient;
use tonic::codegen::tokio_stream::{self, StreamExt};
use tonic::server::NamedService;
use tonic::service::Routes;

const SERVICE: &str = <MahjongServiceServer<Mahjong> as NamedService>::NAME;

fn hands(texts: &[&str]) -> Vec<pb::Hand> {
    texts
        .iter()
        .map(|t| pb::Hand {
            tiles: Some(pb::hand::Tiles::Text(t.to_string())),
        })
        .collect()
}

#[tokio::test]
async fn stream_forms_answer_like_the_batches() {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(
            Mahjong::default()
                .with_budget(config.memory_budget())
                .into_server(config.max_message_bytes),
        )
    })
    .await;
    let mut client = MahjongServiceClient::new(channel);
    let texts = ["11122233344455m", "1112345678999m", "123m456p789s1122z"];

    let request = move |i: usize| pb::ShantenRequest {
        hands: hands(&texts[i % 3..]),
    };
    let mut answers = client
        .shanten_stream(tokio_stream::iter((0..6).map(request)))
        .await
        .unwrap()
        .into_inner();
    for i in 0..6 {
        let expected = client.shanten(request(i)).await.unwrap().into_inner();
        assert_eq!(answers.next().await.unwrap().unwrap(), expected);
    }
    assert!(answers.next().await.is_none());

    let win = pb::CheckWinRequest {
        hands: hands(&texts),
    };
    let expected = client.check_win(win.clone()).await.unwrap().into_inner();
    let mut answers = client
        .check_win_stream(tokio_stream::iter([win.clone(), win]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answers.next().await.unwrap().unwrap(), expected);
    assert_eq!(answers.next().await.unwrap().unwrap(), expected);

    let waits = pb::WaitsRequest {
        hands: hands(&["1112345678999m", "12x"]),
    };
    let mut answers = client
        .waits_stream(tokio_stream::iter([waits]))
        .await
        .unwrap()
        .into_inner();
    let status = answers.next().await.unwrap().expect_err("bad hand");
    assert!(
        status.message().starts_with("messages[0]: hands[1]"),
        "{status:?}"
    );
    server.shutdown().await.unwrap();
}

/// A Score batch whose estimated memory is over the per-request budget is
/// refused before any work; a small one under the same budget is answered.
#[tokio::test]
async fn score_batches_over_the_memory_budget_are_refused() {
    let (_server, channel) = serve_on_loopback(SERVICE, |config| {
        let budget =
            deckhand::budget::MemoryBudget::new(1 << 20, 1 << 20, config.max_message_bytes);
        Routes::new(
            Mahjong::default()
                .with_budget(budget)
                .into_server(config.max_message_bytes),
        )
    })
    .await;
    let mut client = MahjongServiceClient::new(channel);
    let situation = pb::WinSituation {
        hand: "123m456p789s11122z".into(),
        win_tile: "2z".into(),
        tsumo: true,
        ..Default::default()
    };
    let small = client
        .score(pb::ScoreRequest {
            situations: vec![situation.clone(); 10],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(small.results.len(), 10);
    let status = client
        .score(pb::ScoreRequest {
            situations: vec![situation; 5_000],
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("situations"), "{status:?}");
}
