//! End-to-end tests of the hand-ops gRPC service: the real server on an
//! ephemeral loopback port, called with the generated client.

use deckhand::proto::handops::v1 as pb;
use deckhand::server::RunningServer;
use hand_ops::grpc::{HandOps, HandOpsServiceServer, DEFAULT_MAX_BATCH};
use pb::hand_ops_service_client::HandOpsServiceClient;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;

use deckhand::testing::{assert_invalid, assert_invalid_items, serve_on_loopback};

const SERVICE: &str = <HandOpsServiceServer<HandOps> as NamedService>::NAME;

async fn start() -> (RunningServer, HandOpsServiceClient<Channel>) {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(HandOps::default().into_server(config.max_message_bytes))
    })
    .await;
    let client = HandOpsServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    (server, client)
}

fn text(cards: &str) -> pb::Hand {
    pb::Hand {
        cards: Some(pb::hand::Cards::Text(cards.into())),
    }
}

fn packed(value: u64) -> pb::Hand {
    pb::Hand {
        cards: Some(pb::hand::Cards::Packed(value)),
    }
}

fn pair(hand: pb::Hand, part: pb::Hand) -> pb::HandPair {
    pb::HandPair {
        hand: Some(hand),
        part: Some(part),
    }
}

#[tokio::test]
async fn seed_examples_contains_and_remove() {
    let (server, mut client) = start().await;
    // A = {3:2, 4:2, 5:2}; X = {3:1, 4:1, 5:1}; Y = {4:3, 5:3}; Z = {4:1, 5:1, 6:1}.
    let a = packed(0x222);
    let pairs = vec![
        pair(a.clone(), text("345")),
        pair(a.clone(), a.clone()),
        pair(a.clone(), text("444555")),
        pair(text("334455"), packed(0x1110)),
    ];
    let contains = client
        .contains(pb::ContainsRequest {
            pairs,
            packed: None,
        })
        .await
        .unwrap()
        .into_inner()
        .contains;
    assert_eq!(contains, vec![true, true, false, false]);

    // The same pairs in the columnar packed form.
    let request = pb::ContainsRequest {
        pairs: vec![],
        packed: Some(pb::PackedPairs {
            hands: vec![0x222, 0x222, 0x222, 0x222],
            parts: vec![0x111, 0x222, 0x330, 0x1110],
        }),
    };
    let contains = client
        .contains(request)
        .await
        .unwrap()
        .into_inner()
        .contains;
    assert_eq!(contains, vec![true, true, false, false]);

    let remaining = client
        .remove(pb::RemoveRequest {
            pairs: vec![pair(a, text("34"))],
        })
        .await
        .unwrap()
        .into_inner()
        .remaining;
    // {3:1, 4:1, 5:2}
    assert_eq!(remaining, vec![packed(0x211)]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn legal_move_counts_match_the_data_file() {
    let (server, mut client) = start().await;
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../engines/handops/tests/data/legal_moves.tsv"
    ))
    .unwrap();
    let mut rows = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let (hand, beat, count) = (fields[0], fields[1], fields[2].parse::<usize>().unwrap());
        let request = pb::LegalMovesRequest {
            hand: Some(text(hand)),
            beat: (beat != "-").then(|| text(beat)),
        };
        let moves = client
            .legal_moves(request)
            .await
            .unwrap()
            .into_inner()
            .moves;
        assert_eq!(moves.len(), count, "{hand} beating {beat}");
        for m in &moves {
            assert_ne!(m.r#type, pb::MoveType::Unspecified as i32);
            let parsed: deckhand_handops::CardsVector = m.text.parse().unwrap();
            assert_eq!(parsed.packed(), m.packed);
        }
        rows += 1;
    }
    assert!(rows >= 10, "data file has {rows} rows");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn classify_reports_type_key_and_length() {
    let (server, mut client) = start().await;
    let request = pb::ClassifyRequest {
        hands: vec![text("34567"), text("3335"), text("BR"), text("34")],
    };
    let results = client.classify(request).await.unwrap().into_inner().results;
    let m = results[0].r#move.as_ref().unwrap();
    assert_eq!(
        (m.r#type, m.key.as_str(), m.chain_length),
        (pb::MoveType::ChainOfSingles as i32, "3", 5)
    );
    let m = results[1].r#move.as_ref().unwrap();
    assert_eq!(
        (m.r#type, m.key.as_str()),
        (pb::MoveType::TrioWithSingle as i32, "3")
    );
    assert_eq!(
        results[2].r#move.as_ref().unwrap().r#type,
        pb::MoveType::Rocket as i32
    );
    assert!(!results[3].valid && results[3].r#move.is_none());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_invalid_argument_naming_the_item() {
    let (server, mut client) = start().await;
    let contains = |pairs: Vec<pb::HandPair>| pb::ContainsRequest {
        pairs,
        packed: None,
    };

    let r = client
        .contains(contains(vec![pair(text("33X"), text("3"))]))
        .await;
    assert_invalid(r, &["pairs[0].hand", "unknown rank", "X"]);
    let r = client
        .contains(contains(vec![
            pair(text("3"), text("3")),
            pair(text("3"), text("33333")),
        ]))
        .await;
    assert_invalid(r, &["pairs[1].part", "too many 3"]);
    let r = client
        .contains(contains(vec![pair(text("BB"), text("B"))]))
        .await;
    assert_invalid(r, &["pairs[0].hand", "too many B"]);
    let r = client
        .contains(contains(vec![pair(packed(1 << 60), text("3"))]))
        .await;
    assert_invalid(r, &["pairs[0].hand", "nibble 15"]);
    let r = client
        .contains(contains(vec![pair(text("3"), packed(0x5))]))
        .await;
    assert_invalid(r, &["pairs[0].part", "holds 5"]);
    let r = client
        .contains(contains(vec![pb::HandPair {
            hand: Some(text("3")),
            part: None,
        }]))
        .await;
    assert_invalid(r, &["pairs[0].part", "missing"]);
    let r = client.contains(contains(vec![])).await;
    assert_invalid(r, &["pairs", "empty"]);
    let over = vec![pair(packed(0x1), packed(0x1)); DEFAULT_MAX_BATCH + 1];
    let r = client.contains(contains(over)).await;
    assert_invalid(r, &["pairs", "over the limit"]);

    let r = client
        .remove(pb::RemoveRequest {
            pairs: vec![pair(text("345"), text("3")), pair(text("345"), text("33"))],
        })
        .await;
    assert_invalid(r, &["pairs[1]", "not contained"]);
    let r = client
        .legal_moves(pb::LegalMovesRequest {
            hand: Some(text("3456")),
            beat: Some(text("34")),
        })
        .await;
    assert_invalid(r, &["beat", "not a valid play"]);
    let r = client
        .legal_moves(pb::LegalMovesRequest {
            hand: None,
            beat: None,
        })
        .await;
    assert_invalid(r, &["hand", "missing"]);
    let r = client
        .classify(pb::ClassifyRequest {
            hands: vec![text("3"), text("3?")],
        })
        .await;
    assert_invalid(r, &["hands[1]", "unknown rank"]);

    let packed = |hands: Vec<u64>, parts: Vec<u64>| pb::ContainsRequest {
        pairs: vec![],
        packed: Some(pb::PackedPairs { hands, parts }),
    };
    let r = client.contains(packed(vec![0x1, 0x2], vec![0x1])).await;
    assert_invalid(r, &["packed", "2 hands but 1 parts"]);
    let r = client
        .contains(packed(vec![0x1, 0x2], vec![0x1, 0x6]))
        .await;
    assert_invalid(r, &["packed.parts[1]", "holds 6"]);
    let r = client.contains(packed(vec![], vec![])).await;
    assert_invalid(r, &["packed", "empty"]);
    let mut both = packed(vec![0x1], vec![0x1]);
    both.pairs = vec![pair(text("3"), text("3"))];
    assert_invalid(client.contains(both).await, &["packed", "not both"]);

    // The server is still healthy after all of that.
    let ok = client
        .contains(contains(vec![pair(text("33"), text("3"))]))
        .await
        .unwrap();
    assert_eq!(ok.into_inner().contains, vec![true]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn every_bad_item_of_a_batch_is_named() {
    let (server, mut client) = start().await;
    let r = client
        .contains(pb::ContainsRequest {
            pairs: vec![
                pair(text("33X"), text("3")),
                pair(text("3"), text("3")),
                pair(text("BBB"), packed(0x5)),
            ],
            packed: None,
        })
        .await;
    assert_invalid_items(
        r,
        &[
            ("pairs[0].hand", "unknown rank"),
            ("pairs[2].hand", "too many B"),
            ("pairs[2].part", "holds 5"),
        ],
    );
    let r = client
        .contains(pb::ContainsRequest {
            pairs: vec![],
            packed: Some(pb::PackedPairs {
                hands: vec![0x6, 0x1, 0x1],
                parts: vec![0x1, 0x1, 0x7],
            }),
        })
        .await;
    assert_invalid_items(
        r,
        &[
            ("packed.hands[0]", "holds 6"),
            ("packed.parts[2]", "holds 7"),
        ],
    );
    let r = client
        .remove(pb::RemoveRequest {
            pairs: vec![
                pair(text("345"), text("33")),
                pair(text("345"), text("3")),
                pair(text("345"), text("6")),
            ],
        })
        .await;
    assert_invalid_items(
        r,
        &[("pairs[0]", "not contained"), ("pairs[2]", "not contained")],
    );
    let r = client
        .classify(pb::ClassifyRequest {
            hands: vec![text("3?"), text("3"), text("X")],
        })
        .await;
    assert_invalid_items(
        r,
        &[("hands[0]", "unknown rank"), ("hands[2]", "unknown rank")],
    );

    // Past the cap (deckhand::status::MAX_VIOLATIONS) the message still counts
    // every bad item.
    let r = client
        .classify(pb::ClassifyRequest {
            hands: vec![text("X"); 250],
        })
        .await;
    let status = r.expect_err("bad hands");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().ends_with("(and 249 more)"), "{status:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_reports_serving_and_shutdown_is_graceful() {
    let (server, _client) = start().await;
    deckhand::testing::check_health_and_graceful_shutdown(server, SERVICE).await;
}

#[tokio::test]
async fn a_client_deadline_is_honoured() {
    let (server, mut client) = start().await;
    // The full deck's 27,471 plays take far longer than one microsecond.
    let mut request = tonic::Request::new(pb::LegalMovesRequest {
        hand: Some(text(
            "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR",
        )),
        beat: None,
    });
    request.set_timeout(std::time::Duration::from_micros(1));
    let status = client.legal_moves(request).await.expect_err("deadline");
    assert!(
        matches!(
            status.code(),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled
        ),
        "{status:?}"
    );
    // Without a deadline the same request succeeds.
    let request = pb::LegalMovesRequest {
        hand: Some(text(
            "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR",
        )),
        beat: None,
    };
    let moves = client
        .legal_moves(request)
        .await
        .unwrap()
        .into_inner()
        .moves;
    assert_eq!(moves.len(), 27_471);
    server.shutdown().await.unwrap();
}
