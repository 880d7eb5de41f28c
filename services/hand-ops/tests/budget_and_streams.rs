//! The memory budget of the batch RPCs and their stream forms: a batch over
//! the budget is refused before any work with RESOURCE_EXHAUSTED saying what
//! to change; a million pairs pass through ContainsStream in batches.

use deckhand::budget::MemoryBudget;
use deckhand::proto::handops::v1 as pb;
use deckhand::server::RunningServer;
use deckhand::testing::serve_on_loopback;
use hand_ops::grpc::{HandOps, HandOpsServiceServer};
use pb::hand_ops_service_client::HandOpsServiceClient;
use tonic::codegen::tokio_stream::{self, StreamExt};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

const SERVICE: &str = <HandOpsServiceServer<HandOps> as NamedService>::NAME;

async fn start(budget: MemoryBudget) -> (RunningServer, HandOpsServiceClient<Channel>) {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(
            HandOps::default()
                .with_budget(budget)
                .into_server(config.max_message_bytes),
        )
    })
    .await;
    (server, HandOpsServiceClient::new(channel))
}

fn packed_request(first: u64, count: u64) -> pb::ContainsRequest {
    // Hand i holds (i mod 5) threes; the part holds 2 threes.
    let hands = (first..first + count).map(|i| i % 5).collect();
    pb::ContainsRequest {
        pairs: vec![],
        packed: Some(pb::PackedPairs {
            hands,
            parts: vec![2; count as usize],
        }),
    }
}

#[tokio::test]
async fn batch_over_the_budget_is_refused_with_advice() {
    // 1 MiB per request: 100,000 packed pairs (about 3.5 MiB) do not fit.
    let (server, mut client) = start(MemoryBudget::new(1 << 20, 4 << 20, 16 << 20)).await;
    let status = client
        .contains(packed_request(0, 100_000))
        .await
        .expect_err("over the budget");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(message.contains("--max-request-memory"), "{message}");
    assert!(message.contains("ContainsStream"), "{message}");
    // The size the message advises passes.
    let fits: u64 = message
        .split("send at most ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a number of items");
    let reply = client.contains(packed_request(0, fits)).await.unwrap();
    assert_eq!(reply.into_inner().contains.len() as u64, fits);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_million_pairs_through_contains_stream() {
    let (server, mut client) = start(MemoryBudget::default()).await;
    let (messages, per_message) = (100u64, 10_000u64);
    let requests =
        tokio_stream::iter(0..messages).map(move |m| packed_request(m * per_message, per_message));
    let mut answers = client.contains_stream(requests).await.unwrap().into_inner();
    let mut seen = 0u64;
    while let Some(answer) = answers.next().await {
        for contains in answer.unwrap().contains {
            assert_eq!(contains, seen % 5 >= 2, "pair {seen}");
            seen += 1;
        }
    }
    assert_eq!(seen, messages * per_message);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_bad_message_ends_the_stream_naming_it() {
    let (server, mut client) = start(MemoryBudget::default()).await;
    let bad = pb::ContainsRequest {
        pairs: vec![],
        packed: Some(pb::PackedPairs {
            hands: vec![1, 1 << 60],
            parts: vec![1, 1],
        }),
    };
    let requests = tokio_stream::iter([packed_request(0, 10), bad, packed_request(0, 10)]);
    let mut answers = client.contains_stream(requests).await.unwrap().into_inner();
    assert_eq!(answers.next().await.unwrap().unwrap().contains.len(), 10);
    let status = answers.next().await.unwrap().expect_err("the bad message");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("messages[1]: packed.hands[1]"),
        "{status:?}"
    );
    assert!(answers.next().await.is_none());
    server.shutdown().await.unwrap();
}

fn full_deck() -> pb::LegalMovesRequest {
    pb::LegalMovesRequest {
        hand: Some(pb::Hand {
            cards: Some(pb::hand::Cards::Text(
                "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR".into(),
            )),
        }),
        beat: None,
    }
}

/// LegalMoves answers are in the budget too: the full deck's 27,471 plays
/// (48 bytes each at most, measured here) do not fit a 1 MiB message limit,
/// and the refusal says how to narrow the answer; under the defaults they pass.
#[tokio::test]
async fn legal_moves_answers_are_bounded_by_the_message_limit() {
    let (server, mut client) = start(MemoryBudget::default()).await;
    let moves = client
        .legal_moves(full_deck())
        .await
        .unwrap()
        .into_inner()
        .moves;
    assert_eq!(moves.len(), 27_471);
    // Each Move within the bound, with its field tag and length byte.
    let widest = moves
        .iter()
        .map(tonic_prost::prost::Message::encoded_len)
        .max()
        .unwrap();
    assert!(widest + 2 <= 48, "{widest}");
    server.shutdown().await.unwrap();

    let small = MemoryBudget::new(96 << 20, 256 << 20, 1 << 20);
    let (server, mut client) = start(small).await;
    let status = client.legal_moves(full_deck()).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(
        message.starts_with("hand: the answer to 27471 plays can reach"),
        "{message}"
    );
    assert!(message.contains("--max-message-bytes"), "{message}");
    assert!(message.contains("give a `beat` play"), "{message}");
    // A smaller hand still gets its answer.
    let mut few = full_deck();
    few.hand = Some(pb::Hand {
        cards: Some(pb::hand::Cards::Text("33344456".into())),
    });
    assert!(!client
        .legal_moves(few)
        .await
        .unwrap()
        .into_inner()
        .moves
        .is_empty());
    server.shutdown().await.unwrap();
}
