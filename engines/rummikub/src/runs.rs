//! Runs in progress, per colour.
//!
//! The solver walks the numbers upwards. For one colour, the runs still open
//! after number `n` are summarised by their kinds (how long they are, capped at
//! `min_len`, and, when redundant jokers are banned, where their jokers sit).
//! A colour's state is the multiset of its open runs' kinds, interned as a
//! small id; this module enumerates those states and the transitions from one
//! number to the next.
//!
//! Capping the length at `min_len` is exact: a run that already has `min_len`
//! tiles may stop or go on at any later number, whatever its exact length.

use std::collections::HashMap;

/// Most run kinds there can be (2 * max `min_len`).
pub(crate) const MAX_KINDS: usize = 12;

/// Kind counts of one colour's open runs.
pub(crate) type Counts = [u8; MAX_KINDS];

/// What happens to one open run, or to a tile that starts a new run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Extended with a number tile.
    Real,
    /// Extended with a joker.
    Joker,
}

/// Run kinds. With `L = min_len`:
/// * `0..L-1`: `P(len)`, `len = kind + 1 < L`, first tile not a joker (or
///   redundant jokers are allowed);
/// * `L-1`: full, at least `L` tiles, may stop here;
/// * `L..2L-1`: `Q(len)`, `len = kind - L + 1 < L`, started with a joker:
///   must stop at exactly `L` tiles (only when redundant jokers are banned);
/// * `2L-1`: hanging, more than `L` tiles and the last is a joker: must go on
///   (only when redundant jokers are banned).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kinds {
    min_len: usize,
    restricted: bool,
}

/// The result of one run taking one more tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Open(usize),
    /// The run is complete and must stop here.
    Closed,
}

impl Kinds {
    pub(crate) fn new(min_len: u8, restricted: bool) -> Kinds {
        Kinds {
            min_len: usize::from(min_len),
            restricted,
        }
    }

    pub(crate) fn count(self) -> usize {
        if self.restricted {
            2 * self.min_len
        } else {
            self.min_len
        }
    }

    pub(crate) fn full(self) -> usize {
        self.min_len - 1
    }

    fn hanging(self) -> usize {
        2 * self.min_len - 1
    }

    /// Kind of a run started by a number tile.
    pub(crate) fn start_real(self) -> usize {
        0
    }

    /// Kind of a run started by a joker.
    pub(crate) fn start_joker(self) -> usize {
        if self.restricted {
            self.min_len
        } else {
            0
        }
    }

    /// How many more tiles a run of this kind needs before it may stop.
    pub(crate) fn still_needs(self, kind: usize) -> usize {
        let l = self.min_len;
        if kind < l - 1 {
            l - 1 - kind
        } else if kind == l - 1 {
            0
        } else if kind < 2 * l - 1 {
            2 * l - 1 - kind
        } else {
            1
        }
    }

    /// May a run of this kind stop at the current number?
    pub(crate) fn may_stop(self, kind: usize) -> bool {
        kind == self.full()
    }

    pub(crate) fn extend(self, kind: usize, step: Step) -> Next {
        let l = self.min_len;
        if kind < l - 1 {
            // P(len): a joker inside or at the end of a run of at most L tiles
            // is never redundant.
            Next::Open((kind + 1).min(l - 1))
        } else if kind == l - 1 {
            match step {
                Step::Joker if self.restricted => Next::Open(self.hanging()),
                _ => Next::Open(kind),
            }
        } else if kind < 2 * l - 1 {
            if kind + 1 == 2 * l - 1 {
                Next::Closed
            } else {
                Next::Open(kind + 1)
            }
        } else {
            match step {
                Step::Real => Next::Open(self.full()),
                Step::Joker => Next::Open(kind),
            }
        }
    }
}

