//! Scoring input: called melds, winds, the raw [`WinInput`] and its validated
//! form [`WinSituation`] (`TryFrom`), and [`ScoreError`].

use std::fmt;
use std::str::FromStr;

use crate::counts::TileCounts;
use crate::error::HandError;
use crate::tile::{tile_from_digit, Suit, Tile, TILE_KINDS};

/// How a meld was formed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeldKind {
    /// A called sequence (`chi:123s`).
    Chi,
    /// A called triplet (`pon:555m`).
    Pon,
    /// An open kan called on a discard (`kan:7777p`).
    OpenKan,
    /// A concealed kan (`ankan:1111z`); the hand stays closed.
    ClosedKan,
    /// A kan made by adding a drawn tile to a pon (`kakan:2222m`); open.
    AddedKan,
}

impl MeldKind {
    /// The text prefix used in `kind:tiles` meld notation.
    pub const fn prefix(self) -> &'static str {
        match self {
            MeldKind::Chi => "chi",
            MeldKind::Pon => "pon",
            MeldKind::OpenKan => "kan",
            MeldKind::ClosedKan => "ankan",
            MeldKind::AddedKan => "kakan",
        }
    }

    /// Whether the meld opens the hand (everything but a closed kan).
    pub const fn is_open(self) -> bool {
        !matches!(self, MeldKind::ClosedKan)
    }

    /// Whether the meld is a kan (four tiles).
    pub const fn is_kan(self) -> bool {
        matches!(
            self,
            MeldKind::OpenKan | MeldKind::ClosedKan | MeldKind::AddedKan
        )
    }

    /// Number of tiles in the meld.
    pub const fn tile_count(self) -> usize {
        if self.is_kan() {
            4
        } else {
            3
        }
    }
}

/// A validated called meld: a real sequence, triplet or quad.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Meld {
    kind: MeldKind,
    /// The lowest tile (the sequence start, or the repeated tile).
    tile: Tile,
    /// Red fives among the meld's tiles.
    red_fives: u8,
}

impl Meld {
    /// Checks that `tiles` form a meld of `kind`; `red_fives` says how many of
    /// the fives are red. The error text names the meld.
    pub fn new(kind: MeldKind, tiles: &[Tile], red_fives: u8) -> Result<Meld, ScoreError> {
        let text = || {
            let tiles: String = tiles.iter().map(|t| t.to_string()).collect();
            format!("{}:{tiles}", kind.prefix())
        };
        let bad = |reason: &str| ScoreError::BadMeld {
            meld: text(),
            reason: reason.to_owned(),
        };
        if tiles.len() != kind.tile_count() {
            return Err(bad(&format!("needs {} tiles", kind.tile_count())));
        }
        let mut sorted = tiles.to_vec();
        sorted.sort();
        let first = sorted[0];
        let ok = match kind {
            MeldKind::Chi => {
                !first.is_honour()
                    && first.number() <= 7
                    && sorted[1].id() == first.id() + 1
                    && sorted[2].id() == first.id() + 2
            }
            _ => sorted.iter().all(|&t| t == first),
        };
        if !ok {
            return Err(bad(if kind == MeldKind::Chi {
                "a chi is three consecutive tiles of one suit"
            } else {
                "a pon or kan is copies of one tile"
            }));
        }
        let fives = sorted
            .iter()
            .filter(|t| !t.is_honour() && t.number() == 5)
            .count();
        if usize::from(red_fives) > fives.min(1) {
            return Err(bad("more red fives than the meld can hold"));
        }
        Ok(Meld {
            kind,
            tile: first,
            red_fives,
        })
    }

    pub const fn kind(&self) -> MeldKind {
        self.kind
    }

    /// The lowest tile of the meld.
    pub const fn tile(&self) -> Tile {
        self.tile
    }

    pub const fn red_fives(&self) -> u8 {
        self.red_fives
    }

