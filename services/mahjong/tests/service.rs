//! End-to-end tests of the mahjong gRPC service: the real server on an
//! ephemeral loopback port, called with the generated client.

mod common;

use common::{start, start_with, POOL_BATCH, SERVICE};
use deckhand::proto::mahjong::v1 as pb;
use deckhand::testing::{assert_invalid, assert_invalid_items};
use mahjong::grpc::{Mahjong, DEFAULT_MAX_BATCH};

fn text(tiles: &str) -> pb::Hand {
    pb::Hand {
        tiles: Some(pb::hand::Tiles::Text(tiles.into())),
    }
}

fn counts(bytes: &[u8]) -> pb::Hand {
    pb::Hand {
        tiles: Some(pb::hand::Tiles::Counts(bytes.to_vec())),
    }
}

/// The 34 counts of MPSZ text (no red fives), built here independently of the engine.
fn counts_of(tiles: &str) -> Vec<u8> {
    let mut out = vec![0u8; 34];
    let mut digits = Vec::new();
    for c in tiles.chars() {
        match c {
            '1'..='9' => digits.push(c as usize - '1' as usize),
            'm' | 'p' | 's' | 'z' => {
                let base = match c {
                    'm' => 0,
                    'p' => 9,
                    's' => 18,
                    _ => 27,
                };
                for d in digits.drain(..) {
                    out[base + d] += 1;
                }
            }
            other => panic!("bad test text {other:?}"),
        }
    }
    out
}

fn check_win(hands: Vec<pb::Hand>) -> pb::CheckWinRequest {
    pb::CheckWinRequest { hands }
}

fn shanten(hands: Vec<pb::Hand>) -> pb::ShantenRequest {
    pb::ShantenRequest { hands }
}

fn waits(hands: Vec<pb::Hand>) -> pb::WaitsRequest {
    pb::WaitsRequest { hands }
}

fn standard(pair: i32, triplets: &[i32], sequences: &[i32]) -> pb::Decomposition {
    pb::Decomposition {
        pair,
        triplets: triplets.to_vec(),
        sequences: sequences.to_vec(),
        form: pb::Form::Standard as i32,
        pairs: vec![],
    }
}

