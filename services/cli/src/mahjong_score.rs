//! `deckhand mahjong score HAND --win TILE ...`: riichi scoring of one win.

use deckhand::client::Transport;
use deckhand::proto::mahjong::v1 as pb;
use pb::mahjong_service_client::MahjongServiceClient;

/// Arguments of `deckhand mahjong score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Concealed tiles including the winning tile, MPSZ (0m/0p/0s red fives), e.g. 234789m12345666p.
    hand: String,
    /// The winning tile, e.g. 6p.
    #[arg(long = "win", value_name = "TILE")]
    win: String,
    /// Won by self-draw (default: ron).
    #[arg(long)]
    tsumo: bool,
    #[arg(long)]
    riichi: bool,
    #[arg(long = "double-riichi")]
    double_riichi: bool,
    #[arg(long)]
    ippatsu: bool,
    /// Dora indicators, e.g. 1m,5z.
    #[arg(long, value_delimiter = ',', value_name = "TILES")]
    dora: Vec<String>,
    /// Ura-dora indicators (counted with riichi), e.g. 3p.
    #[arg(long, value_delimiter = ',', value_name = "TILES")]
    ura: Vec<String>,
    /// Seat wind (E is the dealer).
    #[arg(long, default_value = "S", value_parser = wind, value_name = "E|S|W|N")]
    seat: pb::Wind,
    /// Round wind.
    #[arg(long = "round", default_value = "E", value_parser = wind, value_name = "E|S|W|N")]
    round_wind: pb::Wind,
    /// Called melds: chi:123s, pon:555m, kan:7777p (open), ankan:1111z (closed), kakan:2222m (added).
    #[arg(long, value_delimiter = ',', value_name = "MELDS")]
    melds: Vec<String>,
    /// Honba counters on the table.
    #[arg(long, default_value_t = 0, value_name = "N")]
    honba: u32,
    /// Riichi sticks on the table.
    #[arg(long, default_value_t = 0, value_name = "N")]
    sticks: u32,
    /// Tsumo on the last tile of the wall.
    #[arg(long)]
    haitei: bool,
    /// Ron on the last discard.
    #[arg(long)]
    houtei: bool,
    /// Tsumo on a kan replacement tile.
    #[arg(long)]
    rinshan: bool,
    /// Ron on a tile added to a pon.
    #[arg(long)]
    chankan: bool,
    #[arg(long)]
    tenhou: bool,
    #[arg(long)]
    chiihou: bool,
    /// Print one JSON object: win, han, fu, yaku, points, limit.
    #[arg(long)]
    json: bool,
}

fn wind(text: &str) -> Result<pb::Wind, String> {
    match text.to_ascii_uppercase().as_str() {
        "E" => Ok(pb::Wind::East),
        "S" => Ok(pb::Wind::South),
        "W" => Ok(pb::Wind::West),
        "N" => Ok(pb::Wind::North),
        _ => Err(format!("{text:?} is not a wind: use E, S, W or N")),
    }
}

fn situation(a: &ScoreArgs) -> pb::WinSituation {
    pb::WinSituation {
        hand: a.hand.clone(),
        win_tile: a.win.clone(),
        melds: a.melds.clone(),
        tsumo: a.tsumo,
        riichi: a.riichi,
        double_riichi: a.double_riichi,
        ippatsu: a.ippatsu,
        seat_wind: a.seat as i32,
        round_wind: a.round_wind as i32,
        dora_indicators: a.dora.clone(),
        ura_indicators: a.ura.clone(),
        haitei: a.haitei,
        houtei: a.houtei,
        rinshan: a.rinshan,
        chankan: a.chankan,
        tenhou: a.tenhou,
        chiihou: a.chiihou,
        honba: a.honba,
        riichi_sticks: a.sticks,
        rules: None,
    }
}

/// The yaku list with dora entries after it, as (name, han).
fn yaku_and_dora(r: &pb::ScoreResult) -> Vec<(String, u32)> {
    let mut list: Vec<(String, u32)> = r.yaku.iter().map(|y| (y.name.clone(), y.han)).collect();
    for (name, han) in [
        ("dora", r.dora),
        ("ura dora", r.ura_dora),
        ("red fives", r.red_fives),
    ] {
        if han > 0 {
            list.push((name.to_string(), han));
        }
    }
    list
}

/// `{"win": …, "han": …, "fu": …, "yaku": […], "points": {…}, "limit": …}`;
/// `win` is true for a legal (scored) win; dora are listed as yaku entries
/// named `dora`, `ura dora`, `red fives`; `ron`/`tsumo_*` are what each payer
/// pays including honba, `total` what the winner gets without honba and sticks.
fn json(r: &pb::ScoreResult) -> String {
    #[derive(serde::Serialize)]
    struct Score {
        win: bool,
        han: u32,
        fu: u32,
        yaku: Vec<Yaku>,
        points: Points,
        limit: String,
    }
    #[derive(serde::Serialize)]
    struct Yaku {
        name: String,
        han: u32,
    }
    #[derive(serde::Serialize)]
    struct Points {
        total: u32,
        ron: u32,
        tsumo_dealer: u32,
        tsumo_others: u32,
    }
    let p = r.points.unwrap_or_default();
    let (ron, tsumo_dealer, tsumo_others) = payments_with_honba(&p);
    let score = Score {
        win: r.verdict == pb::ScoreVerdict::Scored as i32,
        han: r.han,
        fu: r.fu,
        yaku: yaku_and_dora(r)
            .into_iter()
            .map(|(name, han)| Yaku { name, han })
            .collect(),
        points: Points {
            total: p.total,
            ron,
            tsumo_dealer,
            tsumo_others,
        },
        limit: r.limit.clone(),
    };
    serde_json::to_string(&score).expect("plain structs serialize")
}