    /// The meld's tiles, lowest first.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> {
        let (kind, first) = (self.kind, self.tile.index());
        (0..kind.tile_count()).map(move |i| {
            Tile::from_index(if kind == MeldKind::Chi {
                first + i
            } else {
                first
            })
        })
    }
}

/// `kind:tiles` as on the command line, e.g. `pon:555m`, `chi:406s`,
/// `kan:7777p`, `ankan:1111z`, `kakan:2222m`.
impl FromStr for Meld {
    type Err = ScoreError;

    fn from_str(text: &str) -> Result<Meld, ScoreError> {
        let bad = |reason: &str| ScoreError::BadMeld {
            meld: text.to_owned(),
            reason: reason.to_owned(),
        };
        let (prefix, tiles) = text
            .split_once(':')
            .ok_or_else(|| bad("write it as kind:tiles, e.g. pon:555m"))?;
        let kind = [
            MeldKind::Chi,
            MeldKind::Pon,
            MeldKind::OpenKan,
            MeldKind::ClosedKan,
            MeldKind::AddedKan,
        ]
        .into_iter()
        .find(|k| k.prefix() == prefix)
        .ok_or_else(|| bad("kind is one of chi, pon, kan, ankan, kakan"))?;
        let (tiles, red_fives) = parse_tiles(tiles).map_err(|e| bad(&e.to_string()))?;
        Meld::new(kind, &tiles, red_fives).map_err(|e| match e {
            ScoreError::BadMeld { reason, .. } => bad(&reason),
            other => other,
        })
    }
}

impl fmt::Display for Meld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.kind.prefix())?;
        let mut reds = self.red_fives;
        for t in self.tiles() {
            if reds > 0 && !t.is_honour() && t.number() == 5 {
                reds -= 1;
                write!(f, "0")?;
            } else {
                write!(f, "{}", t.number())?;
            }
        }
        write!(f, "{}", self.tile.suit().char())
    }
}

/// Parses MPSZ tiles in text order, counting `0` (red five) digits.
pub fn parse_tiles(text: &str) -> Result<(Vec<Tile>, u8), HandError> {
    let mut tiles = Vec::new();
    let mut reds = 0u8;
    let mut pending: Vec<(char, usize)> = Vec::new();
    for (position, c) in text.chars().enumerate() {
        if c.is_ascii_digit() {
            if pending.len() >= 16 {
                return Err(HandError::TileTotal { total: 17 });
            }
            pending.push((c, position));
        } else if let Some(suit) = Suit::from_char(c) {
            if pending.is_empty() {
                return Err(HandError::EmptySuit { suit: c, position });
            }
            for (digit, digit_position) in pending.drain(..) {
                tiles.push(tile_from_digit(digit, suit, digit_position)?);
                reds += u8::from(digit == '0');
            }
            if tiles.len() > 18 {
                return Err(HandError::TileTotal { total: tiles.len() });
            }
        } else if !c.is_ascii_whitespace() {
            return Err(HandError::UnknownTile {
                text: c.to_string(),
                position,
            });
        }
    }
    if let Some(&(_, position)) = pending.first() {
        return Err(HandError::MissingSuit {
            digits: pending.iter().map(|&(d, _)| d).collect(),
            position,
        });
    }
    Ok((tiles, reds))
}

/// A seat or round wind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Wind {
    #[default]
    East,
    South,
    West,
    North,
}

impl Wind {
    /// The wind's tile (`1z`..`4z`).
    pub const fn tile(self) -> Tile {
        Tile::from_index(27 + self as usize)
    }
}

impl FromStr for Wind {
    type Err = ScoreError;

