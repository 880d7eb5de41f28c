//! Yaku and fu of one reading.

use super::input::{Riichi, WinSituation};
use super::points::{base_points, payments, Limit, Points};
use super::{Dora, FuItem, FuReason, Group, GroupKind, Reading, WaitShape, YakuHan};
use crate::tile::{Tile, TILE_KINDS};
use crate::win::Form;

/// The yaku, in the order they are listed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Yaku {
    Riichi,
    DoubleRiichi,
    Ippatsu,
    MenzenTsumo,
    Pinfu,
    Iipeikou,
    Tanyao,
    SeatWind,
    RoundWind,
    Haku,
    Hatsu,
    Chun,
    Haitei,
    Houtei,
    Rinshan,
    Chankan,
    Chiitoitsu,
    SanshokuDoujun,
    Ittsu,
    Chanta,
    Toitoi,
    Sanankou,
    SanshokuDoukou,
    Sankantsu,
    Honroutou,
    Shousangen,
    Ryanpeikou,
    Honitsu,
    Junchan,
    Chinitsu,
    KokushiMusou,
    Suuankou,
    Daisangen,
    Shousuushii,
    Daisuushii,
    Tsuuiisou,
    Ryuuiisou,
    Chinroutou,
    ChuurenPoutou,
    Suukantsu,
    Tenhou,
    Chiihou,
}

impl Yaku {
    /// Lower-case romaji name, e.g. `riichi`, `menzen tsumo`, `kokushi musou`.
    pub const fn name(self) -> &'static str {
        match self {
            Yaku::Riichi => "riichi",
            Yaku::DoubleRiichi => "double riichi",
            Yaku::Ippatsu => "ippatsu",
            Yaku::MenzenTsumo => "menzen tsumo",
            Yaku::Pinfu => "pinfu",
            Yaku::Iipeikou => "iipeikou",
            Yaku::Tanyao => "tanyao",
            Yaku::SeatWind => "seat wind",
            Yaku::RoundWind => "round wind",
            Yaku::Haku => "haku",
            Yaku::Hatsu => "hatsu",
            Yaku::Chun => "chun",
            Yaku::Haitei => "haitei",
            Yaku::Houtei => "houtei",
            Yaku::Rinshan => "rinshan kaihou",
            Yaku::Chankan => "chankan",
            Yaku::Chiitoitsu => "chiitoitsu",
            Yaku::SanshokuDoujun => "sanshoku doujun",
            Yaku::Ittsu => "ittsu",
            Yaku::Chanta => "chanta",
            Yaku::Toitoi => "toitoi",
            Yaku::Sanankou => "sanankou",
            Yaku::SanshokuDoukou => "sanshoku doukou",
            Yaku::Sankantsu => "sankantsu",
            Yaku::Honroutou => "honroutou",
            Yaku::Shousangen => "shousangen",
            Yaku::Ryanpeikou => "ryanpeikou",
            Yaku::Honitsu => "honitsu",
            Yaku::Junchan => "junchan",
            Yaku::Chinitsu => "chinitsu",
            Yaku::KokushiMusou => "kokushi musou",
            Yaku::Suuankou => "suuankou",
            Yaku::Daisangen => "daisangen",
            Yaku::Shousuushii => "shousuushii",
            Yaku::Daisuushii => "daisuushii",
            Yaku::Tsuuiisou => "tsuuiisou",
            Yaku::Ryuuiisou => "ryuuiisou",
            Yaku::Chinroutou => "chinroutou",
            Yaku::ChuurenPoutou => "chuuren poutou",
            Yaku::Suukantsu => "suukantsu",
            Yaku::Tenhou => "tenhou",
            Yaku::Chiihou => "chiihou",
        }
    }
}

/// Yaku, fu and points of one reading.
pub(crate) struct Evaluation {
    pub yaku: Vec<YakuHan>,
    pub dora: Dora,
    pub han: u8,
    pub fu: u8,
    pub fu_items: Vec<FuItem>,
    pub points: Points,
    pub limit: Limit,
}

