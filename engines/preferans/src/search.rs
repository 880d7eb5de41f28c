//! Alpha-beta over whole tricks driven by zero-window questions
//! "can the declarer take at least `target` of the remaining tricks?".
//!
//! The "max side" is the side that wants the answer yes: the declarer in trump and
//! no-trump games, the defenders in misère. Answers are fail-soft bounds on the
//! declarer's tricks (see [`Search::trick_start`]); bounds are stored at trick
//! boundaries only.
//!
//! Each bound comes with the cards whose ranks it relied on ([`Search::relied`]): the
//! winner of every trick of its proof that beat a card of its own suit. Every other
//! step of a proof depends only on what a position's class fixes (see tt.rs): which
//! suits each hand can play, the declarer's cards against the defenders' together
//! (quick bounds, misère pairing), and the defenders' cards above the declarer's
//! lowest. So when a trick start's bound relied on none of its tail cards, it holds
//! for the whole class: mapping each defender's tail cards of a suit onto the other
//! member's in rank order maps every line of play onto one that ends alike, as no
//! trick of the proof was won by one tail card over another. Such a bound is stored
//! as the class's entry. The same mapping shows more: a bound holds for every position
//! that deals the defenders otherwise the tail cards of each suit below the lowest it
//! relied on, each keeping as many. A trick start above needs no more of it: its own
//! tail cards are such a lower part (the declarer's lowest card only rises), and its
//! other cards are above the declarer's lowest there too. So a bound that used a
//! position's own entry relies on the tail cards its reliance word names (see tt.rs:
//! those the entry's own proof relied on), or on all of them when the word is not the
//! entry's; a defender's quick bound on lead in no-trump games relies on all of them
//! (its cashable tricks may be tail cards).
//!
//! The proof plays one card of a group of equivalent cards (cards of one hand with no
//! live card between them, [`rules::representatives`]) for the whole group. The line
//! where another card of the group is played is the same line with the two cards
//! swapped, and its proof relies on the swapped ranks: so when the proof below a card
//! relied on a card of its group, it relies on the whole group
//! ([`Search::play_card`]). A group may join cards across a card played since a trick
//! start above, one a tail card there and one not. Without this rule a proof relying
//! on the higher card stood for lines where the lower one does the same work, and its
//! bound was stored for a class that deals the lower card to either defender. Two
//! cases, both views of `bench preferans --random 60`, all layouts:
//! - `6C`, W leads, `KT*9.Q.AK*JT98.KJ` (seed 11): 36 layouts got 2 tricks where they
//!   take 1. A class entry of the first trick start, proved in one layout by the lead
//!   of the heart jack standing for the ace once the king and queen were played,
//!   served a layout where the jack is the other defender's.
//! - `6H`, E leads, `*KT.A*KJ9.QJT8.AQ` (seed 5): 24 layouts got 4 where they take 3,
//!   after the search no longer grouped a defender's tail cards across a played card.
//!   A position's own entry serves every position of its key (the same holders by rank
//!   among the live cards), wherever the played cards lie: its reliance word, written
//!   where two of its cards were next to each other in the deck, was read where a
//!   trick start above had its tail boundary between them. With the rule, what a bound
//!   relied on is a fact about its position alone.

use super::contract::Strain;
use super::history::History;
use super::position::trump_mask;
use super::quick::{self, Pairing};
use super::rules::{self, seat_after, suit_of, trick_winner};
use super::tt::{self, Entry, Probe, TableHandle, NO_MOVE};

/// Internal description of a position to search (no validation: callers guarantee it).
#[derive(Clone, Copy)]
pub(crate) struct RawPosition<'a> {
    pub hands: [u32; 3],
    /// Cards already in the current trick, in play order.
    pub table: &'a [u8],
    pub leader: usize,
    pub declarer: usize,
}

/// The cards of the trick being played, in play order (only the first `ply` are
/// meaningful).
pub(crate) type Trick = [u8; 3];

/// Mutable search state for one solve; seats are indices 0..3 (N, E, W).
pub(crate) struct Search<'t> {
    pub(super) tt: &'t mut TableHandle,
    pub(super) history: &'t mut History,
    pub(super) hands: [u32; 3],
    /// Cards in hands plus cards on the table in the current trick.
    pub(super) live: u32,
    /// Tricks left, the current one included: what each hand held at its start
    /// (kept here: counting cards costs a dozen instructions on baseline x86-64).
    tricks_left: u32,
    pub(super) leader: usize,
    pub(super) declarer: usize,
    /// The cards on the table when the search started, in play order (only the first
    /// `ply` are meaningful). Inside the search a trick's cards travel as a value
    /// ([`Trick`]), not through this field: a byte store followed by a wider load of
    /// the same bytes stalls the store forwarding.
    pub(super) table: Trick,
    pub(super) trumps: u32,
    pub(super) misere: bool,
    /// Whether class entries are used, as the table handle decides for the strain
    /// ([`TableHandle::class_entries`]): the two must agree, since misère and no-trump
    /// entries take the bucket line where class entries' reliance words go.
    classes: bool,
    /// The [`History`] row each seat's cut-offs count in and its leads are ordered by:
    /// its own, but in misère the two defenders share one. A card a defender leads
    /// well, its partner leads well when it holds it, as it does in other layouts of
    /// an all-foe run. Nodes per layout on the misère views of `bench preferans
    /// --random 60` (20,000 layouts each), against a row each: seed 7 (6 views) 12.4%
    /// fewer in sum, seeds 11, 101, 102, 103 (40 views) 2.5-6.7% fewer, geometric means
    /// 2.7-9.9% fewer, none over 4.1% more; preferansRu5 and Ru6 within 0.4% (all
    /// layouts). In trump and no-trump games the defenders' shared row took 0.2-1.5%
    /// more nodes on seeds 7, 11 and 101, as did a row each for the declarer's misère
    /// leads and follows: 15.1% more on seed 7.
    pub(super) history_rows: [usize; 3],
    pub(super) nodes: u64,
    /// The cards whose ranks the bound last returned relied on (see the module's
    /// documentation).
    relied: u32,
    /// Zero-window searches run by [`Search::exact`].
    pub(super) searches: u64,
}

