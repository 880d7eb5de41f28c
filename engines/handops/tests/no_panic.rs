//! Vectors made by misusing the unchecked operations (`add` past a deck,
//! `remove_unchecked` of cards not held) are garbage but must never panic.

use deckhand_handops::{beating_plays, classify, legal_plays, CardsVector, Play, PlayKind, Rank};
use proptest::prelude::*;

fn valid() -> impl Strategy<Value = CardsVector> {
    (prop::array::uniform13(0u8..=4), 0u8..=1, 0u8..=1).prop_map(|(main, b, r)| {
        let mut c = [0u8; 15];
        c[..13].copy_from_slice(&main);
        c[13] = b;
        c[14] = r;
        CardsVector::from_counts(c).expect("valid counts")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn garbage_vectors_do_not_panic(a in valid(), b in valid(), kind in 0usize..14, key in 0usize..15, len in any::<u8>()) {
        let target = Play { kind: PlayKind::ALL[kind], key: Rank::ALL[key], chain_len: len, cards: b };
        for v in [a.add(b), a.remove_unchecked(b), b.remove_unchecked(a)] {
            let _ = (v.len(), v.to_string(), format!("{v:?}"), v.iter().count(), v.to_counts());
            let plays = legal_plays(v);
            // Whatever the garbage, every play is a real play.
            for p in &plays {
                prop_assert_eq!(classify(p.cards), Some(*p));
            }
            let _ = beating_plays(v, &target);
            if CardsVector::from_packed(v.packed()).is_err() {
                prop_assert_eq!(classify(v), None);
            }
        }
        // Against a hand-built target (any chain length) every answer beats it.
        for p in beating_plays(a, &target) {
            prop_assert!(p.beats(&target));
        }
    }
}