#[tokio::test]
async fn agari_cases_through_check_win() {
    let (server, mut client) = start().await;
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../engines/mahjong/tests/data/agari_cases.tsv"
    ))
    .unwrap();
    let rows: Vec<Vec<&str>> = data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 17);
    // One batch with every row, so the results must come back in request order.
    let hands = rows.iter().map(|r| text(r[0])).collect();
    let results = client
        .check_win(check_win(hands))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), rows.len());
    for (row, result) in rows.iter().zip(&results) {
        let expected = row[1] == "True";
        assert_eq!(result.win, expected, "{row:?}");
        assert_eq!(result.win, !result.decompositions.is_empty(), "{row:?}");
        let has = |form: pb::Form| result.decompositions.iter().any(|d| d.form == form as i32);
        if expected && row[2].contains("chitoitsu") {
            assert!(has(pb::Form::SevenPairs), "{row:?}");
        }
        if expected && row[2].contains("kokushi") {
            assert!(has(pb::Form::ThirteenOrphans), "{row:?}");
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn decompositions_of_known_hands() {
    let (server, mut client) = start().await;
    let hands = vec![
        // Triplets 111m 222m 333m or three 123m sequences; 444p, pair 55p.
        text("111222333m44455p"),
        // Seven pairs only.
        text("1199p1133557799s"),
        // Thirteen orphans with 1z doubled.
        text("19m19p19s11234567z"),
        // A concealed part of 5 tiles (three melds called): 111z + 22z.
        text("11122z"),
        // The seed's shape: 11z 123m 456p 789s 222z.
        text("123m456p789s11222z"),
        // 13 tiles are never complete.
        text("123m456p789s1122z"),
    ];
    let results = client
        .check_win(check_win(hands))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), 6);

    assert!(results[0].win);
    assert_eq!(
        results[0].decompositions,
        vec![
            standard(13, &[0, 1, 2, 12], &[]),
            standard(13, &[12], &[0, 0, 0]),
        ]
    );

    assert!(results[1].win);
    assert_eq!(
        results[1].decompositions,
        vec![pb::Decomposition {
            pair: 9,
            triplets: vec![],
            sequences: vec![],
            form: pb::Form::SevenPairs as i32,
            pairs: vec![9, 17, 18, 20, 22, 24, 26],
        }]
    );

    assert!(results[2].win);
    assert_eq!(
        results[2].decompositions,
        vec![pb::Decomposition {
            pair: 27,
            triplets: vec![],
            sequences: vec![],
            form: pb::Form::ThirteenOrphans as i32,
            pairs: vec![],
        }]
    );

    assert_eq!(results[3].decompositions, vec![standard(28, &[27], &[])]);
    assert_eq!(
        results[4].decompositions,
        vec![standard(27, &[28], &[0, 12, 24])]
    );
    assert!(!results[5].win && results[5].decompositions.is_empty());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shanten_values() {
    let (server, mut client) = start().await;
    let hands = vec![
        // Ready on 1z/2z; two pairs for seven pairs; 1m 9s 1z 2z (+ a pair) for orphans.
        text("123m456p789s1122z"),
        // Complete.
        text("123m456p789s11222z"),
        // Ready for thirteen orphans only.
        text("19m19p19s1234567z"),
        // Six pairs and a single: ready for seven pairs.
        text("1199p1133557799s"),
        // Four copies of 1m: the only "wait" would be a fifth 1m, so 1-shanten.
        text("1111m"),
        // 11 tiles: the special forms are undefined.
        text("123m456p789s11z"),
    ];
    let results = client
        .shanten(shanten(hands))
        .await
        .unwrap()
        .into_inner()
        .results;
    let r = |standard, seven_pairs, thirteen_orphans, minimum| pb::ShantenResult {
        standard,
        seven_pairs,
        thirteen_orphans,
        minimum,
    };
    assert_eq!(results[0], r(0, Some(4), Some(8), 0));
    // 222z holds a pair, so seven pairs counts two pairs: 6 - 2.
    assert_eq!(results[1], r(-1, Some(4), Some(8), -1));
    assert_eq!(results[2].thirteen_orphans, Some(0));
    assert_eq!(results[2].minimum, 0);
    assert!(results[2].standard > 0);
    assert_eq!(results[3].seven_pairs, Some(-1));
    assert_eq!(results[3].minimum, -1);
    assert_eq!(results[4], r(1, None, None, 1));
    assert_eq!(results[5], r(-1, None, None, -1));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn waits_with_unseen_counts_and_the_four_copies_rule() {
    let (server, mut client) = start().await;
    let hands = vec![
        // Nine gates: every man tile; three copies of 1m and 9m are held.
        text("1112345678999m"),
        // Shanpon on 1z / 2z, two copies of each held.
        text("123m456p789s1122z"),
        // 111m 123m + a 5z tanki (7 tiles, two melds called); a fifth 1m
        // does not exist, so 5z is the only wait.
        text("1111m23m5z"),
        // By shape a 1m tanki, but that would be a fifth 1m: no waits at all.
        text("1111m234567p789s"),
        // One tile: a tanki wait on itself.
        text("7z"),
    ];
    let results = client
        .waits(waits(hands))
        .await
        .unwrap()
        .into_inner()
        .results;
    let list = |r: &pb::WaitsResult| -> Vec<(i32, String, u32)> {
        r.waits
            .iter()
            .map(|w| (w.tile, w.text.clone(), w.unseen))
            .collect()
    };
    let nine_gates: Vec<(i32, String, u32)> = (0..9)
        .map(|i| {
            let unseen = if i == 0 || i == 8 { 1 } else { 3 };
            (i, format!("{}m", i + 1), unseen)
        })
        .collect();
    assert_eq!(list(&results[0]), nine_gates);
    assert_eq!(
        list(&results[1]),
        vec![(27, "1z".into(), 2), (28, "2z".into(), 2)]
    );
    assert_eq!(list(&results[2]), vec![(31, "5z".into(), 3)]);
    assert_eq!(list(&results[3]), vec![]);
    assert_eq!(list(&results[4]), vec![(33, "7z".into(), 3)]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn counts_form_matches_text_form() {
    let (server, mut client) = start().await;
    let tiles = ["111222333m44455p", "19m19p19s11234567z", "11223344556677m"];
    let by_text = client
        .check_win(check_win(tiles.iter().map(|t| text(t)).collect()))
        .await
        .unwrap()
        .into_inner()
        .results;
    let by_counts = client
        .check_win(check_win(
            tiles.iter().map(|t| counts(&counts_of(t))).collect(),
        ))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(by_text, by_counts);
    assert!(by_counts.iter().all(|r| r.win));
    // Standard readings plus the seven pairs one.
    assert!(by_counts[2].decompositions.len() >= 2);

    let w = client
        .waits(waits(vec![counts(&counts_of("123m456p789s1122z"))]))
        .await
        .unwrap()
        .into_inner()
        .results;
    let tiles: Vec<i32> = w[0].waits.iter().map(|w| w.tile).collect();
    assert_eq!(tiles, vec![27, 28]);

    let s = client
        .shanten(shanten(vec![
            counts(&counts_of("123m456p789s1122z")),
            text("0m5m5m"),
        ]))
        .await;
    // 3 tiles fit no form, even when two of them are written as red fives.
    assert_invalid(s, &["hands[1]", "3 tiles fit no hand form"]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn big_batches_keep_request_order() {
    let (server, mut client) = start().await;
    let n = POOL_BATCH * 3 + 7;
    let hands: Vec<pb::Hand> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                text("123m456p789s11222z")
            } else if i % 3 == 1 {
                counts(&counts_of("123m456p789s1122z"))
            } else {
                text("1112345678999m")
            }
        })
        .collect();
    let results = client
        .check_win(check_win(hands.clone()))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), n);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.win, i % 3 == 0, "hands[{i}]");
    }
    let results = client
        .waits(waits(
            hands[1..3]
                .iter()
                .cycle()
                .take(2 * POOL_BATCH)
                .cloned()
                .collect(),
        ))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), 2 * POOL_BATCH);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.waits.len(), if i % 2 == 0 { 2 } else { 9 }, "hands[{i}]");
    }

    // An error deep in a big batch names the right hand.
    let mut bad = vec![text("123m456p789s1122z"); POOL_BATCH * 2];
    bad[1500] = text("123m456p789s1122q");
    let r = client.shanten(shanten(bad)).await;
    assert_invalid(r, &["hands[1500]", "unknown tile text", "q"]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_invalid_argument_naming_the_hand() {
    let (server, mut client) = start().await;
    let ok = || text("123m456p789s1122z");

    // Unknown tile text.
    let r = client.check_win(check_win(vec![ok(), text("123x")])).await;
    assert_invalid(r, &["hands[1]", "unknown tile text", "\"x\"", "position 3"]);
    let r = client
        .check_win(check_win(vec![text("123m456p789s118z")]))
        .await;
    assert_invalid(r, &["hands[0]", "no such honour", "8z"]);
    let r = client
        .shanten(shanten(vec![ok(), ok(), text("123m45")]))
        .await;
    assert_invalid(r, &["hands[2]", "no suit letter"]);
    // A fifth copy.
    let r = client
        .check_win(check_win(vec![ok(), ok(), text("11111m234p")]))
        .await;
    assert_invalid(r, &["hands[2]", "5 copies of 1m", "at most four"]);
    let mut five = counts_of("123m456p789s1122z");
    five[33] = 5;
    let r = client.waits(waits(vec![counts(&five)])).await;
    assert_invalid(r, &["hands[0]", "5 copies of 7z"]);
    // A tile count that fits no form.
    let r = client
        .check_win(check_win(vec![ok(), text("123m456p789s111z")]))
        .await;
    assert_invalid(r, &["hands[1]", "12 tiles fit no hand form"]);
    let r = client
        .shanten(shanten(vec![text("123m456p789s11222z1m")]))
        .await;
    assert_invalid(r, &["hands[0]", "15 tiles fit no hand form"]);
    let r = client.shanten(shanten(vec![counts(&[0; 34])])).await;
    assert_invalid(r, &["hands[0]", "0 tiles fit no hand form"]);
    // A counts field not 34 bytes long.
    let r = client
        .check_win(check_win(vec![ok(), counts(&[1; 33])]))
        .await;
    assert_invalid(r, &["hands[1]", "exactly 34 entries, got 33"]);
    let r = client.waits(waits(vec![counts(&[0; 35])])).await;
    assert_invalid(r, &["hands[0]", "got 35"]);
    // A hand with neither text nor counts.
    let r = client
        .shanten(shanten(vec![ok(), pb::Hand { tiles: None }]))
        .await;
    assert_invalid(r, &["hands[1]", "missing"]);
    // Waits of a hand that is not one tile short.
    let r = client
        .waits(waits(vec![ok(), text("123m456p789s11222z")]))
        .await;
    assert_invalid(r, &["hands[1]", "14 tiles is not one tile short"]);
    let r = client.waits(waits(vec![text("55z")])).await;
    assert_invalid(r, &["hands[0]", "2 tiles is not one tile short"]);
    // Empty and oversized batches, in every RPC.
    let r = client.check_win(check_win(vec![])).await;
    assert_invalid(r, &["hands", "empty"]);
    let r = client.shanten(shanten(vec![])).await;
    assert_invalid(r, &["hands", "empty"]);
    let r = client.waits(waits(vec![])).await;
    assert_invalid(r, &["hands", "empty"]);
    let over = vec![text("1m"); DEFAULT_MAX_BATCH + 1];
    let r = client.check_win(check_win(over.clone())).await;
    assert_invalid(r, &["hands", "100001 items", "over the limit of 100000"]);
    let r = client.shanten(shanten(over.clone())).await;
    assert_invalid(r, &["hands", "over the limit"]);
    let r = client.waits(waits(over)).await;
    assert_invalid(r, &["hands", "over the limit"]);

    // The server is still healthy after all of that.
    let ok = client.waits(waits(vec![ok()])).await.unwrap().into_inner();
    assert_eq!(ok.results[0].waits.len(), 2);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn every_bad_hand_of_a_batch_is_named() {
    let (server, mut client) = start().await;
    let ok = || text("123m456p789s1122z");
    let r = client
        .check_win(check_win(vec![ok(), text("123x"), ok(), counts(&[1; 33])]))
        .await;
    assert_invalid_items(
        r,
        &[("hands[1]", "unknown tile text"), ("hands[3]", "got 33")],
    );
    // Errors of the answer itself (not one tile short) count as well.
    let r = client
        .waits(waits(vec![text("55z"), ok(), text("11111m")]))
        .await;
    assert_invalid_items(
        r,
        &[
            ("hands[0]", "2 tiles is not one tile short"),
            ("hands[2]", "5 copies of 1m"),
        ],
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_smaller_batch_limit_is_enforced() {
    let (server, mut client) = start_with(Mahjong::new(2)).await;
    let two = vec![text("1m"), text("2m")];
    let r = client.waits(waits(two.clone())).await.unwrap().into_inner();
    assert_eq!(r.results.len(), 2);
    let three = vec![text("1m"), text("2m"), text("3m")];
    let r = client.waits(waits(three)).await;
    assert_invalid(r, &["hands", "batch of 3 items is over the limit of 2"]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_reports_serving_and_shutdown_is_graceful() {
    let (server, _client) = start().await;
    deckhand::testing::check_health_and_graceful_shutdown(server, SERVICE).await;
}
