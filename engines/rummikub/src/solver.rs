//! The dynamic programme: [`Solver`], [`arrange`], [`best_move`].
//!
//! The solver walks the numbers `1..=numbers` upwards and, within a number,
//! the colours in order (so one step decides one colour's tiles, not all
//! colours' at once). At each (number, colour) it decides how many copies of
//! the tile to use (table tiles must be used, rack tiles may be), how many go
//! to groups and how many to runs, how many jokers join that colour's runs,
//! and which open runs they extend ([`RunTable`]). After the last colour of a
//! number it decides how many jokers join groups and checks that the group
//! tiles split into groups ([`Groups`]). The search state is packed into a
//! `u128` and memoised; the memo's memory is kept between queries.
//!
//! What keeps it fast:
//! * transitions whose open runs are dominated by another transition's are
//!   dropped when the run table is built ([`RunTable`]);
//! * a colour whose open runs need more tiles ahead than exist (or than fit
//!   below `numbers`), or group tiles that the later colours cannot complete,
//!   are cut at once instead of one number later;
//! * the objective is searched alpha-beta style against a static upper bound
//!   (all remaining rack tiles), starting high, so most states fail low at
//!   once; for the value objective a most-tiles move supplies a floor;
//! * the numbers may be walked downwards as well: [`SearchOrder::Race`] tries
//!   both directions with growing budgets, as a hard instance is usually easy
//!   from the other end.
//!
//! Decision (arrange) and optimisation (best move) are the same search: the
//! table's tiles must be used, the rack's may be; arranging is a best move
//! with an empty rack.

use super::counts::TileCounts;
use super::error::Error;
use super::groups::{shape_add, GroupPlan, Groups, Shape};
use super::meld::{Meld, MeldKind};
use super::memo::Memo;
use super::rules::{Objective, RuleSet, JOKER_VALUE};
use super::runs::{for_each_assignment, Kinds, Next, RunTable, Step, MAX_KINDS};
use super::tile::{Colour, Tile};

const NEG: i32 = i32::MIN / 4;
/// Most colour states the solver accepts (each is a `u16`, and the transition
/// table grows with the count).
const MAX_STATES: usize = 4096;

/// A move found by [`best_move`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// Rack tiles placed, sorted. Empty when nothing can be placed.
    pub placed: Vec<Tile>,
    /// The whole table afterwards: every table tile and every placed tile.
    pub melds: Vec<Meld>,
}

/// Arranges all `tiles` into melds, or `None` when impossible.
///
/// Creates a [`Solver`] per call; keep a [`Solver`] to reuse its memory.
pub fn arrange(rules: &RuleSet, tiles: &[Tile]) -> Result<Option<Vec<Meld>>, Error> {
    Solver::new(*rules)?.arrange(tiles)
}

/// The best move from `rack` onto `table`; see [`Solver::best_move`].
pub fn best_move(
    rules: &RuleSet,
    table: &[Tile],
    rack: &[Tile],
    objective: Objective,
    opening: bool,
) -> Result<BestMove, Error> {
    Solver::new(*rules)?.best_move(table, rack, objective, opening)
}

/// Bit positions inside a packed key.
#[derive(Clone, Copy, Debug)]
struct Layout {
    state_bits: u32,
    n_at: u32,
    layer_at: u32,
    shape_at: u32,
    jokers_at: u32,
    value_at: u32,
}

impl Layout {
    fn new(colours: usize, states: usize) -> Layout {
        let state_bits = usize::BITS - (states.max(2) - 1).leading_zeros();
        let n_at = state_bits * colours as u32;
        Layout {
            state_bits,
            n_at,
            layer_at: n_at + 6,
            shape_at: n_at + 10,
            jokers_at: n_at + 26,
            value_at: n_at + 29,
        }
    }

    const fn bits(&self) -> u32 {
        self.value_at + 8
    }

    #[inline]
    fn field(key: u128, at: u32, bits: u32) -> usize {
        ((key >> at) & ((1u128 << bits) - 1)) as usize
    }

    #[inline]
    fn with(key: u128, at: u32, bits: u32, value: usize) -> u128 {
        let mask = ((1u128 << bits) - 1) << at;
        (key & !mask) | (((value as u128) << at) & mask)
    }