impl<'t> Search<'t> {
    /// A search of `raw` in `strain`, on a table handle set to that strain
    /// ([`TableHandle::set_strain`]).
    pub fn new(
        tt: &'t mut TableHandle,
        history: &'t mut History,
        raw: RawPosition<'_>,
        strain: Strain,
    ) -> Search<'t> {
        let RawPosition {
            hands,
            table,
            leader,
            declarer,
        } = raw;
        let mut cards = [0u8; 3];
        let mut live = hands[0] | hands[1] | hands[2];
        for (slot, &c) in cards.iter_mut().zip(table) {
            *slot = c;
            live |= 1 << c;
        }
        Search {
            classes: tt.class_entries(),
            history_rows: if strain.is_misere() {
                [0, 1, 2].map(|p| {
                    if p == declarer {
                        p
                    } else {
                        seat_after(declarer, 1)
                    }
                })
            } else {
                [0, 1, 2]
            },
            tt,
            history,
            hands,
            live,
            tricks_left: hands[leader].count_ones() + u32::from(!table.is_empty()),
            leader,
            declarer,
            table: cards,
            trumps: trump_mask(strain),
            misere: strain.is_misere(),
            nodes: 0,
            relied: 0,
            searches: 0,
        }
    }

    /// Whether seat `p` wants the answer yes.
    #[inline]
    pub(super) fn max_side(&self, p: usize) -> bool {
        (p == self.declarer) != self.misere
    }

    /// Exact declarer tricks by repeated zero-window tests, starting near `guess`.
    /// `test(search, t)` answers "declarer tricks >= t?" with a bound `v`: yes and at
    /// least `v` when `v >= t`, no and at most `v` otherwise.
    ///
    /// The order of the tests changes their cost, not the answer. Measured on the ten
    /// standard problems and on random views (nodes):
    /// - in misère, first `guess` itself (at least 1): whether the declarer takes a
    ///   trick at all when the guess is 0, the contract's own question. Asking that
    ///   first whatever the guess cost 2.2% more nodes and 3.4% more time on 13
    ///   random misère views and the four standard ones together (20,000 layouts
    ///   each, paired runs), the random views being where the declarer often takes
    ///   several; on all layouts the four standard problems were equal. Asking
    ///   `guess + 1` first, as in the other games: preferansRu5 253.3 -> 265.3 nodes
    ///   per layout, Ru6 257.9 -> 270.4, solvealldeals1-2 38.6 -> 39.3 (standard
    ///   order, all layouts);
    /// - in trump and no-trump games, first one trick more than `guess`: when the
    ///   value is `guess`, refuting `guess + 1` and then proving `guess` costs less
    ///   than the other way round.
    pub fn exact(
        &mut self,
        mut lo: i32,
        mut hi: i32,
        guess: i32,
        mut test: impl FnMut(&mut Self, i32) -> i32,
    ) -> u8 {
        let mut t = if self.misere { guess.max(1) } else { guess + 1 };
        while lo < hi {
            t = t.clamp(lo + 1, hi);
            self.searches += 1;
            // The test's bound may reach past `t`: one search can settle several.
            let v = test(self, t);
            if v >= t {
                lo = v.min(hi);
                t = lo + 1;
            } else {
                hi = v.max(lo);
                t = hi;
            }
        }
        lo.max(0) as u8
    }

    /// The position with `ply` cards on the table: can the declarer reach `target`?
    /// The answer is a bound (see [`Search::trick_start`]): yes when it is `target` or
    /// more.
    pub fn node(&mut self, ply: usize, target: i32) -> i32 {
        let trick = self.table;
        match ply {
            0 if self.classes => self.trick_start::<true>(target, None),
            0 => self.trick_start::<false>(target, None),
            1 if self.classes => self.follow::<1, true>(target, trick),
            1 => self.follow::<1, false>(target, trick),
            _ if self.classes => self.follow::<2, true>(target, trick),
            _ => self.follow::<2, false>(target, trick),
        }
    }

    /// Plays `card` as the `ply`-th card of the trick and searches on.
    pub fn play(&mut self, ply: usize, card: u8, target: i32) -> i32 {
        let trick = self.table;
        match ply {
            0 if self.classes => self.play_card::<0, true>(card, target, trick, None),
            0 => self.play_card::<0, false>(card, target, trick, None),
            1 if self.classes => self.play_card::<1, true>(card, target, trick, None),
            1 => self.play_card::<1, false>(card, target, trick, None),
            _ if self.classes => self.play_card::<2, true>(card, target, trick, None),
            _ => self.play_card::<2, false>(card, target, trick, None),
        }
    }

    /// A trick start is the one recursive function: the follows and plays of a trick
    /// are inlined into it, one copy per ply, so a trick runs without calls.
    ///
    /// "Can the declarer take `target` of the remaining tricks?", answered fail-soft
    /// with a bound `v` on the declarer's tricks: yes and at least `v` when
    /// `v >= target`, no and at most `v` otherwise. A bound past `target` is stored,
    /// and settles later questions about this position with other targets.
    #[inline(never)]
    fn trick_start<const CLASSES: bool>(
        &mut self,
        target: i32,
        known_entries: Option<Entries>,
    ) -> i32 {
        self.nodes += 1;
        self.rely::<CLASSES>(0);
        let leader = self.leader;
        let n = self.tricks_left as i32;
        if target <= 0 {
            return 0;
        }
        if target > n {
            return n;
        }
        if n == 1 {
            return i32::from(self.last_trick());
        }
        // The misère pairing test is cheap and often decides: it runs before the key
        // is computed. The covering test and the trump bounds cost more and overlap
        // the table prefetch. Measured and not kept: answering target 1 at once when
        // the declarer must take the trick about to start (a defender leads a suit
        // below the declarer's lowest card of it and the partner's lowest; or the
        // declarer, on lead, has no suit where a defender must beat its lowest):
        // 2.9% more nodes on the six misère views of `bench preferans --random 60
        // --seed 7` (10,000 layouts each), as the searches it saved fed the history;
        // for the declarer's lead alone, 6.5% more.
        let mut unpaired = 0;
        if self.misere {
            match quick::misere_pairing(&self.hands, leader, self.declarer) {
                Pairing::Clean => return 0,
                Pairing::Unpaired(suits) => unpaired = suits,
                Pairing::Open => {}
            }
        }
        // The cards a bound from this position's own entry may have relied on, for a
        // trick start above it: its tail cards (its other cards are above the
        // declarer's lowest there too). Found once for the class key too: 1.7-2.3%
        // fewer instructions on preferansRu1, solvealldeals3 and a random trump view.
        let tail = if CLASSES {
            tt::tail_cards(self.hands[self.declarer], self.live)
        } else {
            0
        };
        // Two-trick positions do without the table: searching one costs little more
        // than a probe, and it tells which cards it relied on, where a position's own
        // entry would count all its tail cards against every trick start above it.
        let entries = if CLASSES && n == 2 {
            None
        } else {
            Some(known_entries.unwrap_or_else(|| {
                let e = self.table_entries::<CLASSES>(&self.hands, leader, tail);
                self.prefetch::<CLASSES>(&e);
                e
            }))
        };
        if unpaired != 0
            && quick::covered(
                &self.hands,
                self.declarer,
                unpaired,
                leader == self.declarer,
            )
        {
            return 0;
        }
        // What is known before searching: quick-trick bounds, then the table's.
        let (mut lo, mut hi) = (0, n);
        let mut relied = 0;
        if !self.misere {
            if self.trumps == 0 && leader != self.declarer {
                // A defender's cashable tricks may be tail cards.
                relied = tail;
            }
            let (q_lo, q_hi) = quick::bounds(
                &self.hands,
                self.tricks_left,
                self.leader,
                self.declarer,
                self.trumps,
            );
            (lo, hi) = (q_lo as i32, q_hi as i32);
            if lo >= target || hi < target {
                self.rely::<CLASSES>(relied);
                return if lo >= target { lo } else { hi };
            }
        }
        let mut best = NO_MOVE;
        if let Some(entries) = entries {
            // The class's entry first: when it settles the question, the answer relies
            // on no tail card.
            let class = if CLASSES {
                self.tt.probe(entries.class)
            } else {
                None
            };
            if let Some(answer) = narrow(class, target, &mut lo, &mut hi, &mut best) {
                self.rely::<CLASSES>(relied);
                return answer;
            }
            let own = if CLASSES {
                self.tt.probe_own(entries.own, tail).map(|(probe, cards)| {
                    relied |= cards;
                    probe
                })
            } else {
                self.tt.probe(entries.own)
            };
            if let Some(answer) = narrow(own, target, &mut lo, &mut hi, &mut best) {
                self.rely::<CLASSES>(relied);
                return answer;
            }
        }
        // Whether the declarer takes one trick more, settled on the cards where the table
        // has not. In contracts the declarer goes down in by many tricks, half the nodes
        // proved that it takes the one trick it does (`6C`, E leads, `J8.*AJT8.A*Q97.J7`:
        // 509 nodes per such search, 64% of all). With this test, nodes per layout on
        // 87 random trump and no-trump views (seeds 101-105 of `bench preferans
        // --random`, 20,000 layouts each): 8.1% fewer in sum, 7.2% in geometric mean,
        // none over 10% more. On all 50,000 layouts of that view 271.2 -> 138.4 (44% fewer
        // instructions), of `6H`, W leads, `KQ98.T7.*87.J9*87` 69.8 -> 38.7 (37% fewer),
        // of `6NT`, W leads, `T8.KT87.KT9.*K*Q7` 414.8 -> 348.3 (12% fewer); the standard
        // problems +0.1-0.2% instructions. The declarer's top cards alone (no card behind
        // the defender's higher ones) took 1.5% more nodes on the 87 views. Run before the
        // table's probes, the test saved less (the no-trump view: 2.1% of the instructions
        // against 5.4% after them): the table mostly answers first.
        // The same question, against a defender who keeps the lead to the end: its
        // partner can neither beat nor ruff what it leads. Nodes per layout on random
        // trump and no-trump views (a scratch generator's 60 views a seed, misère views
        // aside, 10,000 layouts each), geometric means: seeds 7 and 101 trump 7.2%
        // fewer, no-trump 12.4%; seed 11 trump 7.0%, no-trump 22.4%; one view over 5% more
        // (`6H`, W leads, `*AKT987.*A.QJ97.T`: 27.0 -> 38.2; on all layouts 49.6 ->
        // 54.2). All layouts: preferansRu1 79.7 -> 75.7, Ru7 523.3 -> 510.4,
        // solvealldeals3 81.7 -> 81.3, the other trump problems equal. Instructions
        // (callgrind, 5,000 layouts): `6NT`, W leads, `T8.KT87.KT9.*K*Q7` 40% fewer,
        // `6H`, W leads, `KQ98.T7.*87.J9*87` 9.1%, Ru7 5.3%, solvealldeals3 1.1%, Ru4
        // 0.5%.
        if target == 1
            && !self.misere
            && leader != self.declarer
            && (quick::declarer_wins_a_forced_lead(&self.hands, self.declarer)
                || quick::declarer_wins_a_stranded_lead(
                    &self.hands,
                    leader,
                    self.declarer,
                    self.trumps,
                    tail,
                ))
        {
            self.rely::<CLASSES>(0);
            return 1;
        }
        let max = self.max_side(leader);
        let moves = self.ordered_moves(0, leader, best, [0; 3], unpaired);
        let mut v = if max { 0 } else { n };
        for (tried, &card) in moves.as_slice().iter().enumerate() {
            let child = self.play_card::<0, CLASSES>(card, target, [0; 3], None);
            relied |= self.relied;
            if (child >= target) == max {
                v = child;
                best = card;
                self.history
                    .record(self.history_rows[leader], card, self.cut_weight(n as u32));
                // The leads tried before it lose two doublings of their counts, outside
                // misère: else a lead that once gathered cut-offs stays first long after
                // others serve better, as each of its cut-offs adds to its count (the
                // ordering's cost then depends on where a run of layouts started). Nodes
                // per layout against none: on `bench preferans --random 60 --seed 7
                // --layouts 10000` trump views 13.0% fewer in geometric mean, no-trump
                // 8.8% (3 of 54 views over 5% more, 39 over 5% fewer); seed 11, 40
                // views: trump 7.4%, no-trump 13.2% fewer. All layouts: preferansRu4
                // 109.3 -> 58.2, Ru1 112.2 -> 79.7, solvealldeals3 107.5 -> 81.7, Ru3
                // 17.1 -> 15.7, solvealldeals2 14.6 -> 15.1, Ru7 508.0 -> 523.3.
                // Halving: about as good (trump 1% less, Ru7 unchanged); to zero: Ru7
                // 605.1. Not in misère, where the history leads and every cut-off weighs
                // 1: on its ten views (20,000 layouts each) taking a sixteenth of the count
                // took 29% more nodes in sum, a quarter 43%; halving, 36% more in geometric
                // mean on the random misère views; one less, 1.7% fewer in sum, mixed.
                if !self.misere {
                    for &earlier in &moves.as_slice()[..tried] {
                        self.history.demote(self.history_rows[leader], earlier);
                    }
                }
                break;
            }
            v = if max { v.max(child) } else { v.min(child) };
        }
        // The answer narrows the bound on its side; both are stored.
        let answer = if v >= target {
            lo = v.max(lo);
            lo
        } else {
            hi = v.min(hi);
            hi
        };
        if let Some(entries) = entries {
            let (entry, code) = if CLASSES && relied & tail == 0 {
                (entries.class, None)
            } else {
                (entries.own, CLASSES.then(|| tt::relied_code(relied, tail)))
            };
            #[cfg(test)]
            if CLASSES {
                // What a later read counts: none for the class's entry, the reliance
                // word's cards for its own.
                let read = code.map_or(0, |code| tt::relied_cards(code, tail));
                tests::check_stored_bound(self, lo, hi, tail, read);
            }
            self.tt
                .store(entry, n as u8, lo as u8, hi as u8, best, code);
        }
        self.rely::<CLASSES>(relied);
        answer
    }

    /// The second (`PLY` 1) or third (`PLY` 2) card of a trick.
    #[inline(always)]
    fn follow<const PLY: usize, const CLASSES: bool>(&mut self, target: i32, trick: Trick) -> i32 {
        self.nodes += 1;
        let p = seat_after(self.leader, PLY);
        let max = self.max_side(p);
        let moves = self.ordered_moves(PLY, p, NO_MOVE, trick, 0);
        let mut entries = [None; 10];
        if !CLASSES
            && p != self.declarer
            && PLY == 2
            && moves.as_slice().len() > 1
            && self.tricks_left > 2
        {
            // A defender's last card: mostly every one gets tried (on random misère
            // views 2.4 of 2.9 on average, the declarer's 1.1 of 2.6), so the table
            // buckets of all the next trick starts load at once. Paired runs, both on
            // one machine at once: without it misère views take 8% longer; for the
            // declarer's last cards too, 3% longer (no-trump views 4%).
            // Not in trump games (class searches), where two keys a trick start cost
            // more than the wait they hide: 44 random trump views 32.3 s against 33.9 s,
            // the five trump problems 18.3 s against 19.4 s.
            // Not for a trick start whose question answers itself, which never probes:
            // 3.5% less CPU on a random no-trump view (`T8.KT87.KT9.*K*Q7`, medians of
            // 5 paired runs); on preferansRu7 and Ru5 within the noise.
            for (slot, &card) in entries.iter_mut().zip(moves.as_slice()) {
                let trick = [trick[0], trick[1], card];
                let winner = seat_after(self.leader, trick_winner(trick, self.trumps));
                if !self.answers_itself_after(target, winner) {
                    let e = self.entries_after_last_card::<CLASSES>(p, trick, winner);
                    self.prefetch::<CLASSES>(&e);
                    *slot = Some(e);
                }
            }
        }
        // Fail-soft as at a trick start: the best bound of the cards tried.
        let mut v = if max { 0 } else { self.tricks_left as i32 };
        let mut relied = 0;
        for (&card, &next) in moves.as_slice().iter().zip(&entries) {
            // Only a defender's last card in a search without classes prefetches. In the
            // others the array's Nones go unread, so it is never filled.
            let next = if CLASSES || PLY < 2 { None } else { next };
            let child = self.play_card::<PLY, CLASSES>(card, target, trick, next);
            if (child >= target) == max {
                // Only misère records a follow's cut-off: outside it the follows are
                // ordered by rank alone, and the counts of the cards a seat followed
                // with only misled the ordering of its leads. Not recording them: 7.1%
                // fewer nodes on 51 random trump and no-trump views (20,000 layouts
                // each); on all layouts preferansRu1 27% fewer, Ru3 25%, Ru4 9.5%,
                // Ru7 2.9%, solvealldeals2 29%, solvealldeals3 0.7% more. In misère,
                // the defenders' follows not recorded: as many nodes in sum, 6 of 30
                // random views over 10% more.
                if self.misere {
                    self.history.record(
                        self.history_rows[p],
                        card,
                        self.cut_weight(self.tricks_left),
                    );
                }
                return child;
            }
            relied |= self.relied;
            v = if max { v.max(child) } else { v.min(child) };
        }
        self.rely::<CLASSES>(relied);
        v
    }

    /// What a cut-off with `tricks` tricks left adds to its card's history count: in
    /// misère one (every cut-off alike), elsewhere (leads only) `tricks` squared.
    /// Weighing misère's cut-offs alike took Ru5 403.0 -> 394.6 and Ru6 413.3 -> 396.6
    /// nodes per layout, and 7 random misère views 4.2% fewer nodes; in trump games it
    /// cost sd3 5.6%.
    #[inline(always)]
    fn cut_weight(&self, tricks: u32) -> u32 {
        if self.misere {
            1
        } else {
            tricks * tricks
        }
    }

    /// The table entries of the trick start after `p` completes `trick` with its last card,
    /// won by `winner`.
    #[inline(always)]
    fn entries_after_last_card<const CLASSES: bool>(
        &self,
        p: usize,
        trick: Trick,
        winner: usize,
    ) -> Entries {
        let mut hands = self.hands;
        hands[p] &= !(1u32 << trick[2]);
        let tail = if CLASSES {
            let live = self.live & !(1u32 << trick[0] | 1u32 << trick[1] | 1u32 << trick[2]);
            tt::tail_cards(hands[self.declarer], live)
        } else {
            0
        };
        self.table_entries::<CLASSES>(&hands, winner, tail)
    }

    /// Whether the question of the trick start after a trick won by `winner` answers
    /// itself, with nothing left to reach or more than the tricks left (the first
    /// tests of [`Search::trick_start`]).
    #[inline(always)]
    fn answers_itself_after(&self, target: i32, winner: usize) -> bool {
        let rest = target - i32::from(winner == self.declarer);
        rest <= 0 || rest > self.tricks_left as i32 - 1
    }

    /// The table entries of the trick start with `hands` and `leader` on lead, and
    /// `tail` its [`tt::tail_cards`] (only read in searches with class entries).
    #[inline(always)]
    fn table_entries<const CLASSES: bool>(
        &self,
        hands: &[u32; 3],
        leader: usize,
        tail: u32,
    ) -> Entries {
        let rel = [
            hands[leader],
            hands[seat_after(leader, 1)],
            hands[seat_after(leader, 2)],
        ];
        let declarer_rel = seat_after(self.declarer, 3 - leader) as u8;
        if CLASSES {
            let (own, class) = tt::keys(rel, declarer_rel.into(), tail);
            Entries {
                own: Entry::new(own, declarer_rel),
                class: Entry::new(class, declarer_rel + tt::CLASS),
            }
        } else {
            let own = Entry::new(tt::key(rel), declarer_rel);
            Entries { own, class: own }
        }
    }

    /// Starts loading the buckets of a trick start about to be probed.
    #[inline(always)]
    fn prefetch<const CLASSES: bool>(&self, entries: &Entries) {
        if CLASSES {
            self.tt.prefetch(entries.class, false);
        }
        self.tt.prefetch(entries.own, CLASSES);
    }

    /// Plays `card` as the `PLY`-th card of the trick and searches on.
    #[inline(always)]
    fn play_card<const PLY: usize, const CLASSES: bool>(
        &mut self,
        card: u8,
        target: i32,
        mut trick: Trick,
        next_entries: Option<Entries>,
    ) -> i32 {
        let p = seat_after(self.leader, PLY);
        let bit = 1u32 << card;
        self.hands[p] &= !bit;
        trick[PLY] = card;
        let r = match PLY {
            0 => self.follow::<1, CLASSES>(target, trick),
            1 => self.follow::<2, CLASSES>(target, trick),
            _ => self.finish_trick::<CLASSES>(target, trick, next_entries),
        };
        self.hands[p] |= bit;
        // The card stood for its group: the proof holds for any of them played, with
        // the ranks it relied on swapped alike (see the module's documentation). Only a
        // defender's cards can be tail cards.
        if CLASSES && p != self.declarer && self.relied & self.hands[p] != 0 {
            let through = self.hands[p] | !self.separators(PLY, trick);
            let group = rules::fill_up_suits(bit, through) & self.hands[p];
            if self.relied & group != 0 {
                self.relied |= group;
            }
        }
        r
    }

    #[inline(always)]
    fn finish_trick<const CLASSES: bool>(
        &mut self,
        target: i32,
        trick: Trick,
        next_entries: Option<Entries>,
    ) -> i32 {
        let saved_leader = self.leader;
        let saved_live = self.live;
        let winning = trick_winner(trick, self.trumps);
        let winner = seat_after(self.leader, winning);
        self.live &= !((1u32 << trick[0]) | (1u32 << trick[1]) | (1u32 << trick[2]));
        self.leader = winner;
        self.tricks_left -= 1;
        let won = i32::from(winner == self.declarer);
        let r = self.trick_start::<CLASSES>(target - won, next_entries) + won;
        if CLASSES {
            self.relied |= ranked_winner(trick, winning);
        }
        self.tricks_left += 1;
        self.leader = saved_leader;
        self.live = saved_live;
        r
    }

    /// Sets what the bound about to be returned relied on: tracked only by searches
    /// that use class entries.
    #[inline(always)]
    fn rely<const CLASSES: bool>(&mut self, cards: u32) {
        if CLASSES {
            self.relied = cards;
        }
    }

    /// One card each: the play is forced. Called with target == 1.
    fn last_trick(&mut self) -> bool {
        let l = self.leader;
        let cards = [
            self.hands[l].trailing_zeros() as u8,
            self.hands[seat_after(l, 1)].trailing_zeros() as u8,
            self.hands[seat_after(l, 2)].trailing_zeros() as u8,
        ];
        let winning = trick_winner(cards, self.trumps);
        self.relied = ranked_winner(cards, winning);
        seat_after(l, winning) == self.declarer
    }

    /// Legal cards of seat `p` at `ply` of `trick`, one per group of equivalent cards.
    #[inline(always)]
    pub(super) fn representatives(&self, ply: usize, p: usize, trick: Trick) -> u32 {
        let led = if ply == 0 { None } else { Some(trick[0]) };
        let hand = self.hands[p];
        let legal = rules::legal(hand, led, self.trumps);
        rules::representatives(legal, hand, self.separators(ply, trick))
    }

    /// The cards that keep two cards of one hand from being equivalent when they lie
    /// between them, at `ply` of `trick`: the live cards but the losing table card of
    /// the trick's last play.
    #[inline(always)]
    fn separators(&self, ply: usize, trick: Trick) -> u32 {
        if ply < 2 {
            return self.live;
        }
        // The last card of a trick: the table card that is not winning leaves with the
        // trick and no longer separates two cards. The winning card stays in `live`, so
        // two cards grouped here also win or lose this trick alike.
        let losing = if rules::beats(trick[1], trick[0], self.trumps) {
            trick[0]
        } else {
            trick[1]
        };
        self.live & !(1u32 << losing)
    }
}

