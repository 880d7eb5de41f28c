//! `deckhand handops …`: Dou Dizhu hand algebra.

use clap::Subcommand;
use deckhand::proto::handops::v1 as pb;
use pb::hand_ops_service_client::HandOpsServiceClient;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address of a hand-ops server (HOST:PORT); without it an embedded server is used.
    #[arg(long, env = "DECKHAND_ADDR", global = true)]
    addr: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Every distinct play of HAND (or every play that beats --beat), grouped by type.
    LegalMoves {
        /// Cards as text, e.g. 34556677778888999TTT (ranks 3..9 T J Q K A 2 B R).
        hand: String,
        /// A play to beat, e.g. 3334.
        #[arg(long)]
        beat: Option<String>,
    },
    /// Does HAND contain PART?
    Contains { hand: String, part: String },
    /// HAND minus PART.
    Remove { hand: String, part: String },
    /// The play type of each CARDS argument.
    Classify {
        #[arg(required = true)]
        cards: Vec<String>,
    },
}

fn text(cards: &str) -> pb::Hand {
    pb::Hand {
        cards: Some(pb::hand::Cards::Text(cards.to_string())),
    }
}

fn pair(hand: &str, part: &str) -> pb::HandPair {
    pb::HandPair {
        hand: Some(text(hand)),
        part: Some(text(part)),
    }
}

/// "MOVE_TYPE_TRIO_WITH_SINGLE" -> "trio with single".
fn type_name(t: i32) -> String {
    let name = pb::MoveType::try_from(t)
        .map(|t| t.as_str_name())
        .unwrap_or("MOVE_TYPE_UNSPECIFIED");
    name.trim_start_matches("MOVE_TYPE_")
        .to_lowercase()
        .replace('_', " ")
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let target = Target::connect(args.addr.as_deref()).await?;
    let mut client = HandOpsServiceClient::new(target.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    match args.command {
        Command::LegalMoves { hand, beat } => {
            let request = pb::LegalMovesRequest {
                hand: Some(text(&hand)),
                beat: beat.as_deref().map(text),
            };
            let moves = client.legal_moves(request).await?.into_inner().moves;
            print_moves(&hand, beat.as_deref(), &moves);
        }
        Command::Contains { hand, part } => {
            let request = pb::ContainsRequest {
                pairs: vec![pair(&hand, &part)],
                packed: None,
            };
            let contains = client.contains(request).await?.into_inner().contains;
            println!("{}", contains.first().copied().unwrap_or(false));
        }
        Command::Remove { hand, part } => {
            let request = pb::RemoveRequest {
                pairs: vec![pair(&hand, &part)],
            };
            let remaining = client.remove(request).await?.into_inner().remaining;
            if let Some(pb::Hand {
                cards: Some(pb::hand::Cards::Packed(packed)),
            }) = remaining.first()
            {
                let cards = deckhand_handops::CardsVector::from_packed(*packed)?;
                println!("{cards}");
            }
        }
        Command::Classify { cards } => {
            let request = pb::ClassifyRequest {
                hands: cards.iter().map(|c| text(c)).collect(),
            };
            let results = client.classify(request).await?.into_inner().results;
            for (cards, result) in cards.iter().zip(results) {
                match result.r#move {
                    Some(m) if result.valid => println!(
                        "{cards}\t{}\tkey {}\tlength {}",
                        type_name(m.r#type),
                        m.key,
                        m.chain_length
                    ),
                    _ => println!("{cards}\tnot a play"),
                }
            }
        }
    }
    target.close().await
}

fn print_moves(hand: &str, beat: Option<&str>, moves: &[pb::Move]) {
    match beat {
        Some(beat) => println!("{hand}: {} plays beat {beat}", moves.len()),
        None => println!("{hand}: {} plays", moves.len()),
    }
    let mut groups: Vec<(i32, Vec<&str>)> = Vec::new();
    for m in moves {
        match groups.iter_mut().find(|(t, _)| *t == m.r#type) {
            Some((_, texts)) => texts.push(&m.text),
            None => groups.push((m.r#type, vec![&m.text])),
        }
    }
    groups.sort_by_key(|(t, _)| *t);
    for (t, texts) in groups {
        println!("{} ({}): {}", type_name(t), texts.len(), texts.join(" "));
    }
}
