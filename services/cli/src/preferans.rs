//! `deckhand preferans …`: double-dummy preferans.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Subcommand;
use deckhand::preferans::seat_to_proto;
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::{parse_problems_lossy, Seat, LAYOUT_COUNT};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve every foe layout (184,756) of a declarer's view: histogram of declarer
    /// tricks per candidate opening, mean and make share.
    SolveAllFoe(SolveAllFoe),
    /// Solve one full deal: declarer tricks and the value of every legal card.
    Solve(Solve),
    /// Durable batch analyses on a coordinator: submit, wait, get, list, cancel.
    Batch(crate::batch::Args),
    /// List the workers of a coordinator.
    Workers {
        /// Coordinator address HOST:PORT.
        #[arg(long, env = "DECKHAND_COORDINATOR")]
        coordinator: String,
    },
    /// Drain a worker: it finishes its leases, takes no new one, and is let go.
    Drain {
        /// Coordinator address HOST:PORT.
        #[arg(long, env = "DECKHAND_COORDINATOR")]
        coordinator: String,
        /// The worker's address as `workers` lists it.
        worker: String,
    },
}

#[derive(Debug, clap::Args)]
struct SolveAllFoe {
    /// A .pts/.bts problem file (with NUMBER), instead of --view.
    file: Option<PathBuf>,
    /// The problem's number in FILE (the number after `deal`).
    number: Option<String>,
    /// Declarer's view, e.g. `T987.T987.*98.*Q#J` (`*` talon card, `#` card already led).
    #[arg(long, conflicts_with = "file")]
    view: Option<String>,
    /// Contract: 6S, 7H, 8D, 10C, 6NT, misere.
    #[arg(long, requires = "view")]
    contract: Option<String>,
    /// Who leads the first trick: N, E or W.
    #[arg(long, requires = "view")]
    lead: Option<String>,
    /// The declarer's seat.
    #[arg(long, default_value = "N")]
    declarer: String,
    /// Layout range START..END (default all).
    #[arg(long)]
    layouts: Option<String>,
    /// Solver threads of the embedded worker (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Run through the coordinator at HOST:PORT instead of an embedded cluster.
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
}

#[derive(Debug, clap::Args)]
struct Solve {
    /// A .pts/.bts problem file (with NUMBER), instead of the hands.
    file: Option<PathBuf>,
    number: Option<String>,
    #[arg(long, conflicts_with = "file")]
    north: Option<String>,
    #[arg(long, requires = "north")]
    east: Option<String>,
    #[arg(long, requires = "north")]
    west: Option<String>,
    #[arg(long, requires = "north")]
    contract: Option<String>,
    #[arg(long, default_value = "N")]
    declarer: String,
    #[arg(long, default_value = "N")]
    lead: String,
    /// Cards already played to the current trick, e.g. --played CJ,C7.
    #[arg(long, value_delimiter = ',')]
    played: Vec<String>,
    /// Address of a preferans-worker (HOST:PORT); without it an embedded one is used.
    #[arg(long, env = "DECKHAND_ADDR")]
    addr: Option<String>,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::SolveAllFoe(args) => solve_all_foe(args).await,
        Command::Solve(args) => solve(args).await,
        Command::Batch(args) => crate::batch::run(args).await,
        Command::Workers { coordinator } => workers(&coordinator).await,
        Command::Drain {
            coordinator,
            worker,
        } => drain(&coordinator, worker).await,
    }
}

pub(crate) fn seat(text: &str) -> anyhow::Result<i32> {
    let seat = match text.trim().to_ascii_uppercase().as_str() {
        "N" => Seat::N,
        "E" => Seat::E,
        "W" => Seat::W,
        _ => bail!("unknown seat {text:?} (expected N, E or W)"),
    };
    Ok(seat_to_proto(seat) as i32)
}

fn problem(file: &PathBuf, number: Option<&str>) -> anyhow::Result<deckhand_preferans::Problem> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let number = number.context("give the problem's NUMBER after the file")?;
    let (problems, errors) = parse_problems_lossy(&text);
    if let Some(p) = problems.into_iter().find(|p| p.name == number) {
        return Ok(p);
    }
    for e in errors {
        if e.to_string().starts_with(&format!("deal {number}:")) {
            bail!("{}: {e}", file.display());
        }
    }
    bail!("{}: no problem numbered {number}", file.display())
}