/// Narrows `lo..=hi` and takes the best move by what a probe found; the answer, when
/// that settles the question "at least `target`?".
#[inline(always)]
fn narrow(
    found: Option<Probe>,
    target: i32,
    lo: &mut i32,
    hi: &mut i32,
    best: &mut u8,
) -> Option<i32> {
    let p = found?;
    *lo = (*lo).max(i32::from(p.lo));
    *hi = (*hi).min(i32::from(p.hi));
    *best = p.best;
    if *lo >= target {
        Some(*lo)
    } else if *hi < target {
        Some(*hi)
    } else {
        None
    }
}

/// The two table entries of a trick start: its own and its class's (see tt.rs; the
/// own entry again when the search uses no class entries). 16 bytes, and so is an
/// `Option` of it: it travels in registers through the plays of a trick.
#[derive(Clone, Copy)]
pub(super) struct Entries {
    own: Entry,
    class: Entry,
}

/// The winning card (`trick[winning]`) of a complete trick, as a card set, when it
/// beat a card of its own suit: its rank decided the trick. Otherwise none (a trump
/// over side cards, or the only card of the suit led, wins whatever its rank).
#[inline(always)]
fn ranked_winner(trick: Trick, winning: usize) -> u32 {
    let winner = trick[winning];
    let suit = suit_of(winner);
    let same_suit = u32::from(suit_of(trick[0]) == suit)
        + u32::from(suit_of(trick[1]) == suit)
        + u32::from(suit_of(trick[2]) == suit);
    u32::from(same_suit >= 2) << winner
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::super::history::History;
    use super::super::quick::tests::minimax;
    use super::super::rules;
    use super::super::tt::{self, Table, TableHandle};
    use super::{trump_mask, RawPosition, Search, Strain};
    use crate::Suit;

    /// Strain `0..6`: suits 0..3 trumps, 4 no trumps, 5 misère.
    pub(in super::super) fn test_strain(n: u32) -> Strain {
        match n {
            0..4 => Strain::Trump(Suit::ALL[n as usize]),
            4 => Strain::NoTrump,
            _ => Strain::Misere,
        }
    }

    /// A table handle of its own, set to `strain`.
    pub(in super::super) fn table_for(strain: Strain) -> TableHandle {
        let mut tt = TableHandle::new(Arc::new(Table::new(1 << 16)));
        tt.set_strain(strain);
        tt
    }

    /// A random position: `n` cards each from a shuffled 32-card deck, the first
    /// `ply` seats of the trick having played a legal card (the rest keep `n`).
    pub(in super::super) fn position(
        deck: &[u8],
        n: usize,
        ply: usize,
        leader: usize,
        trumps: u32,
    ) -> ([u32; 3], Vec<u8>) {
        let mut hands = [0u32; 3];
        for (i, &c) in deck[..3 * n].iter().enumerate() {
            hands[i % 3] |= 1 << c;
        }
        let mut table = Vec::new();
        for k in 0..ply {
            let p = (leader + k) % 3;
            let legal = rules::legal(hands[p], table.first().copied(), trumps);
            // The highest legal card: any legal card will do.
            let c = legal.trailing_zeros() as u8;
            hands[p] &= !(1 << c);
            table.push(c);
        }
        (hands, table)
    }

    /// Runs `f` on a fresh search (its own table and history) of `raw`.
    pub(in super::super) fn with_search<R>(
        raw: RawPosition<'_>,
        strain: Strain,
        f: impl FnOnce(&mut Search<'_>) -> R,
    ) -> R {
        let mut tt = table_for(strain);
        let mut history = History::default();
        f(&mut Search::new(&mut tt, &mut history, raw, strain))
    }

    thread_local! {
        /// How many positions [`check_stored_bound`] checks each stored bound on: 0
        /// (off) but in the test that turns it on, on its own thread.
        static MATES_CHECKED: Cell<u64> = const { Cell::new(0) };
    }

    /// Called as `search` stores the bound `lo..=hi` of its trick start, whose tail cards
    /// are `tail`, as relying on the tail cards `relied` (none for a class's entry; for
    /// its own, those a later read of its reliance word counts): checks, when a test
    /// asked for it ([`MATES_CHECKED`]), that it holds by plain minimax on positions
    /// that deal the defenders otherwise each suit's tail cards below the lowest
    /// relied on (see the module's documentation).
    pub(in super::super) fn check_stored_bound(
        search: &Search<'_>,
        lo: i32,
        hi: i32,
        tail: u32,
        relied: u32,
    ) {
        let mates = MATES_CHECKED.get();
        if mates == 0 {
            return;
        }
        let redealt = tail & !rules::fill_up_suits(relied, u32::MAX);
        for k in 0..mates {
            let seed = search.nodes * mates + k;
            let mate = mate_over(search.hands, search.declarer, redealt, seed);
            let value = minimax(
                &mut mate.clone(),
                search.leader,
                search.declarer,
                search.trumps,
            );
            assert!(
                (lo..=hi).contains(&(value as i32)),
                "the bound {lo}..={hi} of {:x?} ({} leads, declarer {}, relying on {relied:x} \
                 of its tail {tail:x}) fails {mate:x?}, worth {value}",
                search.hands,
                search.leader,
                search.declarer,
            );
        }
    }

    /// A member of the class of `hands` (see tt.rs): each suit's tail cards dealt anew
    /// between the two defenders, each keeping as many, in an order drawn from `seed`.
    pub(in super::super) fn class_mate(hands: [u32; 3], declarer: usize, seed: u64) -> [u32; 3] {
        let live = hands[0] | hands[1] | hands[2];
        mate_over(hands, declarer, tt::tail_cards(hands[declarer], live), seed)
    }

    /// `hands` with the defenders' cards of `redealt` dealt anew between them, each
    /// keeping as many of each suit, in an order drawn from `seed`.
    fn mate_over(hands: [u32; 3], declarer: usize, redealt: u32, mut seed: u64) -> [u32; 3] {
        let (d1, d2) = ((declarer + 1) % 3, (declarer + 2) % 3);
        let mut mate = hands;
        mate[d1] &= !redealt;
        mate[d2] &= !redealt;
        for s in 0..4 {
            let suit_part = redealt & (0xff << (8 * s));
            let mut cards: Vec<u32> = (0..32).filter(|&c| suit_part & (1 << c) != 0).collect();
            for i in (1..cards.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                cards.swap(i, (seed >> 33) as usize % (i + 1));
            }
            let first = (hands[d1] & suit_part).count_ones() as usize;
            for (i, &c) in cards.iter().enumerate() {
                mate[if i < first { d1 } else { d2 }] |= 1 << c;
            }
        }
        mate
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Whatever the guess, `exact` finds what a plain scan of the zero-window
        /// tests finds: the most tricks the declarer can reach (its order of tests
        /// differs by strain and guess; the value must not).
        #[test]
        fn exact_is_the_same_from_every_guess(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 1usize..=6,
            leader in 0usize..3,
            declarer in 0usize..3,
            strain in 0u32..6,
        ) {
            let strain = test_strain(strain);
            let trumps = trump_mask(strain);
            let (hands, _) = position(&deck, n, 0, leader, trumps);
            let raw = RawPosition { hands, table: &[], leader, declarer };
            let n = n as i32;
            let scanned = with_search(raw, strain, |s| {
                (1..=n).take_while(|&t| s.node(0, t) >= t).count() as u8
            });
            for guess in 0..=n {
                let exact = with_search(raw, strain, |s| {
                    s.exact(0, n, guess, |s, t| s.node(0, t))
                });
                prop_assert_eq!(exact, scanned, "guess {}", guess);
            }
        }

        /// Every bound a search stores holds where the module's documentation says: a
        /// class's for its class, a position's own for every position that deals the
        /// defenders otherwise the tail cards below those it relied on. Checked against
        /// plain minimax on two such positions as each is stored. Without the proof's
        /// reliance on tail cards (`ranked_winner` always none) this fails at once.
        /// It does not catch either fault of the module's documentation, which show
        /// only in larger positions: the all-layout tests of tests/standard.rs do.
        #[test]
        fn every_stored_bound_holds_where_it_claims(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 2usize..=6,
            leader in 0usize..3,
            declarer in 0usize..3,
            trump_suit in 0u32..4,
        ) {
            let strain = test_strain(trump_suit);
            let (hands, _) = position(&deck, n, 0, leader, trump_mask(strain));
            let raw = RawPosition { hands, table: &[], leader, declarer };
            let n = n as i32;
            MATES_CHECKED.set(2);
            with_search(raw, strain, |s| s.exact(0, n, 0, |s, t| s.node(0, t)));
            MATES_CHECKED.set(0);
        }

        /// The entries one position leaves for its class (see tt.rs) hold for another
        /// member: solved after the first on one table, it gets the value it gets alone.
        #[test]
        fn class_entries_hold_for_every_member(
            deck in Just((0u8..32).collect::<Vec<u8>>()).prop_shuffle(),
            n in 2usize..=7,
            leader in 0usize..3,
            declarer in 0usize..3,
            trump_suit in 0u32..4,
            seed: u64,
        ) {
            let strain = test_strain(trump_suit);
            let trumps = trump_mask(strain);
            let (hands, _) = position(&deck, n, 0, leader, trumps);
            let mate = class_mate(hands, declarer, seed);
            let raw = |hands| RawPosition { hands, table: &[], leader, declarer };
            let n = n as i32;
            let alone = with_search(raw(mate), strain, |s| {
                s.exact(0, n, 0, |s, t| s.node(0, t))
            });
            let mut tt = table_for(strain);
            let mut history = History::default();
            for hands in [hands, mate] {
                let mut search = Search::new(&mut tt, &mut history, raw(hands), strain);
                let value = search.exact(0, n, 0, |s, t| s.node(0, t));
                if hands == mate {
                    prop_assert_eq!(value, alone);
                }
            }
        }
    }
}
