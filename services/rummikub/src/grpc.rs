//! gRPC adapter of the rummikub engine: validates and translates protobuf
//! messages, calls the engine, translates back. No game logic lives here.
//!
//! Conventions of the wire API:
//! * each entry of `tiles`, `table` and `rack` is one tile: `k1`, `b13`, `o7`,
//!   `r5`, `J` (letters in either case, surrounding whitespace ignored);
//!   answers use the lower-case form and `J` for a joker;
//! * no `rules` at all, or a `RuleSet` field left at its default, takes the
//!   standard value (13 numbers, 4 colours, 2 copies, 2 jokers, melds of 3 or
//!   more, openings worth 30, redundant jokers allowed). `jokers` is optional:
//!   unset is the standard 2, an explicit 0 a game without jokers. The other
//!   numeric fields read 0 as "standard"; `forbid_redundant_jokers` maps to
//!   the engine's `allow_redundant_jokers = !forbid_redundant_jokers`;
//! * every meld carries `represents`, parallel to `tiles`: the number tile
//!   each tile stands for (itself, or what a joker replaces);
//! * an empty `tiles` list is trivially solvable: `solvable = true`, no melds;
//! * an empty rack (or nothing placeable) answers `placed = []` and the
//!   table's own arrangement as `melds`;
//! * bad input is INVALID_ARGUMENT naming the item: `tiles[3]: unknown tile …`,
//!   `rack[1]: tile k5 appears 3 times …`, `table: the table tiles do not form
//!   valid melds …`, `rules.numbers: 40 is outside …`, in batches prefixed by
//!   the item (`items[2].tiles[0]: …`), one violation per bad item (the
//!   first bad entry of each item). Oversized inputs (more tiles than the
//!   rule set holds) are rejected before any tile is parsed.
//!
//! Searches run on the shared CPU pool (`deckhand::pool`); solvers are reused
//! through the crate's private `solvers` module, which bounds their memory and
//! counts it in the in-flight budget. A batch may use at most [`MAX_RULE_SETS`]
//! distinct rule sets (each needs its own solver tables, built in up to about
//! 15 ms).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use deckhand::batch_stream::{answer_each, AnswerStream};
use deckhand::budget::{BatchCost, MemoryBudget};
use deckhand::pool::{self, Cost};
use deckhand::proto::rummikub::v1 as pb;
use deckhand::status::{check_batch, collect_batch, FieldResult, Invalid};
use tonic::{Request, Response, Status, Streaming};

use deckhand_rummikub::{Error, Meld, MeldKind, Objective, RawRules, RuleSet, Solver, Tile};

use crate::solvers::SolverPool;

pub use pb::rummikub_service_server::RummikubServiceServer;

/// Default port of the rummikub service.
pub const DEFAULT_PORT: u16 = 50052;
/// Default largest number of items in one batch request.
pub const DEFAULT_MAX_BATCH: usize = 100_000;

/// Idle standard-rules solvers kept for reuse: two per core.
fn solvers_kept() -> usize {
    2 * pool::size()
}

/// Fewest batch items worth a pool job of their own.
const MIN_CHUNK: usize = 64;
/// Most distinct rule sets in one batch.
pub const MAX_RULE_SETS: usize = 16;

/// The RummikubService implementation.
#[derive(Clone)]
pub struct Rummikub {
    max_batch: usize,
    solvers: Arc<SolverPool>,
    budget: MemoryBudget,
}

impl std::fmt::Debug for Rummikub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rummikub")
            .field("max_batch", &self.max_batch)
            .field("solvers", &self.solvers)
            .finish()
    }
}

impl Default for Rummikub {
    fn default() -> Self {
        Rummikub::new(DEFAULT_MAX_BATCH)
    }
}

impl Rummikub {
    pub fn new(max_batch: usize) -> Self {
        Rummikub {
            max_batch,
            solvers: Arc::new(SolverPool::new(solvers_kept(), MemoryBudget::default())),
            budget: MemoryBudget::default(),
        }
    }

    /// Batches are checked against `budget` before they run, and the
    /// solvers' memory is counted in it.
    pub fn with_budget(mut self, budget: MemoryBudget) -> Self {
        self.solvers = Arc::new(SolverPool::new(solvers_kept(), budget.clone()));
        self.budget = budget;
        self
    }

