//! End-to-end tests of the `Score` RPC: the real server on an ephemeral
//! loopback port, called with the generated client.

mod common;

use common::{start, POOL_BATCH};
use deckhand::proto::mahjong::v1 as pb;
use deckhand::testing::assert_invalid;
use mahjong::grpc::DEFAULT_MAX_BATCH;

fn situation(hand: &str, win: &str) -> pb::WinSituation {
    pb::WinSituation {
        hand: hand.into(),
        win_tile: win.into(),
        ..Default::default()
    }
}

fn request(situations: Vec<pb::WinSituation>) -> pb::ScoreRequest {
    pb::ScoreRequest { situations }
}

fn names(r: &pb::ScoreResult) -> Vec<&str> {
    r.yaku.iter().map(|y| y.name.as_str()).collect()
}

#[tokio::test]
async fn scores_known_situations_in_order() {
    let (server, mut client) = start().await;
    let pinfu = pb::WinSituation {
        tsumo: true,
        riichi: true,
        dora_indicators: vec!["1m".into()],
        ..situation("234789m12345666p", "6p")
    };
    let open = pb::WinSituation {
        melds: vec!["pon:777z".into(), "chi:406s".into()],
        seat_wind: pb::Wind::East as i32,
        honba: 1,
        riichi_sticks: 2,
        ..situation("123m456p55z", "5z")
    };
    let no_yaku = pb::WinSituation {
        melds: vec!["pon:777p".into()],
        ..situation("123m456p789s11z", "2m")
    };
    let not_complete = situation("123m456p789s12355z", "5z");
    let kokushi = situation("19m19p19s12345677z", "7z");
    let results = client
        .score(request(vec![pinfu, open, no_yaku, not_complete, kokushi]))
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), 5);

    let r = &results[0];
    assert_eq!(r.verdict, pb::ScoreVerdict::Scored as i32);
    assert_eq!(names(r), ["riichi", "menzen tsumo", "pinfu"]);
    assert_eq!((r.han, r.fu, r.dora), (4, 20, 1));
    let p = r.points.unwrap();
    assert_eq!(
        (p.tsumo_dealer, p.tsumo_others, p.total),
        (2600, 1300, 5200)
    );
    assert_eq!(r.wait, "ryanmen");
    assert_eq!(r.groups[0].text, "66p");

    // Dealer, open: chun 1 + red five 1 = 2 han; 20 + 4 (open honour pon)
    // + 2 (white dragon pair) + 2 (tanki) = 28 -> 30 fu.
    let r = &results[1];
    assert_eq!(names(r), ["chun"]);
    assert_eq!((r.han, r.fu, r.red_fives), (2, 30, 1));
    let p = r.points.unwrap();
    assert_eq!((p.ron, p.total, p.honba, p.sticks), (2900, 2900, 300, 2000));
    assert_eq!(p.received, 2900 + 300 + 2000);
    assert!(r
        .fu_items
        .iter()
        .any(|f| f.reason == "value pair" && f.tile == "5z"));

    let r = &results[2];
    assert_eq!(r.verdict, pb::ScoreVerdict::NoYaku as i32);
    assert!(r.yaku.is_empty());
    assert_eq!(r.points.unwrap().total, 0);

    assert_eq!(results[3].verdict, pb::ScoreVerdict::NotComplete as i32);

    let r = &results[4];
    assert_eq!(r.limit, "double yakuman");
    assert_eq!(r.yaku[0].yakuman, 2);
    assert_eq!(r.points.unwrap().ron, 64000);

    // A big batch (CPU pool) keeps request order.
    let many: Vec<pb::WinSituation> = (0..POOL_BATCH + 7)
        .map(|i| {
            if i % 2 == 0 {
                situation("19m19p19s12345677z", "7z")
            } else {
                situation("123m456p789s12355z", "5z")
            }
        })
        .collect();
    let results = client
        .score(request(many))
        .await
        .unwrap()
        .into_inner()
        .results;
    for (i, r) in results.iter().enumerate() {
        let want = if i % 2 == 0 {
            pb::ScoreVerdict::Scored
        } else {
            pb::ScoreVerdict::NotComplete
        };
        assert_eq!(r.verdict, want as i32, "{i}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_invalid_argument_naming_the_item() {
    let (server, mut client) = start().await;
    let ok = || situation("234789m12345666p", "6p");
    let with = |f: &dyn Fn(&mut pb::WinSituation)| {
        let mut s = ok();
        f(&mut s);
        request(vec![ok(), s])
    };

    let r = client
        .score(with(&|s| {
            s.hand = "111m234p567s55z".into();
            s.win_tile = "5z".into();
            s.melds = vec!["pon:111m".into()];
        }))
        .await;
    assert_invalid(r, &["situations[1].melds", "fifth copy of 1m"]);
    let r = client
        .score(with(&|s| {
            s.hand = "123m456p789s55556z".into();
            s.win_tile = "6z".into();
            s.dora_indicators = vec!["1m".into(), "5z".into()];
        }))
        .await;
    assert_invalid(r, &["situations[1].dora_indicators", "fifth copy of 5z"]);
    let r = client
        .score(with(&|s| {
            s.hand = "123m456p55z".into();
            s.melds = vec!["pon:777z".into(), "chi:124s".into()];
        }))
        .await;
    assert_invalid(r, &["situations[1].melds[1]", "chi:124s", "is not a meld"]);
    let r = client.score(with(&|s| s.win_tile = "9s".into())).await;
    assert_invalid(
        r,
        &["situations[1].win_tile", "9s is not in the concealed hand"],
    );
    let r = client.score(with(&|s| s.win_tile = "x".into())).await;
    assert_invalid(r, &["situations[1].win_tile", "unknown tile"]);
    let r = client
        .score(with(&|s| {
            s.dora_indicators = vec!["1m".into(), "8z".into()]
        }))
        .await;
    assert_invalid(r, &["situations[1].dora_indicators[1]", "8z"]);
    let r = client
        .score(with(&|s| s.hand = "234789m12345p".into()))
        .await;
    assert_invalid(r, &["situations[1].hand", "expected 14"]);
    let r = client
        .score(with(&|s| s.hand = "234789m1234566q".into()))
        .await;
    assert_invalid(r, &["situations[1].hand", "unknown tile text"]);
    let r = client.score(with(&|s| s.ippatsu = true)).await;
    assert_invalid(r, &["situations[1].ippatsu", "needs riichi"]);
    let r = client
        .score(with(&|s| {
            s.riichi = true;
            s.hand = "234789m12366p".into();
            s.melds = vec!["pon:555p".into()];
        }))
        .await;
    assert_invalid(r, &["situations[1].riichi", "closed"]);
    let r = client.score(with(&|s| s.haitei = true)).await;
    assert_invalid(r, &["situations[1].haitei", "tsumo"]);
    let r = client.score(with(&|s| s.seat_wind = 9)).await;
    assert_invalid(r, &["situations[1].seat_wind", "unknown wind 9"]);
    let r = client
        .score(with(&|s| {
            s.rules = Some(pb::ScoreRules {
                open_pinfu_fu: Some(25),
                ..Default::default()
            })
        }))
        .await;
    assert_invalid(r, &["situations[1].rules.open_pinfu_fu", "20 or 30"]);
    let r = client
        .score(with(&|s| s.melds = vec!["pon:111z".into(); 9]))
        .await;
    assert_invalid(r, &["situations[1].melds", "at most 8"]);
    let r = client.score(with(&|s| s.hand = "1".repeat(100))).await;
    assert_invalid(r, &["situations[1].hand", "at most 64"]);
    let r = client.score(request(vec![])).await;
    assert_invalid(r, &["situations", "empty"]);
    let r = client
        .score(request(vec![ok(); DEFAULT_MAX_BATCH + 1]))
        .await;
    assert_invalid(r, &["situations", "over the limit"]);

    // Still serving: pinfu ron, 1 han 30 fu.
    let r = client
        .score(request(vec![ok()]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(names(&r.results[0]), ["pinfu"]);
    assert_eq!((r.results[0].han, r.results[0].fu), (1, 30));
    server.shutdown().await.unwrap();
}

/// A batch with several bad situations names each of them, in order, with
/// good ones between them left out; the message counts the others.
#[tokio::test]
async fn every_bad_situation_of_a_batch_is_named() {
    let (server, mut client) = start().await;
    let ok = || situation("234789m12345666p", "6p");
    let bad_win = pb::WinSituation {
        win_tile: "x".into(),
        ..ok()
    };
    let bad_hand = pb::WinSituation {
        hand: "234789m12345p".into(),
        ..ok()
    };
    let bad_wind = pb::WinSituation {
        seat_wind: 9,
        ..ok()
    };
    let r = client
        .score(request(vec![ok(), bad_win, ok(), bad_hand, bad_wind, ok()]))
        .await;
    deckhand::testing::assert_invalid_items(
        r,
        &[
            ("situations[1].win_tile", "unknown tile"),
            ("situations[3].hand", "expected 14"),
            ("situations[4].seat_wind", "unknown wind 9"),
        ],
    );
    server.shutdown().await.unwrap();
}
