//! `deckhand bench soak --minutes N`: a long mixed load on every stateless
//! service and the preferans worker, bad inputs among good ones, reporting
//! RPC/s, p50/p99 latency and RSS at each interval. Every call has an
//! expected status code (OK for good requests, INVALID_ARGUMENT or
//! RESOURCE_EXHAUSTED for the bad ones); anything else is counted as an
//! error and the first few are printed. Numbers are printed, never asserted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deckhand::client::Transport;
use deckhand::proto::handops::v1 as hops;
use deckhand::proto::mahjong::v1 as mj;
use deckhand::proto::preferans::v1 as pf;
use deckhand::proto::rummikub::v1 as rk;
use tonic::{Code, Status};

use crate::embedded::MAX_MESSAGE_BYTES;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Length of the run in minutes.
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Seconds between report lines.
    #[arg(long, default_value_t = 30)]
    report_secs: u64,
    /// Process ids whose RSS to report as well (e.g. the servers of a cluster).
    #[arg(long, value_delimiter = ',')]
    pid: Vec<u32>,
    /// Only these kinds of call (e.g. `Arrange,BestMove`; default: the whole mix).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

/// One kind of call in the mix, with the code it must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Call {
    ContainsBatch,
    LegalMoves,
    ClassifyBadText,
    MalformedBytes,
    ShantenBatch,
    CheckWin,
    WaitsBadTile,
    Arrange,
    ArrangeBatch,
    ArrangeBadTile,
    BestMove,
    SolveDeal,
    SolveDealBadHand,
    OversizedBatch,
}

impl Call {
    /// The mix: good calls weigh more than bad ones; the slow solver calls and
    /// the 13.7 MB oversized batch least.
    const MIX: [(Call, u32); 14] = [
        (Call::ContainsBatch, 200),
        (Call::LegalMoves, 120),
        (Call::ClassifyBadText, 40),
        (Call::MalformedBytes, 40),
        (Call::ShantenBatch, 160),
        (Call::CheckWin, 160),
        (Call::WaitsBadTile, 40),
        (Call::Arrange, 120),
        (Call::ArrangeBatch, 60),
        (Call::ArrangeBadTile, 40),
        (Call::BestMove, 60),
        (Call::SolveDeal, 20),
        (Call::SolveDealBadHand, 40),
        (Call::OversizedBatch, 1),
    ];

    fn expected(self) -> Code {
        match self {
            Call::ClassifyBadText
            | Call::MalformedBytes
            | Call::WaitsBadTile
            | Call::ArrangeBadTile
            | Call::SolveDealBadHand => Code::InvalidArgument,
            Call::OversizedBatch => Code::ResourceExhausted,
            _ => Code::Ok,
        }
    }

    fn pick(mix: &[(Call, u32)], roll: u64) -> Call {
        let total: u32 = mix.iter().map(|(_, w)| w).sum();
        let mut roll = (roll % u64::from(total)) as u32;
        for &(call, weight) in mix {
            if roll < weight {
                return call;
            }
            roll -= weight;
        }
        mix[0].0
    }
}

/// Clients of every service on one channel each.
#[derive(Clone)]
struct Clients {
    hand_ops: hops::hand_ops_service_client::HandOpsServiceClient<Transport>,
    mahjong: mj::mahjong_service_client::MahjongServiceClient<Transport>,
    rummikub: rk::rummikub_service_client::RummikubServiceClient<Transport>,
    worker: pf::preferans_worker_service_client::PreferansWorkerServiceClient<Transport>,
    raw: Transport,
}

