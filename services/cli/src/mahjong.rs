//! `deckhand mahjong …`: win check, shanten, waits and scoring of mahjong hands.

use clap::Subcommand;
use deckhand::proto::mahjong::v1 as pb;
use pb::mahjong_service_client::MahjongServiceClient;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address of a mahjong server (HOST:PORT); without it an embedded server is used.
    #[arg(long, env = "DECKHAND_ADDR", global = true)]
    addr: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Is each HAND complete, and every way to read it (pair and melds).
    Win {
        /// Concealed tiles as MPSZ text, e.g. 123m456p789s11222z (1z..7z = E S W N white green red).
        #[arg(required = true)]
        hands: Vec<String>,
    },
    /// Shanten of each HAND: standard, seven pairs, thirteen orphans and the least.
    Shanten {
        /// Concealed tiles as MPSZ text, e.g. 123m456p789s1122z.
        #[arg(required = true)]
        hands: Vec<String>,
    },
    /// The tiles completing each HAND (1, 4, 7, 10 or 13 tiles), with unseen copies.
    Waits {
        /// Concealed tiles as MPSZ text, e.g. 1112345678999m.
        #[arg(required = true)]
        hands: Vec<String>,
    },
    /// Riichi scoring of a win: yaku, dora, fu, points and limit (defaults: ron, East round, South seat).
    Score(crate::mahjong_score::ScoreArgs),
}

fn text(tiles: &str) -> pb::Hand {
    pb::Hand {
        tiles: Some(pb::hand::Tiles::Text(tiles.to_string())),
    }
}

/// Tile id -> `(number, suit letter)`: 0-8 man, 9-17 pin, 18-26 sou, 27-33 honours.
fn number_suit(id: i32) -> (i32, char) {
    match id {
        0..=8 => (id + 1, 'm'),
        9..=17 => (id - 8, 'p'),
        18..=26 => (id - 17, 's'),
        _ => (id - 26, 'z'),
    }
}

/// `count` copies of a tile, e.g. `222z`.
fn copies(id: i32, count: usize) -> String {
    let (number, suit) = number_suit(id);
    format!("{}{suit}", number.to_string().repeat(count))
}

/// A sequence starting at `id`, e.g. `789s`.
fn sequence(id: i32) -> String {
    let (number, suit) = number_suit(id);
    format!("{}{}{}{suit}", number, number + 1, number + 2)
}

const ORPHANS: [i32; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// `11z 123m 456p 789s 222z (standard)`: the pair first, then the melds in tile order.
fn decomposition(d: &pb::Decomposition) -> String {
    let form = pb::Form::try_from(d.form).unwrap_or(pb::Form::Unspecified);
    let mut groups = vec![copies(d.pair, 2)];
    let name = match form {
        pb::Form::SevenPairs => {
            groups = d.pairs.iter().map(|&t| copies(t, 2)).collect();
            "seven pairs"
        }
        pb::Form::ThirteenOrphans => {
            groups.extend(
                ORPHANS
                    .iter()
                    .filter(|&&t| t != d.pair)
                    .map(|&t| copies(t, 1)),
            );
            "thirteen orphans"
        }
        pb::Form::Standard | pb::Form::Unspecified => {
            let mut melds: Vec<(i32, bool)> = d
                .triplets
                .iter()
                .map(|&t| (t, false))
                .chain(d.sequences.iter().map(|&t| (t, true)))
                .collect();
            melds.sort_unstable();
            groups.extend(melds.into_iter().map(|(t, is_sequence)| {
                if is_sequence {
                    sequence(t)
                } else {
                    copies(t, 3)
                }
            }));
            "standard"
        }
    };
    format!("{} ({name})", groups.join(" "))
}

fn shanten(s: &pb::ShantenResult) -> String {
    let state = match s.minimum {
        -1 => "complete".to_string(),
        0 => "ready".to_string(),
        n => format!("{n}-shanten"),
    };
    let mut parts = vec![format!("standard {}", s.standard)];
    if let Some(n) = s.seven_pairs {
        parts.push(format!("seven pairs {n}"));
    }
    if let Some(n) = s.thirteen_orphans {
        parts.push(format!("thirteen orphans {n}"));
    }
    format!("shanten {} ({state}): {}", s.minimum, parts.join(", "))
}

fn waits(w: &pb::WaitsResult) -> String {
    if w.waits.is_empty() {
        return "no waits".to_string();
    }
    let unseen: u32 = w.waits.iter().map(|w| w.unseen).sum();
    let tiles: Vec<String> = w
        .waits
        .iter()
        .map(|w| format!("{} x{}", w.text, w.unseen))
        .collect();
    let plural = if w.waits.len() == 1 { "" } else { "s" };
    format!(
        "{} wait{plural}, {unseen} tiles unseen: {}",
        w.waits.len(),
        tiles.join(", ")
    )
}

/// Rewrites an error about `hands[i]` (read from the BadRequest details) to
/// name the hand as the user typed it.
fn name_hand(status: tonic::Status, hands: &[String]) -> tonic::Status {
    use tonic_types::StatusExt;
    let bad = status.get_details_bad_request();
    let named = bad
        .as_ref()
        .and_then(|bad| bad.field_violations.first())
        .and_then(|v| {
            let index = v.field.strip_prefix("hands[")?.strip_suffix(']')?;
            Some((hands.get(index.parse::<usize>().ok()?)?, &v.description))
        });
    match named {
        Some((hand, reason)) => tonic::Status::new(status.code(), format!("{hand}: {reason}")),
        None => status,
    }
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let target = Target::connect(args.addr.as_deref()).await?;
    let mut client = MahjongServiceClient::new(target.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    match args.command {
        Command::Win { hands } => {
            let request = pb::CheckWinRequest {
                hands: hands.iter().map(|h| text(h)).collect(),
            };
            let results = client
                .check_win(request)
                .await
                .map_err(|e| name_hand(e, &hands))?
                .into_inner()
                .results;
            for (hand, result) in hands.iter().zip(results) {
                if result.win {
                    let readings: Vec<String> =
                        result.decompositions.iter().map(decomposition).collect();
                    println!("{hand}: win: {}", readings.join(" | "));
                } else {
                    println!("{hand}: no win");
                }
            }
        }
        Command::Shanten { hands } => {
            let request = pb::ShantenRequest {
                hands: hands.iter().map(|h| text(h)).collect(),
            };
            let results = client
                .shanten(request)
                .await
                .map_err(|e| name_hand(e, &hands))?
                .into_inner()
                .results;
            for (hand, result) in hands.iter().zip(results) {
                println!("{hand}: {}", shanten(&result));
            }
        }
        Command::Waits { hands } => {
            let request = pb::WaitsRequest {
                hands: hands.iter().map(|h| text(h)).collect(),
            };
            let results = client
                .waits(request)
                .await
                .map_err(|e| name_hand(e, &hands))?
                .into_inner()
                .results;
            for (hand, result) in hands.iter().zip(results) {
                println!("{hand}: {}", waits(&result));
            }
        }
        Command::Score(score) => crate::mahjong_score::run(&mut client, score).await?,
    }
    target.close().await
}
