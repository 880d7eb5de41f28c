//! Preferans hands (`AQJ8.KT8.KJ.9`), cards (`SA`) and contracts: parsing
//! never panics, and what parses prints back to the same value.
#![no_main]

use deckhand_preferans::{Card, Cards, Contract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(cards) = text.parse::<Cards>() {
        assert_eq!(cards.to_string().parse::<Cards>(), Ok(cards));
    }
    if let Ok(card) = text.parse::<Card>() {
        assert_eq!(card.to_string().parse::<Card>(), Ok(card));
    }
    if let Ok(contract) = text.parse::<Contract>() {
        assert_eq!(contract.to_string().parse::<Contract>(), Ok(contract));
    }
});
