//! End-to-end tests of the preferans-worker gRPC service: the real server on an
//! ephemeral loopback port, called with the generated client.

use std::ops::ControlFlow;
use std::time::Duration;

use deckhand::proto::preferans::v1 as pb;
use deckhand::server::RunningServer;
use deckhand_preferans::{
    solve_layouts, solve_layouts_in, Contract, DeclarerView, LayoutOrder, Seat, Solver,
};
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;
use preferans_worker::grpc::{PreferansWorkerServiceServer, SolverPool, Worker};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::transport::Channel;

use deckhand::testing::{assert_invalid, serve_on_loopback};

type Client = PreferansWorkerServiceClient<Channel>;

async fn start(threads: usize) -> (RunningServer, Client) {
    start_with_limit(threads, 16 << 20).await
}

async fn start_with_limit(threads: usize, max_message_bytes: usize) -> (RunningServer, Client) {
    start_with(
        Worker::new(SolverPool::new(threads, 4 << 20)),
        max_message_bytes,
    )
    .await
}

async fn start_with(worker: Worker, max_message_bytes: usize) -> (RunningServer, Client) {
    let name = <PreferansWorkerServiceServer<Worker> as NamedService>::NAME;
    // The worker's own message limit, not the loopback configuration's.
    let (server, channel) =
        serve_on_loopback(name, |_| Routes::new(worker.into_server(max_message_bytes))).await;
    (server, Client::new(channel))
}

fn deal(hands: &str, contract: &str, declarer: pb::Seat, leader: pb::Seat) -> pb::SolveDealRequest {
    let hands: Vec<&str> = hands.split(' ').collect();
    pb::SolveDealRequest {
        north: hands[0].into(),
        east: hands[1].into(),
        west: hands[2].into(),
        contract: contract.into(),
        declarer: declarer as i32,
        leader: leader as i32,
        played: vec![],
    }
}