    /// The tonic server of this service with the message-size limit applied.
    pub fn into_server(self, max_message_bytes: usize) -> RummikubServiceServer<Rummikub> {
        RummikubServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }
}

/// The memory bound of an ArrangeBatch, from each item's tile count `n`:
/// the decoded item (a String of 24 bytes plus a 16-byte allocation per
/// tile, and the struct), the validated job, the answer in memory (every tile
/// twice as a String, in `tiles` and `represents`, and up to n/3 melds) and
/// encoded (measured 9 bytes per tile for a full game; 12 bounds it).
fn arrange_batch_cost(items: &[pb::ArrangeRequest]) -> BatchCost {
    let mut cost = BatchCost::new("items", Some("ArrangeBatchStream"));
    for item in items {
        let n = item.tiles.len();
        let encoded = 12 * n + 8;
        cost.item(
            128 + 40 * n + (n + 64) + (80 * n + 20 * n + 32) + encoded,
            encoded,
        );
    }
    cost
}

// ---------------------------------------------------------------------------
// Wire -> engine. Field paths are relative to the request (or batch item).

/// The rule set of a request.
fn rules(wire: Option<&pb::RuleSet>) -> Result<RuleSet, Invalid> {
    let Some(wire) = wire else {
        return Ok(RuleSet::default());
    };
    // 0 takes the standard value; `jokers` is optional: unset is standard, 0
    // means no jokers.
    let standard = RawRules::default();
    let pick = |value: u32, standard: u32| if value == 0 { standard } else { value };
    let raw = RawRules {
        numbers: pick(wire.numbers, standard.numbers),
        colours: pick(wire.colours, standard.colours),
        copies: pick(wire.copies, standard.copies),
        jokers: wire.jokers.unwrap_or(standard.jokers),
        min_len: pick(wire.min_len, standard.min_len),
        opening_value: pick(wire.opening_value, standard.opening_value),
        allow_redundant_jokers: !wire.forbid_redundant_jokers,
    };
    RuleSet::try_from(raw).map_err(|e| engine_error(e, &[]))
}

/// Parses one tile per entry; `field` names the list (`tiles`, `rack`, ...).
fn parse(texts: &[String], field: &str) -> Result<Vec<Tile>, Invalid> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| text.parse::<Tile>().field(|| format!("{field}[{i}]")))
        .collect()
}

/// An engine error named by its item. `lists` are the tile lists the engine
/// saw as one input, in order (table then rack), so a tile position maps to
/// one of them.
fn engine_error(err: Error, lists: &[(&str, &[Tile])]) -> Invalid {
    let first = lists.first().map_or("tiles", |(name, _)| *name);
    let field = match &err {
        Error::RuleOutOfRange { rule, .. } => format!("rules.{rule}"),
        Error::RuleSetTooLarge { .. } => "rules".to_string(),
        _ => match err.position() {
            Some(mut at) => lists
                .iter()
                .find_map(|(name, tiles)| {
                    if at < tiles.len() {
                        return Some(format!("{name}[{at}]"));
                    }
                    at -= tiles.len();
                    None
                })
                .unwrap_or_else(|| first.to_string()),
            None => first.to_string(),
        },
    };
    let later = lists.len() > 1 && !field.starts_with(first) && !field.starts_with("rules");
    if later
        && matches!(
            err,
            Error::TooManyCopies { .. } | Error::TooManyJokers { .. }
        )
    {
        return Invalid::new(field, format!("{err} (table and rack counted together)"));
    }
    Invalid::new(field, err)
}

/// Rejects more tiles than the whole game of `rules` has, before parsing any.
fn check_size(rules: &RuleSet, field: &str, given: usize, what: &str) -> Result<(), Invalid> {
    let most = rules.game_size();
    if given > most {
        return Err(Invalid::new(
            field,
            format!("{what} hold {given} tiles, but the rule set has only {most} tiles"),
        ));
    }
    Ok(())
}

/// A validated Arrange item.
pub(crate) struct ArrangeJob {
    pub(crate) rules: RuleSet,
    tiles: Vec<Tile>,
}

