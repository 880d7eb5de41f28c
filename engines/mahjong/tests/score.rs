//! Scoring: known answers, validation errors naming the item, and property
//! tests (points monotone in han, fu granularity, every listed yaku holds
//! for the chosen reading, checked independently from the groups).

use deckhand_mahjong::{
    hand_points, score, score_input, Form, GroupKind, Limit, Meld, Riichi, Rules, Score,
    ScoreError, Tile, Verdict, WaitShape, WinInput, WinSituation, Wind, Yaku,
};
use proptest::prelude::*;

fn situation(hand: &str, win: &str) -> WinInput {
    WinInput::from_text(hand, win).expect("input")
}

fn names(score: &Score) -> Vec<&'static str> {
    score.yaku.iter().map(|y| y.yaku.name()).collect()
}

#[test]
fn pinfu_tsumo_is_20_fu() {
    let mut input = situation("234789m12345666p", "6p");
    input.tsumo = true;
    input.riichi = Riichi::Riichi;
    let s = score_input(input).unwrap();
    assert_eq!(s.verdict, Verdict::Scored);
    assert_eq!(names(&s), ["riichi", "menzen tsumo", "pinfu"]);
    assert_eq!((s.han, s.fu), (3, 20));
    assert_eq!((s.points.tsumo_dealer, s.points.tsumo_others), (1300, 700));
    assert_eq!(s.wait, WaitShape::Ryanmen);
}

#[test]
fn no_yaku_is_an_answer_not_an_error() {
    // Closed ron, kanchan, no yaku (a terminal pair and a 789 run).
    let s = score_input(situation("123m456p789s11z", "2m").and_then_melds(&["pon:777p"])).unwrap();
    assert_eq!(s.verdict, Verdict::NoYaku);
    assert!(s.yaku.is_empty());
    assert_eq!(s.points.total, 0);
    let not_complete = score_input(situation("123m456p789s12355z", "5z")).unwrap();
    assert_eq!(not_complete.verdict, Verdict::NotComplete);
}

#[test]
fn seven_pairs_and_thirteen_orphans() {
    let s = score_input(situation("1133m5577p22s3355z", "1m")).unwrap();
    assert_eq!(s.form, Form::SevenPairs);
    assert_eq!((s.han, s.fu, s.points.ron), (2, 25, 1600));
    let mut input = situation("19m19p19s12345677z", "7z");
    input.seat_wind = Wind::East;
    let s = score_input(input).unwrap();
    assert_eq!(s.limit, Limit::Yakuman(2), "13-sided wait is a double");
    assert_eq!(s.points.ron, 96000);
    let mut single = situation("19m19p19s12345677z", "1m");
    single.rules = Rules::default();
    let s = score_input(single).unwrap();
    assert_eq!((s.limit, s.points.ron), (Limit::Yakuman(1), 32000));
}

#[test]
fn best_reading_wins() {
    // 111222333m: three concealed triplets (sanankou + tsumo, 3 han) or three
    // identical runs (iipeikou + tsumo, 2 han).
    let mut input = situation("111222333m456p55s", "5s");
    input.tsumo = true;
    let s = score_input(input).unwrap();
    assert!(names(&s).contains(&"sanankou"), "{:?}", names(&s));
    // 22334455667788p: ryanpeikou (3 + chinitsu 6 + tanyao 1 + pinfu 1) beats seven pairs.
    let s = score_input(situation("22334455667788p", "8p")).unwrap();
    assert_eq!(s.form, Form::Standard);
    assert!(names(&s).contains(&"ryanpeikou"));
    assert_eq!(s.limit, Limit::Sanbaiman);
}

#[test]
fn honba_and_sticks() {
    let mut input = situation("234789m12345666p", "6p");
    input.tsumo = true;
    input.riichi = Riichi::Riichi;
    input.honba = 2;
    input.riichi_sticks = 1;
    let s = score_input(input).unwrap();
    assert_eq!(s.points.total, 2700);
    assert_eq!(s.points.honba, 600);
    assert_eq!(s.points.received(), 2700 + 600 + 1000);
    // Absurd counters saturate instead of overflowing.
    let mut huge = situation("234789m12345666p", "6p");
    huge.honba = u32::MAX;
    huge.riichi_sticks = u32::MAX;
    assert_eq!(score_input(huge).unwrap().points.received(), u32::MAX);
}

