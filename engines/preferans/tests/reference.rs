//! The engine against a plain minimax written here (no table, no pruning, no card
//! equivalence, its own trick rules), on random small deals: every strain, any
//! declarer and leader, 0..=2 cards already in the trick; fresh and warm solvers.

use std::cell::RefCell;

use deckhand_preferans::{BySeat, Card, Cards, Position, Seat, Solver, Strain, Suit};
use proptest::prelude::*;

/// Cards on the table: (seat, (suit, rank)).
type Trick = Vec<(usize, (u8, u8))>;

/// Independent reference model: cards as (suit, rank) with rank 0 = ace.
#[derive(Clone)]
struct Reference {
    hands: [Vec<(u8, u8)>; 3],
    trump: Option<u8>,
    misere: bool,
    declarer: usize,
}

impl Reference {
    fn legal(&self, seat: usize, trick: &[(usize, (u8, u8))]) -> Vec<(u8, u8)> {
        let hand = &self.hands[seat];
        let Some(&(_, (led, _))) = trick.first() else {
            return hand.clone();
        };
        let follow: Vec<_> = hand.iter().copied().filter(|c| c.0 == led).collect();
        if !follow.is_empty() {
            return follow;
        }
        let trumps: Vec<_> = hand
            .iter()
            .copied()
            .filter(|c| Some(c.0) == self.trump)
            .collect();
        if !trumps.is_empty() {
            return trumps;
        }
        hand.clone()
    }

    fn winner(&self, trick: &[(usize, (u8, u8))]) -> usize {
        let led = trick[0].1 .0;
        // Strength: trumps over the led suit over the rest; higher card (lower rank) first.
        let strength = |c: (u8, u8)| {
            let class = if Some(c.0) == self.trump {
                2
            } else if c.0 == led {
                1
            } else {
                0
            };
            class * 100 + (10 - c.1 as i32)
        };
        trick
            .iter()
            .max_by_key(|(_, c)| strength(*c))
            .map(|(s, _)| *s)
            .unwrap()
    }

    /// Declarer tricks from the current trick to the end under minimax play.
    fn value(&mut self, leader: usize, trick: &mut Trick) -> u32 {
        if trick.len() == 3 {
            let w = self.winner(trick);
            let saved = std::mem::take(trick);
            let v = u32::from(w == self.declarer) + self.value(w, trick);
            *trick = saved;
            return v;
        }
        let seat = (leader + trick.len()) % 3;
        if trick.is_empty() && self.hands[seat].is_empty() {
            return 0;
        }
        let wants_more = (seat == self.declarer) != self.misere;
        let mut best: Option<u32> = None;
        for card in self.legal(seat, trick) {
            let v = self.value_after(leader, trick, seat, card);
            best = Some(match best {
                None => v,
                Some(b) if wants_more => b.max(v),
                Some(b) => b.min(v),
            });
        }
        best.unwrap()
    }

    fn value_after(
        &mut self,
        leader: usize,
        trick: &mut Trick,
        seat: usize,
        card: (u8, u8),
    ) -> u32 {
        let i = self.hands[seat].iter().position(|&c| c == card).unwrap();
        self.hands[seat].remove(i);
        trick.push((seat, card));
        let v = self.value(leader, trick);
        trick.pop();
        self.hands[seat].insert(i, card);
        v
    }
}

fn to_card(c: (u8, u8)) -> Card {
    Card::from_id(c.0 * 8 + c.1).unwrap()
}

fn strain_of(i: u8) -> Strain {
    match i {
        0..=3 => Strain::Trump(Suit::ALL[i as usize]),
        4 => Strain::NoTrump,
        _ => Strain::Misere,
    }
}

/// A random case: `n` tricks left, `k` cards already on the table.
#[derive(Debug, Clone)]
struct Case {
    strain: u8,
    n: usize,
    k: usize,
    declarer: usize,
    leader: usize,
    deck: Vec<u8>,
    picks: [u8; 2],
}

fn case(max_n: usize) -> impl Strategy<Value = Case> {
    (
        0u8..6,
        2usize..=max_n,
        0usize..=2,
        0usize..3,
        0usize..3,
        Just((0u8..32).collect::<Vec<_>>()).prop_shuffle(),
        any::<[u8; 2]>(),
    )
        .prop_map(|(strain, n, k, declarer, leader, deck, picks)| Case {
            strain,
            n,
            k,
            declarer,
            leader,
            deck,
            picks,
        })
}

