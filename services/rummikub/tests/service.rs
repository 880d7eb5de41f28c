//! End-to-end tests of the rummikub gRPC service: the real server on an
//! ephemeral loopback port, called with the generated client. Every returned
//! arrangement is checked here, from the wire strings alone, to be valid
//! melds holding exactly the expected tiles, each meld's `represents` a valid
//! completion of it (what every joker stands for).

use deckhand::proto::rummikub::v1 as pb;
use deckhand::server::RunningServer;
use deckhand::testing::{assert_invalid, assert_invalid_items, serve_on_loopback};
use deckhand_rummikub::Tile;
use pb::rummikub_service_client::RummikubServiceClient;
use rummikub::grpc::{Rummikub, RummikubServiceServer, DEFAULT_MAX_BATCH};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;

const SERVICE: &str = <RummikubServiceServer<Rummikub> as NamedService>::NAME;

async fn start() -> (RunningServer, RummikubServiceClient<Channel>) {
    let (server, channel) = serve_on_loopback(SERVICE, |config| {
        Routes::new(Rummikub::default().into_server(config.max_message_bytes))
    })
    .await;
    let client = RummikubServiceClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    (server, client)
}

/// `"k1 k2 J"` -> `["k1", "k2", "J"]`.
fn tiles(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn arrange_request(text: &str) -> pb::ArrangeRequest {
    pb::ArrangeRequest {
        tiles: tiles(text),
        rules: None,
    }
}

fn move_request(table: &str, rack: &str) -> pb::BestMoveRequest {
    pb::BestMoveRequest {
        table: tiles(table),
        rack: tiles(rack),
        ..Default::default()
    }
}

/// The rules a test checks melds against (numbers, colours, min_len).
#[derive(Clone, Copy)]
struct Rules {
    numbers: u8,
    colours: usize,
    min_len: usize,
}

const STANDARD: Rules = Rules {
    numbers: 13,
    colours: 4,
    min_len: 3,
};

fn parse(text: &str) -> Tile {
    text.parse()
        .unwrap_or_else(|e| panic!("server answered an unparsable tile {text:?}: {e}"))
}

/// Sorted canonical tile texts.
fn canonical<S: AsRef<str>>(texts: &[S]) -> Vec<String> {
    let mut out: Vec<String> = texts
        .iter()
        .map(|t| parse(t.as_ref()).to_string())
        .collect();
    out.sort();
    out
}

/// The numbers a meld's tiles stand for (jokers resolved), checking validity,
/// and that `represents` is a valid completion of the meld.
fn meld_numbers(rules: Rules, meld: &pb::Meld) -> Vec<u8> {
    let numbers = meld_numbers_of_tiles(rules, meld);
    check_represents(rules, meld, &numbers);
    numbers
}

/// `represents` parallels `tiles`: a number tile stands for itself, a joker
/// for a number tile that completes the meld. Runs: the run's colour and the
/// number of the position. Groups: the group's number, all colours distinct.
fn check_represents(rules: Rules, meld: &pb::Meld, numbers: &[u8]) {
    assert_eq!(
        meld.represents.len(),
        meld.tiles.len(),
        "represents does not parallel tiles: {meld:?}"
    );
    let stands: Vec<Tile> = meld.represents.iter().map(|t| parse(t)).collect();
    for ((tile, stand), &number) in meld.tiles.iter().zip(&stands).zip(numbers) {
        let tile = parse(tile);
        assert!(!stand.is_joker(), "a joker stands for a joker: {meld:?}");
        if !tile.is_joker() {
            assert_eq!(*stand, tile, "a number tile stands for another: {meld:?}");
        }
        assert_eq!(stand.number(), Some(number), "wrong number: {meld:?}");
        assert!(
            stand.colour().is_some_and(|c| c.index() < rules.colours),
            "{stand} outside the rules in {meld:?}"
        );
    }
    let mut colours: Vec<usize> = stands.iter().map(|t| t.colour().unwrap().index()).collect();
    match pb::MeldKind::try_from(meld.kind) {
        Ok(pb::MeldKind::Run) => {
            colours.dedup();
            assert_eq!(colours.len(), 1, "run represents mixed colours: {meld:?}");
        }
        _ => {
            colours.sort();
            colours.dedup();
            assert_eq!(
                colours.len(),
                stands.len(),
                "group represents a repeated colour: {meld:?}"
            );
        }
    }
}

/// Does the meld hold a joker that could be taken out leaving a valid meld?
fn has_redundant_joker(rules: Rules, meld: &pb::Meld) -> bool {
    let len = meld.tiles.len();
    if len <= rules.min_len {
        return false;
    }
    let joker = |t: &String| parse(t).is_joker();
    match pb::MeldKind::try_from(meld.kind) {
        Ok(pb::MeldKind::Run) => {
            meld.tiles.first().is_some_and(joker) || meld.tiles.last().is_some_and(joker)
        }
        _ => meld.tiles.iter().any(joker),
    }
}

/// The numbers a meld's tiles stand for (jokers resolved), checking validity.
fn meld_numbers_of_tiles(rules: Rules, meld: &pb::Meld) -> Vec<u8> {
    let tiles: Vec<Tile> = meld.tiles.iter().map(|t| parse(t)).collect();
    let len = tiles.len();
    assert!(len >= rules.min_len, "meld too short: {meld:?}");
    let real: Vec<(usize, Tile)> = tiles
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, t)| !t.is_joker())
        .collect();
    for (_, t) in &real {
        assert!(
            t.colour().is_some_and(|c| c.index() < rules.colours)
                && t.number().is_some_and(|n| n <= rules.numbers),
            "tile {t} outside the rules in {meld:?}"
        );
    }
    match pb::MeldKind::try_from(meld.kind) {
        Ok(pb::MeldKind::Run) => {
            // Ascending, each joker at the position it fills.
            let first = real
                .first()
                .map_or(1, |&(i, t)| i32::from(t.number().unwrap()) - i as i32);
            assert!(
                first >= 1 && first + len as i32 - 1 <= i32::from(rules.numbers),
                "run out of range: {meld:?}"
            );
            for &(i, t) in &real {
                assert_eq!(
                    t.colour(),
                    real[0].1.colour(),
                    "run of mixed colours: {meld:?}"
                );
                assert_eq!(
                    i32::from(t.number().unwrap()),
                    first + i as i32,
                    "run not consecutive: {meld:?}"
                );
            }
            (0..len).map(|i| (first + i as i32) as u8).collect()
        }
        Ok(pb::MeldKind::Group) => {
            assert!(len <= rules.colours, "group too long: {meld:?}");
            let number = real
                .first()
                .and_then(|(_, t)| t.number())
                .expect("group of jokers");
            let mut colours: Vec<usize> = real
                .iter()
                .map(|(_, t)| {
                    assert_eq!(t.number(), Some(number), "group of mixed numbers: {meld:?}");
                    t.colour().unwrap().index()
                })
                .collect();
            colours.sort();
            colours.dedup();
            assert_eq!(
                colours.len(),
                real.len(),
                "repeated colour in group: {meld:?}"
            );
            vec![number; len]
        }
        _ => panic!("meld without a kind: {meld:?}"),
    }
}

