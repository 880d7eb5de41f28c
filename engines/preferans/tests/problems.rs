//! Problem files (.pts / .bts) load, convert, and agree with the oracles.

mod common;

use common::{data, foe_oracles, oracles, strain_code};
use deckhand_preferans::{
    parse_problems, parse_problems_lossy, Card, Cards, Contract, DealError, ParseError, Position,
    PositionError, Seat, Solver, Strain, Suit,
};

#[test]
fn russian_deal_1_is_n_e_w() {
    let problems = parse_problems(&data("preferansRu.utf8.bts")).unwrap();
    assert_eq!(problems.len(), 7);
    let p = &problems[0];
    assert_eq!(p.hands.n, "A98.AT98..T87".parse::<Cards>().unwrap());
    assert_eq!(p.hands.e, "QT7.KQJ.A.KQJ".parse::<Cards>().unwrap());
    assert_eq!(p.hands.w, "KJ.7.KQJT9.A9".parse::<Cards>().unwrap());
    assert_eq!((p.declarer, p.leader), (Seat::E, Seat::W));
    assert!(
        p.comment.contains('\n'),
        "multi-line comment kept: {:?}",
        p.comment
    );
}

/// Every problem of the English and Russian files against the single-deal oracles.
#[test]
fn problem_files_match_single_deal_oracles() {
    let o = oracles();
    let deals = o.get("single_deals").get("deals").arr();
    let mut solver = Solver::new(1 << 22);
    let mut matched = 0;
    for file in ["preferansEn.bts", "preferansRu.utf8.bts"] {
        for p in parse_problems(&data(file)).unwrap() {
            let text = format!("{} {} {}", p.hands.n, p.hands.e, p.hands.w);
            let Some(d) = deals.iter().find(|d| d.get("deal").str() == text) else {
                panic!("{file} deal {} not among the oracles", p.name);
            };
            assert_eq!(p.leader.char().to_string(), d.get("first").str());
            assert_eq!(p.declarer.char().to_string(), d.get("declarer").str());
            let expected_strain = if d.get("misere").bool() {
                Strain::Misere
            } else {
                strain_code(d.get("trump").num())
            };
            assert_eq!(p.contract.strain, expected_strain);
            let pos = p.position().unwrap();
            assert_eq!(
                u32::from(solver.solve(&pos)),
                d.get("declarerTricks").num(),
                "{file} {}",
                p.name
            );
            matched += 1;
        }
    }
    assert_eq!(matched, 14);
}

/// The all-foe files hold the published problems: their declarer views equal the
/// oracle notation.
#[test]
fn all_foe_files_match_oracle_views() {
    let foes = foe_oracles();
    let problems = parse_problems(&data("solveallfoe.pts")).unwrap();
    assert_eq!(problems.len(), 5);
    // Deal 1 = solvealldeals1-1 (misère, CJ led), deal 2 = solvealldeals2 (6C, SA led).
    for (p, oracle) in problems.iter().zip(&foes[..2]) {
        let view = p.declarer_view().unwrap();
        assert_eq!(view.hand(), oracle.view.hand(), "{}", oracle.name);
        assert_eq!(view.talon(), oracle.view.talon());
        assert_eq!(view.played(), oracle.view.played());
        assert_eq!(view.contract().strain, oracle.view.contract().strain);
    }
    // Deal 5: a misère of East led by North, nothing played.
    let p5 = &problems[4];
    assert_eq!(
        (p5.declarer, p5.leader, p5.contract),
        (Seat::E, Seat::N, Contract::misere())
    );
    assert_eq!(p5.declarer_view().unwrap().openings().len(), 1);
    let same = parse_problems(&data("solvealldeals.pts")).unwrap();
    for (a, b) in same.iter().zip(&problems) {
        assert_eq!(
            (a.hands, a.contract, a.declarer, a.leader, a.turns),
            (b.hands, b.contract, b.declarer, b.leader, b.turns)
        );
        assert_eq!(a.play, b.play);
    }
}

#[test]
fn mid_trick_problems() {
    let problems = parse_problems(&data("score.pts")).unwrap();
    assert_eq!(problems.len(), 4);
    let p = &problems[0];
    assert_eq!(p.played(), &["D9".parse::<Card>().unwrap()]);
    let pos = p.position().unwrap();
    assert_eq!(pos.to_move(), Seat::E);
    assert_eq!(pos.hands().n.len(), 9);
    // Deal 4: "play CQ turns 0": West (holder of CQ) leads.
    assert_eq!(problems[3].leader, Seat::W);
    assert!(problems[3].played().is_empty());
    let mut solver = Solver::default();
    for p in &problems {
        let pos = p.position().unwrap();
        let v = solver.solve(&pos);
        let best = solver.solve_cards(&pos);
        assert!(best.iter().any(|&(_, t)| t == v));
    }
}

