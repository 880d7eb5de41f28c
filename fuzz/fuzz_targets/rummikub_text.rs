//! Rummikub tile text: parsing never panics, and what parses prints back to
//! the same tiles; counting them against the standard rules never panics.
#![no_main]

use deckhand_rummikub::{format_tiles, parse_tiles, RuleSet, Tile, TileCounts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(tiles) = parse_tiles(text) {
        assert_eq!(parse_tiles(&format_tiles(&tiles)), Ok(tiles.clone()));
        let _ = TileCounts::new(&RuleSet::default(), &tiles);
    }
    if let Ok(tile) = text.parse::<Tile>() {
        assert_eq!(tile.to_string().parse::<Tile>(), Ok(tile));
    }
});
