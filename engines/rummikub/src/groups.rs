//! Groups at one number.
//!
//! At a given number the solver knows how many tiles of each colour go to
//! groups (`g[c]`) and how many jokers (`jg`). Whether those split into groups
//! depends only on the multiset of the `g[c]`, packed as `h`: 4 bits per count
//! value `v = 1..=copies` holding how many colours send `v` tiles. Answers are
//! found by a small exhaustive search and cached for the solver's lifetime.

/// Packed multiset of per-colour group counts.
pub(crate) type Shape = u32;

/// Adds one colour sending `g` tiles to groups.
#[inline]
pub(crate) const fn shape_add(shape: Shape, g: usize) -> Shape {
    if g == 0 {
        shape
    } else {
        shape + (1 << (4 * (g - 1)))
    }
}

pub(crate) struct Groups {
    min_len: usize,
    colours: usize,
    copies: usize,
    restricted: bool,
    /// `cache[shape * (jokers + 1) + jg]`: 0 unknown, 1 no, 2 yes.
    cache: Vec<u8>,
    jokers: usize,
}

/// One group: the colours of its number tiles and how many jokers it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GroupPlan {
    pub(crate) colours: Vec<usize>,
    pub(crate) jokers: usize,
}

impl Groups {
    pub(crate) fn new(
        min_len: u8,
        colours: u8,
        copies: u8,
        jokers: u8,
        restricted: bool,
    ) -> Groups {
        let copies = usize::from(copies);
        let jokers = usize::from(jokers);
        Groups {
            min_len: usize::from(min_len),
            colours: usize::from(colours),
            copies,
            restricted,
            cache: vec![0; (1usize << (4 * copies)) * (jokers + 1)],
            jokers,
        }
    }