#[test]
fn validation_names_the_item() {
    let fifth = {
        let mut input = situation("111m234p567s55z", "5z");
        input.melds = vec!["pon:111m".parse().unwrap()];
        input
    };
    let err = score_input(fifth).unwrap_err();
    assert!(
        matches!(err, ScoreError::FifthCopy { tile, .. } if tile.to_string() == "1m"),
        "{err}"
    );
    let bad: Result<Meld, _> = "chi:124s".parse();
    assert!(matches!(bad, Err(ScoreError::BadMeld { ref meld, .. }) if meld == "chi:124s"));
    assert!("pon:556m".parse::<Meld>().is_err());
    assert!("kan:777p".parse::<Meld>().is_err());
    assert!("chi:789z".parse::<Meld>().is_err());
    assert!("xyz:123m".parse::<Meld>().is_err());
    let err = score_input(situation("123m456p789s111z55z", "9m")).unwrap_err();
    assert_eq!(
        err,
        ScoreError::WinTileNotInHand {
            tile: "9m".parse().unwrap()
        }
    );
    let mut dora = situation("123m456p789s55556z", "5z");
    dora.dora_indicators = vec!["5z".parse().unwrap()];
    let err = score_input(dora).unwrap_err();
    assert!(err.to_string().contains("fifth copy of 5z"), "{err}");
    let err = score_input(situation("123m456p789s11z", "1z")).unwrap_err();
    assert!(matches!(err, ScoreError::HandSize { .. }), "{err}");
    let mut ippatsu = situation("234789m12345666p", "6p");
    ippatsu.ippatsu = true;
    assert!(score_input(ippatsu)
        .unwrap_err()
        .to_string()
        .starts_with("ippatsu"));
    assert!("Q".parse::<Wind>().is_err());
}

trait WithMelds {
    fn and_then_melds(self, melds: &[&str]) -> WinInput;
}

impl WithMelds for WinInput {
    fn and_then_melds(mut self, melds: &[&str]) -> WinInput {
        self.melds = melds.iter().map(|m| m.parse().unwrap()).collect();
        self
    }
}

#[test]
fn points_table_is_monotone_in_han() {
    let rules = Rules::default();
    for fu in [20u8, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110] {
        for (dealer, tsumo) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut last = 0;
            for han in 1..=20u8 {
                let (_, p) = hand_points(han, fu, 0, dealer, tsumo, &rules);
                assert!(p.total >= last, "han {han} fu {fu}");
                last = p.total;
            }
            let (_, yakuman) = hand_points(13, fu, 1, dealer, tsumo, &rules);
            assert!(yakuman.total >= last);
        }
    }
    let (limit, p) = hand_points(4, 30, 0, false, false, &rules);
    assert_eq!((limit, p.ron), (Limit::None, 7700));
    let kiriage = Rules {
        kiriage_mangan: true,
        ..rules
    };
    assert_eq!(hand_points(4, 30, 0, false, false, &kiriage).1.ron, 8000);
}