fn meld_value(rules: Rules, meld: &pb::Meld) -> u32 {
    meld_numbers(rules, meld)
        .iter()
        .map(|&n| u32::from(n))
        .sum()
}

/// Every meld valid and the melds hold exactly `expected`.
fn check_melds<S: AsRef<str>>(rules: Rules, melds: &[pb::Meld], expected: &[S]) {
    for meld in melds {
        meld_numbers(rules, meld);
    }
    let laid: Vec<&str> = melds
        .iter()
        .flat_map(|m| m.tiles.iter().map(String::as_str))
        .collect();
    assert_eq!(
        canonical(&laid),
        canonical(expected),
        "melds do not hold exactly the tiles"
    );
}

/// `placed` comes from `rack`, and the melds are exactly table + placed.
fn check_move(rules: Rules, table: &[String], rack: &[String], reply: &pb::BestMoveResponse) {
    let mut rest = canonical(rack);
    for tile in canonical(&reply.placed) {
        let i = rest
            .iter()
            .position(|r| *r == tile)
            .unwrap_or_else(|| panic!("placed {tile} is not on the rack"));
        rest.remove(i);
    }
    let expected: Vec<&String> = table.iter().chain(&reply.placed).collect();
    let expected: Vec<&str> = expected.iter().map(|s| s.as_str()).collect();
    check_melds(rules, &reply.melds, &expected);
}