fn view(compact: &str, contract: &str, leader: pb::Seat) -> pb::DeclarerView {
    pb::DeclarerView {
        declarer: pb::Seat::N as i32,
        contract: contract.into(),
        leader: leader as i32,
        compact: compact.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn solve_deal_matches_the_oracles_and_marks_best_cards() {
    let (server, mut client) = start(1).await;
    // oracles.json single deals: trumps S, W leads, declarer E takes 0; misère N takes 2.
    let reply = client
        .solve_deal(deal(
            "A98.AT98..T87 QT7.KQJ.A.KQJ KJ.7.KQJT9.A9",
            "6S",
            pb::Seat::E,
            pb::Seat::W,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.declarer_tricks, 0);
    assert_eq!(reply.to_move, pb::Seat::W as i32);
    assert_eq!(reply.cards.len(), 10, "W leads: every card is legal");
    // The declarer to move (W, clubs): 7 tricks, the best card's value.
    let reply = client
        .solve_deal(deal(
            "QJT.J9.A97.KJ K9.Q87.QT8.QT A.AKT.KJ.A987",
            "7C",
            pb::Seat::W,
            pb::Seat::W,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.declarer_tricks, 7);
    let best = reply.cards.iter().map(|c| c.declarer_tricks).max();
    assert_eq!(best, Some(7));
    let reply = client
        .solve_deal(deal(
            "T987.98.987.8 AK.AKQT.J.QJT QJ.J7.AKQT.97",
            "misere",
            pb::Seat::N,
            pb::Seat::W,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.declarer_tricks, 2);
    assert!(reply.cards.iter().any(|c| c.best));
    for card in &reply.cards {
        // W is a defender: in misère the defenders maximise the declarer's tricks.
        assert!(card.declarer_tricks <= 2);
        assert_eq!(card.best, card.declarer_tricks == 2, "{card:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn solve_layouts_streams_exactly_the_engine_results() {
    let (server, mut client) = start(2).await;
    let request = pb::SolveLayoutsRequest {
        view: Some(view("#A*8*7.AKT.KJ.A987", "6C", pb::Seat::N)),
        start: 1000,
        end: 1700,
        chunk_size: 64,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    let mut got = vec![None; 700];
    while let Some(m) = stream.message().await.unwrap() {
        assert_eq!(m.openings, vec!["SA".to_string()]);
        assert_eq!(m.tricks.len(), m.count as usize);
        for (i, t) in m.tricks.iter().enumerate() {
            let slot = &mut got[(m.start - 1000) as usize + i];
            assert!(slot.is_none(), "layout {} sent twice", m.start as usize + i);
            *slot = Some(*t);
        }
    }
    let view = DeclarerView::from_notation(
        "#A*8*7.AKT.KJ.A987",
        Seat::N,
        "6C".parse::<Contract>().unwrap(),
        Seat::N,
    )
    .unwrap();
    let mut expected = Vec::new();
    solve_layouts(&mut Solver::new(4 << 20), &view, 1000..1700, |r| {
        expected.push(Some(r.tricks[0]));
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(got, expected);

    // Declarer on lead: one value per candidate opening, in card order.
    let request = pb::SolveLayoutsRequest {
        view: Some(view_structured()),
        start: 0,
        end: 10,
        chunk_size: 0,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    let m = stream.message().await.unwrap().unwrap();
    assert_eq!(m.openings.len(), 10);
    assert_eq!(m.tricks.len(), m.count as usize * 10);
    server.shutdown().await.unwrap();
}

/// Positions of another layout order, with a group: the engine's results for that
/// order, the order echoed in every message; an order that is not a permutation, or
/// a group of more than the 20 unknown cards, is refused.
#[tokio::test]
async fn solve_layouts_in_another_order() {
    let (server, mut client) = start(2).await;
    let notation = "#A*8*7.AKT.KJ.A987";
    let request = |layout_order, layout_group| pb::SolveLayoutsRequest {
        view: Some(view(notation, "6C", pb::Seat::N)),
        // Across the middle, where the group's count changes.
        start: 92_300,
        end: 92_450,
        chunk_size: 32,
        layout_order,
        layout_group,
    };
    let cards: Vec<u32> = (0..20).map(|j| (j * 7 + 9) % 20).collect();
    let mut stream = client
        .solve_layouts(request(cards.clone(), 5))
        .await
        .unwrap()
        .into_inner();
    let mut got = vec![None; 150];
    while let Some(m) = stream.message().await.unwrap() {
        assert_eq!((&m.layout_order, m.layout_group), (&cards, 5));
        for (i, t) in m.tricks.iter().enumerate() {
            got[(m.start - 92_300) as usize + i] = Some(*t);
        }
    }
    let view = DeclarerView::from_notation(
        notation,
        Seat::N,
        "6C".parse::<Contract>().unwrap(),
        Seat::N,
    )
    .unwrap();
    let order = LayoutOrder::new(&cards, 5).unwrap();
    let mut expected = Vec::new();
    solve_layouts_in(
        &mut Solver::new(4 << 20),
        &view,
        order,
        92_300..92_450,
        |r| {
            expected.push(Some(r.tricks[0]));
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    assert_eq!(got, expected);
    let mut twice = cards.clone();
    twice[0] = twice[1];
    let r = client.solve_layouts(request(twice, 5)).await;
    assert_invalid(r, &["layout_order", "twice"]);
    let r = client.solve_layouts(request(cards, 21)).await;
    assert_invalid(r, &["layout_group", "21"]);
    server.shutdown().await.unwrap();
}

fn view_structured() -> pb::DeclarerView {
    pb::DeclarerView {
        declarer: pb::Seat::N as i32,
        hand: "AQJ8.KT8.KJ.9".into(),
        talon: vec!["D7".into(), "C8".into()],
        contract: "6S".into(),
        leader: pb::Seat::N as i32,
        ..Default::default()
    }
}

#[tokio::test]
async fn status_reports_trumps_and_layouts_per_thread() {
    let (server, mut client) = start(2).await;
    let request = pb::SolveLayoutsRequest {
        view: Some(view("QT7.KQJ.A*8*7.KQJ", "6S", pb::Seat::W)),
        start: 0,
        end: 300,
        chunk_size: 50,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    while stream.message().await.unwrap().is_some() {}
    let status = client
        .status(pb::StatusRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.threads.len(), 2);
    let solved: u64 = status.threads.iter().map(|t| t.layouts_solved).sum();
    assert_eq!(solved, 300);
    assert!(status
        .threads
        .iter()
        .filter(|t| t.layouts_solved > 0)
        .all(|t| t.trumps == "S" && t.table_fill > 0.0));
    // Every layout's search visits at least one node, and an idle thread none.
    assert!(
        status
            .threads
            .iter()
            .all(|t| t.search_nodes >= t.layouts_solved
                && (t.search_nodes == 0) == (t.layouts_solved == 0)),
        "{:?}",
        status.threads
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_stream_stops_the_search() {
    let (server, mut client) = start(2).await;
    let request = pb::SolveLayoutsRequest {
        view: Some(view("QT7.KQJ.A*8*7.KQJ", "6S", pb::Seat::W)),
        start: 0,
        end: 184_756,
        chunk_size: 16,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    stream.message().await.unwrap().unwrap();
    drop(stream);
    // Within a few seconds no thread is busy and the solved count stops growing.
    let solved = layouts_solved_once_idle(&mut client, Duration::from_secs(10))
        .await
        .expect("threads still busy 10 s after the client cancelled");
    assert!(
        solved < 184_756,
        "the whole range was solved: not cancelled"
    );
    server.shutdown().await.unwrap();
}

/// Polls Status every 100 ms for up to `wait`; the layouts solved by all threads
/// once none is busy, or None if some thread stayed busy.
async fn layouts_solved_once_idle(client: &mut Client, wait: Duration) -> Option<u64> {
    let step = Duration::from_millis(100);
    for _ in 0..wait.as_millis() / step.as_millis() {
        tokio::time::sleep(step).await;
        let status = client
            .status(pb::StatusRequest {})
            .await
            .unwrap()
            .into_inner();
        if status.threads.iter().all(|t| !t.busy) {
            return Some(status.threads.iter().map(|t| t.layouts_solved).sum());
        }
    }
    None
}

#[tokio::test]
async fn bad_input_is_invalid_argument_naming_the_problem() {
    let (server, mut client) = start(1).await;
    let good = "A98.AT98..T87 QT7.KQJ.A.KQJ KJ.7.KQJT9.A9";
    let r = client
        .solve_deal(deal(
            "A98.AT98..T87 A.KQJ.A.KQJ KJ.7.KQJT9.A9",
            "6S",
            pb::Seat::E,
            pb::Seat::W,
        ))
        .await;
    assert_invalid(r, &["deal", "twice"]);
    let r = client
        .solve_deal(deal(
            "A98.AT98..T8X QT7.KQJ.A.KQJ KJ.7.KQJT9.A9",
            "6S",
            pb::Seat::E,
            pb::Seat::W,
        ))
        .await;
    assert_invalid(r, &["north"]);
    let r = client
        .solve_deal(deal(
            "A98.AT98..T8 QT7.KQJ.A.KQJ KJ.7.KQJT9.A9",
            "6S",
            pb::Seat::E,
            pb::Seat::W,
        ))
        .await;
    assert_invalid(r, &["deal", "holds 9 cards"]);
    let r = client
        .solve_deal(deal(good, "6Z", pb::Seat::E, pb::Seat::W))
        .await;
    assert_invalid(r, &["contract", "6Z"]);
    let r = client
        .solve_deal(deal(good, "6S", pb::Seat::Unspecified, pb::Seat::W))
        .await;
    assert_invalid(r, &["declarer", "seat"]);
    // W leads H7; N holds hearts but plays S8: a revoke. Hands are current ones.
    let mut revoke = deal(
        "A9.AT98..T87 QT7.KQJ.A.KQJ KJ..KQJT9.A9",
        "6S",
        pb::Seat::E,
        pb::Seat::W,
    );
    revoke.played = vec!["H7".into(), "S8".into()];
    let r = client.solve_deal(revoke).await;
    assert_invalid(r, &["deal", "S8", "follow"]);

    let layouts = |view: pb::DeclarerView, start: u32, end: u32| pb::SolveLayoutsRequest {
        view: Some(view),
        start,
        end,
        chunk_size: 0,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let r = client
        .solve_layouts(layouts(
            view("#A*8*7.AKT.KJ.A987", "6C", pb::Seat::N),
            0,
            184_757,
        ))
        .await;
    assert_invalid(r, &["range", "184757"]);
    let r = client
        .solve_layouts(layouts(view("#A*8*7.AKT.KJ.A987", "6C", pb::Seat::N), 5, 5))
        .await;
    assert_invalid(r, &["range", "non-empty"]);
    let r = client
        .solve_layouts(layouts(
            view("#A*8*A.AKT.KJ.A987", "6C", pb::Seat::N),
            0,
            10,
        ))
        .await;
    assert_invalid(r, &["view.compact", "SA"]);
    let r = client
        .solve_layouts(layouts(
            view("#A*8*7.AKT.KJ.A987", "seven clubs", pb::Seat::N),
            0,
            10,
        ))
        .await;
    assert_invalid(r, &["view.contract", "seven clubs"]);
    let r = client
        .solve_layouts(pb::SolveLayoutsRequest {
            view: None,
            start: 0,
            end: 10,
            chunk_size: 0,
            layout_order: Vec::new(),
            layout_group: 0,
        })
        .await;
    assert_invalid(r, &["view", "missing"]);
    let mut short = view_structured();
    short.hand = "AQJ8.KT8.KJ.".into();
    let r = client.solve_layouts(layouts(short, 0, 10)).await;
    assert_invalid(r, &["view", "9 cards"]);
    server.shutdown().await.unwrap();
}

/// SolveLayouts messages are cut to fit the message limit whatever chunk
/// size is asked for (one byte per layout and opening), and a list of cards
/// longer than a trick is refused before it is read.
#[tokio::test]
async fn answers_fit_the_message_limit_and_card_lists_are_bounded() {
    const LIMIT: usize = 2048;
    let (server, mut client) = start_with_limit(2, LIMIT).await;
    let request = pb::SolveLayoutsRequest {
        view: Some(view("#A*8*7.AKT.KJ.A987", "6C", pb::Seat::N)),
        start: 0,
        end: 3000,
        chunk_size: 184_756,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    let mut layouts = 0;
    while let Some(m) = stream.message().await.unwrap() {
        let bytes = m.start.to_le_bytes().len() + m.openings[0].len() + m.tricks.len();
        assert!(bytes + 16 <= LIMIT, "{} layouts in one message", m.count);
        layouts += m.count;
    }
    assert_eq!(layouts, 3000);
    let mut request = deal(
        "A98.AT98..T87 QT7.KQJ.A.KQJ KJ.7.KQJT9.A9",
        "6S",
        pb::Seat::E,
        pb::Seat::W,
    );
    request.played = vec!["SA".into(); 100];
    let r = client.solve_deal(request).await;
    assert_invalid(r, &["played: 100 cards, at most 2"]);
    server.shutdown().await.unwrap();
}

/// A client that stops reading a SolveLayouts stream does not keep the solver
/// thread: after the read-stall time the thread is idle again, and the stream
/// ends with DEADLINE_EXCEEDED after the results already sent.
#[tokio::test]
async fn a_client_that_stops_reading_loses_its_solve() {
    let worker = Worker::new(SolverPool::new(1, 4 << 20)).with_read_stall(Duration::from_secs(1));
    let (server, mut status_client) = start_with(worker, 16 << 20).await;
    // Small flow-control windows, so that unread results soon fill every buffer.
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .initial_stream_window_size(65_535)
        .initial_connection_window_size(65_535)
        .connect()
        .await
        .unwrap();
    let mut client = Client::new(channel);
    // The declarer leads: 10 openings, so 10 bytes per layout, 40 KB per message.
    let request = pb::SolveLayoutsRequest {
        view: Some(view("T987.T987.*98.*QJ", "misere", pb::Seat::N)),
        start: 0,
        end: 184_756,
        chunk_size: 4096,
        layout_order: Vec::new(),
        layout_group: 0,
    };
    let mut stream = client.solve_layouts(request).await.unwrap().into_inner();
    stream.message().await.unwrap().unwrap();
    let solved = layouts_solved_once_idle(&mut status_client, Duration::from_secs(30))
        .await
        .expect("the solver thread is released while the stream is open");
    assert!(solved < 184_756, "stopped early: {solved} layouts");
    let mut received = 4096;
    let error = loop {
        match stream.message().await {
            Ok(Some(m)) => received += u64::from(m.count),
            Ok(None) => panic!("the stream ended without an error after {received} layouts"),
            Err(status) => break status,
        }
    };
    assert_eq!(error.code(), tonic::Code::DeadlineExceeded, "{error:?}");
    assert!(error.message().contains("read no result"), "{error:?}");
    assert!(received <= solved, "{received} received, {solved} solved");
    server.shutdown().await.unwrap();
}