    /// `E`, `S`, `W`, `N` (either case) or the tile `1z`..`4z`.
    fn from_str(text: &str) -> Result<Wind, ScoreError> {
        match text.to_ascii_uppercase().as_str() {
            "E" | "1Z" => Ok(Wind::East),
            "S" | "2Z" => Ok(Wind::South),
            "W" | "3Z" => Ok(Wind::West),
            "N" | "4Z" => Ok(Wind::North),
            _ => Err(ScoreError::BadWind {
                text: text.to_owned(),
            }),
        }
    }
}

/// Riichi declaration.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Riichi {
    #[default]
    None,
    Riichi,
    /// Riichi declared on the first discard (2 han).
    Double,
}

/// Win conditions that depend on the moment of the win; each is a yaku.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct WinTiming {
    /// Tsumo on the last tile of the wall.
    pub haitei: bool,
    /// Ron on the last discard.
    pub houtei: bool,
    /// Tsumo on the replacement tile after a kan.
    pub rinshan: bool,
    /// Ron on a tile added to a pon (added kan).
    pub chankan: bool,
    /// Dealer's tsumo on the initial deal.
    pub tenhou: bool,
    /// Non-dealer's tsumo on the first draw, before any call.
    pub chiihou: bool,
}

/// Rule options. [`Default`] gives the common rules:
///
/// | option | default |
/// |---|---|
/// | `open_tanyao` (kuitan) | on |
/// | `kiriage_mangan` (4 han 30 fu, 3 han 60 fu as mangan) | off |
/// | `double_yakuman` (kokushi 13-wait, suuankou tanki, junsei chuuren, daisuushii) | on |
/// | `kazoe_yakuman` (13+ counted han as yakuman; off: sanbaiman) | on |
/// | `open_pinfu_fu` (fu of an open hand with no fu, ron) | 30 |
/// | `red_fives` (each red five is one dora) | on |
///
/// Fixed rules: a pair of a wind that is both seat and round wind is 4 fu;
/// pinfu tsumo is 20 fu; seven pairs is 25 fu; yakuman add up (two yakuman
/// are a double); dora count only when the hand has a yaku and never on
/// yakuman; ura-dora count only with riichi.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub open_tanyao: bool,
    pub kiriage_mangan: bool,
    pub double_yakuman: bool,
    pub kazoe_yakuman: bool,
    /// 20 or 30.
    pub open_pinfu_fu: u8,
    pub red_fives: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            open_tanyao: true,
            kiriage_mangan: false,
            double_yakuman: true,
            kazoe_yakuman: true,
            open_pinfu_fu: 30,
            red_fives: true,
        }
    }
}

/// Everything about a win, unvalidated. Build a [`WinSituation`] from it
/// with `WinSituation::try_from`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WinInput {
    /// The concealed tiles, including the winning tile.
    pub concealed: Vec<Tile>,
    /// Red fives among `concealed` (at most one per suit in the set).
    pub red_fives: u8,
    pub melds: Vec<Meld>,
    pub win_tile: Tile,
    pub tsumo: bool,
    pub riichi: Riichi,
    pub ippatsu: bool,
    pub seat_wind: Wind,
    pub round_wind: Wind,
    pub dora_indicators: Vec<Tile>,
    pub ura_indicators: Vec<Tile>,
    pub timing: WinTiming,
    pub honba: u32,
    pub riichi_sticks: u32,
    pub rules: Rules,
}

impl WinInput {
    /// The common case from text: concealed tiles (with `0m/0p/0s` red fives)
    /// and the winning tile; everything else default (ron, East round, South
    /// seat, no melds).
    pub fn from_text(concealed: &str, win_tile: &str) -> Result<WinInput, ScoreError> {
        let (tiles, red_fives) = parse_tiles(concealed).map_err(ScoreError::Hand)?;
        let win_tile = win_tile.parse().map_err(ScoreError::Hand)?;
        Ok(WinInput {
            concealed: tiles,
            red_fives,
            win_tile,
            seat_wind: Wind::South,
            ..WinInput::default()
        })
    }
}