/// Some of `melds` hold exactly `placed` and are worth at least `value`
/// (an opening's own melds); the others hold exactly `table`.
fn opening_melds_found(
    rules: Rules,
    melds: &[pb::Meld],
    table: &[String],
    placed: &[String],
    value: u32,
) -> bool {
    let n = melds.len();
    assert!(n <= 20, "too many melds for the subset check");
    (0u32..1 << n).any(|mask| {
        let (mine, rest): (Vec<&pb::Meld>, Vec<&pb::Meld>) =
            melds
                .iter()
                .enumerate()
                .fold((vec![], vec![]), |mut acc, (i, m)| {
                    if mask >> i & 1 == 1 {
                        acc.0.push(m);
                    } else {
                        acc.1.push(m);
                    }
                    acc
                });
        let held = |ms: &[&pb::Meld]| {
            let all: Vec<&str> = ms
                .iter()
                .flat_map(|m| m.tiles.iter().map(String::as_str))
                .collect();
            canonical(&all)
        };
        held(&mine) == canonical(placed)
            && held(&rest) == canonical(table)
            && mine.iter().map(|m| meld_value(rules, m)).sum::<u32>() >= value
    })
}

struct Game {
    table: Vec<String>,
    rack: Vec<String>,
}

fn in_progress_game() -> Game {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../engines/rummikub/tests/data/in_progress_game.txt"
    ))
    .expect("data file");
    let line = |prefix: &str| {
        let line = text.lines().find(|l| l.starts_with(prefix)).unwrap();
        tiles(line.split_once(':').unwrap().1)
    };
    let game = Game {
        table: line("TABLE"),
        rack: line("RACK"),
    };
    assert_eq!((game.table.len(), game.rack.len()), (31, 23));
    game
}

fn full_set() -> Vec<String> {
    let mut out = vec!["J".to_string(), "J".to_string()];
    for colour in ["k", "b", "o", "r"] {
        for n in 1..=13 {
            out.push(format!("{colour}{n}"));
            out.push(format!("{colour}{n}"));
        }
    }
    out
}

