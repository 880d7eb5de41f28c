//! The issue's reproducer: ArrangeBatch of 30,000 items of all 106 tiles is
//! refused before any work (its answer cannot fit in a message), naming the
//! stream form; ArrangeBatchStream answers batch by batch, like ArrangeBatch.

use std::time::{Duration, Instant};

use deckhand::proto::rummikub::v1 as pb;
use deckhand::server::{spawn, RunningServer, ServerConfig, Services};
use pb::rummikub_service_client::RummikubServiceClient;
use rummikub::grpc::{Rummikub, RummikubServiceServer};
use tonic::codegen::tokio_stream::{self, StreamExt};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::Code;

const SERVICE: &str = <RummikubServiceServer<Rummikub> as NamedService>::NAME;

async fn start() -> (RunningServer, RummikubServiceClient<Channel>) {
    let config = ServerConfig::loopback();
    let service = Rummikub::default()
        .with_budget(config.memory_budget())
        .into_server(config.max_message_bytes);
    let server = spawn(config, Services::new(Routes::new(service), &[SERVICE]))
        .await
        .expect("server starts");
    let client = RummikubServiceClient::connect(format!("http://{}", server.addr))
        .await
        .expect("client connects")
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