impl Clients {
    fn new(channel: Transport) -> Clients {
        Clients {
            hand_ops: hops::hand_ops_service_client::HandOpsServiceClient::new(channel.clone())
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
            mahjong: mj::mahjong_service_client::MahjongServiceClient::new(channel.clone()),
            rummikub: rk::rummikub_service_client::RummikubServiceClient::new(channel.clone())
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES),
            worker: pf::preferans_worker_service_client::PreferansWorkerServiceClient::new(
                channel.clone(),
            ),
            raw: channel,
        }
    }

    async fn call(&mut self, call: Call, roll: u64) -> Result<(), Status> {
        match call {
            Call::ContainsBatch => {
                let hands: Vec<u64> = (0..1000).map(|i| hand(roll ^ i)).collect();
                let parts: Vec<u64> = (0..1000).map(|i| hand(roll ^ (i << 20))).collect();
                let request = hops::ContainsRequest {
                    pairs: vec![],
                    packed: Some(hops::PackedPairs { hands, parts }),
                };
                self.hand_ops.contains(request).await.map(drop)
            }
            Call::LegalMoves => {
                let request = hops::LegalMovesRequest {
                    hand: Some(hops::Hand {
                        cards: Some(hops::hand::Cards::Packed(hand(roll))),
                    }),
                    beat: None,
                };
                self.hand_ops.legal_moves(request).await.map(drop)
            }
            Call::ClassifyBadText => {
                let request = hops::ClassifyRequest {
                    hands: vec![hops::Hand {
                        cards: Some(hops::hand::Cards::Text("3334X".into())),
                    }],
                };
                self.hand_ops.classify(request).await.map(drop)
            }
            Call::MalformedBytes => {
                // A Hand's field 1 is fixed64 where ContainsRequest expects a
                // message: bytes that do not decode as the request.
                let mut grpc = tonic::client::Grpc::new(self.raw.clone());
                grpc.ready()
                    .await
                    .map_err(|e| Status::unavailable(e.to_string()))?;
                let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                    "/deckhand.handops.v1.HandOpsService/Contains",
                );
                let codec =
                    tonic_prost::ProstCodec::<hops::Hand, hops::ContainsResponse>::default();
                let wrong = hops::Hand {
                    cards: Some(hops::hand::Cards::Packed(roll)),
                };
                grpc.unary(tonic::Request::new(wrong), path, codec)
                    .await
                    .map(drop)
            }
            Call::ShantenBatch => {
                let hands = (0..200).map(|i| mahjong_hand(roll + i)).collect();
                self.mahjong
                    .shanten(mj::ShantenRequest { hands })
                    .await
                    .map(drop)
            }
            Call::CheckWin => {
                let hands = vec![mj::Hand {
                    tiles: Some(mj::hand::Tiles::Text("11122233344455m".into())),
                }];
                self.mahjong
                    .check_win(mj::CheckWinRequest { hands })
                    .await
                    .map(drop)
            }
            Call::WaitsBadTile => {
                let hands = vec![mj::Hand {
                    tiles: Some(mj::hand::Tiles::Text("123x456p".into())),
                }];
                self.mahjong
                    .waits(mj::WaitsRequest { hands })
                    .await
                    .map(drop)
            }
            Call::Arrange => {
                let request = arrange(&rummikub_tiles(roll, 14));
                self.rummikub.arrange(request).await.map(drop)
            }
            Call::ArrangeBatch => {
                let items = (0..50)
                    .map(|i| arrange(&rummikub_tiles(roll + i, 20)))
                    .collect();
                self.rummikub
                    .arrange_batch(rk::ArrangeBatchRequest { items })
                    .await
                    .map(drop)
            }
            Call::ArrangeBadTile => {
                let request = arrange(&["k1".into(), "q14".into()]);
                self.rummikub.arrange(request).await.map(drop)
            }
            Call::BestMove => {
                // The rack never holds k1..k3, so no tile has a third copy.
                let mut rack = rummikub_tiles(roll, 14);
                rack.retain(|t| !["k1", "k2", "k3"].contains(&t.as_str()));
                rack.truncate(8);
                let request = rk::BestMoveRequest {
                    table: ["k1", "k2", "k3"].map(String::from).to_vec(),
                    rack,
                    ..Default::default()
                };
                self.rummikub.best_move(request).await.map(drop)
            }
            Call::SolveDeal | Call::SolveDealBadHand => {
                let north = if call == Call::SolveDeal {
                    "A98.AT98..T87"
                } else {
                    "A98.AT98..T8Z"
                };
                let request = pf::SolveDealRequest {
                    north: north.into(),
                    east: "QT7.KQJ.A.KQJ".into(),
                    west: "KJ.7.KQJT9.A9".into(),
                    contract: "6S".into(),
                    declarer: pf::Seat::E as i32,
                    leader: pf::Seat::W as i32,
                    played: vec![],
                };
                self.worker.solve_deal(request).await.map(drop)
            }
            Call::OversizedBatch => {
                // Every tile of the game in each item, far more items than
                // one answer may hold: refused before any work.
                let all = all_tiles();
                let items = vec![arrange(&all); 30_000];
                self.rummikub
                    .arrange_batch(rk::ArrangeBatchRequest { items })
                    .await
                    .map(drop)
            }
        }
    }
}