/// Builds the reference model, the engine position and the played cards of a case.
fn build(case: &Case) -> (Reference, Trick, Position) {
    let strain = strain_of(case.strain);
    let mut reference = Reference {
        hands: [Vec::new(), Vec::new(), Vec::new()],
        trump: strain.trump().map(|s| s.index() as u8),
        misere: strain == Strain::Misere,
        declarer: case.declarer,
    };
    for (i, &id) in case.deck.iter().take(3 * case.n).enumerate() {
        reference.hands[i % 3].push((id / 8, id % 8));
    }
    let mut trick = Vec::new();
    for j in 0..case.k {
        let seat = (case.leader + j) % 3;
        let legal = reference.legal(seat, &trick);
        let card = legal[case.picks[j] as usize % legal.len()];
        let i = reference.hands[seat]
            .iter()
            .position(|&c| c == card)
            .unwrap();
        reference.hands[seat].remove(i);
        trick.push((seat, card));
    }
    let hands = BySeat::from_fn(|s| {
        reference.hands[s.index()]
            .iter()
            .map(|&c| to_card(c))
            .collect::<Cards>()
    });
    let played: Vec<Card> = trick.iter().map(|&(_, c)| to_card(c)).collect();
    let position = Position::new(
        hands,
        strain,
        Seat::from_index(case.declarer).unwrap(),
        Seat::from_index(case.leader).unwrap(),
        &played,
    )
    .expect("generated positions are valid");
    (reference, trick, position)
}

fn check(solver: &mut Solver, case: &Case) -> Result<(), TestCaseError> {
    let (mut reference, mut trick, position) = build(case);
    let expected = reference.value(case.leader, &mut trick);
    prop_assert_eq!(
        u32::from(solver.solve(&position)),
        expected,
        "solve {:?}",
        position
    );
    let cards = solver.solve_cards(&position);
    let seat = position.to_move().index();
    let legal = reference.legal(seat, &trick);
    prop_assert_eq!(cards.len(), legal.len());
    for (card, value) in cards {
        let c = (card.id() / 8, card.id() % 8);
        prop_assert!(legal.contains(&c));
        let v = reference.value_after(case.leader, &mut trick, seat, c);
        prop_assert_eq!(u32::from(value), v, "card {} in {:?}", card, position);
    }
    Ok(())
}

thread_local! {
    static WARM: RefCell<Solver> = RefCell::new(Solver::new(1 << 20));
    static TINY: RefCell<Solver> = RefCell::new(Solver::new(4096));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn fresh_solver_matches_reference(case in case(4)) {
        check(&mut Solver::new(1 << 16), &case)?;
    }

    #[test]
    fn warm_solver_matches_reference(case in case(4)) {
        WARM.with(|s| check(&mut s.borrow_mut(), &case))?;
    }

    #[test]
    fn tiny_table_matches_reference(case in case(4)) {
        TINY.with(|s| check(&mut s.borrow_mut(), &case))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn five_card_deals_match_reference(case in case(5)) {
        WARM.with(|s| check(&mut s.borrow_mut(), &case))?;
    }
}

/// Many cases of ONE strain through one solver: the warm-table path across deals.
#[test]
fn warm_same_strain_sequences() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for strain in 0..6u8 {
        let mut solver = Solver::new(1 << 14);
        // Reuse one deck per strain, varying only the split, so positions repeat.
        let mut deck: Vec<u8> = (0..32).collect();
        for _ in 0..40 {
            let i = (next() % 32) as usize;
            let j = (next() % 32) as usize;
            deck.swap(i, j);
            let case = Case {
                strain,
                n: 3 + (next() % 2) as usize,
                k: (next() % 3) as usize,
                declarer: (next() % 3) as usize,
                leader: (next() % 3) as usize,
                deck: deck.clone(),
                picks: [next() as u8, next() as u8],
            };
            // The same cards with each declarer in turn: identical table keys that
            // differ only in the declarer's seat.
            for declarer in 0..3 {
                check(
                    &mut solver,
                    &Case {
                        declarer,
                        ..case.clone()
                    },
                )
                .unwrap();
            }
        }
        assert_eq!(solver.strain(), Some(strain_of(strain)));
    }
}
