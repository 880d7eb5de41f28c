//! `deckhand preferans batch …`: durable batch analyses on a coordinator.
//!
//! `submit` queues the problems of a file as one job and prints its id; `wait`
//! follows it to the end and prints one result line per problem; `get`, `list`
//! and `cancel` never block. Without `--coordinator`, `submit` starts an
//! embedded cluster and, since that cluster ends with the command, waits for
//! the job itself and prints the results as `wait` would.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Subcommand, ValueEnum};
use deckhand::client::Transport;
use deckhand::preferans::seat_to_proto;
use deckhand::proto::preferans::v1 as pb;
use deckhand_preferans::{parse_problems_lossy, DeclarerView};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::AnalysisState;
use serde_json::json;
use tonic::Code;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};
use crate::preferans::{layout_range, progress_bar, seat};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Queue the problems of FILE as one job; print the job id.
    Submit(Submit),
    /// Block until a job ends; print one line per problem, in submission order.
    Wait(Wait),
    /// The state and progress of a job, and its results when done (never blocks).
    Get(Get),
    /// The coordinator's jobs, newest first.
    List(List),
    /// Cancel a job.
    Cancel(Cancel),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// One JSON object per problem and line.
    Json,
    /// One row per problem and opening, with a header.
    Csv,
}

#[derive(Debug, clap::Args)]
struct Submit {
    /// A .pts/.bts problem file, or .jsonl with one problem per line:
    /// {"name": …, "view": "QT7.KQJ.A*8*7.KQJ", "contract": "6S", "lead": "W", "layouts": "0..20000"}.
    file: PathBuf,
    /// Only these problems: numbers of a .pts/.bts file, line numbers of a .jsonl
    /// file (from 1), e.g. 1,3-5.
    #[arg(long)]
    problems: Option<String>,
    /// Makes a retried submit safe: the same id gives the same job back.
    #[arg(long)]
    request_id: Option<String>,
    /// Coordinator HOST:PORT; without it an embedded cluster runs the job to the end.
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
    /// Result format when the job runs on the embedded cluster.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Solver threads of the embedded worker (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Debug, clap::Args)]
struct Wait {
    id: u64,
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct Get {
    id: u64,
    /// One JSON object (state, progress, results when done).
    #[arg(long)]
    json: bool,
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
}

#[derive(Debug, clap::Args)]
struct List {
    /// Only jobs in this state: queued, running, done, cancelled, failed.
    #[arg(long)]
    state: Option<String>,
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
}

#[derive(Debug, clap::Args)]
struct Cancel {
    id: u64,
    #[arg(long, env = "DECKHAND_COORDINATOR")]
    coordinator: Option<String>,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Submit(args) => submit(args).await,
        Command::Wait(args) => {
            let target = remote(args.coordinator.as_deref(), "wait").await?;
            let outcome = wait(&target.channel, args.id, args.format).await;
            target.close().await?;
            outcome
        }
        Command::Get(args) => {
            let target = remote(args.coordinator.as_deref(), "get").await?;
            let analysis = client(&target.channel)
                .get_analysis(pb::GetAnalysisRequest { job_id: args.id })
                .await?
                .into_inner();
            if args.json {
                println!("{}", analysis_json(&analysis));
            } else {
                println!("{}", summary(&analysis));
                if !analysis.error.is_empty() {
                    println!("error: {}", analysis.error);
                }
                print_results(&analysis, Format::Json);
            }
            target.close().await
        }
        Command::List(args) => {
            let state = match args.state.as_deref() {
                None => AnalysisState::Unspecified,
                Some(text) => parse_state(text)?,
            };
            let target = remote(args.coordinator.as_deref(), "list").await?;
            let mut client = client(&target.channel);
            let mut page_token = String::new();
            loop {
                let page = client
                    .list_analyses(pb::ListAnalysesRequest {
                        state: state as i32,
                        page_size: 0,
                        page_token,
                    })
                    .await?
                    .into_inner();
                for analysis in &page.analyses {
                    println!("{}", summary(analysis));
                }
                if page.next_page_token.is_empty() {
                    break;
                }
                page_token = page.next_page_token;
            }
            target.close().await
        }
        Command::Cancel(args) => {
            let target = remote(args.coordinator.as_deref(), "cancel").await?;
            let analysis = client(&target.channel)
                .cancel_analysis(pb::CancelAnalysisRequest { job_id: args.id })
                .await?
                .into_inner();
            println!("{}", summary(&analysis));
            target.close().await
        }
    }
}

/// Connects to the coordinator a job-reading command needs.
async fn remote(addr: Option<&str>, command: &str) -> anyhow::Result<Target> {
    let addr = addr.with_context(|| {
        format!("batch {command} needs --coordinator (an embedded cluster keeps no jobs between commands)")
    })?;
    Target::connect(Some(addr)).await
}

fn client(channel: &Transport) -> CoordinatorServiceClient<Transport> {
    CoordinatorServiceClient::new(channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

async fn submit(args: Submit) -> anyhow::Result<()> {
    let problems = read_problems(&args.file, args.problems.as_deref())?;
    let request = pb::SubmitAnalysesRequest {
        problems,
        request_id: args.request_id.clone().unwrap_or_default(),
    };
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let target = Target::coordinator(args.coordinator.as_deref(), threads).await?;
    let job_id = client(&target.channel)
        .submit_analyses(request)
        .await?
        .into_inner()
        .job_id;
    let outcome = if args.coordinator.is_some() {
        println!("{job_id}");
        Ok(())
    } else {
        // The embedded cluster ends with this command: run the job to its end here.
        eprintln!("no --coordinator: job {job_id} runs on an embedded cluster until it ends");
        wait(&target.channel, job_id, args.format).await
    };
    target.close().await?;
    outcome
}

/// Follows a job to its end (reconnecting while the coordinator restarts),
/// prints its results; an error when it did not end DONE.
async fn wait(channel: &Transport, job_id: u64, format: Format) -> anyhow::Result<()> {
    let show_progress = std::io::stderr().is_terminal();
    let mut client = client(channel);
    // A coordinator that restarts is unavailable for a while; jobs survive it.
    let patience = Duration::from_secs(120);
    let mut last_contact = Instant::now();
    let analysis = 'watch: loop {
        let outcome = async {
            let mut stream = client
                .watch_analysis(pb::WatchAnalysisRequest { job_id })
                .await?
                .into_inner();
            while let Some(event) = stream.message().await? {
                last_contact = Instant::now();
                match event.event {
                    Some(pb::watch_analysis_response::Event::Progress(p)) if show_progress => {
                        progress_bar(&p)
                    }
                    Some(pb::watch_analysis_response::Event::Analysis(a)) => return Ok(Some(a)),
                    _ => {}
                }
            }
            Ok::<_, tonic::Status>(None)
        }
        .await;
        match outcome {
            Ok(Some(analysis)) => break 'watch analysis,
            Ok(None) => {}
            Err(status)
                if matches!(
                    status.code(),
                    Code::Unavailable | Code::Unknown | Code::Internal
                ) && last_contact.elapsed() < patience => {}
            Err(status) => return Err(status.into()),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    if show_progress {
        eprintln!();
    }
    if analysis.state != AnalysisState::Done as i32 {
        bail!(
            "job {job_id} {}{}",
            state_name(analysis.state),
            if analysis.error.is_empty() {
                String::new()
            } else {
                format!(": {}", analysis.error)
            }
        );
    }
    print_results(&analysis, format);
    Ok(())
}

fn print_results(analysis: &pb::Analysis, format: Format) {
    match format {
        Format::Json => {
            for line in result_lines(analysis) {
                println!("{line}");
            }
        }
        Format::Csv => {
            let ticks: Vec<String> = (0..=10).map(|t| format!("t{t}")).collect();
            println!(
                "name,view,contract,lead,layouts,card,{},mean,make",
                ticks.join(",")
            );
            for r in &analysis.results {
                let (problem, result) = (problem_fields(r), r.result.clone().unwrap_or_default());
                for o in &result.openings {
                    let counts: Vec<String> = o.histogram.iter().map(u32::to_string).collect();
                    println!(
                        "{},{},{},{},{},{},{},{},{}",
                        csv(&problem.0),
                        csv(&problem.1),
                        problem.2,
                        problem.3,
                        result.layouts,
                        o.card,
                        counts.join(","),
                        o.mean,
                        o.make
                    );
                }
            }
        }
    }
}

fn csv(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// (name, view, contract, lead) of a result's problem.
fn problem_fields(r: &pb::ProblemResult) -> (String, String, String, String) {
    let problem = r.problem.clone().unwrap_or_default();
    let view = problem.view.unwrap_or_default();
    let notation = if view.compact.is_empty() {
        view.hand.clone()
    } else {
        view.compact.clone()
    };
    let lead = pb::Seat::try_from(view.leader)
        .map(|s| s.as_str_name().trim_start_matches("SEAT_").to_string())
        .unwrap_or_default();
    (problem.name, notation, view.contract, lead)
}

/// One JSON object per problem: the problem's fields and its result.
fn result_lines(analysis: &pb::Analysis) -> Vec<serde_json::Value> {
    analysis
        .results
        .iter()
        .map(|r| {
            let (name, view, contract, lead) = problem_fields(r);
            let result = r.result.clone().unwrap_or_default();
            json!({
                "name": name,
                "view": view,
                "contract": contract,
                "lead": lead,
                "layouts": result.layouts,
                "openings": result.openings.iter().map(|o| json!({
                    "card": o.card,
                    "histogram": o.histogram,
                    "mean": o.mean,
                    "make": o.make,
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
}

fn analysis_json(analysis: &pb::Analysis) -> serde_json::Value {
    let progress = analysis.progress.clone().unwrap_or_default();
    json!({
        "job_id": analysis.job_id,
        "state": state_name(analysis.state),
        "request_id": analysis.request_id,
        "problems": analysis.problems,
        "problems_done": analysis.problems_done,
        "layouts_done": progress.layouts_done,
        "layouts_total": progress.layouts_total,
        "error": analysis.error,
        "submitted_unix_seconds": analysis.submitted_unix_seconds,
        "ended_unix_seconds": analysis.ended_unix_seconds,
        "results": result_lines(analysis),
    })
}

fn summary(analysis: &pb::Analysis) -> String {
    let progress = analysis.progress.clone().unwrap_or_default();
    format!(
        "job {}: {}, {}/{} problems, {}/{} layouts ({:.1}%)",
        analysis.job_id,
        state_name(analysis.state),
        analysis.problems_done,
        analysis.problems,
        progress.layouts_done,
        progress.layouts_total,
        100.0 * progress.layouts_done as f64 / progress.layouts_total.max(1) as f64
    )
}

fn state_name(state: i32) -> String {
    AnalysisState::try_from(state)
        .map(|s| {
            s.as_str_name()
                .trim_start_matches("ANALYSIS_STATE_")
                .to_lowercase()
        })
        .unwrap_or_else(|_| format!("state {state}"))
}

fn parse_state(text: &str) -> anyhow::Result<AnalysisState> {
    AnalysisState::from_str_name(&format!("ANALYSIS_STATE_{}", text.to_uppercase()))
        .filter(|s| *s != AnalysisState::Unspecified)
        .with_context(|| {
            format!("--state {text:?}: one of queued, running, done, cancelled, failed")
        })
}

/// `1,3-5` → the set of numbers.
fn selection(text: &str) -> anyhow::Result<Vec<u32>> {
    let mut numbers = Vec::new();
    for part in text.split(',').map(str::trim) {
        let bad = || format!("--problems {text:?}: expected numbers and ranges like 1,3-5");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (
                    a.trim().parse().with_context(bad)?,
                    b.trim().parse().with_context(bad)?,
                );
                if a > b {
                    bail!(bad());
                }
                numbers.extend(a..=b);
            }
            None => numbers.push(part.parse().with_context(bad)?),
        }
    }
    Ok(numbers)
}

/// The problems of a .pts/.bts or .jsonl file, as the request wants them.
fn read_problems(file: &Path, only: Option<&str>) -> anyhow::Result<Vec<pb::Problem>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let only = only.map(selection).transpose()?;
    let problems = if file.extension().is_some_and(|e| e == "jsonl") {
        read_jsonl(file, &text, only.as_deref())?
    } else {
        read_problem_file(file, &text, only.as_deref())?
    };
    if problems.is_empty() {
        bail!("{}: no problem selected", file.display());
    }
    Ok(problems)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonProblem {
    #[serde(default)]
    name: String,
    view: String,
    contract: String,
    lead: String,
    #[serde(default)]
    declarer: Option<String>,
    #[serde(default)]
    layouts: Option<String>,
}

fn read_jsonl(file: &Path, text: &str, only: Option<&[u32]>) -> anyhow::Result<Vec<pb::Problem>> {
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i as u32 + 1;
        if line.trim().is_empty() || only.is_some_and(|o| !o.contains(&number)) {
            continue;
        }
        let at = || format!("{}:{number}", file.display());
        let p: JsonProblem = serde_json::from_str(line).with_context(at)?;
        let (start, end) = layout_range(p.layouts.as_deref()).with_context(at)?;
        problems.push(pb::Problem {
            name: p.name,
            view: Some(pb::DeclarerView {
                declarer: seat(p.declarer.as_deref().unwrap_or("N")).with_context(at)?,
                contract: p.contract,
                leader: seat(&p.lead).with_context(at)?,
                compact: p.view,
                ..Default::default()
            }),
            start,
            end,
        });
    }
    Ok(problems)
}

fn read_problem_file(
    file: &Path,
    text: &str,
    only: Option<&[u32]>,
) -> anyhow::Result<Vec<pb::Problem>> {
    let (parsed, errors) = parse_problems_lossy(text);
    let wanted = |name: &str| only.is_none_or(|o| name.parse().is_ok_and(|n: u32| o.contains(&n)));
    for e in &errors {
        let message = e.to_string();
        let selected = match only {
            None => true,
            Some(o) => o.iter().any(|n| message.starts_with(&format!("deal {n}:"))),
        };
        if selected {
            bail!("{}: {message}", file.display());
        }
    }
    if let Some(only) = only {
        for n in only {
            if !parsed.iter().any(|p| p.name == n.to_string()) {
                bail!("{}: no problem numbered {n}", file.display());
            }
        }
    }
    let mut problems = Vec::new();
    for p in parsed.iter().filter(|p| wanted(&p.name)) {
        let view = p
            .declarer_view()
            .map_err(|e| anyhow::anyhow!("{}: deal {}: {e}", file.display(), p.name))?;
        problems.push(pb::Problem {
            name: p.name.clone(),
            view: Some(view_to_proto(&view)),
            start: 0,
            end: 0,
        });
    }
    Ok(problems)
}

/// The compact notation: it says everything a view holds (see
/// [`DeclarerView::notation`]).
fn view_to_proto(view: &DeclarerView) -> pb::DeclarerView {
    pb::DeclarerView {
        declarer: seat_to_proto(view.declarer()) as i32,
        contract: view.contract().to_string(),
        leader: seat_to_proto(view.leader()) as i32,
        compact: view.notation(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_and_states_parse() {
        assert_eq!(selection("1,3-5").unwrap(), [1, 3, 4, 5]);
        assert!(selection("5-3").is_err());
        assert!(selection("x").is_err());
        assert_eq!(parse_state("Done").unwrap(), AnalysisState::Done);
        assert!(parse_state("unspecified").is_err());
    }

    #[test]
    fn the_compact_notation_round_trips() {
        let text = "QT7.KQJ.A*8*7.KQJ";
        let contract = "6S".parse().unwrap();
        let view = DeclarerView::from_notation(
            text,
            deckhand_preferans::Seat::N,
            contract,
            deckhand_preferans::Seat::W,
        )
        .unwrap();
        assert_eq!(view_to_proto(&view).compact, text);
    }
}
