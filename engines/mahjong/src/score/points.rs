//! Points from han and fu: the limits and who pays what.

use super::input::Rules;

/// The limit a hand reached, if any.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Limit {
    #[default]
    None,
    Mangan,
    Haneman,
    Baiman,
    Sanbaiman,
    /// 13 or more counted han.
    Kazoe,
    /// `n` yakuman (2 is a double yakuman).
    Yakuman(u8),
}

impl Limit {
    /// Lower-case name: `""`, `mangan`, `haneman`, `baiman`, `sanbaiman`,
    /// `kazoe yakuman`, `yakuman`, `double yakuman`, `triple yakuman`, ...
    pub fn name(self) -> String {
        match self {
            Limit::None => String::new(),
            Limit::Mangan => "mangan".into(),
            Limit::Haneman => "haneman".into(),
            Limit::Baiman => "baiman".into(),
            Limit::Sanbaiman => "sanbaiman".into(),
            Limit::Kazoe => "kazoe yakuman".into(),
            Limit::Yakuman(1) => "yakuman".into(),
            Limit::Yakuman(2) => "double yakuman".into(),
            Limit::Yakuman(3) => "triple yakuman".into(),
            Limit::Yakuman(n) => format!("{n}x yakuman"),
        }
    }
}

/// Payments of a win. `ron`, `tsumo_dealer` and `tsumo_others` are what each
/// payer pays before honba; only the ones for the actual win are set (a
/// dealer's tsumo sets `tsumo_others`, paid by each of the three).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Points {
    /// Basic points (`fu * 2^(han + 2)`, or the limit's).
    pub base: u32,
    pub ron: u32,
    pub tsumo_dealer: u32,
    pub tsumo_others: u32,
    /// What the winner receives without honba and sticks.
    pub total: u32,
    /// Honba: 300 per counter in all (100 from each tsumo payer).
    pub honba: u32,
    /// Riichi sticks: 1000 each.
    pub sticks: u32,
}

impl Points {
    /// Everything the winner receives.
    pub fn received(&self) -> u32 {
        self.total
            .saturating_add(self.honba)
            .saturating_add(self.sticks)
    }
}

fn round_up_100(x: u32) -> u32 {
    x.div_ceil(100) * 100
}

/// Limit and basic points of `han` and `fu` (`yakuman` > 0: that many).
pub fn base_points(han: u8, fu: u8, yakuman: u8, rules: &Rules) -> (Limit, u32) {
    if yakuman > 0 {
        return (Limit::Yakuman(yakuman), 8000 * u32::from(yakuman));
    }
    match han {
        0 => (Limit::None, 0),
        13.. if rules.kazoe_yakuman => (Limit::Kazoe, 8000),
        11.. => (Limit::Sanbaiman, 6000),
        8..=10 => (Limit::Baiman, 4000),
        6..=7 => (Limit::Haneman, 3000),
        5 => (Limit::Mangan, 2000),
        _ => {
            let base = u32::from(fu) << (han + 2);
            let kiriage =
                rules.kiriage_mangan && ((han == 4 && fu == 30) || (han == 3 && fu == 60));
            if base >= 2000 || kiriage {
                (Limit::Mangan, 2000)
            } else {
                (Limit::None, base)
            }
        }
    }
}

/// Payments for basic points `base`.
pub fn payments(base: u32, dealer: bool, tsumo: bool, honba: u32, sticks: u32) -> Points {
    let mut p = Points {
        base,
        honba: honba.saturating_mul(300),
        sticks: sticks.saturating_mul(1000),
        ..Points::default()
    };
    match (tsumo, dealer) {
        (false, false) => {
            p.ron = round_up_100(4 * base);
            p.total = p.ron;
        }
        (false, true) => {
            p.ron = round_up_100(6 * base);
            p.total = p.ron;
        }
        (true, false) => {
            p.tsumo_dealer = round_up_100(2 * base);
            p.tsumo_others = round_up_100(base);
            p.total = p.tsumo_dealer + 2 * p.tsumo_others;
        }
        (true, true) => {
            p.tsumo_others = round_up_100(2 * base);
            p.total = 3 * p.tsumo_others;
        }
    }
    p
}
