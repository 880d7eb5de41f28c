//! Double-dummy preferans solver (trumps, no trumps, misère) with a persistent
//! transposition table, and the all-foe analysis over the 184,756 defender layouts.
//!
//! Pure engine: no I/O, no transport types. Modules are private; the API is flat.

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
mod tt;
mod view;

pub use allfoe::{
    solve_all_foe, solve_all_foe_with, solve_layouts, Analysis, Histogram, LayoutResult,
    OpeningAnalysis, TricksPerOpening,
};
pub use cards::{BySeat, Card, CardParseError, Cards, CardsIter, Rank, Seat, Suit};
pub use contract::{Contract, ContractError, Strain};
pub use layouts::{layout_subset, layouts, LayoutIter, LAYOUT_COUNT};
pub use position::{Deal, Position, PositionError};
pub use problems::{
    parse_problems, parse_problems_lossy, DealError, ParseError, Problem, ProblemError,
};
pub use solver::{Solver, SolverStats};
pub use tt::DEFAULT_TT_BYTES;
pub use view::{DeclarerView, ViewError};
