//! `CardsVector` against a naive `[u8; 15]` reference (loops, no bit tricks).

// The reference is deliberately naive: plain index loops over the 15 ranks.
#![allow(clippy::needless_range_loop)]

use deckhand_handops::{CardsError, CardsVector, Rank};
use proptest::prelude::*;

type Counts = [u8; 15];

const LETTERS: [char; 15] = [
    '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A', '2', 'B', 'R',
];

fn max_of(i: usize) -> u8 {
    if i >= 13 {
        1
    } else {
        4
    }
}

fn ref_valid(c: &Counts) -> bool {
    (0..15).all(|i| c[i] <= max_of(i))
}

fn ref_pack(c: &Counts) -> u64 {
    let mut p = 0u64;
    for i in 0..15 {
        p += (c[i] as u64) * 16u64.pow(i as u32);
    }
    p
}

fn ref_unpack(p: u64) -> ([u8; 16], bool) {
    let mut n = [0u8; 16];
    let mut rest = p;
    for slot in n.iter_mut() {
        *slot = (rest % 16) as u8;
        rest /= 16;
    }
    let valid = n[15] == 0 && (0..15).all(|i| n[i] <= max_of(i));
    (n, valid)
}

fn ref_contains(a: &Counts, b: &Counts) -> bool {
    for i in 0..15 {
        if a[i] < b[i] {
            return false;
        }
    }
    true
}

fn ref_text(c: &Counts) -> String {
    let mut s = String::new();
    for i in 0..15 {
        for _ in 0..c[i] {
            s.push(LETTERS[i]);
        }
    }
    s
}

fn cv(c: &Counts) -> CardsVector {
    CardsVector::from_counts(*c).expect("valid counts")
}

fn counts_strategy() -> impl Strategy<Value = Counts> {
    (prop::array::uniform13(0u8..=4), 0u8..=1, 0u8..=1).prop_map(|(main, b, r)| {
        let mut c = [0u8; 15];
        c[..13].copy_from_slice(&main);
        c[13] = b;
        c[14] = r;
        c
    })
}

/// Two hands; half of the time the second is clipped into the first so that
/// `contains` is true often enough to matter.
fn pair_strategy() -> impl Strategy<Value = (Counts, Counts)> {
    (counts_strategy(), counts_strategy(), any::<bool>()).prop_map(|(a, mut b, clip)| {
        if clip {
            for i in 0..15 {
                b[i] = b[i].min(a[i]);
            }
        }
        (a, b)
    })
}