/// A random complete situation: pair + four groups, some called.
fn random_input(
    pair: u8,
    groups: &[(bool, u8, u8)],
    win_pick: usize,
    tsumo: bool,
    riichi: bool,
    winds: (u8, u8),
    dora: Vec<u8>,
) -> Option<WinInput> {
    let mut concealed = vec![Tile::new(pair)?; 2];
    let mut melds = Vec::new();
    let mut counts = [0u8; 34];
    counts[usize::from(pair)] += 2;
    for &(sequence, t, call) in groups {
        let tiles: Vec<Tile> = if sequence {
            let t = t % 27;
            let first = t - t % 9 + (t % 9).min(6);
            (first..first + 3).map(Tile::new).collect::<Option<_>>()?
        } else {
            vec![Tile::new(t)?; 3]
        };
        for x in &tiles {
            counts[x.index()] += 1;
        }
        match call % 6 {
            0 | 1 if !riichi => {
                let kind = if sequence { "chi" } else { "pon" };
                let text: String = tiles.iter().map(|t| t.number().to_string()).collect();
                let suit = tiles[0].to_string().chars().nth(1)?;
                melds.push(format!("{kind}:{text}{suit}").parse::<Meld>().ok()?);
            }
            2 if !sequence => {
                counts[usize::from(t)] += 1;
                let text = tiles[0].number().to_string().repeat(4);
                let suit = tiles[0].to_string().chars().nth(1)?;
                melds.push(format!("ankan:{text}{suit}").parse::<Meld>().ok()?);
            }
            _ => concealed.extend(tiles),
        }
    }
    if counts.iter().any(|&c| c > 4) {
        return None;
    }
    let win_tile = concealed[win_pick % concealed.len()];
    let wind = |w: u8| [Wind::East, Wind::South, Wind::West, Wind::North][usize::from(w % 4)];
    Some(WinInput {
        concealed,
        melds,
        win_tile,
        tsumo,
        riichi: if riichi { Riichi::Riichi } else { Riichi::None },
        seat_wind: wind(winds.0),
        round_wind: wind(winds.1),
        dora_indicators: dora.into_iter().filter_map(Tile::new).collect(),
        ..WinInput::default()
    })
}