    /// Heap bytes held by the cache.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.cache.capacity()
    }

    /// Can `shape` tiles plus `jg` jokers be split into groups?
    #[inline]
    pub(crate) fn feasible(&mut self, shape: Shape, jg: usize) -> bool {
        let i = shape as usize * (self.jokers + 1) + jg;
        match self.cache.get(i) {
            Some(1) => false,
            Some(2) => true,
            Some(_) => {
                let answer = self.search(shape, jg);
                if let Some(slot) = self.cache.get_mut(i) {
                    *slot = if answer { 2 } else { 1 };
                }
                answer
            }
            None => false,
        }
    }

    fn shape_of(&self, g: &[usize]) -> Option<Shape> {
        let mut shape = 0;
        for &v in g {
            if v > self.copies {
                return None;
            }
            shape = shape_add(shape, v);
        }
        Some(shape)
    }

    /// Sizes a group may have, given how many jokers it holds.
    fn size_ok(&self, size: usize, jokers: usize) -> bool {
        size >= self.min_len
            && size <= self.colours
            && (!self.restricted || jokers == 0 || size == self.min_len)
    }

    fn jokers_only(&self, jg: usize) -> bool {
        // Groups made of jokers alone.
        let mut ok = vec![false; jg + 1];
        ok[0] = true;
        for n in 1..=jg {
            ok[n] = (1..=n).any(|size| self.size_ok(size, size) && ok[n - size]);
        }
        ok[jg]
    }

    fn search(&mut self, shape: Shape, jg: usize) -> bool {
        // Expand the shape into per-colour counts, largest first.
        let mut g: Vec<usize> = Vec::with_capacity(self.colours);
        for v in (1..=self.copies).rev() {
            let n = (shape >> (4 * (v - 1))) & 15;
            g.extend(std::iter::repeat_n(v, n as usize));
        }
        if g.len() > self.colours {
            return false;
        }
        if g.is_empty() {
            return self.jokers_only(jg);
        }
        let others = g.len() - 1;
        for mask in 0u32..(1 << others) {
            let members = 1 + mask.count_ones() as usize;
            for k in 0..=jg {
                if !self.size_ok(members + k, k) {
                    continue;
                }
                let mut rest = g.clone();
                rest[0] -= 1;
                for (i, slot) in rest.iter_mut().skip(1).enumerate() {
                    if mask & (1 << i) != 0 {
                        *slot -= 1;
                    }
                }
                rest.retain(|&v| v > 0);
                if let Some(sub) = self.shape_of(&rest) {
                    if self.feasible(sub, jg - k) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Splits `g[c]` tiles of each colour `c` and `jg` jokers into groups.
    pub(crate) fn plan(&mut self, g: &[usize], jg: usize) -> Option<Vec<GroupPlan>> {
        let mut g = g.to_vec();
        let mut out = Vec::new();
        let mut jg = jg;
        loop {
            let shape = self.shape_of(&g)?;
            if !self.feasible(shape, jg) {
                return None;
            }
            // The colour with the most tiles left joins the next group.
            let Some((first, _)) = g
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0)
                .max_by_key(|(i, &v)| (v, std::cmp::Reverse(*i)))
            else {
                break;
            };
            let others: Vec<usize> = (0..g.len()).filter(|&c| c != first && g[c] > 0).collect();
            let mut chosen = None;
            'search: for mask in 0u32..(1 << others.len()) {
                let members = 1 + mask.count_ones() as usize;
                for k in 0..=jg {
                    if !self.size_ok(members + k, k) {
                        continue;
                    }
                    let mut rest = g.clone();
                    rest[first] -= 1;
                    let mut colours = vec![first];
                    for (i, &c) in others.iter().enumerate() {
                        if mask & (1 << i) != 0 {
                            rest[c] -= 1;
                            colours.push(c);
                        }
                    }
                    if let Some(sub) = self.shape_of(&rest) {
                        if self.feasible(sub, jg - k) {
                            colours.sort_unstable();
                            chosen = Some((rest, GroupPlan { colours, jokers: k }));
                            break 'search;
                        }
                    }
                }
            }
            let (rest, plan) = chosen?;
            jg -= plan.jokers;
            g = rest;
            out.push(plan);
        }
        // Only jokers are left.
        while jg > 0 {
            let size = (1..=jg).rev().find(|&s| {
                self.size_ok(s, s) && {
                    let left = jg - s;
                    left == 0 || self.jokers_only(left)
                }
            })?;
            out.push(GroupPlan {
                colours: Vec::new(),
                jokers: size,
            });
            jg -= size;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(g: &[usize]) -> Shape {
        g.iter().fold(0, |s, &v| shape_add(s, v))
    }

    #[test]
    fn closed_form_without_restriction() {
        // Without the joker restriction, feasibility is: some m with
        // max(g) <= m and m * min_len <= sum + jg <= m * colours.
        let mut groups = Groups::new(3, 4, 2, 2, false);
        for a in 0..=2 {
            for b in 0..=2 {
                for c in 0..=2 {
                    for d in 0..=2 {
                        for jg in 0..=2 {
                            let g = [a, b, c, d];
                            let total = g.iter().sum::<usize>() + jg;
                            let max = *g.iter().max().unwrap();
                            let expect = total == 0
                                || (1..=total)
                                    .any(|m| m >= max && m * 3 <= total && total <= m * 4);
                            assert_eq!(groups.feasible(shape(&g), jg), expect, "{g:?} {jg}");
                            if expect {
                                let plan = groups.plan(&g, jg).unwrap();
                                let used: usize =
                                    plan.iter().map(|p| p.colours.len() + p.jokers).sum();
                                assert_eq!(used, total);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn restricted() {
        let mut groups = Groups::new(3, 4, 2, 2, true);
        // k5 b5 o5 J: a joker in a group of four is redundant.
        assert!(!groups.feasible(shape(&[1, 1, 1, 0]), 1));
        assert!(groups.feasible(shape(&[1, 1, 0, 0]), 1));
        assert!(
            groups.feasible(shape(&[1, 1, 1, 1]), 2) == groups.feasible(shape(&[1, 1, 1, 1]), 2)
        );
        // k5 b5 o5 r5 + J J: {k b J}, {o r J}.
        assert!(groups.feasible(shape(&[1, 1, 1, 1]), 2));
        // k5 b5 o5 r5 + J: impossible.
        assert!(!groups.feasible(shape(&[1, 1, 1, 1]), 1));
    }
}
