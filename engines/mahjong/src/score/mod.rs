//! Riichi scoring: yaku, han, fu and points of a validated [`WinSituation`].
//!
//! Every decomposition the win check finds is tried with every way the
//! winning tile can sit in it (which group it completed, so which wait);
//! the reading paying the most wins (ties: more han, then more fu). The
//! rules are written down on [`Rules`].

mod input;
mod points;
mod yaku;

pub use input::{
    parse_tiles, Meld, MeldKind, Riichi, Rules, ScoreError, WinInput, WinSituation, WinTiming, Wind,
};
pub use points::{Limit, Points};

/// Limit and payments of `han` and `fu` (`yakuman` > 0: that many yakuman,
/// han and fu then unused), before honba and sticks.
pub fn hand_points(
    han: u8,
    fu: u8,
    yakuman: u8,
    dealer: bool,
    tsumo: bool,
    rules: &Rules,
) -> (Limit, Points) {
    let (limit, base) = points::base_points(han, fu, yakuman, rules);
    (limit, points::payments(base, dealer, tsumo, 0, 0))
}
pub use yaku::Yaku;

use crate::tile::Tile;
use crate::win::{decompositions, Decomposition, Form};

impl GroupKind {
    /// Lower-case name: `pair`, `sequence`, `triplet`, `kan`.
    pub const fn name(self) -> &'static str {
        match self {
            GroupKind::Pair => "pair",
            GroupKind::Sequence => "sequence",
            GroupKind::Triplet => "triplet",
            GroupKind::Kan => "kan",
        }
    }
}

impl Group {
    /// MPSZ text of the group, e.g. `123m`, `55z`, `7777p`.
    pub fn text(&self) -> String {
        let n = self.tile.number();
        let digits: String = match self.kind {
            GroupKind::Sequence => format!("{}{}{}", n, n + 1, n + 2),
            GroupKind::Pair => n.to_string().repeat(2),
            GroupKind::Triplet => n.to_string().repeat(3),
            GroupKind::Kan => n.to_string().repeat(4),
        };
        format!("{digits}{}", self.tile.suit().char())
    }
}

impl WaitShape {
    /// Lower-case name: `ryanmen`, `kanchan`, `penchan`, `shanpon`, `tanki`, `thirteen`.
    pub const fn name(self) -> &'static str {
        match self {
            WaitShape::Ryanmen => "ryanmen",
            WaitShape::Kanchan => "kanchan",
            WaitShape::Penchan => "penchan",
            WaitShape::Shanpon => "shanpon",
            WaitShape::Tanki => "tanki",
            WaitShape::Thirteen => "thirteen",
        }
    }
}

impl FuReason {
    /// Lower-case name, e.g. `base`, `closed ron`, `value pair`.
    pub const fn name(self) -> &'static str {
        match self {
            FuReason::Base => "base",
            FuReason::ClosedRon => "closed ron",
            FuReason::Tsumo => "tsumo",
            FuReason::Wait => "wait",
            FuReason::ValuePair => "value pair",
            FuReason::Group => "group",
            FuReason::OpenPinfu => "open pinfu",
            FuReason::SevenPairs => "seven pairs",
        }
    }
}

/// One group of the chosen reading.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    pub kind: GroupKind,
    /// The lowest tile (sequence start, or the repeated tile).
    pub tile: Tile,
    /// Called, or (for a triplet) completed by ron: counts as open for fu
    /// and for concealed-triplet yaku.
    pub open: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroupKind {
    Pair,
    Sequence,
    Triplet,
    Kan,
}

/// How the winning tile completed the hand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaitShape {
    /// Two-sided sequence wait.
    Ryanmen,
    /// Middle of a sequence.
    Kanchan,
    /// 12 waiting on 3, or 89 waiting on 7.
    Penchan,
    /// One of two pairs becoming a triplet.
    Shanpon,
    /// Single tile onto a pair (also seven pairs and single-wait kokushi).
    Tanki,
    /// Thirteen orphans waiting on all thirteen.
    Thirteen,
}