/// Packed values near the valid ones: nibbles 0..=5, sometimes a nonzero nibble 15.
fn packed_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (prop::array::uniform16(0u64..=5), 0u8..4).prop_map(|(n, reserved_roll)| {
            let mut p = 0u64;
            for (i, v) in n.iter().enumerate() {
                let v = if i == 15 && reserved_roll != 0 { 0 } else { *v };
                let v = if (13..15).contains(&i) { v % 3 } else { v };
                p |= v << (4 * i);
            }
            p
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn counts_round_trip(c in counts_strategy()) {
        let v = cv(&c);
        prop_assert_eq!(v.to_counts(), c);
        prop_assert_eq!(v.packed(), ref_pack(&c));
        prop_assert_eq!(CardsVector::from_packed(v.packed()), Ok(v));
        prop_assert_eq!(v.len(), c.iter().map(|&x| x as usize).sum::<usize>());
        prop_assert_eq!(v.is_empty(), c.iter().all(|&x| x == 0));
        for rank in Rank::ALL {
            prop_assert_eq!(v.count(rank), c[rank.index()]);
        }
        let listed: Vec<(Rank, u8)> = v.iter().collect();
        let want: Vec<(Rank, u8)> = (0..15)
            .filter(|&i| c[i] > 0)
            .map(|i| (Rank::ALL[i], c[i]))
            .collect();
        prop_assert_eq!(listed, want);
    }

    #[test]
    fn contains_remove_add((a, b) in pair_strategy()) {
        let (va, vb) = (cv(&a), cv(&b));
        let contains = ref_contains(&a, &b);
        prop_assert_eq!(va.contains(vb), contains);
        if contains {
            let mut d = a;
            for i in 0..15 {
                d[i] -= b[i];
            }
            prop_assert_eq!(va.checked_remove(vb), Some(cv(&d)));
            prop_assert_eq!(va.remove_unchecked(vb), cv(&d));
        } else {
            prop_assert_eq!(va.checked_remove(vb), None);
        }
        let mut s = [0u8; 15];
        for i in 0..15 {
            s[i] = a[i] + b[i];
        }
        if ref_valid(&s) {
            prop_assert_eq!(va.checked_add(vb), Some(cv(&s)));
            prop_assert_eq!(va.add(vb), cv(&s));
        } else {
            prop_assert_eq!(va.checked_add(vb), None);
        }
    }

    #[test]
    fn with_count_matches((a, b) in pair_strategy(), i in 0usize..15) {
        let rank = Rank::ALL[i];
        let mut want = a;
        want[i] = b[i];
        prop_assert_eq!(cv(&a).with_count(rank, b[i]), Ok(cv(&want)));
        let over = max_of(i) + 1 + b[i];
        prop_assert_eq!(
            cv(&a).with_count(rank, over),
            Err(CardsError::TooMany { rank, count: over, max: max_of(i) })
        );
    }

    #[test]
    fn text_round_trip(c in counts_strategy(), seed in any::<u64>()) {
        let v = cv(&c);
        let text = ref_text(&c);
        prop_assert_eq!(v.to_string(), text.clone());
        prop_assert_eq!(text.parse::<CardsVector>(), Ok(v));
        // Shuffle, write some tens as "10", lower-case letters, add spaces.
        let mut tokens: Vec<String> = text.chars().map(|ch| ch.to_string()).collect();
        let mut s = seed | 1;
        for i in (1..tokens.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            tokens.swap(i, (s % (i as u64 + 1)) as usize);
        }
        for (k, t) in tokens.iter_mut().enumerate() {
            if t == "T" && k % 2 == 0 {
                *t = "10".into();
            } else if k % 3 == 0 {
                *t = t.to_lowercase();
            }
        }
        let messy = tokens.join(if seed % 2 == 0 { " " } else { "" });
        prop_assert_eq!(messy.parse::<CardsVector>(), Ok(v));
    }

    #[test]
    fn from_packed_rejects_exactly_invalid(p in packed_strategy()) {
        let (nibbles, valid) = ref_unpack(p);
        let got = CardsVector::from_packed(p);
        prop_assert_eq!(got.is_ok(), valid);
        match got {
            Ok(v) => {
                prop_assert_eq!(v.packed(), p);
                prop_assert_eq!(v.to_counts().to_vec(), nibbles[..15].to_vec());
            }
            Err(CardsError::ReservedNibble { packed }) => {
                prop_assert_eq!(packed, p);
                prop_assert!(nibbles[15] != 0);
            }
            Err(CardsError::NibbleOverflow { rank, value, max }) => {
                prop_assert_eq!(nibbles[15], 0);
                let first = (0..15).find(|&i| nibbles[i] > max_of(i));
                prop_assert_eq!(Some(rank.index()), first);
                prop_assert_eq!(value, nibbles[rank.index()]);
                prop_assert_eq!(max, max_of(rank.index()));
            }
            Err(e) => prop_assert!(false, "unexpected error {e:?}"),
        }
    }

    #[test]
    fn from_counts_rejects_exactly_invalid(c in prop::array::uniform15(0u8..=6)) {
        let got = CardsVector::from_counts(c);
        prop_assert_eq!(got.is_ok(), ref_valid(&c));
        if let Err(e) = got {
            let first = (0..15).find(|&i| c[i] > max_of(i)).expect("some invalid rank");
            prop_assert_eq!(
                e,
                CardsError::TooMany { rank: Rank::ALL[first], count: c[first], max: max_of(first) }
            );
        }
    }
}

/// Every single-nibble value at every position, checked one by one.
#[test]
fn from_packed_single_nibbles() {
    for pos in 0..16 {
        for value in 0..16u64 {
            let p = value << (4 * pos);
            let want = value == 0 || (pos < 15 && value <= max_of(pos) as u64);
            assert_eq!(
                CardsVector::from_packed(p).is_ok(),
                want,
                "nibble {pos} = {value}"
            );
        }
    }
}

#[test]
fn seed_examples() {
    let a: CardsVector = "334455".parse().unwrap();
    let x: CardsVector = "345".parse().unwrap();
    let y: CardsVector = "444555".parse().unwrap();
    let z: CardsVector = "456".parse().unwrap();
    assert!(a.contains(a));
    assert!(a.contains(x));
    assert!(!a.contains(y));
    assert!(!a.contains(z));
    let removed = a.checked_remove("34".parse().unwrap()).unwrap();
    assert_eq!(removed, "34 55".parse().unwrap());
    assert_eq!(removed.to_string(), "3455");
    // The packed form is the seed's: 4 bits per rank, rank 3 in the low nibble.
    assert_eq!(a.packed(), 0x222);
    assert_eq!(removed.packed(), 0x211);
}

#[test]
fn constants() {
    assert_eq!(CardsVector::EMPTY.len(), 0);
    assert_eq!(CardsVector::EMPTY.to_string(), "");
    assert_eq!(CardsVector::FULL_DECK.len(), 54);
    let mut want = [4u8; 15];
    want[13] = 1;
    want[14] = 1;
    assert_eq!(CardsVector::FULL_DECK.to_counts(), want);
    assert_eq!(
        CardsVector::FULL_DECK.checked_add("3".parse().unwrap()),
        None
    );
}

#[test]
fn parse_errors_name_the_offender() {
    assert_eq!(
        "334x5".parse::<CardsVector>(),
        Err(CardsError::UnknownRank {
            text: "x".into(),
            position: 3
        })
    );
    assert_eq!(
        "3 1 5".parse::<CardsVector>(),
        Err(CardsError::UnknownRank {
            text: "1".into(),
            position: 2
        })
    );
    assert_eq!(
        "3333 43".parse::<CardsVector>(),
        Err(CardsError::TooManyCopies {
            rank: Rank::Three,
            position: 6,
            max: 4
        })
    );
    assert_eq!(
        "BRB".parse::<CardsVector>(),
        Err(CardsError::TooManyCopies {
            rank: Rank::BlackJoker,
            position: 2,
            max: 1
        })
    );
    assert_eq!(
        "RR".parse::<CardsVector>(),
        Err(CardsError::TooManyCopies {
            rank: Rank::RedJoker,
            position: 1,
            max: 1
        })
    );
    assert_eq!(
        "10 10 T t"
            .parse::<CardsVector>()
            .map(|v| v.count(Rank::Ten)),
        Ok(4)
    );
    assert!("10 10 T t 10".parse::<CardsVector>().is_err());
    assert_eq!("".parse::<CardsVector>(), Ok(CardsVector::EMPTY));
    assert_eq!("  \t\n".parse::<CardsVector>(), Ok(CardsVector::EMPTY));
    // Messages carry the item.
    let msg = "33x".parse::<CardsVector>().unwrap_err().to_string();
    assert!(msg.contains("\"x\"") && msg.contains('2'), "{msg}");
}

#[test]
fn ranks() {
    for (i, rank) in Rank::ALL.into_iter().enumerate() {
        assert_eq!(rank.index(), i);
        assert_eq!(Rank::from_index(i), Some(rank));
        assert_eq!(rank.to_char(), LETTERS[i]);
        assert_eq!(Rank::from_char(LETTERS[i]), Some(rank));
        assert_eq!(LETTERS[i].to_string().parse::<Rank>(), Ok(rank));
        assert_eq!(rank.to_string(), LETTERS[i].to_string());
    }
    assert_eq!(Rank::from_index(15), None);
    assert_eq!("10".parse::<Rank>(), Ok(Rank::Ten));
    assert_eq!(Rank::from_char('1'), None);
    assert!("1".parse::<Rank>().is_err());
    assert!("33".parse::<Rank>().is_err());
    assert!(Rank::Three < Rank::Two && Rank::Two < Rank::BlackJoker);
}