/// A validated win situation (see [`WinInput`] for the fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinSituation {
    pub(crate) hand: TileCounts,
    /// Every tile of the hand, melds included (a kan counts four).
    pub(crate) all_tiles: [u8; TILE_KINDS],
    pub(crate) input: WinInput,
}

impl WinSituation {
    /// The concealed part including the winning tile.
    pub fn hand(&self) -> &TileCounts {
        &self.hand
    }

    pub fn input(&self) -> &WinInput {
        &self.input
    }

    /// Whether the seat wind is East.
    pub fn is_dealer(&self) -> bool {
        self.input.seat_wind == Wind::East
    }

    /// Whether any meld other than a closed kan was called.
    pub fn is_open(&self) -> bool {
        self.input.melds.iter().any(|m| m.kind.is_open())
    }
}

/// Most indicators that can be turned (four kans plus the first).
const MAX_INDICATORS: usize = 5;

impl TryFrom<WinInput> for WinSituation {
    type Error = ScoreError;

    fn try_from(input: WinInput) -> Result<WinSituation, ScoreError> {
        if input.melds.len() > 4 {
            return Err(ScoreError::TooManyMelds {
                melds: input.melds.len(),
            });
        }
        let expected = 14 - 3 * input.melds.len();
        if input.concealed.len() != expected {
            return Err(ScoreError::HandSize {
                concealed: input.concealed.len(),
                melds: input.melds.len(),
                expected,
            });
        }
        for (name, list) in [
            ("dora", &input.dora_indicators),
            ("ura-dora", &input.ura_indicators),
        ] {
            if list.len() > MAX_INDICATORS {
                return Err(ScoreError::TooManyIndicators {
                    which: name,
                    count: list.len(),
                });
            }
        }
        // Copies across hand, melds and indicators.
        let mut seen = [0u8; TILE_KINDS];
        let mut all_tiles = [0u8; TILE_KINDS];
        let meld_tiles = input.melds.iter().flat_map(|m| m.tiles());
        for tile in input.concealed.iter().copied().chain(meld_tiles) {
            all_tiles[tile.index()] += 1;
        }
        for (place, tile) in input
            .concealed
            .iter()
            .map(|&t| ("hand", t))
            .chain(
                input
                    .melds
                    .iter()
                    .flat_map(|m| m.tiles().map(|t| ("melds", t))),
            )
            .chain(
                input
                    .dora_indicators
                    .iter()
                    .map(|&t| ("dora_indicators", t)),
            )
            .chain(input.ura_indicators.iter().map(|&t| ("ura_indicators", t)))
        {
            let count = &mut seen[tile.index()];
            *count += 1;
            if *count > 4 {
                return Err(ScoreError::FifthCopy { tile, place });
            }
        }
        let hand = TileCounts::try_from(input.concealed.as_slice()).map_err(ScoreError::Hand)?;
        if hand.count(input.win_tile) == 0 {
            return Err(ScoreError::WinTileNotInHand {
                tile: input.win_tile,
            });
        }
        // At most one red five per suit exists, and only on a held five.
        let meld_reds: u8 = input.melds.iter().map(|m| m.red_fives).sum();
        let fives_held: u8 = [4usize, 13, 22]
            .iter()
            .map(|&i| u8::from(all_tiles[i] > 0))
            .sum();
        let hand_fives: u8 = [4usize, 13, 22]
            .iter()
            .map(|&i| hand.as_array()[i].min(1))
            .sum();
        if input.red_fives > hand_fives || input.red_fives + meld_reds > fives_held {
            return Err(ScoreError::RedFives {
                count: input.red_fives + meld_reds,
            });
        }
        let open = input.melds.iter().any(|m| m.kind.is_open());
        let kans = input.melds.iter().any(|m| m.kind.is_kan());
        let t = input.timing;
        let dealer = input.seat_wind == Wind::East;
        let conflicts: [(bool, &'static str, &'static str); 12] = [
            (
                input.riichi != Riichi::None && open,
                "riichi",
                "a riichi hand is closed",
            ),
            (
                input.ippatsu && input.riichi == Riichi::None,
                "ippatsu",
                "ippatsu needs riichi",
            ),
            (
                !input.ura_indicators.is_empty() && input.riichi == Riichi::None,
                "ura_indicators",
                "ura-dora are only turned for riichi",
            ),
            (t.haitei && !input.tsumo, "haitei", "haitei is a tsumo win"),
            (t.houtei && input.tsumo, "houtei", "houtei is a ron win"),
            (
                t.rinshan && !input.tsumo,
                "rinshan",
                "rinshan is a tsumo win",
            ),
            (t.rinshan && !kans, "rinshan", "rinshan needs a kan"),
            (t.rinshan && t.haitei, "rinshan", "not with haitei"),
            (t.chankan && input.tsumo, "chankan", "chankan is a ron win"),
            (
                t.tenhou && !(dealer && input.tsumo && input.melds.is_empty()),
                "tenhou",
                "tenhou is the dealer's tsumo with no call",
            ),
            (
                t.chiihou && (dealer || !input.tsumo || !input.melds.is_empty()),
                "chiihou",
                "chiihou is a non-dealer's tsumo with no call",
            ),
            (
                input.rules.open_pinfu_fu != 20 && input.rules.open_pinfu_fu != 30,
                "rules.open_pinfu_fu",
                "is 20 or 30",
            ),
        ];
        if let Some(&(_, item, reason)) = conflicts.iter().find(|c| c.0) {
            return Err(ScoreError::Conflict { item, reason });
        }
        Ok(WinSituation {
            hand,
            all_tiles,
            input,
        })
    }
}

