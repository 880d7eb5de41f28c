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
        /// First move: melds from the rack alone worth at least 30 points.
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

/// Rule-set flags; 0 (the default) takes the standard value.
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
    /// Jokers (standard 2).
    #[arg(long, default_value_t = 0)]
    jokers: u32,
    /// Shortest run or group (standard 3).
    #[arg(long, default_value_t = 0)]
    min_len: u32,
}

impl RuleArgs {
    fn to_wire(&self) -> Option<pb::RuleSet> {
        let rules = pb::RuleSet {
            numbers: self.numbers,
            colours: self.colours,
            copies: self.copies,
            jokers: self.jokers,
            min_len: self.min_len,
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
        println!("{kind:<5}  {}", meld.tiles.join(" "));
    }
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