const GREEN: [usize; 6] = [19, 20, 21, 23, 25, 32];

fn is_terminal_or_honour_index(i: usize) -> bool {
    i >= 27 || matches!(i % 9, 0 | 8)
}

/// Whether a group holds a terminal or honour.
fn has_terminal_or_honour(g: &Group) -> bool {
    match g.kind {
        GroupKind::Sequence => matches!(g.tile.number(), 1 | 7),
        _ => g.tile.is_terminal_or_honour(),
    }
}

/// The dora a tile indicator points at.
fn dora_of(indicator: Tile) -> usize {
    let i = indicator.index();
    match i {
        27..=30 => 27 + (i - 27 + 1) % 4,
        31..=33 => 31 + (i - 31 + 1) % 3,
        _ => i - i % 9 + (i % 9 + 1) % 9,
    }
}

fn count_dora(all: &[u8; TILE_KINDS], indicators: &[Tile]) -> u8 {
    indicators.iter().map(|&t| all[dora_of(t)]).sum()
}

/// Small fixed-capacity yaku list (the most a hand can hold is well under 16).
struct YakuList {
    items: [YakuHan; 16],
    len: usize,
}

impl YakuList {
    fn new() -> YakuList {
        YakuList {
            items: [YakuHan {
                yaku: Yaku::Riichi,
                han: 0,
                yakuman: 0,
            }; 16],
            len: 0,
        }
    }

    fn add(&mut self, yaku: Yaku, han: u8) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = YakuHan {
                yaku,
                han,
                yakuman: 0,
            };
            self.len += 1;
        }
    }

    fn add_yakuman(&mut self, yaku: Yaku, count: u8) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = YakuHan {
                yaku,
                han: 13 * count,
                yakuman: count,
            };
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[YakuHan] {
        &self.items[..self.len]
    }
}