impl ArrangeJob {
    fn new(request: &pb::ArrangeRequest) -> Result<ArrangeJob, Invalid> {
        let rules = rules(request.rules.as_ref())?;
        check_size(&rules, "tiles", request.tiles.len(), "the tiles")?;
        let tiles = parse(&request.tiles, "tiles")?;
        deckhand_rummikub::TileCounts::new(&rules, &tiles)
            .map_err(|e| engine_error(e, &[("tiles", &tiles)]))?;
        Ok(ArrangeJob { rules, tiles })
    }

    fn solve(&self, solver: &mut Solver) -> Result<pb::ArrangeResponse, Invalid> {
        let melds = solver
            .arrange(&self.tiles)
            .map_err(|e| engine_error(e, &[("tiles", &self.tiles)]))?;
        Ok(pb::ArrangeResponse {
            solvable: melds.is_some(),
            melds: melds.iter().flatten().map(to_meld).collect(),
        })
    }
}

/// A validated BestMove request.
struct MoveJob {
    rules: RuleSet,
    table: Vec<Tile>,
    rack: Vec<Tile>,
    objective: Objective,
    opening: bool,
}

impl MoveJob {
    fn new(request: &pb::BestMoveRequest) -> Result<MoveJob, Invalid> {
        let rules = rules(request.rules.as_ref())?;
        let objective = match pb::Objective::try_from(request.objective) {
            Ok(pb::Objective::Unspecified | pb::Objective::MaxTiles) => Objective::MaxTiles,
            Ok(pb::Objective::MaxValue) => Objective::MaxValue,
            Err(_) => {
                return Err(Invalid::new(
                    "objective",
                    format!("unknown objective {}", request.objective),
                ))
            }
        };
        let (on_table, on_rack) = (request.table.len(), request.rack.len());
        check_size(&rules, "table", on_table, "the table tiles")?;
        check_size(&rules, "rack", on_table + on_rack, "table and rack")?;
        let table = parse(&request.table, "table")?;
        let rack = parse(&request.rack, "rack")?;
        Ok(MoveJob {
            rules,
            table,
            rack,
            objective,
            opening: request.opening,
        })
    }

    fn solve(&self, solvers: &SolverPool) -> Result<pb::BestMoveResponse, Invalid> {
        let lists: [(&str, &[Tile]); 2] = [("table", &self.table), ("rack", &self.rack)];
        let mut solver = solvers
            .take(self.rules)
            .map_err(|e| engine_error(e, &lists))?;
        let result = solver.best_move(&self.table, &self.rack, self.objective, self.opening);
        solvers.give(solver);
        let best = result.map_err(|e| engine_error(e, &lists))?;
        Ok(pb::BestMoveResponse {
            placed: best.placed.iter().map(Tile::to_string).collect(),
            melds: best.melds.iter().map(to_meld).collect(),
        })
    }
}

fn to_meld(meld: &Meld) -> pb::Meld {
    let kind = match meld.kind {
        MeldKind::Run => pb::MeldKind::Run,
        MeldKind::Group => pb::MeldKind::Group,
    };
    pb::Meld {
        kind: kind as i32,
        tiles: meld.tiles.iter().map(Tile::to_string).collect(),
        represents: meld.represents.iter().map(Tile::to_string).collect(),
    }
}

// ---------------------------------------------------------------------------
// Batches: errors name the item (`items[2].tiles[0]`).

/// Set when the request's handler is dropped (client gone, deadline passed),
/// so batch jobs on the pool stop between items.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn cancelled() -> Status {
    Status::cancelled("request cancelled")
}

/// Validates every item, and checks each distinct rule set once (at most
/// [`MAX_RULE_SETS`]) so that a rule set the solver cannot handle is reported
/// at the items using it. A failed batch names every bad item.
fn prepare_batch(
    items: &[pb::ArrangeRequest],
    cancel: &AtomicBool,
) -> Result<Vec<ArrangeJob>, Status> {
    let mut rule_sets: HashMap<RuleSet, Result<(), Error>> = HashMap::new();
    let checked = items.iter().enumerate().map_while(|(i, item)| {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let job = ArrangeJob::new(item).and_then(|job| {
            if !rule_sets.contains_key(&job.rules) && rule_sets.len() == MAX_RULE_SETS {
                return Err(Invalid::new(
                    "rules",
                    format!(
                        "a batch uses at most {MAX_RULE_SETS} distinct rule sets; \
                         send the items of other rule sets in another batch"
                    ),
                ));
            }
            let supported = rule_sets
                .entry(job.rules)
                .or_insert_with(|| Solver::supports(&job.rules));
            match supported {
                Ok(()) => Ok(job),
                Err(e) => Err(engine_error(e.clone(), &[("tiles", &job.tiles)])),
            }
        });
        Some(job.map_err(|e| e.within(format_args!("items[{i}]"))))
    });
    let jobs = collect_batch(checked);
    if cancel.load(Ordering::Relaxed) {
        return Err(cancelled());
    }
    Ok(jobs?)
}