/// One way to give one colour's run tiles at a number to its open runs.
#[derive(Clone, Debug)]
pub(crate) struct Assignment {
    /// Per kind: open runs of that kind that stop, take a number tile, take a joker.
    pub(crate) stop: Counts,
    pub(crate) real: Counts,
    pub(crate) joker: Counts,
    /// Number tiles and jokers that start new runs.
    pub(crate) new_real: u8,
    pub(crate) new_joker: u8,
    /// The open runs afterwards.
    pub(crate) result: Counts,
}

/// Calls `visit` for every assignment of `real` number tiles and `jokers`
/// jokers to the open runs `counts`; stops early when `visit` returns true.
pub(crate) fn for_each_assignment(
    kinds: Kinds,
    counts: &Counts,
    real: u8,
    jokers: u8,
    visit: &mut dyn FnMut(&Assignment) -> bool,
) -> bool {
    let mut a = Assignment {
        stop: [0; MAX_KINDS],
        real: [0; MAX_KINDS],
        joker: [0; MAX_KINDS],
        new_real: 0,
        new_joker: 0,
        result: [0; MAX_KINDS],
    };
    assign_from(kinds, counts, 0, real, jokers, &mut a, visit)
}

fn assign_from(
    kinds: Kinds,
    counts: &Counts,
    kind: usize,
    real: u8,
    jokers: u8,
    a: &mut Assignment,
    visit: &mut dyn FnMut(&Assignment) -> bool,
) -> bool {
    if kind == kinds.count() {
        a.new_real = real;
        a.new_joker = jokers;
        let mut result = [0u8; MAX_KINDS];
        for k in 0..kinds.count() {
            for (step, n) in [(Step::Real, a.real[k]), (Step::Joker, a.joker[k])] {
                if let Next::Open(next) = kinds.extend(k, step) {
                    result[next] += n;
                }
            }
        }
        result[kinds.start_real()] += real;
        result[kinds.start_joker()] += jokers;
        a.result = result;
        return visit(a);
    }
    let n = counts[kind];
    let may_stop = kinds.may_stop(kind);
    for by_real in 0..=n.min(real) {
        for by_joker in 0..=(n - by_real).min(jokers) {
            let stop = n - by_real - by_joker;
            if stop > 0 && !may_stop {
                continue;
            }
            a.stop[kind] = stop;
            a.real[kind] = by_real;
            a.joker[kind] = by_joker;
            if assign_from(
                kinds,
                counts,
                kind + 1,
                real - by_real,
                jokers - by_joker,
                a,
                visit,
            ) {
                return true;
            }
        }
    }
    false
}

/// Every colour state reachable under a rule set, and the transitions.
pub(crate) struct RunTable {
    pub(crate) kinds: Kinds,
    states: Vec<Counts>,
    /// Every open run may stop (so the colour may end here).
    stoppable: Vec<bool>,
    /// `needs[state][d - 1]`: open runs that need a tile at `d` numbers ahead.
    needs: Vec<[u8; MAX_KINDS / 2]>,
    max_real: usize,
    max_jokers: usize,
    /// `targets[offsets[i]..offsets[i + 1]]` for `i = (state, real, jokers)`.
    offsets: Vec<u32>,
    targets: Vec<u16>,
}

/// `n` choose `k`, saturating.
pub(crate) fn binomial(n: usize, k: usize) -> usize {
    let mut out: usize = 1;
    for i in 0..k {
        out = out.saturating_mul(n - i) / (i + 1);
    }
    out
}

impl RunTable {
    /// Number of colour states: multisets of at most `max_runs` kinds.
    pub(crate) fn state_count(kinds: Kinds, max_runs: usize) -> usize {
        binomial(max_runs + kinds.count(), kinds.count())
    }