#[test]
fn absent_west_maps_south_to_w() {
    let problems = parse_problems(&data("preferansFriday.pts")).unwrap();
    let p = &problems[0];
    // absent W: listed N E S -> N E W; the declarer S becomes W.
    assert_eq!(p.declarer, Seat::W);
    assert_eq!(p.leader, Seat::N);
    assert_eq!(p.hands.w, "A..AQJT9.AKQ7".parse::<Cards>().unwrap());
    assert_eq!(p.contract.strain, Strain::Trump(Suit::Diamonds));
    assert!(p.position().is_ok());
}

#[test]
fn bridge_deals_are_rejected_with_the_deal_named() {
    let text = data("solveallfoe.bts");
    let err = parse_problems(&text).unwrap_err();
    assert_eq!(
        err,
        ParseError::Deal {
            deal: "1".into(),
            source: DealError::HandCount { found: 4 }
        }
    );
    assert!(err.to_string().contains("deal 1"));
    let (ok, errors) = parse_problems_lossy(&text);
    assert!(ok.is_empty());
    assert_eq!(errors.len(), 28);
}

#[test]
fn bad_files_give_typed_errors() {
    let bad_rank = "deal 7 A6.KQ.KQ.J QT.A8.A97. J9.97.8.87\ncontract 6S\nplay W\nplayer N\n";
    assert!(matches!(
        parse_problems(bad_rank),
        Err(ParseError::Deal { ref deal, source: DealError::Hand(_) }) if deal == "7"
    ));
    let no_player = "deal 1 87.KQ.KQ.J QT.A8.A97. J9.97.8.87\ncontract 6S\nplay W\n";
    assert!(matches!(
        parse_problems(no_player),
        Err(ParseError::Deal {
            source: DealError::Missing { keyword: "player" },
            ..
        })
    ));
    assert!(matches!(
        parse_problems("contract 6S\n"),
        Err(ParseError::BeforeDeal { line: 1, .. })
    ));
    assert!(matches!(
        parse_problems("deal 1 a b c\nfoo 1\n"),
        Err(ParseError::UnknownKeyword { line: 2, .. })
    ));
    let unequal = "deal 2 87.KQ.KQ.J QT.A8.A97. J9.97.8.8\ncontract 6S\nplay W\nplayer N\n";
    assert!(matches!(
        parse_problems(unequal),
        Err(ParseError::Deal {
            source: DealError::UnequalHands { sizes: [7, 7, 6] },
            ..
        })
    ));
}

#[test]
fn position_errors_name_the_item() {
    let h = |s: &str| s.parse::<Cards>().unwrap();
    let c = |s: &str| s.parse::<Card>().unwrap();
    let strain = Strain::Trump(Suit::Spades);
    let hands = deckhand_preferans::BySeat::new(h("AK..."), h("QJ..."), h(".AK.."));
    assert_eq!(
        Position::new(hands, strain, Seat::N, Seat::N, &[c("SQ")]).unwrap_err(),
        PositionError::DuplicateCard { card: c("SQ") }
    );
    assert!(matches!(
        Position::new(hands, strain, Seat::N, Seat::N, &[c("ST")]),
        Err(PositionError::HandSize {
            seat: Seat::E,
            expected: 3,
            found: 2
        })
    ));
    // E holds spades but discards a heart: revoke.
    let hands2 = deckhand_preferans::BySeat::new(h("K..."), h("Q..."), h(".AK.."));
    assert_eq!(
        Position::new(hands2, strain, Seat::N, Seat::N, &[c("SA"), c("HQ")]).unwrap_err(),
        PositionError::Revoke {
            seat: Seat::E,
            card: c("HQ"),
            led: Suit::Spades
        }
    );
    // W void in hearts but holds a trump: must ruff.
    let hands3 = deckhand_preferans::BySeat::new(h("K.Q.."), h("A..."), h("J..."));
    assert!(matches!(
        Position::new(hands3, strain, Seat::N, Seat::E, &[c("HJ"), c("DA")]),
        Err(PositionError::TrumpRevoke { seat: Seat::W, .. })
    ));
    let empty = deckhand_preferans::BySeat::new(Cards::EMPTY, Cards::EMPTY, Cards::EMPTY);
    assert_eq!(
        Position::new(empty, strain, Seat::N, Seat::N, &[]).unwrap_err(),
        PositionError::EmptyDeal
    );
    assert!(matches!(
        Position::new(
            hands,
            strain,
            Seat::N,
            Seat::N,
            &[c("C7"), c("C8"), c("C9")]
        ),
        Err(PositionError::TooManyPlayed { count: 3 })
    ));
}
