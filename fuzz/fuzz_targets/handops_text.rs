//! Dou Dizhu hand text and packed values: parsing never panics, and what
//! parses prints back to the same cards.
#![no_main]

use deckhand_handops::{classify, legal_plays, CardsVector};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(cards) = text.parse::<CardsVector>() {
            assert_eq!(cards.to_string().parse::<CardsVector>(), Ok(cards));
            let _ = classify(cards);
        }
    }
    if let Some(bytes) = data.get(..8) {
        let packed = u64::from_le_bytes(bytes.try_into().unwrap());
        if let Ok(cards) = CardsVector::from_packed(packed) {
            assert_eq!(cards.packed(), packed);
            assert_eq!(cards.to_string().parse::<CardsVector>(), Ok(cards));
            if let Some(play) = classify(cards) {
                assert!(legal_plays(cards).iter().any(|p| p.cards == play.cards));
            }
        }
    }
});