    #[inline]
    fn state(&self, key: u128, c: usize) -> u16 {
        Self::field(key, self.state_bits * c as u32, self.state_bits) as u16
    }

    #[inline]
    fn with_state(&self, key: u128, c: usize, s: u16) -> u128 {
        Self::with(
            key,
            self.state_bits * c as u32,
            self.state_bits,
            usize::from(s),
        )
    }

    #[inline]
    fn n(&self, key: u128) -> usize {
        Self::field(key, self.n_at, 6)
    }

    #[inline]
    fn layer(&self, key: u128) -> usize {
        Self::field(key, self.layer_at, 4)
    }

    #[inline]
    fn shape(&self, key: u128) -> Shape {
        Self::field(key, self.shape_at, 16) as Shape
    }

    #[inline]
    fn jokers(&self, key: u128) -> usize {
        Self::field(key, self.jokers_at, 3)
    }

    #[inline]
    fn value(&self, key: u128) -> usize {
        Self::field(key, self.value_at, 8)
    }

    /// Key of the same colour states at another position.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn at(
        &self,
        key: u128,
        n: usize,
        layer: usize,
        shape: Shape,
        jokers: usize,
        value: usize,
    ) -> u128 {
        let states = key & ((1u128 << self.n_at) - 1);
        states
            | ((n as u128) << self.n_at)
            | ((layer as u128) << self.layer_at)
            | ((shape as u128) << self.shape_at)
            | ((jokers as u128) << self.jokers_at)
            | ((value as u128) << self.value_at)
    }
}

/// One query: which tiles must be used, which may be, and what each is worth.
#[derive(Clone)]
struct Query {
    /// `face[n]`: the tile number at search position `n`. The search may run
    /// over the numbers downwards (`mirrored`): the rules are symmetric, and
    /// a hard instance is often easy from the other end.
    face: [u8; 32],
    mirrored: bool,
    /// `must[c][n]`, `optional[c][n]`: copies of colour `c`, number `n`.
    must: [[u8; 32]; 8],
    optional: [[u8; 32]; 8],
    must_jokers: usize,
    optional_jokers: usize,
    /// Gain per optional tile at number `n`, per optional joker.
    weight: [i32; 32],
    joker_weight: i32,
    /// Opening threshold on the value of the melds (0: none).
    threshold: usize,
    /// `bound[(n - 1) * colours + c]`: most gain still possible from there.
    bound: Vec<i32>,
    /// `later[(n - 1) * colours + c]`: copies at number `n` of colours after `c`.
    later: Vec<u8>,
}

impl Query {
    /// Copies of colour `c`, number `n` that may be used.
    #[inline]
    fn available(&self, c: usize, n: usize) -> usize {
        let must = self
            .must
            .get(c)
            .and_then(|r| r.get(n))
            .copied()
            .unwrap_or(0);
        let optional = self
            .optional
            .get(c)
            .and_then(|r| r.get(n))
            .copied()
            .unwrap_or(0);
        usize::from(must) + usize::from(optional)
    }

    fn new(
        rules: &RuleSet,
        must: &TileCounts,
        optional: &TileCounts,
        weights: Weights,
        mirrored: bool,
    ) -> Query {
        let numbers = usize::from(rules.numbers);
        let mut face = [0u8; 32];
        for (n, slot) in face.iter_mut().enumerate().take(numbers + 1).skip(1) {
            *slot = if mirrored { numbers + 1 - n } else { n } as u8;
        }
        let mut q = Query {
            face,
            mirrored,
            must: [[0; 32]; 8],
            optional: [[0; 32]; 8],
            must_jokers: usize::from(must.jokers()),
            optional_jokers: usize::from(optional.jokers()),
            weight: [0; 32],
            joker_weight: weights.joker,
            threshold: 0,
            bound: Vec::new(),
            later: Vec::new(),
        };
        let colours = usize::from(rules.colours);
        for (c, colour) in Colour::ALL.iter().enumerate().take(colours) {
            for (n, &number) in face.iter().enumerate().take(numbers + 1).skip(1) {
                q.must[c][n] = must.number(*colour, number);
                q.optional[c][n] = optional.number(*colour, number);
            }
        }
        for (weight, &number) in q.weight.iter_mut().zip(&face).take(numbers + 1).skip(1) {
            *weight = (weights.tile)(i32::from(number));
        }
        q.later = vec![0; numbers * colours];
        for n in 1..=numbers {
            let mut acc = 0u8;
            for c in (0..colours).rev() {
                q.later[(n - 1) * colours + c] = acc;
                acc = acc
                    .saturating_add(q.must[c][n])
                    .saturating_add(q.optional[c][n]);
            }
        }
        q.bound = vec![0; numbers * colours + 1];
        let mut acc = q.optional_jokers as i32 * q.joker_weight;
        q.bound[numbers * colours] = acc;
        for n in (1..=numbers).rev() {
            for c in (0..colours).rev() {
                acc += i32::from(q.optional[c][n]) * q.weight[n];
                q.bound[(n - 1) * colours + c] = acc;
            }
        }
        q
    }
}