/// splitmix64: a repeatable stream of random numbers without a dependency.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A random packed Dou Dizhu hand (0..=4 of each rank, 0..=1 of each joker).
fn hand(seed: u64) -> u64 {
    let bits = mix(seed);
    (0..15).fold(0u64, |acc, i| {
        let max = if i < 13 { 5 } else { 2 };
        acc | (((bits >> (4 * i)) & 0xF) % max) << (4 * i)
    })
}

/// 13 random mahjong tiles (at most 4 of a kind) as 34 counts.
fn mahjong_hand(seed: u64) -> mj::Hand {
    let mut counts = vec![0u8; 34];
    let mut state = seed;
    let mut placed = 0;
    while placed < 13 {
        state = mix(state);
        let tile = (state % 34) as usize;
        if counts[tile] < 4 {
            counts[tile] += 1;
            placed += 1;
        }
    }
    mj::Hand {
        tiles: Some(mj::hand::Tiles::Counts(counts)),
    }
}

/// The 106 tiles of the standard game.
fn all_tiles() -> Vec<String> {
    let mut tiles: Vec<String> = ["k", "b", "o", "r"]
        .iter()
        .flat_map(|c| (1..=13).flat_map(move |n| [format!("{c}{n}"), format!("{c}{n}")]))
        .collect();
    tiles.extend(["J".to_string(), "J".to_string()]);
    tiles
}

/// `count` distinct random tiles of the standard game.
fn rummikub_tiles(seed: u64, count: usize) -> Vec<String> {
    let mut all = all_tiles();
    let mut state = seed;
    for i in (1..all.len()).rev() {
        state = mix(state);
        all.swap(i, (state % (i as u64 + 1)) as usize);
    }
    all.truncate(count);
    all
}

fn arrange(tiles: &[String]) -> rk::ArrangeRequest {
    rk::ArrangeRequest {
        tiles: tiles.to_vec(),
        rules: None,
    }
}

/// Resident set size of a process in MiB, from /proc (None where unreadable).
pub fn rss_mib(pid: Option<u32>) -> Option<f64> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/status"),
        None => "/proc/self/status".to_string(),
    };
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// What the workers record between two report lines.
#[derive(Default)]
struct Interval {
    latencies_us: Vec<u32>,
    codes: HashMap<(Call, Code), u64>,
    unexpected: Vec<String>,
}