#[tokio::test]
async fn arrange_known_answers() {
    let (server, mut client) = start().await;
    let solvable = [
        "k1 k2 k3 b5 o5 r5 J",
        "k1 k2 k3",
        "k1 b1 o1 r1",
        "k12 k13 J",
        "J k1 b1",
        "K1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 k12 k13",
        "k5 b5 o5 r5 k5 b5 o5",
        "k1 k2 J J b7 b8 b9 o9 r9",
    ];
    for text in solvable {
        let reply = client
            .arrange(arrange_request(text))
            .await
            .unwrap()
            .into_inner();
        assert!(reply.solvable, "{text} should arrange");
        check_melds(STANDARD, &reply.melds, &tiles(text));
    }
    let reply = client
        .arrange(arrange_request("k1 k2 k3 b5 o5 r5 J"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.melds.len(), 2);

    for text in [
        "k1",
        "k1 k2",
        "k13 J",
        "k12 k13 k1",
        "k5 b5 o5 r5 k5",
        "J J",
    ] {
        let reply = client
            .arrange(arrange_request(text))
            .await
            .unwrap()
            .into_inner();
        assert!(!reply.solvable, "{text} should not arrange");
        assert!(reply.melds.is_empty());
    }

    // The empty set is trivially solvable: no melds.
    let reply = client
        .arrange(arrange_request(""))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable && reply.melds.is_empty());

    // The whole game: 106 tiles.
    let all = full_set();
    let reply = client
        .arrange(pb::ArrangeRequest {
            tiles: all.clone(),
            rules: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    check_melds(STANDARD, &reply.melds, &all);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn arrange_with_other_rules() {
    let (server, mut client) = start().await;
    let pairs = pb::RuleSet {
        min_len: 2,
        ..Default::default()
    };
    let request = |text: &str, rules: &pb::RuleSet| pb::ArrangeRequest {
        tiles: tiles(text),
        rules: Some(*rules),
    };
    let reply = client
        .arrange(request("k1 k2", &pairs))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    check_melds(
        Rules {
            min_len: 2,
            ..STANDARD
        },
        &reply.melds,
        &tiles("k1 k2"),
    );

    // Six colours, numbers to 20, three copies, one joker (0 = standard).
    let big = pb::RuleSet {
        numbers: 20,
        colours: 6,
        copies: 3,
        jokers: Some(1),
        min_len: 0,
        opening_value: 0,
        forbid_redundant_jokers: false,
    };
    let rules = Rules {
        numbers: 20,
        colours: 6,
        min_len: 3,
    };
    let text = "g18 g19 g20 p7 p7 p7 p8 p9 k7 b7 o7 r7 g7 o7 r7 J";
    let reply = client
        .arrange(request(text, &big))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    check_melds(rules, &reply.melds, &tiles(text));
    let reply = client.arrange(request("g19 g20 J J", &big)).await;
    assert_invalid(reply, &["tiles[3]", "2 jokers given, but there are only 1"]);
    let reply = client.arrange(request("g19 g20 y20", &big)).await;
    assert_invalid(reply, &["tiles[2]", "y20", "6 colours"]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn arrange_batch_answers_in_order() {
    let (server, mut client) = start().await;
    let texts = ["k1 k2 k3", "k1 k2", "", "k12 k13 J", "k5 b5 o5 r5 k5"];
    let mut items: Vec<pb::ArrangeRequest> = texts.iter().map(|t| arrange_request(t)).collect();
    items.push(pb::ArrangeRequest {
        tiles: tiles("k1 k2"),
        rules: Some(pb::RuleSet {
            min_len: 2,
            ..Default::default()
        }),
    });
    // Enough items to be split over several tasks.
    for i in 0..500 {
        items.push(arrange_request(if i % 2 == 0 {
            "k1 k2 k3 b5 o5 r5 J"
        } else {
            "k1 b2 J"
        }));
    }
    let results = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: items.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results.len(), items.len());
    let expected = [true, false, true, true, false, true];
    for (i, (item, result)) in items.iter().zip(&results).enumerate() {
        let want = expected.get(i).copied().unwrap_or(i % 2 == 0);
        assert_eq!(result.solvable, want, "item {i}: {:?}", item.tiles);
        if result.solvable {
            let min_len = if item.rules.is_some() { 2 } else { 3 };
            check_melds(
                Rules {
                    min_len,
                    ..STANDARD
                },
                &result.melds,
                &item.tiles,
            );
        } else {
            assert!(result.melds.is_empty());
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn best_move_in_progress_game() {
    let (server, mut client) = start().await;
    let game = in_progress_game();
    let request = pb::BestMoveRequest {
        table: game.table.clone(),
        rack: game.rack.clone(),
        ..Default::default()
    };
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &game.table, &game.rack, &reply);
    // Under the full rules the optimum is at least the reference answer's
    // 20 (see best_move_forbidding_redundant_jokers), and the engine's
    // known-answer tests show it is 20.
    assert_eq!(reply.placed.len(), 20, "placed {:?}", reply.placed);

    // Explicit MAX_TILES is the default.
    let explicit = client
        .best_move(pb::BestMoveRequest {
            objective: pb::Objective::MaxTiles as i32,
            ..request.clone()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(explicit.placed.len(), 20);

    // MAX_VALUE: no fewer points, no more tiles.
    let by_value = client
        .best_move(pb::BestMoveRequest {
            objective: pb::Objective::MaxValue as i32,
            ..request
        })
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &game.table, &game.rack, &by_value);
    let points = |placed: &[String]| -> u32 {
        placed
            .iter()
            .map(|t| parse(t).number().map_or(30, u32::from))
            .sum()
    };
    assert!(points(&by_value.placed) >= points(&reply.placed));
    assert!(by_value.placed.len() <= reply.placed.len());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn best_move_small_cases_and_objectives() {
    let (server, mut client) = start().await;
    // r4 extends r1 r2 r3, b4 fits nowhere.
    let request = move_request("r1 r2 r3", "r4 b4");
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed, tiles("r4"));
    check_move(STANDARD, &request.table, &request.rack, &reply);

    // The table may be rearranged: k1..k6 splits so that k4 b4 o4 fits.
    let request = move_request("k1 k2 k3 k4 k5 k6", "k4 b4 o4");
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(canonical(&reply.placed), canonical(&tiles("k4 b4 o4")));
    check_move(STANDARD, &request.table, &request.rack, &reply);

    // Nothing placeable, and an empty rack: the table's own arrangement.
    for request in [move_request("k1 k2 k3", "r9"), move_request("k1 k2 k3", "")] {
        let reply = client
            .best_move(request.clone())
            .await
            .unwrap()
            .into_inner();
        assert!(reply.placed.is_empty());
        check_move(STANDARD, &request.table, &request.rack, &reply);
    }

    // Most tiles (7 worth 26) against most points (6 worth 27).
    let rack = "k3 k4 k5 b2 b3 b4 b5 o4 o5";
    let tiles_reply = client
        .best_move(move_request("", rack))
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &[], &tiles(rack), &tiles_reply);
    assert_eq!(
        canonical(&tiles_reply.placed),
        canonical(&tiles("k3 k4 k5 b2 b3 b4 b5"))
    );
    let value_reply = client
        .best_move(pb::BestMoveRequest {
            objective: pb::Objective::MaxValue as i32,
            ..move_request("", rack)
        })
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &[], &tiles(rack), &value_reply);
    assert_eq!(
        canonical(&value_reply.placed),
        canonical(&tiles("k4 k5 b4 b5 o4 o5"))
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn best_move_opening_rule() {
    let (server, mut client) = start().await;
    let opening = |table: &str, rack: &str| pb::BestMoveRequest {
        opening: true,
        ..move_request(table, rack)
    };
    // 9 + 10 + 11 = 30 opens; 8 + 9 + 10 = 27 does not.
    let reply = client
        .best_move(opening("", "k9 k10 k11"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 3);
    check_move(STANDARD, &[], &tiles("k9 k10 k11"), &reply);
    let reply = client
        .best_move(opening("", "k8 k9 k10"))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.placed.is_empty() && reply.melds.is_empty());
    // Without the opening rule they are placed.
    let reply = client
        .best_move(move_request("", "k8 k9 k10"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 3);
    // A joker counts as what it stands for: k10 k11 J is worth 33. The
    // opening may not use the table (b1 b2 b3 stays as it is).
    let request = opening("b1 b2 b3", "k10 k11 J b4");
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(canonical(&reply.placed), canonical(&tiles("k10 k11 J")));
    check_move(STANDARD, &request.table, &request.rack, &reply);
    assert!(opening_melds_found(
        STANDARD,
        &reply.melds,
        &request.table,
        &reply.placed,
        30
    ));

    // The in-progress game: no opening from the rack, until o10 is added.
    let game = in_progress_game();
    let request = pb::BestMoveRequest {
        table: game.table.clone(),
        rack: game.rack.clone(),
        opening: true,
        ..Default::default()
    };
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(reply.placed.is_empty(), "placed {:?}", reply.placed);
    check_move(STANDARD, &game.table, &game.rack, &reply);
    let mut rack = game.rack.clone();
    rack.push("o10".into());
    let reply = client
        .best_move(pb::BestMoveRequest {
            rack: rack.clone(),
            ..request
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!reply.placed.is_empty());
    check_move(STANDARD, &game.table, &rack, &reply);
    assert!(
        opening_melds_found(STANDARD, &reply.melds, &game.table, &reply.placed, 30),
        "the placed tiles form no melds of their own worth 30: {:?}",
        reply.melds
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn best_move_forbidding_redundant_jokers() {
    let (server, mut client) = start().await;
    let game = in_progress_game();
    // The data file's reference solver never forms melds with a redundant
    // joker; under that restriction its answer, 20 tiles, is exact.
    let request = pb::BestMoveRequest {
        table: game.table.clone(),
        rack: game.rack.clone(),
        rules: Some(pb::RuleSet {
            forbid_redundant_jokers: true,
            ..Default::default()
        }),
        ..Default::default()
    };
    let reply = client
        .best_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &game.table, &game.rack, &reply);
    assert_eq!(reply.placed.len(), 20, "placed {:?}", reply.placed);
    for meld in &reply.melds {
        assert!(
            !has_redundant_joker(STANDARD, meld),
            "redundant joker in {meld:?}"
        );
    }

    // A small case: k1 k2 k3 + J is a run of four ending in the joker (k4),
    // which is placed under the full rules; forbidden, the joker stays.
    let allowed = move_request("k1 k2 k3", "J");
    let reply = client
        .best_move(allowed.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed, tiles("J"));
    check_move(STANDARD, &allowed.table, &allowed.rack, &reply);
    let reply = client
        .best_move(pb::BestMoveRequest {
            rules: request.rules,
            ..allowed.clone()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(reply.placed.is_empty(), "placed {:?}", reply.placed);
    check_move(STANDARD, &allowed.table, &allowed.rack, &reply);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn opening_value_is_respected() {
    let (server, mut client) = start().await;
    let opening = |rack: &str, value: u32| pb::BestMoveRequest {
        opening: true,
        rules: Some(pb::RuleSet {
            opening_value: value,
            ..Default::default()
        }),
        ..move_request("", rack)
    };
    // k8 k9 k10 is worth 27: enough for an opening of 25, not for 30 (0 =
    // standard) nor for 28.
    let reply = client
        .best_move(opening("k8 k9 k10", 25))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(canonical(&reply.placed), canonical(&tiles("k8 k9 k10")));
    check_move(STANDARD, &[], &tiles("k8 k9 k10"), &reply);
    for value in [0, 30, 28] {
        let reply = client
            .best_move(opening("k8 k9 k10", value))
            .await
            .unwrap()
            .into_inner();
        assert!(reply.placed.is_empty(), "opening {value}: {reply:?}");
    }
    let reply = client
        .best_move(opening("k8 k9 k10", 27))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 3);
    // A joker counts as what it stands for: k9 k10 J opens 30 as
    // k9 k10 k11, and `represents` says so; 31 is out of its reach.
    let reply = client
        .best_move(opening("k9 k10 J", 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 3);
    check_move(STANDARD, &[], &tiles("k9 k10 J"), &reply);
    let meld = &reply.melds[0];
    assert_eq!(meld.represents, tiles("k9 k10 k11"), "{meld:?}");
    assert_eq!(meld_value(STANDARD, meld), 30, "{meld:?}");
    let reply = client
        .best_move(opening("k9 k10 J", 31))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.placed.is_empty());
    // A higher opening value: 40 needs more than k9 k10 k11 k12 (42 opens).
    let reply = client
        .best_move(opening("k9 k10 k11", 40))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.placed.is_empty());
    let reply = client
        .best_move(opening("k9 k10 k11 k12", 40))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 4);
    // The opening value only matters for an opening.
    let reply = client
        .best_move(pb::BestMoveRequest {
            opening: false,
            ..opening("k1 k2 k3", 200)
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.placed.len(), 3);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rules_without_jokers() {
    let (server, mut client) = start().await;
    let no_jokers = Some(pb::RuleSet {
        jokers: Some(0),
        ..Default::default()
    });
    let request = |text: &str| pb::ArrangeRequest {
        tiles: tiles(text),
        rules: no_jokers,
    };
    // Number tiles are fine.
    let reply = client
        .arrange(request("k1 k2 k3 b5 o5 r5"))
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    check_melds(STANDARD, &reply.melds, &tiles("k1 k2 k3 b5 o5 r5"));
    // A joker is refused, naming it.
    let r = client.arrange(request("k1 k2 J")).await;
    assert_invalid(r, &["tiles[2]", "1 jokers given", "only 0"]);
    let r = client.arrange(request("J k1 k2")).await;
    assert_invalid(r, &["tiles[0]", "only 0"]);
    let r = client
        .best_move(pb::BestMoveRequest {
            rules: no_jokers,
            ..move_request("k1 k2 k3", "k4 j")
        })
        .await;
    assert_invalid(r, &["rack[1]", "only 0"]);
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![arrange_request("k1 k2 J"), request("k4 J k6")],
        })
        .await;
    assert_invalid(r, &["items[1].tiles[1]", "only 0"]);
    // The whole game without jokers is 104 tiles, so 105 are too many.
    let mut all: Vec<String> = full_set().into_iter().filter(|t| t != "J").collect();
    let reply = client
        .arrange(pb::ArrangeRequest {
            tiles: all.clone(),
            rules: no_jokers,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    check_melds(STANDARD, &reply.melds, &all);
    all.push("k1".into());
    let r = client
        .arrange(pb::ArrangeRequest {
            tiles: all,
            rules: no_jokers,
        })
        .await;
    assert_invalid(r, &["tiles", "105 tiles", "only 104"]);
    // Unset jokers is still the standard 2 even when other fields are set.
    let reply = client
        .arrange(pb::ArrangeRequest {
            tiles: tiles("k1 k2 J J b5 b6"),
            rules: Some(pb::RuleSet {
                numbers: 13,
                min_len: 3,
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(reply.solvable);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn melds_say_what_jokers_stand_for() {
    let (server, mut client) = start().await;
    let arrange = |text: &'static str| {
        let mut client = client.clone();
        let request = arrange_request(text);
        async move {
            let reply = client.arrange(request).await.unwrap().into_inner();
            assert!(reply.solvable, "{text} should arrange");
            check_melds(STANDARD, &reply.melds, &tiles(text));
            reply.melds
        }
    };
    // Forced completions: k1 k2 J can only be k1 k2 k3, k12 k13 J only
    // k11 k12 k13 (the joker first, at the position it fills).
    let melds = arrange("k1 k2 J").await;
    assert_eq!(melds.len(), 1);
    assert_eq!(melds[0].tiles, tiles("k1 k2 J"));
    assert_eq!(melds[0].represents, tiles("k1 k2 k3"));
    let melds = arrange("k12 k13 J").await;
    assert_eq!(melds[0].tiles, tiles("J k12 k13"));
    assert_eq!(melds[0].represents, tiles("k11 k12 k13"));
    // In the middle of a run.
    let melds = arrange("r4 J r6").await;
    assert_eq!(melds[0].represents, tiles("r4 r5 r6"));
    // A group: the joker is one of the missing colours (checked by
    // check_melds); with three colours present, the fourth.
    let melds = arrange("k5 b5 J").await;
    assert_eq!(melds[0].represents.len(), 3);
    let melds = arrange("k7 b7 r7 J").await;
    assert_eq!(
        canonical(&melds[0].represents),
        canonical(&tiles("k7 b7 o7 r7"))
    );
    // Two jokers and several melds; number tiles stand for themselves.
    let melds = arrange("k1 k2 J J b7 b8 b9 o9 r9").await;
    for meld in &melds {
        for (tile, stands) in meld.tiles.iter().zip(&meld.represents) {
            if tile != "J" {
                assert_eq!(tile, stands);
            }
        }
    }
    // BestMove answers carry it too, for table and placed melds alike.
    let reply = client
        .best_move(move_request("b1 b2 J", "b5 b6 b7"))
        .await
        .unwrap()
        .into_inner();
    check_move(STANDARD, &tiles("b1 b2 J"), &tiles("b5 b6 b7"), &reply);
    assert!(reply
        .melds
        .iter()
        .all(|m| m.represents.len() == m.tiles.len()));
    // Batches too.
    let results = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![arrange_request("k1 k2 J"), arrange_request("b12 b13 J")],
        })
        .await
        .unwrap()
        .into_inner()
        .results;
    assert_eq!(results[0].melds[0].represents, tiles("k1 k2 k3"));
    assert_eq!(results[1].melds[0].represents, tiles("b11 b12 b13"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_invalid_argument_naming_the_item() {
    let (server, mut client) = start().await;
    let arrange = |text: &str| arrange_request(text);

    // Unknown tile text.
    let r = client.arrange(arrange("k1 k2 x5 k3")).await;
    assert_invalid(r, &["tiles[2]", "unknown tile", "x5"]);
    let r = client.arrange(arrange("k1 k0")).await;
    assert_invalid(r, &["tiles[1]", "unknown tile", "k0"]);
    let long = pb::ArrangeRequest {
        tiles: vec!["k1".into(), "x".repeat(100_000)],
        rules: None,
    };
    let r = client.arrange(long).await;
    let status = r.as_ref().unwrap_err();
    assert!(status.message().len() < 300, "{}", status.message());
    assert_invalid(r, &["tiles[1]", "unknown tile", "(100000 chars)"]);

    // A third copy, a third joker.
    let r = client.arrange(arrange("k5 k5 b1 k5")).await;
    assert_invalid(r, &["tiles[3]", "k5", "appears 3 times", "2 copies"]);
    let r = client.arrange(arrange("J k1 J b1 J")).await;
    assert_invalid(r, &["tiles[4]", "3 jokers"]);

    // Numbers and colours outside the rule set.
    let r = client.arrange(arrange("k12 k13 k14")).await;
    assert_invalid(r, &["tiles[2]", "k14", "1..=13"]);
    let r = client.arrange(arrange("k1 b1 g1")).await;
    assert_invalid(r, &["tiles[2]", "g1", "4 colours"]);
    let nine = pb::ArrangeRequest {
        tiles: tiles("k8 k9 k10"),
        rules: Some(pb::RuleSet {
            numbers: 9,
            ..Default::default()
        }),
    };
    let r = client.arrange(nine).await;
    assert_invalid(r, &["tiles[2]", "k10", "1..=9"]);

    // Invalid rule sets.
    let with_rules = |rules: pb::RuleSet| pb::ArrangeRequest {
        tiles: tiles("k1 k2 k3"),
        rules: Some(rules),
    };
    for (rules, field, value) in [
        (
            pb::RuleSet {
                numbers: 40,
                ..Default::default()
            },
            "rules.numbers",
            "40",
        ),
        (
            pb::RuleSet {
                numbers: 1 << 20,
                ..Default::default()
            },
            "rules.numbers",
            "1048576",
        ),
        (
            pb::RuleSet {
                colours: 9,
                ..Default::default()
            },
            "rules.colours",
            "9",
        ),
        (
            pb::RuleSet {
                copies: 5,
                ..Default::default()
            },
            "rules.copies",
            "5",
        ),
        (
            pb::RuleSet {
                jokers: Some(5),
                ..Default::default()
            },
            "rules.jokers",
            "5",
        ),
        (
            pb::RuleSet {
                min_len: 1,
                ..Default::default()
            },
            "rules.min_len",
            "1",
        ),
        (
            pb::RuleSet {
                opening_value: 256,
                ..Default::default()
            },
            "rules.opening_value",
            "256",
        ),
    ] {
        let r = client.arrange(with_rules(rules)).await;
        assert_invalid(r, &[field, value, "outside the supported range"]);
    }
    let huge = pb::RuleSet {
        numbers: 0,
        colours: 8,
        copies: 4,
        jokers: Some(4),
        min_len: 6,
        ..Default::default()
    };
    let r = client.arrange(with_rules(huge)).await;
    assert_invalid(r, &["rules", "too large"]);

    // More tiles than the rule set holds.
    let mut over = full_set();
    over.push("k1".into());
    let r = client
        .arrange(pb::ArrangeRequest {
            tiles: over,
            rules: None,
        })
        .await;
    assert_invalid(r, &["tiles", "107 tiles", "only 106"]);

    // BestMove: the table must be a valid arrangement.
    let r = client
        .best_move(move_request("k1 k2 k3 r9", "r10 r11"))
        .await;
    assert_invalid(r, &["table", "do not form valid melds", "r9"]);
    let r = client
        .best_move(pb::BestMoveRequest {
            opening: true,
            ..move_request("k1 k2", "r10 r11 r12")
        })
        .await;
    assert_invalid(r, &["table", "k1 k2"]);
    // Errors in the table and in the rack, table and rack counted together.
    let r = client.best_move(move_request("k1 k2 k3", "r1 r2 k0")).await;
    assert_invalid(r, &["rack[2]", "unknown tile", "k0"]);
    let r = client.best_move(move_request("k1 k2 q3", "r1")).await;
    assert_invalid(r, &["table[2]", "unknown tile", "q3"]);
    let r = client.best_move(move_request("k5 b5 o5", "r1 k5 k5")).await;
    assert_invalid(r, &["rack[2]", "k5", "table and rack counted together"]);
    let r = client.best_move(move_request("k5 b5 J", "J r3 J")).await;
    assert_invalid(r, &["rack[2]", "3 jokers"]);
    let r = client.best_move(move_request("k5 b5 o5 k5 k5", "")).await;
    assert_invalid(r, &["table[4]", "k5"]);
    let r = client.best_move(move_request("k1 k2 k3", "r5 r14")).await;
    assert_invalid(r, &["rack[1]", "r14"]);
    let all = full_set();
    let r = client
        .best_move(pb::BestMoveRequest {
            table: all[..100].to_vec(),
            rack: all[..10].to_vec(),
            ..Default::default()
        })
        .await;
    assert_invalid(r, &["rack", "110 tiles", "only 106"]);
    let r = client
        .best_move(pb::BestMoveRequest {
            objective: 7,
            ..move_request("k1 k2 k3", "k4")
        })
        .await;
    assert_invalid(r, &["objective", "7"]);
    let r = client
        .best_move(pb::BestMoveRequest {
            rules: Some(pb::RuleSet {
                min_len: 9,
                ..Default::default()
            }),
            ..move_request("k1 k2 k3", "k4")
        })
        .await;
    assert_invalid(r, &["rules.min_len", "9"]);

    // Batches: empty, too large, and a bad item named by its index.
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest { items: vec![] })
        .await;
    assert_invalid(r, &["items", "empty"]);
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![pb::ArrangeRequest::default(); DEFAULT_MAX_BATCH + 1],
        })
        .await;
    assert_invalid(r, &["items", "over the limit"]);
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![arrange("k1 k2 k3"), arrange("k1 z2")],
        })
        .await;
    assert_invalid(r, &["items[1].tiles[1]", "unknown tile", "z2"]);
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![
                arrange("k1 k2 k3"),
                arrange("k1 k2 k3"),
                with_rules(pb::RuleSet {
                    numbers: 2,
                    ..Default::default()
                }),
            ],
        })
        .await;
    assert_invalid(r, &["items[2].tiles[2]", "k3", "1..=2"]);
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![arrange("k1 k2 k3"), with_rules(huge)],
        })
        .await;
    assert_invalid(r, &["items[1].rules", "too large"]);
    // Every bad item of a batch is named, each by its first bad entry.
    let r = client
        .arrange_batch(pb::ArrangeBatchRequest {
            items: vec![
                arrange("k1 z2 z3"),
                arrange("k1 k2 k3"),
                with_rules(huge),
                arrange("k1 k1 k1"),
            ],
        })
        .await;
    assert_invalid_items(
        r,
        &[
            ("items[0].tiles[1]", "unknown tile"),
            ("items[2].rules", "too large"),
            ("items[3].tiles[2]", "k1"),
        ],
    );

    // The server is still healthy after all of that.
    let ok = client.arrange(arrange("k1 k2 k3")).await.unwrap();
    assert!(ok.into_inner().solvable);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn health_reports_serving_and_shutdown_is_graceful() {
    let (server, _client) = start().await;
    deckhand::testing::check_health_and_graceful_shutdown(server, SERVICE).await;
}
