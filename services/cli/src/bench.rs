//! `deckhand bench …`: load benchmarks of a running service over gRPC.
//! Numbers are printed, never asserted.

use std::time::{Duration, Instant};

use clap::Subcommand;
use deckhand::client::Transport;
use deckhand::proto::handops::v1 as pb;
use pb::hand_ops_service_client::HandOpsServiceClient;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address of the server (HOST:PORT); without it an embedded server is used.
    #[arg(long, env = "DECKHAND_ADDR", global = true)]
    addr: Option<String>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0, global = true)]
    seconds: f64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// hand-ops: batch Contains throughput, then unary Contains at several concurrency levels.
    HandOps {
        /// Pairs per batch request.
        #[arg(long, default_value_t = 100_000)]
        batch: usize,
        /// Concurrency levels for the unary measurement.
        #[arg(long, value_delimiter = ',', default_value = "1,8,64")]
        concurrency: Vec<usize>,
    },
    /// Cluster: an analysis on 1 and on 2 worker processes against the in-process
    /// solve on as many threads, and warm against cold worker tables.
    Cluster {
        /// Layouts per measured analysis.
        #[arg(long, default_value_t = 20_000)]
        layouts: u32,
        /// One of the ten standard problems (`deckhand bench preferans`), by name or
        /// index 0..9.
        #[arg(long, default_value = "preferansRu1")]
        problem: String,
        /// The preferans-worker binary (default: next to this executable).
        #[arg(long)]
        worker_bin: Option<std::path::PathBuf>,
        /// Rounds of every measurement (fresh workers each); rows show medians.
        #[arg(long, default_value_t = 1)]
        repeats: usize,
    },
    /// Preferans solver: the ten standard all-foe problems in this process on 1 and N
    /// threads, optionally side by side with another solver (`--compare CMD`).
    Preferans(crate::bench_preferans::Args),
    /// A long mixed load on every service, bad inputs among good ones: RPC/s,
    /// p50/p99 and RSS over time.
    Soak(crate::soak::Args),
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let command = match args.command {
        // In-process solver bench: no server needed.
        Command::Preferans(args) => {
            return tokio::task::spawn_blocking(|| crate::bench_preferans::run(args)).await?;
        }
        command => command,
    };
    anyhow::ensure!(args.seconds > 0.0, "--seconds must be positive");
    let duration = Duration::from_secs_f64(args.seconds);
    let target = Target::connect(args.addr.as_deref()).await?;
    match command {
        Command::HandOps { batch, concurrency } => {
            let client = HandOpsServiceClient::new(target.channel.clone())
                .max_decoding_message_size(MAX_MESSAGE_BYTES)
                .max_encoding_message_size(MAX_MESSAGE_BYTES);
            hand_ops_batch(client.clone(), batch, duration).await?;
            for level in concurrency {
                hand_ops_unary(client.clone(), level, duration).await?;
            }
        }
        Command::Cluster {
            layouts,
            problem,
            worker_bin,
            repeats,
        } => {
            crate::cluster_bench::run(layouts, &problem, worker_bin, repeats).await?;
        }
        Command::Preferans(_) => unreachable!("handled above"),
        Command::Soak(soak) => crate::soak::run(target.channel.clone(), soak).await?,
    }
    target.close().await
}

/// xorshift64*: a repeatable source of random hands without a dependency.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A random packed hand: 0..=4 of each of the 13 ranks 3..2, 0..=1 of each joker.
    fn hand(&mut self) -> u64 {
        let bits = self.next();
        (0..15).fold(0u64, |acc, i| {
            let max = if i < 13 { 5 } else { 2 };
            acc | (((bits >> (4 * i)) & 0xF) % max) << (4 * i)
        })
    }
}

fn packed(value: u64) -> Option<pb::Hand> {
    Some(pb::Hand {
        cards: Some(pb::hand::Cards::Packed(value)),
    })
}

async fn hand_ops_batch(
    mut client: HandOpsServiceClient<Transport>,
    batch: usize,
    duration: Duration,
) -> anyhow::Result<()> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (hands, parts): (Vec<u64>, Vec<u64>) = (0..batch).map(|_| (rng.hand(), rng.hand())).unzip();
    let as_messages = pb::ContainsRequest {
        pairs: hands
            .iter()
            .zip(&parts)
            .map(|(&h, &p)| pb::HandPair {
                hand: packed(h),
                part: packed(p),
            })
            .collect(),
        packed: None,
    };
    let columnar = pb::ContainsRequest {
        pairs: vec![],
        packed: Some(pb::PackedPairs { hands, parts }),
    };
    for (form, request) in [
        ("HandPair messages", as_messages),
        ("PackedPairs", columnar),
    ] {
        let start = Instant::now();
        let (mut requests, mut contained) = (0u64, 0usize);
        while start.elapsed() < duration {
            let reply = client.contains(request.clone()).await?.into_inner();
            contained += reply.contains.iter().filter(|c| **c).count();
            requests += 1;
        }
        let seconds = start.elapsed().as_secs_f64();
        let ops = requests as f64 * batch as f64 / seconds;
        println!(
            "batch Contains ({form}), 1 connection: {requests} requests x {batch} pairs in {seconds:.2} s = {:.2} M pairs/s ({:.2} ms per request, {contained} contained)",
            ops / 1e6,
            seconds * 1e3 / requests as f64
        );
    }
    Ok(())
}

async fn hand_ops_unary(
    client: HandOpsServiceClient<Transport>,
    concurrency: usize,
    duration: Duration,
) -> anyhow::Result<()> {
    anyhow::ensure!(concurrency > 0, "concurrency must be positive");
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(concurrency);
    for task in 0..concurrency {
        let mut client = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng(0x1234_5678 + task as u64);
            let mut latencies = Vec::new();
            while start.elapsed() < duration {
                let request = pb::ContainsRequest {
                    pairs: vec![pb::HandPair {
                        hand: packed(rng.hand()),
                        part: packed(rng.hand()),
                    }],
                    packed: None,
                };
                let sent = Instant::now();
                client.contains(request).await?;
                latencies.push(sent.elapsed());
            }
            Ok::<_, tonic::Status>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let seconds = start.elapsed().as_secs_f64();
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    println!(
        "unary Contains, concurrency {concurrency:>3}: {:>8.0} RPC/s, p50 {:.0} µs, p99 {:.0} µs ({} calls)",
        latencies.len() as f64 / seconds,
        pct(0.50),
        pct(0.99),
        latencies.len()
    );
    Ok(())
}
