//! Double-dummy preferans solver (trumps, no trumps, misère) with a persistent
//! transposition table, and the all-foe analysis over the 184,756 defender layouts.
//!
//! Pure engine: no I/O, no transport types. Modules are private; the API is flat.
//!
//! # Layout indices
//!
//! The declarer sees its 10 cards and the 2 talon cards (and any card already
//! played); the 20 others are split between the two defenders in C(20,10) =
//! [`LAYOUT_COUNT`] ways. Layout `k` means the same split everywhere: number the
//! 20 unknown cards 0..19 in card order (spades, hearts, diamonds, clubs; ace
//! down to seven in each suit), list the 10-card subsets of those numbers in
//! lexicographic order starting with {0, 1, .., 9}, and give subset `k` to the
//! defender seated before the declarer, the other ten cards to the other one.
//!
//! # Example
//!
//! The declarer's value in the first layout of a view, after each opening lead:
//!
//! ```
//! use deckhand_preferans::{Contract, DeclarerView, Position, Seat, Solver};
//!
//! let contract: Contract = "6S".parse().unwrap();
//! // E holds QT7 of spades, KQJ of hearts, the ace of diamonds and KQJ of clubs;
//! // the talon was the 8 and 7 of diamonds.
//! let view = DeclarerView::from_notation("QT7.KQJ.A*8*7.KQJ", Seat::E, contract, Seat::E)
//!     .unwrap();
//! let hands = view.layout_hands(0).unwrap();
//! let mut solver = Solver::new(1 << 20);
//! for opening in view.openings().into_iter().flatten() {
//!     let position =
//!         Position::from_full_hands(hands, contract.strain, Seat::E, Seat::E, &[opening]).unwrap();
//!     let tricks = solver.solve(&position);
//!     assert!(tricks <= 10);
//! }
//! ```

mod allfoe;
mod cards;
mod contract;
mod history;
mod layouts;
mod ordering;
mod position;
mod problems;
mod quick;
mod rules;
mod search;
mod solver;
mod standard;
mod table_memory;
mod tt;
mod view;

pub use allfoe::{
    analysis_order, solve_all_foe, solve_all_foe_with, solve_layouts, solve_layouts_in,
    split_order, Analysis, Histogram, LayoutResult, OpeningAnalysis, TricksPerOpening,
};
pub use cards::{BySeat, Card, CardParseError, Cards, CardsIter, Rank, Seat, Suit};
pub use contract::{Contract, ContractError, Strain};
pub use layouts::{
    layout_subset, layouts, LayoutIter, LayoutOrder, LayoutOrderError, LAYOUT_COUNT,
};
pub use position::{Deal, Position, PositionError};
pub use problems::{
    parse_problems, parse_problems_lossy, DealError, ParseError, Problem, ProblemError,
};
pub use solver::{Solver, SolverStats};
pub use standard::{standard_problems, StandardProblem, FIRST_LAYOUTS};
pub use table_memory::TableFileError;
pub use tt::DEFAULT_TT_BYTES;
pub use view::{DeclarerView, ViewError};