#[derive(Clone, Copy)]
struct Weights {
    tile: fn(i32) -> i32,
    joker: i32,
    /// The value objective (slow to approach from above alone).
    by_value: bool,
}

impl Weights {
    /// The objective value of placing `tiles`.
    fn score(&self, tiles: &[Tile]) -> i32 {
        tiles
            .iter()
            .map(|t| t.number().map_or(self.joker, |n| (self.tile)(i32::from(n))))
            .sum()
    }

    const NONE: Weights = Weights {
        tile: |_| 0,
        joker: 0,
        by_value: false,
    };

    fn of(objective: Objective) -> Weights {
        match objective {
            Objective::MaxTiles => Weights {
                tile: |_| 1,
                joker: 1,
                by_value: false,
            },
            Objective::MaxValue => Weights {
                tile: |n| n,
                joker: JOKER_VALUE as i32,
                by_value: true,
            },
        }
    }
}

/// The search over one query; borrows the solver's tables and memo.
struct Search<'a> {
    numbers: usize,
    min_len: usize,
    colours: usize,
    layout: Layout,
    runs: &'a RunTable,
    groups: &'a mut Groups,
    memo: &'a mut Memo,
    q: &'a Query,
    /// States the search may expand before giving up (`aborted`).
    budget: u64,
    spent: u64,
    aborted: bool,
}

/// What the search decided at one (number, colour).
#[derive(Clone, Copy, Debug)]
struct ColourStep {
    used: usize,
    to_groups: usize,
    jokers: usize,
    from: u16,
    to: u16,
}

