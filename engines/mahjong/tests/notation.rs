//! MPSZ text, count arrays and their errors.

use deckhand_mahjong::{HandError, Suit, Tile, TileCounts};
use proptest::prelude::*;

fn parse(text: &str) -> Result<TileCounts, HandError> {
    text.parse()
}

#[test]
fn tile_ids_follow_the_notation() {
    let h = parse("19m19p19s1234567z").unwrap();
    let ids: Vec<u8> = h.tiles().map(Tile::id).collect();
    assert_eq!(ids, [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]);
    assert_eq!(
        Tile::new(31).map(|t| (t.suit(), t.number())),
        Some((Suit::Honour, 5))
    );
    assert_eq!("0p".parse::<Tile>(), "5p".parse::<Tile>());
}

#[test]
fn red_fives_read_as_fives() {
    let a = parse("406m406p406s11z").unwrap();
    let b = parse("456m456p456s11z").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.to_string(), "456m456p456s11z");
}

#[test]
fn errors_name_the_offending_item() {
    assert_eq!(
        parse("123m4x5p"),
        Err(HandError::UnknownTile {
            text: "x".into(),
            position: 5
        })
    );
    assert_eq!(
        parse("123m45"),
        Err(HandError::MissingSuit {
            digits: "45".into(),
            position: 4
        })
    );
    assert_eq!(
        parse("123mm"),
        Err(HandError::EmptySuit {
            suit: 'm',
            position: 4
        })
    );
    assert_eq!(
        parse("11m8z"),
        Err(HandError::NoSuchHonour {
            text: "8z".into(),
            position: 3
        })
    );
    assert_eq!(
        parse("11m9z"),
        Err(HandError::NoSuchHonour {
            text: "9z".into(),
            position: 3
        })
    );
    assert_eq!(
        parse("11m0z"),
        Err(HandError::NoSuchHonour {
            text: "0z".into(),
            position: 3
        })
    );
    assert_eq!(
        parse("11111m"),
        Err(HandError::TooManyCopies {
            tile: "1m".parse().unwrap(),
            count: 5
        })
    );
    assert_eq!(parse("1234567m"), Ok(parse("1234567m").unwrap())); // 7 tiles: one short of 8
    assert_eq!(parse("123456m"), Err(HandError::TileTotal { total: 6 }));
    assert_eq!(parse(""), Err(HandError::TileTotal { total: 0 }));
    assert_eq!(
        parse("123456789m123456p"),
        Err(HandError::TileTotal { total: 15 })
    );
    // The error text names the item.
    let message = parse("11m8z").unwrap_err().to_string();
    assert!(message.contains("8z") && message.contains('3'), "{message}");
}

#[test]
fn count_arrays() {
    let mut counts = [0u8; 34];
    counts[0] = 2;
    assert_eq!(
        TileCounts::try_from(&counts[..]).map(|h| h.to_string()),
        Ok("11m".to_string())
    );
    assert_eq!(
        TileCounts::try_from(&counts[..33]),
        Err(HandError::CountsLength { len: 33 })
    );
    assert_eq!(
        TileCounts::try_from(&[0u8; 35][..]),
        Err(HandError::CountsLength { len: 35 })
    );
    counts[33] = 5;
    assert_eq!(
        TileCounts::try_from(counts),
        Err(HandError::TooManyCopies {
            tile: Tile::RED,
            count: 5
        })
    );
    counts[33] = 255;
    assert!(TileCounts::try_from(counts).is_err());
    assert_eq!(Tile::try_from(34u8), Err(HandError::TileId { id: 34 }));
    let tiles: Vec<Tile> = ["1m", "1m"].iter().map(|t| t.parse().unwrap()).collect();
    assert_eq!(
        TileCounts::try_from(&tiles[..]).map(|h| h.to_string()),
        Ok("11m".to_string())
    );
}

/// Count arrays of valid hands: 1 to 14 tiles, not a multiple of three,
/// drawn without replacement from the 136 tiles (four copies of each of 34).
fn valid_counts() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![1usize, 2, 4, 5, 7, 8, 10, 11, 13, 14])
        .prop_flat_map(|total| prop::sample::subsequence((0..136u8).collect::<Vec<_>>(), total))
        .prop_map(|copies| {
            let mut counts = vec![0u8; 34];
            for copy in copies {
                counts[usize::from(copy / 4)] += 1;
            }
            counts
        })
}

proptest! {
    /// Display then parse is the identity for every valid hand.
    #[test]
    fn round_trip(counts in valid_counts()) {
        let h = TileCounts::try_from(&counts[..]).expect("a valid hand");
        prop_assert_eq!(parse(&h.to_string()), Ok(h));
        prop_assert_eq!(h.as_array().as_slice(), counts.as_slice());
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[0-9mpsz x]{0,20}") {
        let _ = parse(&text);
    }
}
