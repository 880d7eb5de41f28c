//! `.pts`/`.bts` problem files: reading never panics, and the strict reader
//! agrees with the lossy one.
#![no_main]

use deckhand_preferans::{parse_problems, parse_problems_lossy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (problems, errors) = parse_problems_lossy(text);
    match parse_problems(text) {
        Ok(strict) => {
            assert!(errors.is_empty());
            assert_eq!(strict.len(), problems.len());
        }
        Err(e) => assert_eq!(Some(&e), errors.first()),
    }
});