/// Yaku and fu of `reading`; `None` when it has no yaku.
pub(crate) fn evaluate(s: &WinSituation, r: &Reading) -> Option<Evaluation> {
    let input = &s.input;
    let rules = &input.rules;
    let all = &s.all_tiles;
    let closed = !s.is_open();
    let groups = r.groups();
    let double = |yes: bool| if yes && rules.double_yakuman { 2 } else { 1 };

    let mut yakuman = YakuList::new();
    let mut list = YakuList::new();

    // Yakuman that depend only on the tiles and the moment.
    if input.timing.tenhou {
        yakuman.add_yakuman(Yaku::Tenhou, 1);
    }
    if input.timing.chiihou {
        yakuman.add_yakuman(Yaku::Chiihou, 1);
    }
    let honours: u8 = all[27..].iter().sum();
    let total: u8 = all.iter().sum();
    if honours == total {
        yakuman.add_yakuman(Yaku::Tsuuiisou, 1);
    }
    if GREEN.iter().map(|&i| all[i]).sum::<u8>() == total {
        yakuman.add_yakuman(Yaku::Ryuuiisou, 1);
    }
    let terminal_honours: u8 = (0..TILE_KINDS)
        .filter(|&i| is_terminal_or_honour_index(i))
        .map(|i| all[i])
        .sum();
    if honours == 0 && terminal_honours == total {
        yakuman.add_yakuman(Yaku::Chinroutou, 1);
    }
    if input.melds.is_empty() && r.form == Form::Standard {
        if let Some(pure) = chuuren(all, input.win_tile) {
            yakuman.add_yakuman(Yaku::ChuurenPoutou, double(pure));
        }
    }

    let mut fu_items: Vec<FuItem> = Vec::new();
    match r.form {
        Form::ThirteenOrphans => {
            yakuman.add_yakuman(Yaku::KokushiMusou, double(r.wait == WaitShape::Thirteen));
        }
        Form::SevenPairs => {
            list.add(Yaku::Chiitoitsu, 2);
            fu_items.push(FuItem {
                reason: FuReason::SevenPairs,
                fu: 25,
                tile: None,
            });
        }
        Form::Standard => {
            standard_yaku(s, groups, r.wait, &mut yakuman, &mut list);
        }
    }

    // Situational and tile-set yaku shared by the standard form and seven pairs.
    if yakuman.len == 0 && r.form != Form::ThirteenOrphans {
        match input.riichi {
            Riichi::None => {}
            Riichi::Riichi => list.add(Yaku::Riichi, 1),
            Riichi::Double => list.add(Yaku::DoubleRiichi, 2),
        }
        if input.ippatsu {
            list.add(Yaku::Ippatsu, 1);
        }
        if closed && input.tsumo {
            list.add(Yaku::MenzenTsumo, 1);
        }
        let t = input.timing;
        for (yes, yaku) in [
            (t.haitei, Yaku::Haitei),
            (t.houtei, Yaku::Houtei),
            (t.rinshan, Yaku::Rinshan),
            (t.chankan, Yaku::Chankan),
        ] {
            if yes {
                list.add(yaku, 1);
            }
        }
        if terminal_honours == 0 && (closed || rules.open_tanyao) {
            list.add(Yaku::Tanyao, 1);
        }
        if terminal_honours == total {
            list.add(Yaku::Honroutou, 2);
        }
        let suits = (0..3)
            .filter(|&k| all[9 * k..9 * k + 9].iter().any(|&c| c > 0))
            .count();
        if suits == 1 {
            let open_less = u8::from(!closed);
            if honours == 0 {
                list.add(Yaku::Chinitsu, 6 - open_less);
            } else {
                list.add(Yaku::Honitsu, 3 - open_less);
            }
        }
    }

    let (yaku, dora, han, fu, limit, base) = if yakuman.len > 0 {
        let count: u8 = yakuman.as_slice().iter().map(|y| y.yakuman).sum();
        let (fu, items) = fu_of(s, r, false);
        let (limit, base) = base_points(13 * count, fu, count, rules);
        fu_items = items;
        (
            yakuman.as_slice().to_vec(),
            Dora::default(),
            13 * count,
            fu,
            limit,
            base,
        )
    } else {
        if list.len == 0 {
            return None;
        }
        let pinfu = list.as_slice().iter().any(|y| y.yaku == Yaku::Pinfu);
        let fu = if r.form == Form::SevenPairs {
            25
        } else {
            let (fu, items) = fu_of(s, r, pinfu);
            fu_items = items;
            fu
        };
        let dora = Dora {
            dora: count_dora(all, &input.dora_indicators),
            ura: if input.riichi == Riichi::None {
                0
            } else {
                count_dora(all, &input.ura_indicators)
            },
            red: if rules.red_fives {
                input.red_fives + input.melds.iter().map(|m| m.red_fives()).sum::<u8>()
            } else {
                0
            },
        };
        let mut items = list.as_slice().to_vec();
        items.sort_by_key(|y| y.yaku);
        let han = items.iter().map(|y| y.han).sum::<u8>() + dora.total();
        let (limit, base) = base_points(han, fu, 0, rules);
        (items, dora, han, fu, limit, base)
    };
    let dealer = s.is_dealer();
    let points = payments(base, dealer, input.tsumo, input.honba, input.riichi_sticks);
    Some(Evaluation {
        yaku,
        dora,
        han,
        fu,
        fu_items,
        points,
        limit,
    })
}

/// Nine gates: a closed one-suit hand holding 1112345678999 plus one more
/// tile of the suit. `Some(true)` when the other 13 tiles are exactly that
/// (the nine-sided wait).
fn chuuren(all: &[u8; TILE_KINDS], win: Tile) -> Option<bool> {
    let suit = (0..3).find(|&k| all[9 * k] >= 3)?;
    let counts = &all[9 * suit..9 * suit + 9];
    let total: u8 = all.iter().sum();
    if counts.iter().sum::<u8>() != total || total != 14 {
        return None;
    }
    const GATES: [u8; 9] = [3, 1, 1, 1, 1, 1, 1, 1, 3];
    if counts.iter().zip(GATES).any(|(&c, g)| c < g) {
        return None;
    }
    let extra = counts.iter().zip(GATES).position(|(&c, g)| c > g)?;
    Some(win.index() == 9 * suit + extra)
}

