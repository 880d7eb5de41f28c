//! The `Score` RPC's translation: wire situation -> validated engine input
//! (errors name the field, e.g. `situations[2].melds[1]`), engine score ->
//! wire result.

use deckhand::pool::{self, Cost};
use deckhand::proto::mahjong::v1 as pb;
use deckhand::status::{check_batch, collect_batch, FieldResult, Invalid};
use tonic::Status;

use deckhand_mahjong::{
    parse_tiles, score, Form, Limit, Meld, Riichi, Rules, Score, Tile, Verdict, WinInput,
    WinSituation, WinTiming, Wind,
};

/// Checks the batch size and scores every situation in request order, on
/// the CPU pool by its policy (a situation costs about one unit).
pub async fn score_batch(
    situations: Vec<pb::WinSituation>,
    max_batch: usize,
) -> Result<Vec<pb::ScoreResult>, Status> {
    check_batch("situations", situations.len(), max_batch)?;
    let cost = Cost(situations.len());
    // One violation per bad situation, like every other batch.
    let work =
        move || {
            collect_batch(situations.iter().enumerate().map(|(i, s)| {
                score_situation(s).map_err(|bad| bad.within(format!("situations[{i}]")))
            }))
        };
    Ok(pool::run(cost, work).await??)
}

/// Scores one wire situation; errors name the field within it (`melds[1]`).
pub fn score_situation(s: &pb::WinSituation) -> Result<pb::ScoreResult, Invalid> {
    let input = input(s)?;
    let situation = WinSituation::try_from(input).map_err(|e| Invalid::new(e.item(), e))?;
    Ok(to_result(&score(&situation)))
}

fn tiles(list: &[String], item: &str) -> Result<Vec<Tile>, Invalid> {
    list.iter()
        .enumerate()
        .map(|(i, t)| t.trim().parse::<Tile>().field(|| format!("{item}[{i}]")))
        .collect()
}

fn wind(w: i32, default: Wind, item: &str) -> Result<Wind, Invalid> {
    match pb::Wind::try_from(w) {
        Ok(pb::Wind::Unspecified) => Ok(default),
        Ok(pb::Wind::East) => Ok(Wind::East),
        Ok(pb::Wind::South) => Ok(Wind::South),
        Ok(pb::Wind::West) => Ok(Wind::West),
        Ok(pb::Wind::North) => Ok(Wind::North),
        Err(_) => Err(Invalid::new(item, format!("unknown wind {w}"))),
    }
}

/// Most melds, indicators and characters accepted before parsing, so a
/// hostile request cannot make the server do unbounded work per situation.
const MAX_LIST: usize = 8;
const MAX_TEXT: usize = 64;