/// Checks one listed yaku against the chosen groups, independently of the
/// engine's yaku code.
fn yaku_holds(s: &Score, input: &WinInput, yaku: Yaku) -> bool {
    let g = &s.groups;
    let th = |kind: GroupKind, t: Tile| match kind {
        GroupKind::Sequence => t.number() == 1 || t.number() == 7,
        _ => t.is_terminal_or_honour(),
    };
    let seqs: Vec<Tile> = g
        .iter()
        .filter(|x| x.kind == GroupKind::Sequence)
        .map(|x| x.tile)
        .collect();
    let trips: Vec<Tile> = g
        .iter()
        .filter(|x| matches!(x.kind, GroupKind::Triplet | GroupKind::Kan))
        .map(|x| x.tile)
        .collect();
    let closed = input.melds.iter().all(|m| !m.kind().is_open());
    let has_seq = |id: u8| seqs.iter().any(|t| t.id() == id);
    let same_seq_pairs = {
        let mut v: Vec<u8> = seqs.iter().map(|t| t.id()).collect();
        v.sort();
        let mut n = 0;
        let mut i = 0;
        while i + 1 < v.len() {
            if v[i] == v[i + 1] {
                n += 1;
                i += 2;
            } else {
                i += 1;
            }
        }
        n
    };
    match yaku {
        Yaku::Tanyao => s.form != Form::Standard || g.iter().all(|x| !th(x.kind, x.tile)),
        Yaku::Toitoi => s.form == Form::Standard && seqs.is_empty(),
        Yaku::Pinfu => closed && seqs.len() == 4 && s.wait == WaitShape::Ryanmen,
        Yaku::Iipeikou => closed && same_seq_pairs == 1,
        Yaku::Ryanpeikou => closed && same_seq_pairs == 2,
        Yaku::Sanankou => {
            g.iter()
                .filter(|x| matches!(x.kind, GroupKind::Triplet | GroupKind::Kan) && !x.open)
                .count()
                == 3
        }
        Yaku::Sankantsu => g.iter().filter(|x| x.kind == GroupKind::Kan).count() == 3,
        Yaku::Chanta | Yaku::Junchan => !seqs.is_empty() && g.iter().all(|x| th(x.kind, x.tile)),
        Yaku::Ittsu => (0..3).any(|k| has_seq(9 * k) && has_seq(9 * k + 3) && has_seq(9 * k + 6)),
        Yaku::SanshokuDoujun => (0..7).any(|n| has_seq(n) && has_seq(n + 9) && has_seq(n + 18)),
        Yaku::SanshokuDoukou => (0..9).any(|n| {
            [n, n + 9, n + 18]
                .iter()
                .all(|&id| trips.iter().any(|t| t.id() == id))
        }),
        Yaku::Haku | Yaku::Hatsu | Yaku::Chun => {
            let id = match yaku {
                Yaku::Haku => 31,
                Yaku::Hatsu => 32,
                _ => 33,
            };
            trips.iter().any(|t| t.id() == id)
        }
        Yaku::SeatWind => trips.contains(&input.seat_wind.tile()),
        Yaku::RoundWind => trips.contains(&input.round_wind.tile()),
        Yaku::Shousangen => {
            trips.iter().filter(|t| t.id() >= 31).count() == 2
                && g.first().is_some_and(|p| p.tile.id() >= 31)
        }
        Yaku::Chiitoitsu => s.form == Form::SevenPairs,
        Yaku::KokushiMusou => s.form == Form::ThirteenOrphans,
        Yaku::MenzenTsumo => closed && input.tsumo,
        Yaku::Riichi => input.riichi == Riichi::Riichi,
        Yaku::Suuankou => {
            g.iter()
                .filter(|x| matches!(x.kind, GroupKind::Triplet | GroupKind::Kan) && !x.open)
                .count()
                == 4
        }
        Yaku::Daisangen => trips.iter().filter(|t| t.id() >= 31).count() == 3,
        // Tile-set yaku (one suit, all terminals, ...) do not depend on the
        // reading; the oracle covers them.
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn scored_hands_are_consistent(
        pair in 0u8..34,
        groups in proptest::collection::vec((any::<bool>(), 0u8..34, 0u8..6), 4),
        win_pick in 0usize..14,
        tsumo in any::<bool>(),
        riichi in any::<bool>(),
        winds in (0u8..4, 0u8..4),
        dora in proptest::collection::vec(0u8..34, 0..3),
    ) {
        let Some(input) = random_input(pair, &groups, win_pick, tsumo, riichi, winds, dora) else {
            return Ok(());
        };
        let Ok(situation) = WinSituation::try_from(input.clone()) else {
            return Ok(());
        };
        let s = score(&situation);
        prop_assert_ne!(s.verdict, Verdict::NotComplete);
        if s.verdict != Verdict::Scored {
            return Ok(());
        }
        // Fu: multiples of 10, or 25 for seven pairs.
        if s.form == Form::SevenPairs {
            prop_assert_eq!(s.fu, 25);
        } else {
            prop_assert_eq!(s.fu % 10, 0);
        }
        // Every yaku holds for the chosen reading.
        for y in &s.yaku {
            prop_assert!(yaku_holds(&s, &input, y.yaku), "{:?} in {:?}", y.yaku, s);
        }
        // The groups are the hand: concealed tiles plus meld tiles.
        let mut from_groups = [0u8; 34];
        for grp in &s.groups {
            let n = match grp.kind { GroupKind::Pair => 2, GroupKind::Kan => 4, _ => 3 };
            for k in 0..n {
                let id = if grp.kind == GroupKind::Sequence { grp.tile.index() + k } else { grp.tile.index() };
                from_groups[id] += 1;
            }
        }
        let mut held = [0u8; 34];
        for t in input.concealed.iter().copied().chain(input.melds.iter().flat_map(|m| m.tiles())) {
            held[t.index()] += 1;
        }
        if s.form == Form::Standard {
            prop_assert_eq!(from_groups, held);
        }
        // Points monotone in han: one more dora never pays less.
        let mut more = input.clone();
        let held_tile = input.concealed[0];
        // The indicator just below a held suit tile 2..9.
        let indicator = (!held_tile.is_honour() && held_tile.number() >= 2)
            .then(|| Tile::new(held_tile.id() - 1))
            .flatten();
        if let Some(ind) = indicator {
            more.dora_indicators.push(ind);
            if let Ok(more) = score_input(more) {
                prop_assert!(more.han >= s.han);
                prop_assert!(more.points.total >= s.points.total);
            }
        }
    }
}