/// Solves `jobs`, the batch items from index `first` on: one result per item,
/// so that the caller can name every item that failed. The items are taken
/// rule set by rule set, so one solver at a time is at work.
fn solve_chunk(
    jobs: &[ArrangeJob],
    first: usize,
    solvers: &SolverPool,
    cancel: &AtomicBool,
) -> Result<Vec<Result<pb::ArrangeResponse, Invalid>>, Status> {
    let mut by_rules: Vec<(RuleSet, Vec<usize>)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        match by_rules.iter_mut().find(|(rules, _)| *rules == job.rules) {
            Some((_, items)) => items.push(i),
            None => by_rules.push((job.rules, vec![i])),
        }
    }
    let mut results: Vec<Option<Result<pb::ArrangeResponse, Invalid>>> =
        (0..jobs.len()).map(|_| None).collect();
    for (rules, items) in by_rules {
        let mut solver = match solvers.take(rules) {
            Ok(solver) => solver,
            Err(e) => {
                for &i in &items {
                    let bad = engine_error(e.clone(), &[("tiles", &jobs[i].tiles)]);
                    results[i] = Some(Err(bad.within(format_args!("items[{}]", first + i))));
                }
                continue;
            }
        };
        for &i in &items {
            if cancel.load(Ordering::Relaxed) {
                return Err(cancelled());
            }
            let answer = jobs[i].solve(&mut solver);
            results[i] = Some(answer.map_err(|e| e.within(format_args!("items[{}]", first + i))));
        }
        solvers.give(solver);
    }
    Ok(results.into_iter().flatten().collect())
}

#[tonic::async_trait]
impl pb::rummikub_service_server::RummikubService for Rummikub {
    async fn arrange(
        &self,
        request: Request<pb::ArrangeRequest>,
    ) -> Result<Response<pb::ArrangeResponse>, Status> {
        let job = ArrangeJob::new(request.get_ref())?;
        let solvers = Arc::clone(&self.solvers);
        let response = pool::run(Cost::HEAVY, move || {
            let mut solver = solvers
                .take(job.rules)
                .map_err(|e| engine_error(e, &[("tiles", &job.tiles)]))?;
            let answer = job.solve(&mut solver);
            solvers.give(solver);
            answer
        })
        .await??;
        Ok(Response::new(response))
    }

    async fn arrange_batch(
        &self,
        request: Request<pb::ArrangeBatchRequest>,
    ) -> Result<Response<pb::ArrangeBatchResponse>, Status> {
        let items = request.into_inner().items;
        check_batch("items", items.len(), self.max_batch)?;
        let reserved = self.budget.reserve(&arrange_batch_cost(&items))?;
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(Arc::clone(&cancel));

        let flag = Arc::clone(&cancel);
        let jobs = pool::run(Cost::HEAVY, move || prepare_batch(&items, &flag)).await??;

        // Split the work into one pool job per core; the pool bounds how many
        // run at once across all requests.
        let parts = pool::size().min(jobs.len().div_ceil(MIN_CHUNK)).max(1);
        let size = jobs.len().div_ceil(parts);
        let jobs = Arc::new(jobs);
        let handles: Vec<_> = (0..parts)
            .map(|part| {
                let (jobs, solvers, flag) = (
                    Arc::clone(&jobs),
                    Arc::clone(&self.solvers),
                    Arc::clone(&cancel),
                );
                tokio::spawn(pool::run(Cost::HEAVY, move || {
                    let first = part * size;
                    let chunk = jobs.get(first..jobs.len().min(first + size)).unwrap_or(&[]);
                    solve_chunk(chunk, first, &solvers, &flag)
                }))
            })
            .collect();
        let mut results = Vec::with_capacity(jobs.len());
        for handle in handles {
            results.extend(handle.await.map_err(deckhand::status::task_failed)???);
        }
        let results = collect_batch(results)?;
        Ok(reserved.answer(pb::ArrangeBatchResponse { results }))
    }

