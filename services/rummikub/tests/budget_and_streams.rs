//! The issue's reproducer: ArrangeBatch of 30,000 items of all 106 tiles is
//! refused before any work (its answer cannot fit in a message), naming the
//! stream form; ArrangeBatchStream answers batch by batch, like ArrangeBatch.

use std::time::{Duration, Instant};

use deckhand::budget::MemoryBudget;
use deckhand::proto::rummikub::v1 as pb;
use deckhand::server::{RunningServer, ServerConfig};
use deckhand::testing::serve_on_loopback;
use pb::rummikub_service_client::RummikubServiceClient;
use rummikub::grpc::{Rummikub, RummikubServiceServer, MAX_RULE_SETS};
use tonic::codegen::tokio_stream::{self, StreamExt};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

const SERVICE: &str = <RummikubServiceServer<Rummikub> as NamedService>::NAME;

async fn start() -> (RunningServer, RummikubServiceClient<Channel>) {
    start_with(ServerConfig::loopback().memory_budget()).await
}

async fn start_with(budget: MemoryBudget) -> (RunningServer, RummikubServiceClient<Channel>) {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(
            Rummikub::default()
                .with_budget(budget)
                .into_server(config.max_message_bytes),
        )
    })
    .await;
    let client = RummikubServiceClient::new(channel)
        .max_encoding_message_size(64 << 20)
        .max_decoding_message_size(64 << 20);
    (server, client)
}

fn all_tiles() -> Vec<String> {
    let mut tiles: Vec<String> = ["k", "b", "o", "r"]
        .iter()
        .flat_map(|c| (1..=13).flat_map(move |n| [format!("{c}{n}"), format!("{c}{n}")]))
        .collect();
    tiles.extend(["J".to_string(), "J".to_string()]);
    tiles
}

fn item(tiles: &[&str]) -> pb::ArrangeRequest {
    pb::ArrangeRequest {
        tiles: tiles.iter().map(|t| t.to_string()).collect(),
        rules: None,
    }
}

#[tokio::test]
async fn thirty_thousand_full_games_are_refused_at_once() {
    let (server, mut client) = start().await;
    let request = pb::ArrangeBatchRequest {
        items: vec![
            pb::ArrangeRequest {
                tiles: all_tiles(),
                rules: None,
            };
            30_000
        ],
    };
    let sent = Instant::now();
    let status = client.arrange_batch(request).await.expect_err("refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(
        message.starts_with("items: the answer to 30000 items"),
        "{message}"
    );
    assert!(message.contains("ArrangeBatchStream"), "{message}");
    // Before the work: solving them takes seconds (a loose bound for slow CI).
    assert!(sent.elapsed() < Duration::from_secs(30));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn arrange_batch_stream_answers_like_arrange_batch() {
    let (server, mut client) = start().await;
    let batch = |m: usize| pb::ArrangeBatchRequest {
        items: (0..20)
            .map(|i| match (m + i) % 3 {
                0 => item(&["k1", "k2", "k3", "r5", "b5", "o5"]),
                1 => item(&["k1", "k2"]),
                _ => item(&["k1", "k2", "J", "r7", "b7", "o7", "k7"]),
            })
            .collect(),
    };
    let mut answers = client
        .arrange_batch_stream(tokio_stream::iter((0..10).map(batch)))
        .await
        .unwrap()
        .into_inner();
    let mut messages = 0;
    while let Some(answer) = answers.next().await {
        let expected = client.arrange_batch(batch(messages)).await.unwrap();
        assert_eq!(answer.unwrap(), expected.into_inner(), "message {messages}");
        messages += 1;
    }
    assert_eq!(messages, 10);

    // A bad tile in the second message ends the stream with its path.
    let bad = pb::ArrangeBatchRequest {
        items: vec![item(&["k1"]), item(&["k1", "q14"])],
    };
    let mut answers = client
        .arrange_batch_stream(tokio_stream::iter([batch(0), bad, batch(1)]))
        .await
        .unwrap()
        .into_inner();
    assert!(answers.next().await.unwrap().is_ok());
    let status = answers.next().await.unwrap().expect_err("bad tile");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status
            .message()
            .starts_with("messages[1]: items[1].tiles[1]"),
        "{status:?}"
    );
    assert!(answers.next().await.is_none());
    server.shutdown().await.unwrap();
}

/// The solvers' memory is in the in-flight budget: the solvers at work from
/// the start, the kept ones while they wait (a few hundred KiB each, at most
/// two per core), and all of it is given back when the service ends.
#[tokio::test]
async fn pooled_solvers_are_counted_in_the_in_flight_budget() {
    let budget = MemoryBudget::new(96 << 20, 256 << 20, 16 << 20);
    let (server, mut client) = start_with(budget.clone()).await;
    let at_work = budget.in_flight();
    assert!(at_work > 0, "the solvers at work are reserved");
    let items: Vec<_> = (0..512)
        .map(|i| match i % 2 {
            0 => pb::ArrangeRequest {
                tiles: all_tiles(),
                rules: None,
            },
            _ => item(&["k1", "k2", "J", "r7", "b7", "o7", "k7"]),
        })
        .collect();
    let answers = client
        .arrange_batch(pb::ArrangeBatchRequest { items })
        .await
        .expect("answered")
        .into_inner();
    assert!(answers.results.iter().all(|a| a.solvable));
    let kept = budget.in_flight() - at_work;
    let parts = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(kept > 0, "kept solvers are counted");
    assert!(
        kept <= 2 * parts * (768 << 10),
        "at most two solvers per core are kept, each shrunk back: {kept} bytes"
    );
    drop(client);
    server.shutdown().await.unwrap();
    assert_eq!(budget.in_flight(), 0, "all given back");
}

/// Each distinct rule set needs solver tables of its own; a batch may use at
/// most MAX_RULE_SETS of them, and the items beyond are named.
#[tokio::test]
async fn a_batch_of_too_many_rule_sets_is_refused_naming_the_items() {
    let (server, mut client) = start().await;
    let with_opening = |opening_value| pb::ArrangeRequest {
        tiles: vec!["k1".into(), "k2".into(), "k3".into()],
        rules: Some(pb::RuleSet {
            opening_value,
            ..Default::default()
        }),
    };
    let fits: Vec<_> = (1..=MAX_RULE_SETS as u32).map(with_opening).collect();
    let answer = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: [fits.clone(), fits.clone()].concat(),
        })
        .await
        .expect("16 rule sets, each twice");
    assert_eq!(answer.into_inner().results.len(), 2 * MAX_RULE_SETS);
    let mut items = fits;
    items.extend([with_opening(100), with_opening(1), with_opening(101)]);
    let extra = |i: usize| format!("items[{i}].rules");
    let (a, b) = (extra(MAX_RULE_SETS), extra(MAX_RULE_SETS + 2));
    deckhand::testing::assert_invalid_items(
        client
            .arrange_batch(pb::ArrangeBatchRequest { items })
            .await,
        &[(&a, "at most 16 distinct rule sets"), (&b, "another batch")],
    );
    server.shutdown().await.unwrap();
}