/// Yaku that depend on the standard-form groups.
fn standard_yaku(
    s: &WinSituation,
    groups: &[Group],
    wait: WaitShape,
    yakuman: &mut YakuList,
    list: &mut YakuList,
) {
    let input = &s.input;
    let closed = !s.is_open();
    let open_less = u8::from(!closed);
    let pair = groups[0].tile;
    let melds = &groups[1..];
    let seat = input.seat_wind.tile();
    let round = input.round_wind.tile();

    let mut sequences = [0u8; 4];
    let mut seq_count = 0;
    let mut triplet_tiles = [0u8; 4];
    let mut trip_count = 0;
    let mut kans = 0;
    let mut concealed_triplets = 0;
    for g in melds {
        match g.kind {
            GroupKind::Sequence => {
                sequences[seq_count] = g.tile.id();
                seq_count += 1;
            }
            GroupKind::Triplet | GroupKind::Kan => {
                triplet_tiles[trip_count] = g.tile.id();
                trip_count += 1;
                kans += u8::from(g.kind == GroupKind::Kan);
                concealed_triplets += u8::from(!g.open);
            }
            GroupKind::Pair => {}
        }
    }
    let sequences = &mut sequences[..seq_count];
    sequences.sort_unstable();
    let triplets = &triplet_tiles[..trip_count];
    let dragon_triplets = triplets.iter().filter(|&&t| t >= 31).count();
    let wind_triplets = triplets.iter().filter(|&&t| (27..31).contains(&t)).count();

    // Yakuman.
    if concealed_triplets == 4 {
        yakuman.add_yakuman(
            Yaku::Suuankou,
            if wait == WaitShape::Tanki && input.rules.double_yakuman {
                2
            } else {
                1
            },
        );
    }
    if dragon_triplets == 3 {
        yakuman.add_yakuman(Yaku::Daisangen, 1);
    }
    if wind_triplets == 4 {
        yakuman.add_yakuman(
            Yaku::Daisuushii,
            if input.rules.double_yakuman { 2 } else { 1 },
        );
    } else if wind_triplets == 3 && (27..31).contains(&pair.index()) {
        yakuman.add_yakuman(Yaku::Shousuushii, 1);
    }
    if kans == 4 {
        yakuman.add_yakuman(Yaku::Suukantsu, 1);
    }
    if yakuman.len > 0 {
        return;
    }

    // Pinfu: closed, four sequences, a pair without value, two-sided wait.
    let value_pair = pair.index() >= 31 || pair == seat || pair == round;
    if closed && seq_count == 4 && !value_pair && wait == WaitShape::Ryanmen {
        list.add(Yaku::Pinfu, 1);
    }
    // Identical sequences (closed hands only).
    if closed {
        let mut same = 0;
        let mut i = 0;
        while i + 1 < sequences.len() {
            if sequences[i] == sequences[i + 1] {
                same += 1;
                i += 2;
            } else {
                i += 1;
            }
        }
        match same {
            2 => list.add(Yaku::Ryanpeikou, 3),
            1 => list.add(Yaku::Iipeikou, 1),
            _ => {}
        }
    }
    // Value triplets.
    for &t in triplets {
        let tile = Tile::from_index(usize::from(t));
        match t {
            31 => list.add(Yaku::Haku, 1),
            32 => list.add(Yaku::Hatsu, 1),
            33 => list.add(Yaku::Chun, 1),
            _ => {}
        }
        if tile == seat {
            list.add(Yaku::SeatWind, 1);
        }
        if tile == round {
            list.add(Yaku::RoundWind, 1);
        }
    }
    if dragon_triplets == 2 && pair.index() >= 31 {
        list.add(Yaku::Shousangen, 2);
    }
    // Three colours, straight.
    let has_seq = |id: u8| sequences.contains(&id);
    if (0..7).any(|n| has_seq(n) && has_seq(n + 9) && has_seq(n + 18)) {
        list.add(Yaku::SanshokuDoujun, 2 - open_less);
    }
    if (0..3).any(|k| has_seq(9 * k) && has_seq(9 * k + 3) && has_seq(9 * k + 6)) {
        list.add(Yaku::Ittsu, 2 - open_less);
    }
    let has_trip = |id: u8| triplets.contains(&id);
    if (0..9).any(|n| has_trip(n) && has_trip(n + 9) && has_trip(n + 18)) {
        list.add(Yaku::SanshokuDoukou, 2);
    }
    if seq_count == 0 {
        list.add(Yaku::Toitoi, 2);
    }
    if concealed_triplets == 3 {
        list.add(Yaku::Sanankou, 2);
    }
    if kans == 3 {
        list.add(Yaku::Sankantsu, 2);
    }
    // Outside hands: every group and the pair hold a terminal or honour,
    // with at least one sequence (without, it is honroutou).
    if seq_count > 0 && groups.iter().all(has_terminal_or_honour) {
        let honours = groups.iter().any(|g| g.tile.is_honour());
        if honours {
            list.add(Yaku::Chanta, 2 - open_less);
        } else {
            list.add(Yaku::Junchan, 3 - open_less);
        }
    }
}