    async fn best_move(
        &self,
        request: Request<pb::BestMoveRequest>,
    ) -> Result<Response<pb::BestMoveResponse>, Status> {
        let job = MoveJob::new(request.get_ref())?;
        let solvers = Arc::clone(&self.solvers);
        let response = pool::run(Cost::HEAVY, move || job.solve(&solvers)).await??;
        Ok(Response::new(response))
    }

    type ArrangeBatchStreamStream = AnswerStream<pb::ArrangeBatchResponse>;

    async fn arrange_batch_stream(
        &self,
        request: Request<Streaming<pb::ArrangeBatchRequest>>,
    ) -> Result<Response<Self::ArrangeBatchStreamStream>, Status> {
        let service = self.clone();
        Ok(Response::new(answer_each(request.into_inner(), move |m| {
            let service = service.clone();
            async move { service.arrange_batch(Request::new(m)).await }
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deckhand_rummikub::parse_tiles;

    #[test]
    fn positions_map_to_table_or_rack() {
        let table = parse_tiles("k5 b5 o5").unwrap();
        let rack = parse_tiles("r1 k5 k5").unwrap();
        let lists: [(&str, &[Tile]); 2] = [("table", &table), ("rack", &rack)];
        let err = deckhand_rummikub::TileCounts::new(
            &RuleSet::default(),
            &[table.clone(), rack.clone()].concat(),
        )
        .unwrap_err();
        assert_eq!(engine_error(err, &lists).field, "rack[2]");
    }

    #[test]
    fn rules_default_and_out_of_range() {
        assert_eq!(rules(None).unwrap(), RuleSet::default());
        let zero = pb::RuleSet::default();
        assert_eq!(rules(Some(&zero)).unwrap(), RuleSet::default());
        let big = pb::RuleSet {
            numbers: 300,
            ..Default::default()
        };
        let bad = rules(Some(&big)).unwrap_err().within("items[1]");
        assert_eq!(bad.field, "items[1].rules.numbers");
        assert!(bad
            .reason
            .contains("300 is outside the supported range 1..=31"));
        let opening = pb::RuleSet {
            opening_value: 70_000,
            ..Default::default()
        };
        let bad = rules(Some(&opening)).unwrap_err();
        assert_eq!(bad.field, "rules.opening_value");
        assert!(bad
            .reason
            .contains("70000 is outside the supported range 0..=255"));
    }

    #[test]
    fn rules_optional_jokers_and_new_fields() {
        let none = pb::RuleSet {
            jokers: Some(0),
            ..Default::default()
        };
        assert_eq!(rules(Some(&none)).unwrap().jokers(), 0);
        let one = pb::RuleSet {
            jokers: Some(1),
            opening_value: 25,
            forbid_redundant_jokers: true,
            ..Default::default()
        };
        let expected = RuleSet::try_from(RawRules {
            jokers: 1,
            opening_value: 25,
            allow_redundant_jokers: false,
            ..RawRules::default()
        })
        .unwrap();
        assert_eq!(rules(Some(&one)).unwrap(), expected);
        let bad = rules(Some(&pb::RuleSet {
            jokers: Some(300),
            ..Default::default()
        }))
        .unwrap_err();
        assert_eq!(bad.field, "rules.jokers");
        assert!(bad
            .reason
            .contains("300 is outside the supported range 0..=4"));
    }

    #[test]
    fn melds_carry_what_jokers_stand_for() {
        let tiles = deckhand_rummikub::parse_tiles("k1 k2 J").unwrap();
        let melds = deckhand_rummikub::arrange(&RuleSet::default(), &tiles)
            .unwrap()
            .unwrap();
        let wire = to_meld(&melds[0]);
        assert_eq!(wire.tiles.len(), wire.represents.len());
        assert_eq!(wire.represents[..2], ["k1", "k2"]);
    }
}
