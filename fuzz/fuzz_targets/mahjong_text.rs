//! Mahjong MPSZ text: parsing never panics, and what parses prints back to
//! the same counts.
#![no_main]

use deckhand_mahjong::{Tile, TileCounts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(counts) = text.parse::<TileCounts>() {
        assert_eq!(counts.to_string().parse::<TileCounts>(), Ok(counts));
    }
    if let Ok(tile) = text.parse::<Tile>() {
        assert_eq!(tile.to_string().parse::<Tile>(), Ok(tile));
    }
});
