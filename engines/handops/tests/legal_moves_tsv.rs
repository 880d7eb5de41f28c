//! Known-answer counts from `tests/data/legal_moves.tsv` (RLCard's rules).

use std::collections::HashSet;

use deckhand_handops::{beating_plays, classify, legal_plays, CardsVector, Play};

struct Row {
    line: usize,
    hand: CardsVector,
    beat: Option<Play>,
    count: usize,
}

fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/legal_moves.tsv");
    let text = std::fs::read_to_string(path).expect("read legal_moves.tsv");
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "line {line_no}: {line:?}");
        let hand: CardsVector = fields[0]
            .parse()
            .unwrap_or_else(|e| panic!("line {line_no}: bad hand: {e}"));
        let beat = if fields[1] == "-" {
            None
        } else {
            let cards: CardsVector = fields[1]
                .parse()
                .unwrap_or_else(|e| panic!("line {line_no}: bad beat: {e}"));
            Some(classify(cards).unwrap_or_else(|| panic!("line {line_no}: beat is no play")))
        };
        let count = fields[2].parse().expect("count");
        rows.push(Row {
            line: line_no,
            hand,
            beat,
            count,
        });
    }
    rows
}

fn check_plays(row: &Row, plays: &[Play]) {
    let mut seen = HashSet::new();
    for (i, p) in plays.iter().enumerate() {
        assert!(
            seen.insert(p.cards),
            "line {}: duplicate play {p:?}",
            row.line
        );
        assert!(
            row.hand.contains(p.cards),
            "line {}: {p:?} not in hand",
            row.line
        );
        assert_eq!(
            classify(p.cards),
            Some(*p),
            "line {}: classify disagrees",
            row.line
        );
        if let Some(beat) = &row.beat {
            assert!(
                p.beats(beat),
                "line {}: {p:?} does not beat {beat:?}",
                row.line
            );
        }
        if i > 0 {
            let q = &plays[i - 1];
            assert!(
                (q.kind, q.key, q.chain_len) <= (p.kind, p.key, p.chain_len),
                "line {}: order {q:?} before {p:?}",
                row.line
            );
        }
    }
}

#[test]
fn every_row_matches() {
    let rows = rows();
    assert!(rows.len() >= 15, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let plays = match &row.beat {
            None => legal_plays(row.hand),
            Some(beat) => beating_plays(row.hand, beat),
        };
        check_plays(row, &plays);
        if plays.len() != row.count {
            failures.push(format!(
                "line {}: {} beat {:?}: got {}, want {}",
                row.line,
                row.hand,
                row.beat.map(|b| b.cards.to_string()),
                plays.len(),
                row.count
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Beating plays are exactly the legal plays that beat, in the same order.
#[test]
fn beating_is_filtered_legal() {
    for row in rows() {
        if let Some(beat) = &row.beat {
            let all: Vec<Play> = legal_plays(row.hand)
                .into_iter()
                .filter(|p| p.beats(beat))
                .collect();
            assert_eq!(beating_plays(row.hand, beat), all, "line {}", row.line);
        }
    }
}
