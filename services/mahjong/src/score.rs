//! The `Score` RPC's translation: wire situation -> validated engine input
//! (errors name the field, e.g. `situations[2].melds[1]`), engine score ->
//! wire result.

use deckhand::proto::mahjong::v1 as pb;
use deckhand::status::{check_batch, invalid};
use tonic::Status;

use deckhand_mahjong::{
    parse_tiles, score, Form, Limit, Meld, Riichi, Rules, Score, Tile, Verdict, WinInput,
    WinSituation, WinTiming, Wind,
};

/// Checks the batch size and scores every situation in request order; batches
/// of more than `blocking_batch` run on the blocking pool.
pub async fn score_batch(
    situations: Vec<pb::WinSituation>,
    max_batch: usize,
    blocking_batch: usize,
) -> Result<Vec<pb::ScoreResult>, Status> {
    check_batch("situations", situations.len(), max_batch)?;
    let big = situations.len() > blocking_batch;
    let work = move || {
        situations
            .iter()
            .enumerate()
            .map(|(i, s)| score_situation(s, &format!("situations[{i}]")))
            .collect::<Result<Vec<_>, Status>>()
    };
    if big {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| Status::internal(format!("batch task failed: {e}")))?
    } else {
        work()
    }
}

/// Scores one wire situation; `field` names it in errors (`situations[i]`).
pub fn score_situation(s: &pb::WinSituation, field: &str) -> Result<pb::ScoreResult, Status> {
    let situation = WinSituation::try_from(input(s, field)?)
        .map_err(|e| invalid(format!("{field}.{}", e.item()), e))?;
    Ok(to_result(&score(&situation)))
}

fn tile(text: &str, item: &str) -> Result<Tile, Status> {
    text.trim().parse::<Tile>().map_err(|e| invalid(item, e))
}

fn tiles(list: &[String], item: &str) -> Result<Vec<Tile>, Status> {
    list.iter()
        .enumerate()
        .map(|(i, t)| tile(t, &format!("{item}[{i}]")))
        .collect()
}

fn wind(w: i32, default: Wind, item: &str) -> Result<Wind, Status> {
    match pb::Wind::try_from(w) {
        Ok(pb::Wind::Unspecified) => Ok(default),
        Ok(pb::Wind::East) => Ok(Wind::East),
        Ok(pb::Wind::South) => Ok(Wind::South),
        Ok(pb::Wind::West) => Ok(Wind::West),
        Ok(pb::Wind::North) => Ok(Wind::North),
        Err(_) => Err(invalid(item, format!("unknown wind {w}"))),
    }
}

/// Most melds, indicators and characters accepted before parsing, so a
/// hostile request cannot make the server do unbounded work per situation.
const MAX_LIST: usize = 8;
const MAX_TEXT: usize = 64;

fn input(s: &pb::WinSituation, field: &str) -> Result<WinInput, Status> {
    for (name, len) in [
        ("melds", s.melds.len()),
        ("dora_indicators", s.dora_indicators.len()),
        ("ura_indicators", s.ura_indicators.len()),
    ] {
        if len > MAX_LIST {
            return Err(invalid(
                format!("{field}.{name}"),
                format!("{len} entries, at most {MAX_LIST}"),
            ));
        }
    }
    if s.hand.len() > MAX_TEXT {
        return Err(invalid(
            format!("{field}.hand"),
            format!("{} characters, at most {MAX_TEXT}", s.hand.len()),
        ));
    }
    let (concealed, red_fives) =
        parse_tiles(&s.hand).map_err(|e| invalid(format!("{field}.hand"), e))?;
    let melds = s
        .melds
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.trim()
                .parse::<Meld>()
                .map_err(|e| invalid(format!("{field}.melds[{i}]"), e))
        })
        .collect::<Result<Vec<Meld>, Status>>()?;
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
                return Err(invalid(
                    format!("{field}.rules.open_pinfu_fu"),
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
            return Err(invalid(
                format!("{field}.{name}"),
                format!("{value} is over {MAX_COUNTER}"),
            ));
        }
    }
    Ok(WinInput {
        concealed,
        red_fives,
        melds,
        win_tile: tile(&s.win_tile, &format!("{field}.win_tile"))?,
        tsumo: s.tsumo,
        riichi,
        ippatsu: s.ippatsu,
        seat_wind: wind(s.seat_wind, Wind::South, &format!("{field}.seat_wind"))?,
        round_wind: wind(s.round_wind, Wind::East, &format!("{field}.round_wind"))?,
        dora_indicators: tiles(&s.dora_indicators, &format!("{field}.dora_indicators"))?,
        ura_indicators: tiles(&s.ura_indicators, &format!("{field}.ura_indicators"))?,
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
