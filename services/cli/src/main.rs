//! `deckhand`: the command-line client of a Deckhand cluster.
//!
//! Every subcommand talks gRPC. Given `--addr` it calls that server; without it,
//! it starts an embedded server with every service in this process (the
//! embedded default) and calls that, so both paths run the same code.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod batch;
mod bench;
mod bench_preferans;
mod cluster_bench;
mod embedded;
mod handops;
mod mahjong;
mod mahjong_score;
mod preferans;
mod rummikub;
mod soak;

#[derive(Debug, Parser)]
#[command(
    name = "deckhand",
    version,
    about = "Card- and tile-game computations from a Deckhand cluster"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    connection: deckhand::client::ClientArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Dou Dizhu hand algebra (hand-ops service).
    Handops(handops::Args),
    /// Mahjong win check, shanten, waits and scoring (mahjong service).
    Mahjong(mahjong::Args),
    /// Rummikub arrangement and best move (rummikub service).
    Rummikub(rummikub::Args),
    /// Double-dummy preferans (preferans-worker and coordinator services).
    Preferans(preferans::Args),
    /// Load benchmarks of a service over gRPC.
    Bench(bench::Args),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    embedded::set_remote_options(cli.connection.into());
    let result = match cli.command {
        Command::Handops(args) => handops::run(args).await,
        Command::Mahjong(args) => mahjong::run(args).await,
        Command::Rummikub(args) => rummikub::run(args).await,
        Command::Preferans(args) => preferans::run(args).await,
        Command::Bench(args) => bench::run(args).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match e.downcast_ref::<tonic::Status>() {
                Some(status) => report(status),
                None => eprintln!("error: {e:#}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// Prints a failed call: each bad field from the structured BadRequest
/// details when the server sent them, else the status message.
fn report(status: &tonic::Status) {
    use tonic_types::StatusExt;
    match status.get_details_bad_request() {
        Some(bad) if !bad.field_violations.is_empty() => {
            for violation in &bad.field_violations {
                eprintln!(
                    "error: {:?}: {}: {}",
                    status.code(),
                    violation.field,
                    violation.description
                );
            }
        }
        _ => eprintln!("error: {:?}: {}", status.code(), status.message()),
    }
}