pub async fn run(channel: Transport, args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.minutes > 0.0, "--minutes must be positive");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be positive");
    let duration = Duration::from_secs_f64(args.minutes * 60.0);
    let interval = Duration::from_secs(args.report_secs.max(1));
    let start = Instant::now();
    let shared = Arc::new(Mutex::new(Interval::default()));
    let clients = Clients::new(channel);
    let kinds: Vec<(Call, u32)> = Call::MIX
        .into_iter()
        .filter(|(call, _)| args.only.is_empty() || args.only.contains(&format!("{call:?}")))
        .collect();
    anyhow::ensure!(!kinds.is_empty(), "--only names no kind of call");
    let kinds = Arc::new(kinds);

    let workers: Vec<_> = (0..args.concurrency)
        .map(|w| {
            let (mut clients, shared, kinds) =
                (clients.clone(), Arc::clone(&shared), Arc::clone(&kinds));
            tokio::spawn(async move {
                let mut seed = mix(w as u64 + 1);
                while start.elapsed() < duration {
                    seed = mix(seed);
                    let call = Call::pick(&kinds, seed);
                    let sent = Instant::now();
                    let code = match clients.call(call, seed).await {
                        Ok(()) => Code::Ok,
                        Err(status) => {
                            if status.code() != call.expected() {
                                let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
                                if shared.unexpected.len() < 5 {
                                    shared.unexpected.push(format!("{call:?}: {status:?}"));
                                }
                            }
                            status.code()
                        }
                    };
                    let micros = u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX);
                    let mut shared = shared.lock().unwrap_or_else(|p| p.into_inner());
                    shared.latencies_us.push(micros);
                    *shared.codes.entry((call, code)).or_default() += 1;
                }
            })
        })
        .collect();

    println!(
        "soak: {} min, {} calls in flight; RSS of this process{}",
        args.minutes,
        args.concurrency,
        if args.pid.is_empty() {
            String::new()
        } else {
            format!(" and of pids {:?}", args.pid)
        }
    );
    println!(
        "{:>7}  {:>8}  {:>9}  {:>9}  {:>8}  {:>10}",
        "time s", "RPC/s", "p50 ms", "p99 ms", "RSS MiB", "unexpected"
    );
    let mut totals: HashMap<(Call, Code), u64> = HashMap::new();
    let (mut unexpected_total, mut rss_seen) = (0u64, Vec::new());
    let mut last = Instant::now();
    loop {
        let finished = start.elapsed() >= duration;
        if !finished {
            tokio::time::sleep(interval.min(duration.saturating_sub(start.elapsed()))).await;
        }
        let taken = std::mem::take(&mut *shared.lock().unwrap_or_else(|p| p.into_inner()));
        let seconds = last.elapsed().as_secs_f64();
        last = Instant::now();
        let mut latencies = taken.latencies_us;
        latencies.sort_unstable();
        let pct = |p: f64| {
            latencies
                .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
                .map_or(0.0, |&us| f64::from(us) / 1e3)
        };
        let unexpected: u64 = taken
            .codes
            .iter()
            .filter(|((call, code), _)| call.expected() != *code)
            .map(|(_, n)| n)
            .sum();
        unexpected_total += unexpected;
        for (key, n) in taken.codes {
            *totals.entry(key).or_default() += n;
        }
        let mut rss = vec![rss_mib(None).unwrap_or(f64::NAN)];
        rss.extend(
            args.pid
                .iter()
                .map(|&p| rss_mib(Some(p)).unwrap_or(f64::NAN)),
        );
        let rss_text: Vec<String> = rss.iter().map(|r| format!("{r:.1}")).collect();
        println!(
            "{:>7.0}  {:>8.0}  {:>9.2}  {:>9.2}  {:>8}  {:>10}",
            start.elapsed().as_secs_f64(),
            latencies.len() as f64 / seconds,
            pct(0.50),
            pct(0.99),
            rss_text.join("/"),
            unexpected
        );
        for line in taken.unexpected {
            println!("  unexpected: {line}");
        }
        rss_seen.push(rss);
        if finished {
            break;
        }
    }
    for worker in workers {
        worker.await?;
    }
    println!("calls by kind and code:");
    let mut totals: Vec<_> = totals.into_iter().collect();
    totals.sort_by_key(|&((call, code), _)| (call, code as i32));
    for ((call, code), n) in &totals {
        let mark = if call.expected() == *code {
            ""
        } else {
            "  <- unexpected"
        };
        println!("  {call:?} {code:?}: {n}{mark}");
    }
    let first = rss_seen
        .first()
        .and_then(|r| r.first())
        .copied()
        .unwrap_or(f64::NAN);
    let peak = rss_seen
        .iter()
        .filter_map(|r| r.first())
        .fold(0.0f64, |a, &b| a.max(b));
    let end = rss_seen
        .last()
        .and_then(|r| r.first())
        .copied()
        .unwrap_or(f64::NAN);
    println!(
        "total {} calls, {unexpected_total} unexpected; RSS first {first:.1} MiB, peak {peak:.1} MiB, last {end:.1} MiB",
        totals.iter().map(|(_, n)| n).sum::<u64>()
    );
    Ok(())
}