fn input(s: &pb::WinSituation) -> Result<WinInput, Invalid> {
    for (name, len) in [
        ("melds", s.melds.len()),
        ("dora_indicators", s.dora_indicators.len()),
        ("ura_indicators", s.ura_indicators.len()),
    ] {
        if len > MAX_LIST {
            return Err(Invalid::new(
                name,
                format!("{len} entries, at most {MAX_LIST}"),
            ));
        }
    }
    if s.hand.len() > MAX_TEXT {
        return Err(Invalid::new(
            "hand",
            format!("{} characters, at most {MAX_TEXT}", s.hand.len()),
        ));
    }
    let (concealed, red_fives) = parse_tiles(&s.hand).field(|| "hand")?;
    let melds = s
        .melds
        .iter()
        .enumerate()
        .map(|(i, m)| m.trim().parse::<Meld>().field(|| format!("melds[{i}]")))
        .collect::<Result<Vec<Meld>, Invalid>>()?;
    let defaults = Rules::default();
    let r = s.rules.unwrap_or_default();
    let rules = Rules {
        open_tanyao: r.open_tanyao.unwrap_or(defaults.open_tanyao),
        kiriage_mangan: r.kiriage_mangan.unwrap_or(defaults.kiriage_mangan),
        double_yakuman: r.double_yakuman.unwrap_or(defaults.double_yakuman),
        kazoe_yakuman: r.kazoe_yakuman.unwrap_or(defaults.kazoe_yakuman),
        open_pinfu_fu: match r.open_pinfu_fu {
            None => defaults.open_pinfu_fu,
            Some(fu @ (20 | 30)) => fu as u8,
            Some(other) => {
                return Err(Invalid::new(
                    "rules.open_pinfu_fu",
                    format!("{other}: is 20 or 30"),
                ))
            }
        },
        red_fives: r.red_fives.unwrap_or(defaults.red_fives),
    };
    let riichi = match (s.riichi, s.double_riichi) {
        (_, true) => Riichi::Double,
        (true, false) => Riichi::Riichi,
        (false, false) => Riichi::None,
    };
    const MAX_COUNTER: u32 = 1000;
    for (name, value) in [("honba", s.honba), ("riichi_sticks", s.riichi_sticks)] {
        if value > MAX_COUNTER {
            return Err(Invalid::new(name, format!("{value} is over {MAX_COUNTER}")));
        }
    }
    Ok(WinInput {
        concealed,
        red_fives,
        melds,
        win_tile: s.win_tile.trim().parse::<Tile>().field(|| "win_tile")?,
        tsumo: s.tsumo,
        riichi,
        ippatsu: s.ippatsu,
        seat_wind: wind(s.seat_wind, Wind::South, "seat_wind")?,
        round_wind: wind(s.round_wind, Wind::East, "round_wind")?,
        dora_indicators: tiles(&s.dora_indicators, "dora_indicators")?,
        ura_indicators: tiles(&s.ura_indicators, "ura_indicators")?,
        timing: WinTiming {
            haitei: s.haitei,
            houtei: s.houtei,
            rinshan: s.rinshan,
            chankan: s.chankan,
            tenhou: s.tenhou,
            chiihou: s.chiihou,
        },
        honba: s.honba,
        riichi_sticks: s.riichi_sticks,
        rules,
    })
}

fn to_result(s: &Score) -> pb::ScoreResult {
    let verdict = match s.verdict {
        Verdict::NotComplete => pb::ScoreVerdict::NotComplete,
        Verdict::NoYaku => pb::ScoreVerdict::NoYaku,
        Verdict::Scored => pb::ScoreVerdict::Scored,
    };
    let form = match s.form {
        Form::Standard => pb::Form::Standard,
        Form::SevenPairs => pb::Form::SevenPairs,
        Form::ThirteenOrphans => pb::Form::ThirteenOrphans,
    };
    let p = &s.points;
    pb::ScoreResult {
        verdict: verdict as i32,
        yaku: s
            .yaku
            .iter()
            .map(|y| pb::YakuHan {
                name: y.yaku.name().to_string(),
                han: u32::from(y.han),
                yakuman: u32::from(y.yakuman),
            })
            .collect(),
        dora: u32::from(s.dora.dora),
        ura_dora: u32::from(s.dora.ura),
        red_fives: u32::from(s.dora.red),
        han: u32::from(s.han),
        fu: u32::from(s.fu),
        fu_items: s
            .fu_items
            .iter()
            .map(|f| pb::FuItem {
                reason: f.reason.name().to_string(),
                fu: u32::from(f.fu),
                tile: f.tile.map(|t| t.to_string()).unwrap_or_default(),
            })
            .collect(),
        form: if s.verdict == Verdict::NotComplete {
            pb::Form::Unspecified as i32
        } else {
            form as i32
        },
        groups: s
            .groups
            .iter()
            .map(|g| pb::ScoreGroup {
                kind: g.kind.name().to_string(),
                tile: i32::from(g.tile.id()),
                text: g.text(),
                open: g.open,
            })
            .collect(),
        wait: if s.verdict == Verdict::NotComplete {
            String::new()
        } else {
            s.wait.name().to_string()
        },
        points: Some(pb::Points {
            ron: p.ron,
            tsumo_dealer: p.tsumo_dealer,
            tsumo_others: p.tsumo_others,
            total: p.total,
            honba: p.honba,
            sticks: p.sticks,
            received: p.received(),
        }),
        limit: match s.limit {
            Limit::None => String::new(),
            other => other.name(),
        },
    }
}