fn view_request(args: &SolveAllFoe) -> anyhow::Result<pb::DeclarerView> {
    if let Some(file) = &args.file {
        let view = problem(file, args.number.as_deref())?
            .declarer_view()
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        return Ok(pb::DeclarerView {
            declarer: seat_to_proto(view.declarer()) as i32,
            hand: view.hand().to_string(),
            talon: view.talon().iter().map(|c| c.to_string()).collect(),
            contract: view.contract().to_string(),
            leader: seat_to_proto(view.leader()) as i32,
            played: view.played().iter().map(|c| c.to_string()).collect(),
            compact: String::new(),
        });
    }
    let view = args
        .view
        .clone()
        .context("give a problem FILE and NUMBER, or --view with --contract and --lead")?;
    Ok(pb::DeclarerView {
        declarer: seat(&args.declarer)?,
        contract: args
            .contract
            .clone()
            .context("--contract is required with --view")?,
        leader: seat(
            args.lead
                .as_deref()
                .context("--lead is required with --view")?,
        )?,
        compact: view,
        ..Default::default()
    })
}

pub(crate) fn layout_range(text: Option<&str>) -> anyhow::Result<(u32, u32)> {
    let Some(text) = text else {
        return Ok((0, LAYOUT_COUNT));
    };
    let (start, end) = text
        .split_once("..")
        .with_context(|| format!("--layouts {text:?}: expected START..END"))?;
    let start: u32 = start.trim().parse().context("--layouts START")?;
    let end: u32 = end.trim().parse().context("--layouts END")?;
    if start >= end || end > LAYOUT_COUNT {
        bail!("--layouts {start}..{end} must be non-empty and inside 0..{LAYOUT_COUNT}");
    }
    Ok((start, end))
}

async fn solve_all_foe(args: SolveAllFoe) -> anyhow::Result<()> {
    let view = view_request(&args)?;
    let (start, end) = layout_range(args.layouts.as_deref())?;
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let target = Target::coordinator(args.coordinator.as_deref(), threads).await?;
    let mut client = CoordinatorServiceClient::new(target.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let request = pb::AnalyzeAllFoeRequest {
        view: Some(view),
        start,
        end,
    };
    let mut stream = client.analyze_all_foe(request).await?.into_inner();
    let show_progress = std::io::stderr().is_terminal() && !args.json;
    let mut result = None;
    while let Some(event) = stream.message().await? {
        match event.event {
            Some(pb::analyze_all_foe_response::Event::Progress(p)) if show_progress => {
                progress_bar(&p)
            }
            Some(pb::analyze_all_foe_response::Event::Result(r)) => result = Some(r),
            _ => {}
        }
    }
    if show_progress {
        eprintln!();
    }
    let result = result.context("the analysis ended without a result")?;
    if args.json {
        println!("{}", json(&result));
    } else {
        print_table(&result);
    }
    target.close().await
}

pub(crate) fn progress_bar(p: &pb::Progress) {
    const WIDTH: usize = 30;
    let share = p.layouts_done as f64 / p.layouts_total.max(1) as f64;
    let filled = ((share * WIDTH as f64) as usize).min(WIDTH);
    let eta = if p.eta_seconds >= 0.0 {
        format!("{:.0} s", p.eta_seconds)
    } else {
        "?".into()
    };
    eprint!(
        "\r[{}{}] {:5.1}% {}/{} layouts, {:.0} layouts/s, ETA {eta}   ",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        share * 100.0,
        p.layouts_done,
        p.layouts_total,
        p.layouts_per_second
    );
    let _ = std::io::stderr().flush();
}

fn opening_name(card: &str) -> &str {
    if card.is_empty() {
        "(defender leads)"
    } else {
        card
    }
}

fn print_table(result: &pb::AnalysisResult) {
    println!(
        "{} layouts in {:.2} s ({:.0} layouts/s)",
        result.layouts,
        result.seconds,
        f64::from(result.layouts) / result.seconds.max(1e-9)
    );
    print!("{:<17}", "opening");
    for t in 0..=10 {
        print!("{t:>8}");
    }
    println!("{:>8}{:>8}", "mean", "make");
    for o in &result.openings {
        print!("{:<17}", opening_name(&o.card));
        for count in &o.histogram {
            print!("{count:>8}");
        }
        println!("{:>8.3}{:>7.1}%", o.mean, o.make * 100.0);
    }
}

/// The `--json` form of an analysis: layouts, seconds, then one object per opening.
fn json(result: &pb::AnalysisResult) -> String {
    #[derive(serde::Serialize)]
    struct Analysis<'a> {
        layouts: u32,
        seconds: f64,
        openings: Vec<Opening<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Opening<'a> {
        card: &'a str,
        histogram: &'a [u32],
        mean: f64,
        make: f64,
    }
    let analysis = Analysis {
        layouts: result.layouts,
        seconds: result.seconds,
        openings: result
            .openings
            .iter()
            .map(|o| Opening {
                card: &o.card,
                histogram: &o.histogram,
                mean: o.mean,
                make: o.make,
            })
            .collect(),
    };
    serde_json::to_string(&analysis).expect("plain structs serialize")
}

