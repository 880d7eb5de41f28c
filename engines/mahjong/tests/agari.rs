//! Known answers: tests/data/agari_cases.tsv (hand, expected win, case name),
//! plus hand-picked decomposition counts.

use deckhand_mahjong::{check_win, is_win, win_table_stats, Form, TileCounts};

#[test]
fn agari_cases_tsv() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/agari_cases.tsv");
    let text = std::fs::read_to_string(path).expect("read agari_cases.tsv");
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(fields.len() >= 2, "bad line {line:?}");
        let hand: TileCounts = fields[0]
            .parse()
            .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        let expected = match fields[1] {
            "True" => true,
            "False" => false,
            other => panic!("bad expectation {other:?}"),
        };
        let result = check_win(&hand);
        assert_eq!(result.win, expected, "{line}");
        assert_eq!(is_win(&hand), expected, "{line}");
        assert_eq!(result.win, !result.decompositions.is_empty());
        let name = fields.get(2).copied().unwrap_or("");
        if expected && name.contains("chitoitsu") {
            assert!(
                result
                    .decompositions
                    .iter()
                    .any(|d| d.form == Form::SevenPairs),
                "{line}"
            );
        }
        if expected && name.contains("kokushi") {
            assert!(
                result
                    .decompositions
                    .iter()
                    .any(|d| d.form == Form::ThirteenOrphans),
                "{line}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 17);
}

#[test]
fn table_size_is_reported() {
    let stats = win_table_stats();
    println!("win table: {stats:?}");
    assert!(stats.keys > 9_000, "{stats:?}");
    assert!(stats.decompositions >= stats.keys);
}
