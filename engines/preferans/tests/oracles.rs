//! Known answers published with the established solver (tests/data/oracles.json).

mod common;

use std::collections::HashMap;
use std::ops::ControlFlow;

use common::{foe_oracles, oracles, strain_code};
use deckhand_preferans::{
    layouts, solve_all_foe_with, solve_layouts, solve_layouts_in, split_order, standard_problems,
    Analysis, BySeat, Cards, LayoutOrder, Position, Seat, Solver, Suit, LAYOUT_COUNT,
};

#[test]
fn single_deals() {
    let o = oracles();
    let deals = o.get("single_deals").get("deals").arr();
    assert_eq!(deals.len(), 8);
    let mut solver = Solver::new(1 << 22);
    for d in deals {
        let hands: Vec<Cards> = d
            .get("deal")
            .str()
            .split(' ')
            .map(|h| h.parse().unwrap())
            .collect();
        let hands = BySeat::new(hands[0], hands[1], hands[2]);
        let strain = if d.get("misere").bool() {
            strain_code(5)
        } else {
            strain_code(d.get("trump").num())
        };
        let seat = |k: &str| Seat::from_char(d.get(k).str().chars().next().unwrap()).unwrap();
        let (first, declarer) = (seat("first"), seat("declarer"));
        let pos = Position::new(hands, strain, declarer, first, &[]).unwrap();
        let n = pos.tricks_left() as u32;
        let tricks = u32::from(solver.solve(&pos));
        assert_eq!(
            tricks,
            d.get("declarerTricks").num(),
            "{}",
            d.get("deal").str()
        );
        let e = if first == declarer {
            tricks
        } else {
            n - tricks
        };
        assert_eq!(e, d.get("e").num(), "{}", d.get("deal").str());
        // The best card's value equals the position's value.
        let cards = solver.solve_cards(&pos);
        let best = if strain == strain_code(5) {
            cards.iter().map(|c| c.1).min()
        } else {
            let maxi = cards.iter().map(|c| c.1).max();
            let mini = cards.iter().map(|c| c.1).min();
            if first == declarer {
                maxi
            } else {
                mini
            }
        };
        if strain != strain_code(5) || first == declarer {
            assert_eq!(best, Some(tricks as u8));
        }
    }
}