/// Why a win situation was rejected; every variant names the item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    #[error("hand: {0}")]
    Hand(HandError),
    #[error("meld {meld:?} is not a meld: {reason}")]
    BadMeld { meld: String, reason: String },
    #[error("{melds} melds: a hand has at most four")]
    TooManyMelds { melds: usize },
    #[error("{concealed} concealed tiles with {melds} melds: expected {expected} (including the winning tile)")]
    HandSize {
        concealed: usize,
        melds: usize,
        expected: usize,
    },
    /// `place` is the field where the fifth copy was met.
    #[error("fifth copy of {tile} across hand, melds and indicators (met in {place})")]
    FifthCopy { tile: Tile, place: &'static str },
    #[error("win tile {tile} is not in the concealed hand")]
    WinTileNotInHand { tile: Tile },
    #[error("{count} {which} indicators: at most 5")]
    TooManyIndicators { which: &'static str, count: usize },
    #[error("{count} red fives: at most one per suit, on fives the hand holds")]
    RedFives { count: u8 },
    #[error("wind {text:?}: expected E, S, W or N")]
    BadWind { text: String },
    #[error("{item}: {reason}")]
    Conflict {
        item: &'static str,
        reason: &'static str,
    },
}

impl ScoreError {
    /// The input field at fault, as named in [`WinInput`] (`hand`, `melds`,
    /// `win_tile`, `dora_indicators`, `riichi`, ...), for error paths that
    /// name the item.
    pub fn item(&self) -> &'static str {
        match self {
            ScoreError::Hand(_) | ScoreError::HandSize { .. } | ScoreError::RedFives { .. } => {
                "hand"
            }
            ScoreError::FifthCopy { place, .. } => place,
            ScoreError::BadMeld { .. } | ScoreError::TooManyMelds { .. } => "melds",
            ScoreError::WinTileNotInHand { .. } => "win_tile",
            ScoreError::TooManyIndicators { which, .. } => {
                if *which == "dora" {
                    "dora_indicators"
                } else {
                    "ura_indicators"
                }
            }
            ScoreError::BadWind { .. } => "wind",
            ScoreError::Conflict { item, .. } => item,
        }
    }
}