/// Where a fu item comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FuReason {
    /// 20 fu every hand gets.
    Base,
    /// Closed hand won by ron.
    ClosedRon,
    /// Tsumo (not with pinfu).
    Tsumo,
    /// Kanchan, penchan or tanki wait.
    Wait,
    /// Pair of a dragon, the seat wind or the round wind (each 2).
    ValuePair,
    /// A triplet or kan (2 open simples, doubled for terminals/honours,
    /// for concealed, and 4× for kans).
    Group,
    /// An open hand that would score 20 fu, raised to the rule's value.
    OpenPinfu,
    /// Seven pairs: 25 fu flat.
    SevenPairs,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuItem {
    pub reason: FuReason,
    pub fu: u8,
    /// The tile of the group or pair, for `Group` and `ValuePair`.
    pub tile: Option<Tile>,
}

/// A yaku with its han (the open value for an open hand). For yakuman
/// `han` is 13 per yakuman, and `yakuman` is 1 or 2 (double).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct YakuHan {
    pub yaku: Yaku,
    pub han: u8,
    pub yakuman: u8,
}

/// Dora han, counted apart from the yaku.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dora {
    pub dora: u8,
    pub ura: u8,
    pub red: u8,
}

impl Dora {
    pub fn total(&self) -> u8 {
        self.dora + self.ura + self.red
    }
}

/// What the scorer concluded.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The tiles do not form a complete hand.
    NotComplete,
    /// A complete shape with no yaku: not a legal win.
    NoYaku,
    /// A legal win, scored.
    Scored,
}

/// The value of a win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    pub verdict: Verdict,
    /// Yaku of the chosen reading (empty unless `Scored`).
    pub yaku: Vec<YakuHan>,
    /// Dora (zero for yakuman and for hands without yaku).
    pub dora: Dora,
    /// Yaku han plus dora (13 per yakuman).
    pub han: u8,
    pub fu: u8,
    pub fu_items: Vec<FuItem>,
    /// The chosen reading: form, groups (called melds included, pair
    /// first), and the wait.
    pub form: Form,
    pub groups: Vec<Group>,
    pub wait: WaitShape,
    pub points: Points,
    pub limit: Limit,
}

impl Score {
    fn empty(verdict: Verdict) -> Score {
        Score {
            verdict,
            yaku: Vec::new(),
            dora: Dora::default(),
            han: 0,
            fu: 0,
            fu_items: Vec::new(),
            form: Form::Standard,
            groups: Vec::new(),
            wait: WaitShape::Tanki,
            points: Points::default(),
            limit: Limit::None,
        }
    }

    /// Number of yakuman (0 for a counted hand).
    pub fn yakuman(&self) -> u8 {
        self.yaku.iter().map(|y| y.yakuman).sum()
    }
}

/// One reading of the hand with a placement of the winning tile.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    pub form: Form,
    /// Pair first, then the four melds (standard form only).
    pub groups: [Group; 5],
    pub group_count: usize,
    pub wait: WaitShape,
}

impl Reading {
    pub fn groups(&self) -> &[Group] {
        &self.groups[..self.group_count]
    }
}

/// Scores a validated win (see the module docs).
///
/// ```
/// use deckhand_mahjong::{score, Riichi, Verdict, WinInput, WinSituation, Yaku};
///
/// // Riichi, tsumo, pinfu: 3 han 20 fu, 1300 from the dealer and 700 from each other player.
/// let mut input = WinInput::from_text("234789m12345666p", "6p")?;
/// input.tsumo = true;
/// input.riichi = Riichi::Riichi;
/// let s = score(&WinSituation::try_from(input)?);
/// assert_eq!(s.verdict, Verdict::Scored);
/// assert_eq!((s.han, s.fu), (3, 20));
/// assert!(s.yaku.iter().any(|y| y.yaku == Yaku::Pinfu));
/// assert_eq!((s.points.tsumo_dealer, s.points.tsumo_others), (1300, 700));
/// # Ok::<(), deckhand_mahjong::ScoreError>(())
/// ```
pub fn score(situation: &WinSituation) -> Score {
    let decomps = decompositions(situation.hand());
    if decomps.is_empty() {
        return Score::empty(Verdict::NotComplete);
    }
    let mut best: Option<(Reading, yaku::Evaluation)> = None;
    let mut no_yaku: Option<Reading> = None;
    let mut readings = Vec::with_capacity(4);
    for d in &decomps {
        readings.clear();
        readings_of(situation, d, &mut readings);
        for reading in readings.drain(..) {
            let Some(eval) = yaku::evaluate(situation, &reading) else {
                no_yaku.get_or_insert(reading);
                continue;
            };
            let better = best.as_ref().is_none_or(|(_, b)| {
                (eval.points.total, eval.han, eval.fu) > (b.points.total, b.han, b.fu)
            });
            if better {
                best = Some((reading, eval));
            }
        }
    }
    match best {
        Some((reading, eval)) => Score {
            verdict: Verdict::Scored,
            yaku: eval.yaku,
            dora: eval.dora,
            han: eval.han,
            fu: eval.fu,
            fu_items: eval.fu_items,
            form: reading.form,
            groups: reading.groups().to_vec(),
            wait: reading.wait,
            points: eval.points,
            limit: eval.limit,
        },
        None => {
            let mut score = Score::empty(Verdict::NoYaku);
            if let Some(reading) = no_yaku {
                score.form = reading.form;
                score.groups = reading.groups().to_vec();
                score.wait = reading.wait;
            }
            score
        }
    }
}