/// Fu of a standard or thirteen-orphans reading (seven pairs is a flat 25).
fn fu_of(s: &WinSituation, r: &Reading, pinfu: bool) -> (u8, Vec<FuItem>) {
    let input = &s.input;
    let closed = !s.is_open();
    let mut items = Vec::with_capacity(8);
    let add = |items: &mut Vec<FuItem>, reason: FuReason, fu: u8, tile: Option<Tile>| {
        items.push(FuItem { reason, fu, tile });
    };
    if r.form == Form::SevenPairs {
        add(&mut items, FuReason::SevenPairs, 25, None);
        return (25, items);
    }
    add(&mut items, FuReason::Base, 20, None);
    if closed && !input.tsumo {
        add(&mut items, FuReason::ClosedRon, 10, None);
    }
    if r.form == Form::Standard {
        let groups = r.groups();
        let pair = groups[0].tile;
        for (yes, _) in [
            (pair.index() >= 31, "dragon"),
            (pair == input.seat_wind.tile(), "seat"),
            (pair == input.round_wind.tile(), "round"),
        ] {
            if yes {
                add(&mut items, FuReason::ValuePair, 2, Some(pair));
            }
        }
        for g in &groups[1..] {
            let base = match g.kind {
                GroupKind::Triplet => 2,
                GroupKind::Kan => 8,
                _ => continue,
            };
            let fu = base
                * if g.tile.is_terminal_or_honour() { 2 } else { 1 }
                * if g.open { 1 } else { 2 };
            add(&mut items, FuReason::Group, fu, Some(g.tile));
        }
        if matches!(
            r.wait,
            WaitShape::Kanchan | WaitShape::Penchan | WaitShape::Tanki
        ) {
            add(&mut items, FuReason::Wait, 2, None);
        }
        if input.tsumo && !pinfu {
            add(&mut items, FuReason::Tsumo, 2, None);
        }
    } else if input.tsumo {
        add(&mut items, FuReason::Tsumo, 2, None);
    }
    let raw: u32 = items.iter().map(|i| u32::from(i.fu)).sum();
    if raw == 20 && !closed && input.rules.open_pinfu_fu == 30 {
        add(&mut items, FuReason::OpenPinfu, 10, None);
        return (30, items);
    }
    let fu = raw.div_ceil(10) * 10;
    (fu.min(u32::from(u8::MAX)) as u8, items)
}