async fn solve(args: Solve) -> anyhow::Result<()> {
    let request = match &args.file {
        Some(file) => {
            let p = problem(file, args.number.as_deref())?;
            let played = p.played();
            // Problem files list full hands; the request wants current ones.
            let hands = played.iter().fold(p.hands, |mut hands, card| {
                for seat in [Seat::N, Seat::E, Seat::W] {
                    hands[seat].remove(*card);
                }
                hands
            });
            pb::SolveDealRequest {
                north: hands[Seat::N].to_string(),
                east: hands[Seat::E].to_string(),
                west: hands[Seat::W].to_string(),
                contract: p.contract.to_string(),
                declarer: seat_to_proto(p.declarer) as i32,
                leader: seat_to_proto(p.leader) as i32,
                played: played.iter().map(|c| c.to_string()).collect(),
            }
        }
        None => pb::SolveDealRequest {
            north: args
                .north
                .clone()
                .context("give a FILE and NUMBER, or --north/--east/--west/--contract")?,
            east: args.east.clone().context("--east is required")?,
            west: args.west.clone().context("--west is required")?,
            contract: args.contract.clone().context("--contract is required")?,
            declarer: seat(&args.declarer)?,
            leader: seat(&args.lead)?,
            played: args.played.clone(),
        },
    };
    let target = Target::connect(args.addr.as_deref()).await?;
    let mut client = PreferansWorkerServiceClient::new(target.channel.clone());
    let reply = client.solve_deal(request).await?.into_inner();
    let to_move = pb::Seat::try_from(reply.to_move)
        .map(|s| s.as_str_name().trim_start_matches("SEAT_").to_string())
        .unwrap_or_default();
    println!("declarer tricks: {}", reply.declarer_tricks);
    println!("{to_move} to move; declarer tricks after each card:");
    for card in &reply.cards {
        let best = if card.best { "  best" } else { "" };
        println!("  {}  {}{best}", card.card, card.declarer_tricks);
    }
    target.close().await
}

async fn workers(coordinator: &str) -> anyhow::Result<()> {
    let target = Target::connect(Some(coordinator)).await?;
    let mut client = CoordinatorServiceClient::new(target.channel.clone());
    let workers = client
        .list_workers(pb::ListWorkersRequest {})
        .await?
        .into_inner()
        .workers;
    println!(
        "{:<24}{:<10}{:<12}{:<12}{:>14}{:>14}",
        "address", "state", "joined", "trumps", "layouts/s", "solved"
    );
    for w in workers {
        let state = pb::WorkerState::try_from(w.state)
            .map(|s| {
                s.as_str_name()
                    .trim_start_matches("WORKER_STATE_")
                    .to_lowercase()
            })
            .unwrap_or_default();
        let joined = pb::WorkerSource::try_from(w.source)
            .map(|s| {
                s.as_str_name()
                    .trim_start_matches("WORKER_SOURCE_")
                    .to_lowercase()
            })
            .unwrap_or_default();
        println!(
            "{:<24}{:<10}{:<12}{:<12}{:>14.0}{:>14}",
            w.address, state, joined, w.trumps, w.layouts_per_second, w.layouts_solved
        );
        if !w.down_reason.is_empty() {
            println!("    down: {}", w.down_reason);
        }
    }
    target.close().await
}

async fn drain(coordinator: &str, worker: String) -> anyhow::Result<()> {
    let target = Target::connect(Some(coordinator)).await?;
    let mut client = CoordinatorServiceClient::new(target.channel.clone());
    client
        .drain_worker(pb::DrainWorkerRequest { address: worker })
        .await?;
    target.close().await
}

#[cfg(test)]
mod json_tests {
    use super::*;

    #[test]
    fn analysis_json_keeps_its_shape() {
        let result = pb::AnalysisResult {
            layouts: 3,
            seconds: 0.5,
            openings: vec![pb::OpeningResult {
                card: "A♠".into(),
                histogram: vec![1, 2],
                mean: 4.25,
                make: 0.75,
            }],
        };
        assert_eq!(
            json(&result),
            r#"{"layouts":3,"seconds":0.5,"openings":[{"card":"A♠","histogram":[1,2],"mean":4.25,"make":0.75}]}"#
        );
    }
}