/// Validates and scores in one step.
pub fn score_input(input: WinInput) -> Result<Score, ScoreError> {
    Ok(score(&WinSituation::try_from(input)?))
}

const NO_GROUP: Group = Group {
    kind: GroupKind::Pair,
    tile: Tile::EAST,
    open: false,
};

/// Every placement of the winning tile in decomposition `d`, with the called
/// melds added.
fn readings_of(situation: &WinSituation, d: &Decomposition, out: &mut Vec<Reading>) {
    let win = situation.input.win_tile;
    let tsumo = situation.input.tsumo;
    match d.form {
        Form::SevenPairs => out.push(Reading {
            form: Form::SevenPairs,
            groups: [NO_GROUP; 5],
            group_count: 0,
            wait: WaitShape::Tanki,
        }),
        Form::ThirteenOrphans => out.push(Reading {
            form: Form::ThirteenOrphans,
            groups: [NO_GROUP; 5],
            group_count: 0,
            wait: if d.pair == win {
                WaitShape::Thirteen
            } else {
                WaitShape::Tanki
            },
        }),
        Form::Standard => {
            let mut groups = [NO_GROUP; 5];
            groups[0] = Group {
                kind: GroupKind::Pair,
                tile: d.pair,
                open: false,
            };
            let mut n = 1;
            for &t in d.triplets.iter() {
                groups[n] = Group {
                    kind: GroupKind::Triplet,
                    tile: t,
                    open: false,
                };
                n += 1;
            }
            for &t in d.sequences.iter() {
                groups[n] = Group {
                    kind: GroupKind::Sequence,
                    tile: t,
                    open: false,
                };
                n += 1;
            }
            let concealed = n;
            for m in &situation.input.melds {
                groups[n] = Group {
                    kind: match m.kind() {
                        MeldKind::Chi => GroupKind::Sequence,
                        MeldKind::Pon => GroupKind::Triplet,
                        _ => GroupKind::Kan,
                    },
                    tile: m.tile(),
                    open: m.kind().is_open(),
                };
                n += 1;
            }
            let mut push = |index: usize, wait: WaitShape| {
                let mut groups = groups;
                // A triplet completed by a discard counts as open.
                if wait == WaitShape::Shanpon && !tsumo {
                    groups[index].open = true;
                }
                let reading = Reading {
                    form: Form::Standard,
                    groups,
                    group_count: n,
                    wait,
                };
                // Identical groups give identical readings; keep one.
                if !out
                    .iter()
                    .any(|r| r.wait == wait && r.groups == reading.groups)
                {
                    out.push(reading);
                }
            };
            for (i, g) in groups[..concealed].iter().enumerate() {
                match g.kind {
                    GroupKind::Pair if g.tile == win => push(i, WaitShape::Tanki),
                    GroupKind::Triplet if g.tile == win => push(i, WaitShape::Shanpon),
                    GroupKind::Sequence => {
                        let offset = win.index().wrapping_sub(g.tile.index());
                        let number = g.tile.number();
                        match offset {
                            1 => push(i, WaitShape::Kanchan),
                            0 if number == 7 => push(i, WaitShape::Penchan),
                            2 if number == 1 => push(i, WaitShape::Penchan),
                            0 | 2 => push(i, WaitShape::Ryanmen),
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