impl Search<'_> {
    fn root(&self) -> u128 {
        self.layout.at(0, 1, 0, 0, 0, 0)
    }

    fn finish(&self, key: u128) -> i32 {
        let jokers = self.layout.jokers(key);
        let ok = (0..self.colours).all(|c| self.runs.stoppable(self.layout.state(key, c)))
            && jokers >= self.q.must_jokers
            && self.layout.value(key) >= self.q.threshold;
        if ok {
            (jokers - self.q.must_jokers) as i32 * self.q.joker_weight
        } else {
            NEG
        }
    }

    /// Best gain from `key` on (`NEG` if there is no valid completion) when
    /// that is at least `alpha`; otherwise some upper bound below `alpha`
    /// (a fail-low, as in alpha-beta search). Memo entries record which.
    fn go(&mut self, key: u128, alpha: i32) -> i32 {
        let l = self.layout;
        let n = l.n(key);
        if n > self.numbers {
            return self.finish(key);
        }
        let c = l.layer(key);
        let bound = self
            .q
            .bound
            .get((n - 1) * self.colours + c)
            .copied()
            .unwrap_or(0);
        if bound < alpha {
            return bound;
        }
        if let Some((v, exact)) = self.memo.get(key) {
            if exact || v < alpha {
                return v;
            }
        }
        if self.spent >= self.budget {
            self.aborted = true;
            return NEG;
        }
        self.spent += 1;
        let mut best = NEG;
        self.for_each_child(key, |search, gain, child, _| {
            let need = alpha.max(best.saturating_add(1)) - gain;
            let v = search.go(child, need);
            if v > NEG && gain + v > best {
                best = gain + v;
            }
            best >= bound || search.aborted
        });
        if !self.aborted {
            self.memo.insert(key, best, best >= alpha);
        }
        best
    }

    /// The exact optimum from the root. Searches with `alpha` at the static
    /// bound first (cheap, as most states fail low against the bound at once)
    /// and lowers it to the upper bound returned until that is reached. With a
    /// `floor` (a value known to be reachable) one search from it suffices.
    fn solve(&mut self, floor: Option<i32>) -> i32 {
        let root = self.root();
        let mut alpha = floor.unwrap_or_else(|| self.q.bound.first().copied().unwrap_or(0));
        loop {
            let v = self.go(root, alpha);
            if v >= alpha || v <= NEG || self.aborted {
                return v;
            }
            alpha = v;
        }
    }

    /// Calls `visit(search, gain, child key, step)` for each successor of
    /// `key` (a key at the start of the next number when `key` is the last
    /// colour: then `step.jokers` includes no group jokers; see `group_jokers`).
    /// Stops when `visit` returns true.
    fn for_each_child<F: FnMut(&mut Self, i32, u128, ColourStep) -> bool>(
        &mut self,
        key: u128,
        mut visit: F,
    ) {
        let l = self.layout;
        let q = self.q;
        let n = l.n(key);
        let c = l.layer(key);
        let (Some(must), Some(optional)) = (
            q.must.get(c).and_then(|r| r.get(n)),
            q.optional.get(c).and_then(|r| r.get(n)),
        ) else {
            return;
        };
        let (must, optional) = (usize::from(*must), usize::from(*optional));
        let weight = q.weight.get(n).copied().unwrap_or(0);
        let face = usize::from(q.face.get(n).copied().unwrap_or(0));
        let state = l.state(key, c);
        let shape = l.shape(key);
        let used_jokers = l.jokers(key);
        let free_jokers = (q.must_jokers + q.optional_jokers).saturating_sub(used_jokers);
        let value = l.value(key);
        let last = c + 1 == self.colours;
        let runs = self.runs;
        for used in (must..=must + optional).rev() {
            let gain = (used - must) as i32 * weight;
            for to_groups in 0..=used {
                let shape = shape_add(shape, to_groups);
                if !last && !self.groups_viable(shape, c, n, free_jokers) {
                    continue;
                }
                for jokers in 0..=free_jokers {
                    let value = if q.threshold > 0 {
                        (value + face * (used + jokers)).min(q.threshold)
                    } else {
                        0
                    };
                    for &to in runs.next(state, used - to_groups, jokers) {
                        if !self.viable(c, n, to, free_jokers - jokers) {
                            continue;
                        }
                        let step = ColourStep {
                            used,
                            to_groups,
                            jokers,
                            from: state,
                            to,
                        };
                        let moved = l.with_state(key, c, to);
                        if !last {
                            let child = l.at(moved, n, c + 1, shape, used_jokers + jokers, value);
                            if visit(self, gain, child, step) {
                                return;
                            }
                            continue;
                        }
                        for group_jokers in 0..=free_jokers - jokers {
                            if !self.groups.feasible(shape, group_jokers) {
                                continue;
                            }
                            let value = if q.threshold > 0 {
                                (value + face * group_jokers).min(q.threshold)
                            } else {
                                0
                            };
                            let child = l.at(
                                moved,
                                n + 1,
                                0,
                                0,
                                used_jokers + jokers + group_jokers,
                                value,
                            );
                            if visit(self, gain, child, step) {
                                return;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Can colour `c`'s open runs `state` after number `n` still be completed?
    /// Each run that needs `d` more tiles needs one at `n + 1..=n + d`; with
    /// the copies there and the jokers left, not too many may need the same one.
    #[inline]
    fn viable(&self, c: usize, n: usize, state: u16, free_jokers: usize) -> bool {
        let needs = self.runs.needs(state);
        for (d, &need) in needs.iter().enumerate() {
            if need == 0 {
                break;
            }
            let at = n + d + 1;
            let have = if at > self.numbers {
                0
            } else {
                self.q.available(c, at) + free_jokers
            };
            if usize::from(need) > have {
                return false;
            }
        }
        true
    }

    /// Can the group tiles chosen so far at number `n` (up to colour `c`)
    /// still be completed into groups? The colour sending the most, `max`,
    /// needs `max` groups of at least `min_len` tiles, with what later colours
    /// and the jokers left can add.
    #[inline]
    fn groups_viable(&self, shape: Shape, c: usize, n: usize, free_jokers: usize) -> bool {
        if shape == 0 {
            return true;
        }
        let (mut sum, mut max) = (0, 0);
        for v in 1..=4 {
            let count = ((shape >> (4 * (v - 1))) & 15) as usize;
            if count > 0 {
                sum += v * count;
                max = v;
            }
        }
        let later = self
            .q
            .later
            .get((n - 1) * self.colours + c)
            .copied()
            .unwrap_or(0);
        max * self.min_len <= sum + usize::from(later) + free_jokers
    }

    /// Follows an optimal path from the root: the step taken at every
    /// (number, colour) and the group jokers at every number.
    fn path(&mut self, floor: Option<i32>) -> Option<(Vec<ColourStep>, Vec<usize>)> {
        let mut key = self.root();
        let mut target = self.solve(floor);
        if target <= NEG || self.aborted {
            return None;
        }
        let mut steps = Vec::with_capacity(self.numbers * self.colours);
        let mut group_jokers = vec![0; self.numbers + 1];
        let l = self.layout;
        while l.n(key) <= self.numbers {
            let mut found = None;
            self.for_each_child(key, |search, gain, child, step| {
                let v = search.go(child, target - gain);
                if v > NEG && gain + v == target {
                    found = Some((child, step, v));
                    true
                } else {
                    false
                }
            });
            if self.aborted {
                return None;
            }
            let (child, step, v) = found?;
            if l.n(child) != l.n(key) {
                let jokers = l.jokers(child) - l.jokers(key) - step.jokers;
                if let Some(slot) = group_jokers.get_mut(l.n(key)) {
                    *slot = jokers;
                }
            }
            steps.push(step);
            key = child;
            target = v;
        }
        Some((steps, group_jokers))
    }
}

/// An open run while melds are rebuilt from a path.
struct OpenRun {
    kind: usize,
    tiles: Vec<Tile>,
    represents: Vec<Tile>,
}

/// The result of one optimisation: optional tiles used, and the melds.
struct Outcome {
    placed: Vec<Tile>,
    melds: Vec<Meld>,
}

/// The direction the search walks the numbers in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SearchOrder {
    /// Upwards and downwards in turn with growing state budgets until one
    /// finishes (default): a hard instance is rarely hard from both ends.
    #[default]
    Race,
    /// Only upwards (1, 2, ...).
    Upwards,
    /// Only downwards (numbers, numbers - 1, ...).
    Downwards,
}

/// Reusable solver for one [`RuleSet`]: holds the run and group tables and
/// the memo, whose memory is reused by later queries.
pub struct Solver {
    rules: RuleSet,
    layout: Layout,
    runs: RunTable,
    groups: Groups,
    memo: Memo,
    order: SearchOrder,
}

impl Solver {
    /// Builds the tables for `rules` (a `RuleSet` is valid by construction).
    pub fn new(rules: RuleSet) -> Result<Solver, Error> {
        let (kinds, layout) = Solver::shape(&rules)?;
        let runs = RunTable::new(kinds, usize::from(rules.copies), usize::from(rules.jokers));
        let groups = Groups::new(
            rules.min_len,
            rules.colours,
            rules.copies,
            rules.jokers,
            !rules.allow_redundant_jokers,
        );
        Ok(Solver {
            rules,
            layout,
            runs,
            groups,
            memo: Memo::new(),
            order: SearchOrder::Race,
        })
    }

    /// Whether a solver can be built for `rules` (what [`Solver::new`]
    /// checks before building its tables), without building it.
    pub fn supports(rules: &RuleSet) -> Result<(), Error> {
        Solver::shape(rules).map(|_| ())
    }

    fn shape(rules: &RuleSet) -> Result<(Kinds, Layout), Error> {
        let kinds = Kinds::new(rules.min_len, !rules.allow_redundant_jokers);
        let max_runs = usize::from(rules.copies) + usize::from(rules.jokers);
        let states = RunTable::state_count(kinds, max_runs);
        let layout = Layout::new(usize::from(rules.colours), states);
        if states > MAX_STATES || layout.bits() > 128 || kinds.count() > MAX_KINDS {
            return Err(Error::RuleSetTooLarge {
                states,
                bits: layout.bits(),
            });
        }
        Ok((kinds, layout))
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Heap memory the solver holds now, in bytes: its tables (fixed by the
    /// rule set) and its memo (which grows with the hardest query so far and
    /// is kept for the next one).
    pub fn memory_bytes(&self) -> usize {
        self.runs.memory_bytes() + self.groups.memory_bytes() + self.memo.memory_bytes()
    }

    /// Caps the memo at `max_bytes` (not below its starting 128 KiB): a query
    /// that fills it clears it and goes on, so a hard query costs time rather
    /// than unbounded memory. Unlimited by default.
    pub fn set_memo_limit(&mut self, max_bytes: usize) {
        self.memo.set_limit(max_bytes);
    }

    /// Gives back the memo's memory when it holds more than `max_bytes`
    /// (the memo starts small again; the tables are kept), so a solver kept
    /// for reuse does not hold what one hard query needed.
    pub fn shrink_memo(&mut self, max_bytes: usize) {
        self.memo.shrink_to(max_bytes);
    }

    /// Sets the search direction (results do not depend on it, only speed;
    /// tests use it to check both directions).
    pub fn set_order(&mut self, order: SearchOrder) {
        self.order = order;
    }

    fn search<'a>(&'a mut self, q: &'a Query, budget: u64) -> Search<'a> {
        self.memo.clear();
        Search {
            numbers: usize::from(self.rules.numbers),
            min_len: usize::from(self.rules.min_len),
            colours: usize::from(self.rules.colours),
            layout: self.layout,
            runs: &self.runs,
            groups: &mut self.groups,
            memo: &mut self.memo,
            q,
            budget,
            spent: 0,
            aborted: false,
        }
    }

    /// Can all `tiles` be split into valid melds?
    pub fn is_arrangeable(&mut self, tiles: &[Tile]) -> Result<bool, Error> {
        let tiles = TileCounts::new(&self.rules, tiles)?;
        Ok(self.arrangeable(&tiles))
    }

    fn arrangeable(&mut self, tiles: &TileCounts) -> bool {
        let empty = TileCounts::default();
        let rules = self.rules;
        self.race(|solver, mirrored, budget| {
            let q = Query::new(&rules, tiles, &empty, Weights::NONE, mirrored);
            let mut search = solver.search(&q, budget);
            let v = search.solve(None);
            (!search.aborted).then_some(v > NEG)
        })
    }

    /// Runs `attempt(solver, mirrored, budget)` upwards and downwards in turn
    /// with growing budgets until one finishes (returns `Some`). Hard inputs
    /// are usually hard from one end only, so this bounds the work by a small
    /// multiple of the cheaper direction.
    fn race<T>(&mut self, mut attempt: impl FnMut(&mut Solver, bool, u64) -> Option<T>) -> T {
        let directions: &[bool] = match self.order {
            SearchOrder::Race => &[false, true],
            SearchOrder::Upwards => &[false],
            SearchOrder::Downwards => &[true],
        };
        let mut budget: u64 = if directions.len() > 1 { 4096 } else { u64::MAX };
        loop {
            for &mirrored in directions {
                if let Some(out) = attempt(self, mirrored, budget) {
                    return out;
                }
            }
            budget = budget.saturating_mul(4);
        }
    }

    /// Splits all `tiles` into valid melds, or `None` when impossible.
    pub fn arrange(&mut self, tiles: &[Tile]) -> Result<Option<Vec<Meld>>, Error> {
        let tiles = TileCounts::new(&self.rules, tiles)?;
        let empty = TileCounts::default();
        Ok(self
            .optimise(&tiles, &empty, Weights::NONE, 0)
            .map(|outcome| outcome.melds))
    }

    /// The best move from `rack` onto `table`.
    ///
    /// Finds the rack tiles to place that maximise `objective` such that the
    /// table tiles plus the placed ones split into valid melds (the table may
    /// be rearranged). With `opening`, the placed tiles must form melds of
    /// their own worth at least [`RuleSet::opening_value`] points (a joker
    /// counting as the number it stands for) and the table is left as it is.
    /// If nothing can be placed, `placed` is empty and `melds` is the table.
    ///
    /// Errors: invalid tiles, more copies or jokers (table and rack together)
    /// than the rule set has, or a table that is not itself a valid arrangement.
    pub fn best_move(
        &mut self,
        table: &[Tile],
        rack: &[Tile],
        objective: Objective,
        opening: bool,
    ) -> Result<BestMove, Error> {
        // Table and rack together must fit the rule set; error positions
        // count the table's tiles, then the rack's.
        TileCounts::new(&self.rules, &[table, rack].concat())?;
        let table = TileCounts::new(&self.rules, table)?;
        let rack = TileCounts::new(&self.rules, rack)?;
        let empty = TileCounts::default();
        let weights = Weights::of(objective);
        let Some(table_outcome) = self.optimise(&table, &empty, Weights::NONE, 0) else {
            let leftover = self.leftover(&table, &empty);
            return Err(Error::TableNotValid { leftover });
        };
        let outcome = if opening {
            let threshold = usize::from(self.rules.opening_value);
            self.optimise(&empty, &rack, weights, threshold)
                .map(|mut outcome| {
                    let mut melds = table_outcome.melds.clone();
                    melds.append(&mut outcome.melds);
                    Outcome {
                        placed: outcome.placed,
                        melds,
                    }
                })
        } else {
            self.optimise(&table, &rack, weights, 0)
        };
        let outcome = outcome.unwrap_or(table_outcome);
        Ok(BestMove {
            placed: outcome.placed,
            melds: outcome.melds,
        })
    }

    /// Tiles of `table` left out of a largest valid partial arrangement.
    fn leftover(&mut self, table: &TileCounts, empty: &TileCounts) -> Vec<Tile> {
        let all = table.to_vec();
        match self.optimise(empty, table, Weights::of(Objective::MaxTiles), 0) {
            Some(outcome) => multiset_minus(&all, &outcome.placed),
            None => all,
        }
    }

    /// Runs the search and rebuilds the melds of an optimal solution.
    fn optimise(
        &mut self,
        must: &TileCounts,
        optional: &TileCounts,
        weights: Weights,
        threshold: usize,
    ) -> Option<Outcome> {
        // For the value objective, the value of a most-tiles move is a
        // reachable floor that makes one search enough.
        let floor = if weights.by_value {
            let tiles =
                self.optimise(must, optional, Weights::of(Objective::MaxTiles), threshold)?;
            Some(weights.score(&tiles.placed))
        } else {
            None
        };
        let rules = self.rules;
        self.race(|solver, mirrored, budget| {
            let mut q = Query::new(&rules, must, optional, weights, mirrored);
            q.threshold = threshold;
            let mut search = solver.search(&q, budget);
            let path = search.path(floor);
            if search.aborted {
                return None;
            }
            Some(path.and_then(|(steps, group_jokers)| solver.rebuild(&q, &steps, &group_jokers)))
        })
    }

    fn rebuild(
        &mut self,
        q: &Query,
        steps: &[ColourStep],
        group_jokers: &[usize],
    ) -> Option<Outcome> {
        let numbers = usize::from(self.rules.numbers);
        let colours = usize::from(self.rules.colours);
        let kinds = self.runs.kinds;
        let mut open: Vec<Vec<OpenRun>> = (0..colours).map(|_| Vec::new()).collect();
        let mut melds = Vec::new();
        let mut placed = Vec::new();
        let mut jokers_used = 0;
        let mut steps = steps.iter();
        for n in 1..=numbers {
            let mut to_groups = vec![0; colours];
            for c in 0..colours {
                let step = steps.next()?;
                let colour = Colour::from_index(c)?;
                let tile = Tile::new(colour, q.face[n])?;
                let must = usize::from(q.must[c][n]);
                placed.extend(std::iter::repeat_n(tile, step.used.saturating_sub(must)));
                jokers_used += step.jokers;
                to_groups[c] = step.to_groups;
                let runs = std::mem::take(&mut open[c]);
                let (still_open, mut done) = self.advance_runs(kinds, runs, step, tile)?;
                open[c] = still_open;
                melds.append(&mut done);
            }
            let jg = group_jokers.get(n).copied().unwrap_or(0);
            jokers_used += jg;
            for plan in self.groups.plan(&to_groups, jg)? {
                melds.push(group_meld(&plan, q.face[n], colours)?);
            }
        }
        for runs in open {
            for run in runs {
                if !kinds.may_stop(run.kind) {
                    return None;
                }
                melds.push(run_meld(run));
            }
        }
        let extra_jokers = jokers_used.checked_sub(q.must_jokers)?;
        placed.extend(std::iter::repeat_n(Tile::JOKER, extra_jokers));
        placed.sort();
        if q.mirrored {
            // Runs were built downwards.
            for meld in melds.iter_mut().filter(|m| m.kind == MeldKind::Run) {
                meld.tiles.reverse();
                meld.represents.reverse();
            }
        }
        melds.sort_by(|a, b| (a.kind, &a.represents).cmp(&(b.kind, &b.represents)));
        Some(Outcome { placed, melds })
    }

    /// Applies one colour step to that colour's open runs; returns the runs
    /// still open and the melds completed.
    fn advance_runs(
        &self,
        kinds: Kinds,
        runs: Vec<OpenRun>,
        step: &ColourStep,
        tile: Tile,
    ) -> Option<(Vec<OpenRun>, Vec<Meld>)> {
        let from = self.runs.counts(step.from);
        let to = self.runs.counts(step.to);
        let mut chosen = None;
        for_each_assignment(
            kinds,
            &from,
            (step.used - step.to_groups) as u8,
            step.jokers as u8,
            &mut |a| {
                if a.result == to {
                    chosen = Some(a.clone());
                    true
                } else {
                    false
                }
            },
        );
        let a = chosen?;
        let mut by_kind: Vec<Vec<OpenRun>> = (0..MAX_KINDS).map(|_| Vec::new()).collect();
        for run in runs {
            by_kind.get_mut(run.kind)?.push(run);
        }
        let mut still_open = Vec::new();
        let mut done = Vec::new();
        for (kind, mut runs) in by_kind.into_iter().enumerate() {
            let (stop, real, joker) = (
                usize::from(a.stop[kind]),
                usize::from(a.real[kind]),
                usize::from(a.joker[kind]),
            );
            if runs.len() != stop + real + joker {
                return None;
            }
            for (i, mut run) in runs.drain(..).enumerate() {
                if i < stop {
                    done.push(run_meld(run));
                    continue;
                }
                let (step, laid) = if i < stop + real {
                    (Step::Real, tile)
                } else {
                    (Step::Joker, Tile::JOKER)
                };
                run.tiles.push(laid);
                run.represents.push(tile);
                match kinds.extend(kind, step) {
                    Next::Open(next) => {
                        run.kind = next;
                        still_open.push(run);
                    }
                    Next::Closed => done.push(run_meld(run)),
                }
            }
        }
        for (count, laid, kind) in [
            (a.new_real, tile, kinds.start_real()),
            (a.new_joker, Tile::JOKER, kinds.start_joker()),
        ] {
            for _ in 0..count {
                still_open.push(OpenRun {
                    kind,
                    tiles: vec![laid],
                    represents: vec![tile],
                });
            }
        }
        Some((still_open, done))
    }
}

fn run_meld(run: OpenRun) -> Meld {
    Meld {
        kind: MeldKind::Run,
        tiles: run.tiles,
        represents: run.represents,
    }
}

fn group_meld(plan: &GroupPlan, number: u8, colours: usize) -> Option<Meld> {
    let mut tiles = Vec::new();
    let mut represents = Vec::new();
    for &c in &plan.colours {
        let tile = Tile::new(Colour::from_index(c)?, number)?;
        tiles.push(tile);
        represents.push(tile);
    }
    // Jokers stand for the first colours missing from the group.
    let mut missing = (0..colours).filter(|c| !plan.colours.contains(c));
    for _ in 0..plan.jokers {
        let c = missing.next()?;
        tiles.push(Tile::JOKER);
        represents.push(Tile::new(Colour::from_index(c)?, number)?);
    }
    Some(Meld {
        kind: MeldKind::Group,
        tiles,
        represents,
    })
}

/// `all` minus `part`, as multisets (both sorted).
fn multiset_minus(all: &[Tile], part: &[Tile]) -> Vec<Tile> {
    let mut part = part.to_vec();
    part.sort();
    let mut out = Vec::new();
    let mut j = 0;
    for &t in all {
        if j < part.len() && part[j] == t {
            j += 1;
        } else {
            out.push(t);
        }
    }
    out
}