fn histogram(solver: &mut Solver, view: &deckhand_preferans::DeclarerView, n: u32) -> [u32; 11] {
    let mut analysis = Analysis::new(view);
    let solved = solve_layouts(solver, view, 0..n, |r| {
        analysis.add(&r);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(solved, n);
    assert_eq!(analysis.openings.len(), 1);
    analysis.openings[0].histogram.counts
}

/// First 20,000 layouts of each published problem.
#[test]
fn all_foe_first_20000() {
    for oracle in foe_oracles() {
        let mut solver = Solver::default();
        let h = histogram(&mut solver, &oracle.view, 20_000);
        assert_eq!(h, oracle.first_20000, "{}", oracle.name);
    }
}

/// Splitting a range over threads (solvers sharing one table) gives the same histogram,
/// also when a tiny shared table makes the threads overwrite each other's slots, and in
/// another layout order.
#[test]
fn parallel_split_matches_one_thread() {
    let oracle = &foe_oracles()[1];
    // Long enough for every thread to take blocks of its own.
    let range = 5_000..6_600;
    let mut one = Analysis::new(&oracle.view);
    solve_layouts(
        &mut Solver::new(1 << 20),
        &oracle.view,
        range.clone(),
        |r| {
            one.add(&r);
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    let seen = std::sync::atomic::AtomicU32::new(0);
    let three = solve_all_foe_with(
        &oracle.view,
        LayoutOrder::STANDARD,
        range.clone(),
        3,
        1 << 20,
        |n| {
            seen.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
        },
    )
    .unwrap();
    assert_eq!(one, three);
    assert_eq!(three.layouts(), 1_600);
    assert_eq!(seen.into_inner(), 1_600);
    let crowded = solve_all_foe_with(
        &oracle.view,
        LayoutOrder::STANDARD,
        range.clone(),
        4,
        4 << 10,
        |_| {},
    )
    .unwrap();
    assert_eq!(one, crowded);
    // In the split order the same positions are other layouts, and the threads solve
    // those.
    let order = split_order(&oracle.view);
    let mut one_split = Analysis::new(&oracle.view);
    solve_layouts_in(
        &mut Solver::new(1 << 20),
        &oracle.view,
        order,
        range.clone(),
        |r| {
            one_split.add(&r);
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    assert_ne!(one_split, one);
    let three_split =
        solve_all_foe_with(&oracle.view, order, range.clone(), 3, 1 << 20, |_| {}).unwrap();
    assert_eq!(three_split, one_split);
}

#[test]
fn cancellation_stops_promptly() {
    let oracle = &foe_oracles()[0];
    let mut seen = Vec::new();
    let solved = solve_layouts(&mut Solver::new(1 << 20), &oracle.view, 100..1000, |r| {
        seen.push(r.index);
        if seen.len() == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(solved, 3);
    assert_eq!(seen, vec![100, 101, 102]);
}

#[test]
fn layout_hands_follow_the_convention() {
    let oracle = &foe_oracles()[0];
    let view = &oracle.view;
    let unknown = view.unknown_cards();
    assert!(unknown.windows(2).all(|w| w[0] < w[1]));
    let hands = view.layout_hands(0).unwrap();
    // Declarer N: subset {0..9} goes to West.
    let west: Cards = unknown[..10].iter().copied().collect();
    assert_eq!(hands[Seat::W], west);
    assert_eq!(hands[Seat::E], unknown[10..].iter().copied().collect());
    assert_eq!(hands[Seat::N], view.hand());
}

/// Declarer on lead with nothing played: one value per card of its hand, each equal to
/// solving that layout with the card led (checked with a separate fresh solver).
#[test]
fn per_opening_values_match_single_solves() {
    use deckhand_preferans::{Contract, DeclarerView, Strain, Suit};
    let contract = Contract {
        level: Some(6),
        strain: Strain::Trump(Suit::Spades),
    };
    let view =
        DeclarerView::from_notation("QT7.KQJ.A*8*7.KQJ", Seat::E, contract, Seat::E).unwrap();
    let openings = view.openings();
    assert_eq!(openings.len(), 10);
    let mut analysis = Analysis::new(&view);
    let mut solver = Solver::new(1 << 22);
    solve_layouts(&mut solver, &view, 1000..1012, |r| {
        analysis.add(&r);
        let hands = view.layout_hands(r.index).unwrap();
        // Declarer E: the subset goes to its predecessor N.
        assert_eq!(view.subset_seat(), Seat::N);
        assert_eq!(r.tricks.len(), 10);
        for (opening, &tricks) in openings.iter().zip(r.tricks.iter()) {
            let card = opening.unwrap();
            let pos = Position::from_full_hands(hands, contract.strain, Seat::E, Seat::E, &[card])
                .unwrap();
            assert_eq!(
                Solver::new(1 << 20).solve(&pos),
                tricks,
                "layout {} card {card}",
                r.index
            );
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(analysis.openings.len(), 10);
    assert!(analysis.openings.iter().all(|o| o.histogram.total() == 12));
    let best = analysis
        .openings
        .iter()
        .map(|o| o.histogram.mean())
        .fold(0.0, f64::max);
    assert!(best > 0.0);
}

/// A split order lists the same layouts: each position's result equals the result
/// of the standard layout it maps to (solved with a separate solver), across the
/// middle where the card numbered first changes hands.
#[test]
fn split_order_solves_the_standard_layouts() {
    let oracle = &foe_oracles()[2];
    let order = split_order(&oracle.view);
    assert_ne!(order, LayoutOrder::STANDARD);
    let index_of: HashMap<u32, u32> = layouts(0..LAYOUT_COUNT).map(|(k, m)| (m, k)).collect();
    let positions = LAYOUT_COUNT / 2 - 150..LAYOUT_COUNT / 2 + 150;
    let mut ordered = Vec::new();
    solve_layouts_in(
        &mut Solver::new(4 << 20),
        &oracle.view,
        order,
        positions.clone(),
        |r| {
            ordered.push(r);
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    assert_eq!(ordered.len(), positions.len());
    let mut standard = Solver::new(4 << 20);
    for (r, (position, mask)) in ordered.iter().zip(order.layouts(positions)) {
        assert_eq!(r.index, position);
        let k = index_of[&mask];
        solve_layouts(&mut standard, &oracle.view, k..k + 1, |s| {
            assert_eq!(s.tricks, r.tricks, "position {position}, layout {k}");
            ControlFlow::Continue(())
        })
        .unwrap();
    }
}

/// What a split order groups and starts with, on four standard problems (see
/// `split_order` for what each split measured): the group is every unknown card of
/// one suit other than trumps, the most numerous (then the declarer's longest);
/// the other cards start with one alone between two of the declarer's cards.
#[test]
fn split_order_groups_a_suit_and_starts_with_a_card_alone_in_its_run() {
    for (name, suit, first) in [
        ("preferansRu1", Suit::Hearts, "CA"),
        ("preferansRu4", Suit::Clubs, "SA"),
        ("preferansRu5", Suit::Hearts, "C7"),
        ("preferansRu7", Suit::Hearts, "CA"),
    ] {
        let problem = standard_problems()
            .into_iter()
            .find(|p| p.name == name)
            .unwrap();
        let order = split_order(&problem.view);
        let unknown = problem.view.unknown_cards();
        let card = |j: u32| unknown[order.cards()[j as usize] as usize];
        let in_suit = unknown.iter().filter(|c| c.suit() == suit).count() as u32;
        assert_eq!(order.group(), in_suit, "{name}");
        assert!((20 - in_suit..20).all(|j| card(j).suit() == suit), "{name}");
        assert_eq!(card(0).to_string(), first, "{name}");
    }
}