/// Payments including honba: 300 per honba on a ron, 100 per payer on a tsumo.
fn payments_with_honba(p: &pb::Points) -> (u32, u32, u32) {
    let per_payer = p.honba / 3;
    let add = |x: u32, bonus: u32| if x > 0 { x + bonus } else { 0 };
    (
        add(p.ron, p.honba),
        add(p.tsumo_dealer, per_payer),
        add(p.tsumo_others, per_payer),
    )
}

fn text(hand: &str, r: &pb::ScoreResult) -> String {
    match pb::ScoreVerdict::try_from(r.verdict).unwrap_or(pb::ScoreVerdict::Unspecified) {
        pb::ScoreVerdict::NotComplete | pb::ScoreVerdict::Unspecified => {
            return format!("{hand}: not a complete hand");
        }
        pb::ScoreVerdict::NoYaku => {
            let groups: Vec<&str> = r.groups.iter().map(|g| g.text.as_str()).collect();
            return format!(
                "{hand}: no yaku (complete as {}, {} wait): not a legal win",
                groups.join(" "),
                r.wait
            );
        }
        pb::ScoreVerdict::Scored => {}
    }
    let p = r.points.unwrap_or_default();
    let yaku: Vec<String> = yaku_and_dora(r)
        .iter()
        .map(|(name, han)| format!("{name} {han}"))
        .collect();
    let limit = if r.limit.is_empty() {
        String::new()
    } else {
        format!(", {}", r.limit)
    };
    let (ron, dealer, others) = payments_with_honba(&p);
    let pays = if p.ron > 0 {
        format!("ron {ron}")
    } else if p.tsumo_dealer > 0 {
        format!("tsumo {dealer} from the dealer, {others} from each other player")
    } else {
        format!("tsumo {others} from each player")
    };
    let groups: Vec<String> = r
        .groups
        .iter()
        .map(|g| {
            if g.open {
                format!("({})", g.text)
            } else {
                g.text.clone()
            }
        })
        .collect();
    let fu: Vec<String> = r
        .fu_items
        .iter()
        .map(|f| {
            if f.tile.is_empty() {
                format!("{} {}", f.reason, f.fu)
            } else {
                format!("{} {} {}", f.reason, f.tile, f.fu)
            }
        })
        .collect();
    let reading = if groups.is_empty() {
        String::new()
    } else {
        format!("\n  reading: {} ({} wait)", groups.join(" "), r.wait)
    };
    format!(
        "{hand}: {} han {} fu{limit}: {}\n  points: {} ({pays}; honba {}, sticks {}, received {}){reading}\n  fu: {}",
        r.han,
        r.fu,
        yaku.join(", "),
        p.total,
        p.honba,
        p.sticks,
        p.received,
        fu.join(", ")
    )
}

/// Rewrites an error about `situations[0].<item>` (read from the BadRequest
/// details) to name just the item, as given on the command line.
fn name_item(status: tonic::Status) -> tonic::Status {
    use tonic_types::StatusExt;
    let bad = status.get_details_bad_request();
    let named = bad
        .as_ref()
        .and_then(|bad| bad.field_violations.first())
        .and_then(|v| Some((v.field.strip_prefix("situations[0].")?, &v.description)));
    match named {
        Some((item, reason)) => tonic::Status::new(status.code(), format!("{item}: {reason}")),
        None => status,
    }
}

pub async fn run(
    client: &mut MahjongServiceClient<Transport>,
    args: ScoreArgs,
) -> anyhow::Result<()> {
    let request = pb::ScoreRequest {
        situations: vec![situation(&args)],
    };
    let reply = client.score(request).await.map_err(name_item)?.into_inner();
    let result = reply
        .results
        .first()
        .ok_or_else(|| anyhow::anyhow!("the server returned no result"))?;
    if args.json {
        println!("{}", json(result));
    } else {
        println!("{}", text(&args.hand, result));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_documented_shape() {
        let result = pb::ScoreResult {
            verdict: pb::ScoreVerdict::Scored as i32,
            yaku: vec![pb::YakuHan {
                name: "riichi".into(),
                han: 1,
                yakuman: 0,
            }],
            dora: 2,
            han: 3,
            fu: 40,
            points: Some(pb::Points {
                tsumo_dealer: 2600,
                tsumo_others: 1300,
                total: 5200,
                honba: 600,
                received: 5800,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            json(&result),
            "{\"win\":true,\"han\":3,\"fu\":40,\"yaku\":[{\"name\":\"riichi\",\"han\":1},\
             {\"name\":\"dora\",\"han\":2}],\"points\":{\"total\":5200,\"ron\":0,\
             \"tsumo_dealer\":2800,\"tsumo_others\":1500},\"limit\":\"\"}"
        );
    }
}
