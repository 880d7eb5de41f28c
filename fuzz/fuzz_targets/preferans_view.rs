//! The declarer-view notation of the published problems (`T987.T987.*98.*Q#J`):
//! never panics, whatever the text, seats and contract.
#![no_main]

use deckhand_preferans::{Contract, DeclarerView, Seat};
use libfuzzer_sys::fuzz_target;

const CONTRACTS: [&str; 4] = ["misere", "6S", "7NT", "10H"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let seat = |i: u8| Seat::ALL[usize::from(i) % 3];
    let Ok(contract) = CONTRACTS[usize::from(choice >> 6)].parse::<Contract>() else {
        return;
    };
    let _ = DeclarerView::from_notation(text, seat(choice), contract, seat(choice >> 2));
});