    pub(crate) fn new(kinds: Kinds, max_real: usize, max_jokers: usize) -> RunTable {
        let max_runs = max_real + max_jokers;
        let mut states = Vec::new();
        let mut counts = [0u8; MAX_KINDS];
        enumerate_states(kinds.count(), 0, max_runs, &mut counts, &mut states);
        // The empty state gets id 0.
        states.sort_by_key(|c| c.iter().map(|&x| usize::from(x)).sum::<usize>());
        let index: HashMap<Counts, u16> = states
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, i as u16))
            .collect();
        let stoppable = states
            .iter()
            .map(|c| (0..kinds.count()).all(|k| c[k] == 0 || kinds.may_stop(k)))
            .collect();
        let needs = states
            .iter()
            .map(|c| {
                let mut need = [0u8; MAX_KINDS / 2];
                for (k, &count) in c.iter().enumerate().take(kinds.count()) {
                    for slot in need.iter_mut().take(kinds.still_needs(k)) {
                        *slot += count;
                    }
                }
                need
            })
            .collect();
        let sim = simulation(kinds);
        let prune = states.len() <= 512 && max_runs <= 5;
        let mut offsets = Vec::with_capacity(states.len() * (max_real + 1) * (max_jokers + 1) + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for state in &states {
            for real in 0..=max_real {
                for jokers in 0..=max_jokers {
                    let start = targets.len();
                    for_each_assignment(kinds, state, real as u8, jokers as u8, &mut |a| {
                        if let Some(&id) = index.get(&a.result) {
                            targets.push(id);
                        }
                        false
                    });
                    targets[start..].sort_unstable();
                    let mut found: Vec<u16> = targets.split_off(start);
                    found.dedup();
                    // Keep only results no other result dominates (a pure
                    // speed-up; skipped for big tables, where the exhaustive
                    // dominance test would make building the table slow).
                    for (i, &a) in found.iter().enumerate() {
                        let beaten = prune
                            && found.iter().enumerate().any(|(k, &b)| {
                                k != i
                                    && dominates(
                                        kinds,
                                        &sim,
                                        &states[usize::from(b)],
                                        &states[usize::from(a)],
                                    )
                                    && (!dominates(
                                        kinds,
                                        &sim,
                                        &states[usize::from(a)],
                                        &states[usize::from(b)],
                                    ) || k < i)
                            });
                        if !beaten {
                            targets.push(a);
                        }
                    }
                    offsets.push(targets.len() as u32);
                }
            }
        }
        RunTable {
            kinds,
            states,
            stoppable,
            needs,
            max_real,
            max_jokers,
            offsets,
            targets,
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    /// Heap bytes held by the tables.
    pub(crate) fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.states.capacity() * size_of::<Counts>()
            + self.stoppable.capacity()
            + self.needs.capacity() * size_of::<[u8; MAX_KINDS / 2]>()
            + self.offsets.capacity() * size_of::<u32>()
            + self.targets.capacity() * size_of::<u16>()
    }

    pub(crate) fn counts(&self, state: u16) -> Counts {
        self.states
            .get(usize::from(state))
            .copied()
            .unwrap_or([0; MAX_KINDS])
    }

    /// Open runs of `state` that need a tile `d` numbers ahead, `d = 1..`.
    #[inline]
    pub(crate) fn needs(&self, state: u16) -> &[u8; MAX_KINDS / 2] {
        const NONE: [u8; MAX_KINDS / 2] = [0; MAX_KINDS / 2];
        self.needs.get(usize::from(state)).unwrap_or(&NONE)
    }

    pub(crate) fn stoppable(&self, state: u16) -> bool {
        self.stoppable
            .get(usize::from(state))
            .copied()
            .unwrap_or(false)
    }

    /// States reachable from `state` when `real` number tiles and `jokers`
    /// jokers of the colour go to runs at the next number.
    #[inline]
    pub(crate) fn next(&self, state: u16, real: usize, jokers: usize) -> &[u16] {
        if real > self.max_real || jokers > self.max_jokers {
            return &[];
        }
        let i = (usize::from(state) * (self.max_real + 1) + real) * (self.max_jokers + 1) + jokers;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.targets.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// `sim[a][b]`: a run of kind `b` can do whatever a run of kind `a` can (take
/// the same tiles at the same numbers and stop where it stops). Greatest
/// fixpoint of the usual simulation conditions.
fn simulation(kinds: Kinds) -> Vec<Vec<bool>> {
    let n = kinds.count();
    let mut sim = vec![vec![true; n]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for a in 0..n {
            for b in 0..n {
                if !sim[a][b] {
                    continue;
                }
                let mut ok = !kinds.may_stop(a) || kinds.may_stop(b);
                for step in [Step::Real, Step::Joker] {
                    ok &= match (kinds.extend(a, step), kinds.extend(b, step)) {
                        (Next::Closed, Next::Closed) => true,
                        (Next::Closed, Next::Open(b2)) => kinds.may_stop(b2),
                        (Next::Open(_), Next::Closed) => false,
                        (Next::Open(a2), Next::Open(b2)) => sim[a2][b2],
                    };
                }
                if !ok {
                    sim[a][b] = false;
                    changed = true;
                }
            }
        }
    }
    sim
}

/// Does the set of open runs `big` do at least as well as `small`? True when
/// every run of `small` can be matched to a distinct run of `big` that
/// simulates it, and the unmatched runs of `big` may stop. Then any way to
/// finish from `small` also finishes from `big` with the same tiles.
fn dominates(kinds: Kinds, sim: &[Vec<bool>], big: &Counts, small: &Counts) -> bool {
    let expand = |c: &Counts| -> Vec<usize> {
        (0..kinds.count())
            .flat_map(|k| std::iter::repeat_n(k, usize::from(c[k])))
            .collect()
    };
    let (big, small) = (expand(big), expand(small));
    if small.len() > big.len() {
        return false;
    }
    covers_all(&small, &big, sim, kinds)
}

/// Exhaustive search (tiny sizes, done once per rule set): is there an injection small -> big that
/// respects `sim` and leaves only stoppable runs of `big` unmatched?
fn covers_all(small: &[usize], big: &[usize], sim: &[Vec<bool>], kinds: Kinds) -> bool {
    fn go(
        i: usize,
        small: &[usize],
        big: &[usize],
        sim: &[Vec<bool>],
        kinds: Kinds,
        used: &mut [bool],
    ) -> bool {
        if i == small.len() {
            return (0..big.len()).all(|j| used[j] || kinds.may_stop(big[j]));
        }
        for j in 0..big.len() {
            if !used[j] && sim[small[i]][big[j]] {
                used[j] = true;
                if go(i + 1, small, big, sim, kinds, used) {
                    return true;
                }
                used[j] = false;
            }
        }
        false
    }
    go(0, small, big, sim, kinds, &mut vec![false; big.len()])
}

fn enumerate_states(
    kinds: usize,
    kind: usize,
    left: usize,
    counts: &mut Counts,
    out: &mut Vec<Counts>,
) {
    if kind == kinds {
        out.push(*counts);
        return;
    }
    for n in 0..=left {
        counts[kind] = n as u8;
        enumerate_states(kinds, kind + 1, left - n, counts, out);
    }
    counts[kind] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_counts() {
        for (l, restricted, runs) in [(3, false, 4), (3, true, 4), (2, true, 3), (4, false, 6)] {
            let kinds = Kinds::new(l, restricted);
            let table = RunTable::new(kinds, runs - 2, 2);
            assert_eq!(table.len(), RunTable::state_count(kinds, runs));
            assert_eq!(table.counts(0), [0; MAX_KINDS]);
        }
    }

    #[test]
    fn restricted_kinds() {
        let k = Kinds::new(3, true);
        // k1 k2 k3 J: hanging, must go on.
        assert_eq!(k.extend(k.full(), Step::Joker), Next::Open(5));
        assert!(!k.may_stop(5));
        assert_eq!(k.extend(5, Step::Real), Next::Open(k.full()));
        // J k2 k3 closes.
        assert_eq!(k.extend(3, Step::Real), Next::Open(4));
        assert_eq!(k.extend(4, Step::Real), Next::Closed);
        // k1 k2 J may stop.
        assert_eq!(k.extend(1, Step::Joker), Next::Open(k.full()));
    }
}
