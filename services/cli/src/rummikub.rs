//! `deckhand rummikub …`: Rummikub arrangements and best moves.

use clap::{Subcommand, ValueEnum};
use deckhand::proto::rummikub::v1 as pb;
use pb::rummikub_service_client::RummikubServiceClient;

use crate::embedded::{Target, MAX_MESSAGE_BYTES};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address of a rummikub server (HOST:PORT); without it an embedded server is used.
    #[arg(long, env = "DECKHAND_ADDR", global = true)]
    addr: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Split TILES exactly into runs and groups, e.g. `arrange k1 k2 k3 b5 o5 r5 J`.
    Arrange {
        /// Tiles: colour letter (k b o r) + number, or J for a joker; an
        /// argument may hold several, separated by spaces or commas.
        #[arg(required = true)]
        tiles: Vec<String>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// The best move from --rack onto --table, and the whole table afterwards.
    BestMove {
        /// Tiles on the table, e.g. "k1 k2 k3 b5 o5 r5" (must form valid melds).
        #[arg(long, default_value = "")]
        table: String,
        /// Tiles on the rack, e.g. "k4 r7 J".
        #[arg(long)]
        rack: String,
        /// What to maximise.
        #[arg(long, value_enum, default_value_t = ObjectiveArg::Tiles)]
        objective: ObjectiveArg,
        /// First move: melds from the rack alone worth at least 30 points
        /// (or --opening-value).
        #[arg(long)]
        opening: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ObjectiveArg {
    /// Most rack tiles placed.
    Tiles,
    /// Most points placed (a joker counts 30).
    Value,
}

/// Rule-set flags; a number left at 0 (the default) takes the standard value.
#[derive(Debug, clap::Args)]
struct RuleArgs {
    /// Numbers per colour (standard 13).
    #[arg(long, default_value_t = 0)]
    numbers: u32,
    /// Colours (standard 4: k b o r; then g p y w).
    #[arg(long, default_value_t = 0)]
    colours: u32,
    /// Copies of each number tile (standard 2).
    #[arg(long, default_value_t = 0)]
    copies: u32,
    /// Jokers (standard 2; 0 for none, like --no-jokers).
    #[arg(long, conflicts_with = "no_jokers")]
    jokers: Option<u32>,
    /// Play without jokers (same as --jokers 0).
    #[arg(long)]
    no_jokers: bool,
    /// Shortest run or group (standard 3).
    #[arg(long, default_value_t = 0)]
    min_len: u32,
    /// Points an opening (--opening) must be worth (standard 30).
    #[arg(long, default_value_t = 0)]
    opening_value: u32,
    /// Forbid redundant jokers: a joker that could be taken out leaving a
    /// valid meld (in a group longer than the minimum, or at either end of a
    /// longer run).
    #[arg(long)]
    forbid_redundant_jokers: bool,
}

impl RuleArgs {
    fn to_wire(&self) -> Option<pb::RuleSet> {
        let rules = pb::RuleSet {
            numbers: self.numbers,
            colours: self.colours,
            copies: self.copies,
            jokers: if self.no_jokers { Some(0) } else { self.jokers },
            min_len: self.min_len,
            opening_value: self.opening_value,
            forbid_redundant_jokers: self.forbid_redundant_jokers,
        };
        (rules != pb::RuleSet::default()).then_some(rules)
    }
}

/// "k1 k2,k3" -> ["k1", "k2", "k3"].
fn split(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn print_melds(melds: &[pb::Meld]) {
    for meld in melds {
        let kind = match pb::MeldKind::try_from(meld.kind) {
            Ok(pb::MeldKind::Run) => "run",
            Ok(pb::MeldKind::Group) => "group",
            _ => "meld",
        };
        println!("{kind:<5}  {}", meld_text(meld));
    }
}

/// The meld's tiles, each joker followed by what it stands for: `k1 k2 J(k3)`.
fn meld_text(meld: &pb::Meld) -> String {
    meld.tiles
        .iter()
        .enumerate()
        .map(|(i, tile)| match meld.represents.get(i) {
            Some(stands_for) if stands_for != tile => format!("{tile}({stands_for})"),
            _ => tile.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let target = Target::connect(args.addr.as_deref()).await?;
    let mut client = RummikubServiceClient::new(target.channel.clone())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    match args.command {
        Command::Arrange { tiles, rules } => {
            let request = pb::ArrangeRequest {
                tiles: tiles.iter().flat_map(|t| split(t)).collect(),
                rules: rules.to_wire(),
            };
            let count = request.tiles.len();
            let reply = client.arrange(request).await?.into_inner();
            if reply.solvable {
                let melds = reply.melds.len();
                let plural = if melds == 1 { "" } else { "s" };
                println!("{count} tiles: solvable, {melds} meld{plural}");
                print_melds(&reply.melds);
            } else {
                println!("{count} tiles: not solvable");
            }
        }
        Command::BestMove {
            table,
            rack,
            objective,
            opening,
            rules,
        } => {
            let objective = match objective {
                ObjectiveArg::Tiles => pb::Objective::MaxTiles,
                ObjectiveArg::Value => pb::Objective::MaxValue,
            };
            let request = pb::BestMoveRequest {
                table: split(&table),
                rack: split(&rack),
                rules: rules.to_wire(),
                objective: objective as i32,
                opening,
            };
            let reply = client.best_move(request).await?.into_inner();
            if reply.placed.is_empty() {
                println!("placed 0: nothing can be placed");
            } else {
                println!("placed {}: {}", reply.placed.len(), reply.placed.join(" "));
            }
            print_melds(&reply.melds);
        }
    }
    target.close().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        rules: RuleArgs,
    }

    fn wire(args: &[&str]) -> Option<pb::RuleSet> {
        let argv = std::iter::once("test").chain(args.iter().copied());
        Cli::try_parse_from(argv).unwrap().rules.to_wire()
    }

    #[test]
    fn rule_flags_map_to_the_wire() {
        assert_eq!(wire(&[]), None);
        assert_eq!(wire(&["--no-jokers"]).unwrap().jokers, Some(0));
        assert_eq!(wire(&["--jokers", "0"]).unwrap().jokers, Some(0));
        assert_eq!(wire(&["--jokers", "3"]).unwrap().jokers, Some(3));
        let rules = wire(&["--opening-value", "25", "--forbid-redundant-jokers"]).unwrap();
        assert_eq!(rules.jokers, None);
        assert_eq!(rules.opening_value, 25);
        assert!(rules.forbid_redundant_jokers);
        let both = ["test", "--no-jokers", "--jokers", "1"];
        assert!(Cli::try_parse_from(both).is_err());
    }

    #[test]
    fn jokers_print_what_they_stand_for() {
        let meld = pb::Meld {
            kind: pb::MeldKind::Run as i32,
            tiles: vec!["k1".into(), "k2".into(), "J".into()],
            represents: vec!["k1".into(), "k2".into(), "k3".into()],
        };
        assert_eq!(meld_text(&meld), "k1 k2 J(k3)");
        // An older server without `represents`: the tiles alone.
        let old = pb::Meld {
            represents: vec![],
            ..meld
        };
        assert_eq!(meld_text(&old), "k1 k2 J");
    }
}
