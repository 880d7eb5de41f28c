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
//!   the item (`items[2].tiles[0]: …`). Oversized inputs (more tiles than the
//!   rule set holds) are rejected before any tile is parsed.
//!
//! The search runs on tokio's blocking pool. Solvers for the standard rules
//! are kept in a small pool (a solver keeps its tables and memo memory between
//! queries); other rule sets get a solver per request (per batch).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use deckhand::proto::rummikub::v1 as pb;
use deckhand::status::{check_batch, invalid};
use tonic::{Request, Response, Status};

use deckhand_rummikub::{Error, Meld, MeldKind, Objective, RuleSet, Solver, Tile, TileCounts};

pub use pb::rummikub_service_server::RummikubServiceServer;

/// Default port of the rummikub service.
pub const DEFAULT_PORT: u16 = 50052;
/// Default largest number of items in one batch request.
pub const DEFAULT_MAX_BATCH: usize = 100_000;

/// Longest tile text echoed back in an error message.
const MAX_ECHO: usize = 16;
/// Fewest batch items worth a blocking task of their own.
const MIN_CHUNK: usize = 64;

/// Solvers for the standard rules, checked out by one query at a time.
struct SolverPool {
    idle: Mutex<Vec<Solver>>,
    keep: usize,
}

impl SolverPool {
    fn new(keep: usize) -> SolverPool {
        SolverPool {
            idle: Mutex::new(Vec::new()),
            keep,
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Solver>> {
        // A panic while holding the lock cannot leave the Vec inconsistent.
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A solver for `rules`: a pooled one for the standard rules, else a new one.
    fn take(&self, rules: RuleSet) -> Result<Solver, Error> {
        if rules == RuleSet::default() {
            if let Some(solver) = self.idle().pop() {
                return Ok(solver);
            }
        }
        Solver::new(rules)
    }

    /// Returns a solver; only standard-rules solvers are kept, at most `keep`.
    fn give(&self, solver: Solver) {
        if *solver.rules() == RuleSet::default() {
            let mut idle = self.idle();
            if idle.len() < self.keep {
                idle.push(solver);
            }
        }
    }
}

/// The RummikubService implementation.
#[derive(Clone)]
pub struct Rummikub {
    max_batch: usize,
    pool: Arc<SolverPool>,
}

impl std::fmt::Debug for Rummikub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rummikub")
            .field("max_batch", &self.max_batch)
            .field("pooled_solvers", &self.pool.idle().len())
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
            pool: Arc::new(SolverPool::new(2 * parallelism())),
        }
    }

    /// The tonic server of this service with the message-size limit applied.
    pub fn into_server(self, max_message_bytes: usize) -> RummikubServiceServer<Rummikub> {
        RummikubServiceServer::new(self)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes)
    }
}

fn parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

// ---------------------------------------------------------------------------
// Validation: wire -> engine types, with the offending field named.

/// The rule set of a request; `field` names it in errors (`rules`, `items[2].rules`).
fn rules(wire: Option<&pb::RuleSet>, field: &str) -> Result<RuleSet, Status> {
    let standard = RuleSet::default();
    let Some(wire) = wire else {
        return Ok(standard);
    };
    // 0 takes the standard value; anything above u8 (u16 for the opening
    // value) saturates, so the engine's range check (all maxima are below the
    // saturated value) rejects it, and the message below quotes the value as
    // sent. `jokers` is optional: unset is standard, 0 means no jokers.
    let pick = |value: u32, default: u8| match value {
        0 => default,
        v => u8::try_from(v).unwrap_or(u8::MAX),
    };
    let rules = RuleSet {
        numbers: pick(wire.numbers, standard.numbers),
        colours: pick(wire.colours, standard.colours),
        copies: pick(wire.copies, standard.copies),
        jokers: wire
            .jokers
            .map_or(standard.jokers, |v| u8::try_from(v).unwrap_or(u8::MAX)),
        min_len: pick(wire.min_len, standard.min_len),
        opening_value: match wire.opening_value {
            0 => standard.opening_value,
            v => u16::try_from(v).unwrap_or(u16::MAX),
        },
        allow_redundant_jokers: !wire.forbid_redundant_jokers,
    };
    match rules.validate() {
        Ok(()) => Ok(rules),
        Err(Error::RuleOutOfRange {
            name,
            value,
            min,
            max,
        }) => {
            let sent = match name {
                "numbers" => wire.numbers,
                "colours" => wire.colours,
                "copies" => wire.copies,
                "jokers" => wire.jokers.unwrap_or(value),
                "min_len" => wire.min_len,
                "opening_value" => wire.opening_value,
                _ => value,
            };
            Err(invalid(
                format!("{field}.{name}"),
                format!("{sent} is outside the supported range {min}..={max}"),
            ))
        }
        Err(e) => Err(invalid(field, e)),
    }
}

/// How many tiles the whole game of `rules` has.
fn game_size(rules: &RuleSet) -> usize {
    usize::from(rules.numbers) * usize::from(rules.colours) * usize::from(rules.copies)
        + usize::from(rules.jokers)
}

/// Parses one tile per entry; `field` names the list (`tiles`, `rack`, ...).
fn parse(texts: &[String], field: &str) -> Result<Vec<Tile>, Status> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            text.parse::<Tile>().map_err(|e| {
                let item = format!("{field}[{i}]");
                if text.chars().count() > MAX_ECHO {
                    let head: String = text.chars().take(MAX_ECHO).collect();
                    invalid(
                        item,
                        format!(
                            "unknown tile {head:?}… ({} bytes): expected a colour letter \
                             (k b o r g p y w) and a number, or J",
                            text.len()
                        ),
                    )
                } else {
                    invalid(item, e)
                }
            })
        })
        .collect()
}

/// The item of `lists` that an engine error is about: the first tile outside
/// the rule set, the first copy (or joker) beyond the rule set's count. The
/// lists are counted together, in order (table then rack).
fn locate(err: &Error, lists: &[(&str, &[Tile])]) -> Option<(String, bool)> {
    let (tile, nth) = match err {
        Error::NumberOutOfRange { tile, .. } | Error::ColourOutOfRange { tile, .. } => (*tile, 1),
        Error::TooManyCopies { tile, copies, .. } => (*tile, usize::from(*copies) + 1),
        Error::TooManyJokers { jokers, .. } => (Tile::JOKER, usize::from(*jokers) + 1),
        _ => return None,
    };
    let (list, index) = lists
        .iter()
        .enumerate()
        .flat_map(|(l, (_, tiles))| tiles.iter().enumerate().map(move |(i, t)| (l, i, *t)))
        .filter(|&(_, _, t)| t == tile)
        .nth(nth - 1)
        .map(|(l, i, _)| (l, i))?;
    // Did earlier lists hold copies of it too (table and rack counted together)?
    let shared = lists[..list].iter().any(|(_, tiles)| tiles.contains(&tile));
    Some((format!("{}[{index}]", lists[list].0), shared))
}

/// An engine error as INVALID_ARGUMENT naming the field it is about.
fn engine_status(err: Error, rules_field: &str, lists: &[(&str, &[Tile])]) -> Status {
    match &err {
        Error::TableNotValid { .. } => {
            let table = lists.first().map_or("table", |(name, _)| *name);
            invalid(table, err)
        }
        Error::RuleOutOfRange { name, .. } => invalid(format!("{rules_field}.{name}"), err),
        Error::RuleSetTooLarge { .. } => invalid(rules_field, err),
        Error::UnknownTile { text } => {
            let field = lists
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(" / ");
            invalid(field, format!("unknown tile {text:?}"))
        }
        _ => match locate(&err, lists) {
            Some((field, true)) => invalid(field, format!("{err} (table and rack together)")),
            Some((field, false)) => invalid(field, err),
            None => invalid(lists.first().map_or("tiles", |(name, _)| *name), err),
        },
    }
}

/// Checks tile counts against the rule set (all lists together).
fn check_counts(
    rules: &RuleSet,
    rules_field: &str,
    lists: &[(&str, &[Tile])],
) -> Result<(), Status> {
    let all: Vec<Tile> = lists.iter().flat_map(|(_, t)| t.iter().copied()).collect();
    TileCounts::new(rules, &all)
        .map(|_| ())
        .map_err(|e| engine_status(e, rules_field, lists))
}

/// A validated Arrange item.
struct ArrangeJob {
    rules: RuleSet,
    tiles: Vec<Tile>,
    /// Field prefix for errors found while solving (`""` or `items[2].`).
    prefix: String,
}

impl ArrangeJob {
    fn new(request: &pb::ArrangeRequest, prefix: &str) -> Result<ArrangeJob, Status> {
        let rules_field = format!("{prefix}rules");
        let tiles_field = format!("{prefix}tiles");
        let rules = rules(request.rules.as_ref(), &rules_field)?;
        let most = game_size(&rules);
        if request.tiles.len() > most {
            return Err(invalid(
                tiles_field,
                format!(
                    "{} tiles given, but the rule set has only {most} tiles",
                    request.tiles.len()
                ),
            ));
        }
        let tiles = parse(&request.tiles, &tiles_field)?;
        check_counts(&rules, &rules_field, &[(&tiles_field, &tiles)])?;
        Ok(ArrangeJob {
            rules,
            tiles,
            prefix: prefix.to_string(),
        })
    }

    fn solve(&self, solver: &mut Solver) -> Result<pb::ArrangeResponse, Status> {
        let melds = solver.arrange(&self.tiles).map_err(|e| {
            let tiles_field = format!("{}tiles", self.prefix);
            engine_status(
                e,
                &format!("{}rules", self.prefix),
                &[(&tiles_field, &self.tiles)],
            )
        })?;
        Ok(match melds {
            Some(melds) => pb::ArrangeResponse {
                solvable: true,
                melds: melds.iter().map(to_meld).collect(),
            },
            None => pb::ArrangeResponse {
                solvable: false,
                melds: Vec::new(),
            },
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
    fn new(request: &pb::BestMoveRequest) -> Result<MoveJob, Status> {
        let rules = rules(request.rules.as_ref(), "rules")?;
        let objective = match pb::Objective::try_from(request.objective) {
            Ok(pb::Objective::Unspecified | pb::Objective::MaxTiles) => Objective::MaxTiles,
            Ok(pb::Objective::MaxValue) => Objective::MaxValue,
            Err(_) => {
                return Err(invalid(
                    "objective",
                    format!("unknown objective {}", request.objective),
                ))
            }
        };
        let most = game_size(&rules);
        let (on_table, on_rack) = (request.table.len(), request.rack.len());
        if on_table > most {
            return Err(invalid(
                "table",
                format!("{on_table} tiles given, but the rule set has only {most} tiles"),
            ));
        }
        if on_table + on_rack > most {
            return Err(invalid(
                "rack",
                format!(
                    "table and rack hold {} tiles together, but the rule set has only {most} tiles",
                    on_table + on_rack
                ),
            ));
        }
        let table = parse(&request.table, "table")?;
        let rack = parse(&request.rack, "rack")?;
        check_counts(&rules, "rules", &[("table", &table), ("rack", &rack)])?;
        Ok(MoveJob {
            rules,
            table,
            rack,
            objective,
            opening: request.opening,
        })
    }

    fn solve(&self, pool: &SolverPool) -> Result<pb::BestMoveResponse, Status> {
        let lists: [(&str, &[Tile]); 2] = [("table", &self.table), ("rack", &self.rack)];
        let mut solver = pool
            .take(self.rules)
            .map_err(|e| engine_status(e, "rules", &lists))?;
        let result = solver.best_move(&self.table, &self.rack, self.objective, self.opening);
        pool.give(solver);
        let best = result.map_err(|e| engine_status(e, "rules", &lists))?;
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
// Batches.

/// Solvers of one batch task, one per rule set; standard ones go back to the pool.
struct Solvers<'a> {
    pool: &'a SolverPool,
    by_rules: HashMap<RuleSet, Solver>,
}

impl<'a> Solvers<'a> {
    fn new(pool: &'a SolverPool) -> Self {
        Solvers {
            pool,
            by_rules: HashMap::new(),
        }
    }

    fn get(&mut self, job: &ArrangeJob) -> Result<&mut Solver, Status> {
        use std::collections::hash_map::Entry;
        match self.by_rules.entry(job.rules) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(e) => {
                let solver = self.pool.take(job.rules).map_err(|err| {
                    let tiles_field = format!("{}tiles", job.prefix);
                    engine_status(
                        err,
                        &format!("{}rules", job.prefix),
                        &[(&tiles_field, &job.tiles)],
                    )
                })?;
                Ok(e.insert(solver))
            }
        }
    }
}

impl Drop for Solvers<'_> {
    fn drop(&mut self) {
        for (_, solver) in self.by_rules.drain() {
            self.pool.give(solver);
        }
    }
}

/// Set when the request's handler is dropped (client gone, deadline passed),
/// so batch tasks on the blocking pool stop between items.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn cancelled() -> Status {
    Status::cancelled("request cancelled")
}

fn join_error(e: tokio::task::JoinError) -> Status {
    Status::internal(format!("rummikub task failed: {e}"))
}

/// Validates every item, and builds a solver for each distinct rule set so
/// that a rule set the solver cannot handle is reported at its first item.
fn prepare_batch(
    items: &[pb::ArrangeRequest],
    pool: &SolverPool,
    cancel: &AtomicBool,
) -> Result<Vec<ArrangeJob>, Status> {
    let mut jobs = Vec::with_capacity(items.len());
    let mut solvers = Solvers::new(pool);
    for (i, item) in items.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(cancelled());
        }
        let job = ArrangeJob::new(item, &format!("items[{i}]."))?;
        solvers.get(&job)?;
        jobs.push(job);
    }
    Ok(jobs)
}

fn solve_chunk(
    jobs: &[ArrangeJob],
    pool: &SolverPool,
    cancel: &AtomicBool,
) -> Result<Vec<pb::ArrangeResponse>, Status> {
    let mut solvers = Solvers::new(pool);
    jobs.iter()
        .map(|job| {
            if cancel.load(Ordering::Relaxed) {
                return Err(cancelled());
            }
            job.solve(solvers.get(job)?)
        })
        .collect()
}

#[tonic::async_trait]
impl pb::rummikub_service_server::RummikubService for Rummikub {
    async fn arrange(
        &self,
        request: Request<pb::ArrangeRequest>,
    ) -> Result<Response<pb::ArrangeResponse>, Status> {
        let job = ArrangeJob::new(request.get_ref(), "")?;
        let pool = Arc::clone(&self.pool);
        let response = tokio::task::spawn_blocking(move || {
            let mut solvers = Solvers::new(&pool);
            job.solve(solvers.get(&job)?)
        })
        .await
        .map_err(join_error)??;
        Ok(Response::new(response))
    }

    async fn arrange_batch(
        &self,
        request: Request<pb::ArrangeBatchRequest>,
    ) -> Result<Response<pb::ArrangeBatchResponse>, Status> {
        let items = request.into_inner().items;
        check_batch("items", items.len(), self.max_batch)?;
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(Arc::clone(&cancel));

        let (pool, flag) = (Arc::clone(&self.pool), Arc::clone(&cancel));
        let jobs = tokio::task::spawn_blocking(move || prepare_batch(&items, &pool, &flag))
            .await
            .map_err(join_error)??;

        // Split the work over the cores, each part on its own blocking thread.
        let tasks = parallelism().min(jobs.len().div_ceil(MIN_CHUNK)).max(1);
        let size = jobs.len().div_ceil(tasks);
        let jobs = Arc::new(jobs);
        let handles: Vec<_> = (0..tasks)
            .map(|t| {
                let (jobs, pool, flag) = (
                    Arc::clone(&jobs),
                    Arc::clone(&self.pool),
                    Arc::clone(&cancel),
                );
                tokio::task::spawn_blocking(move || {
                    let end = jobs.len().min((t + 1) * size);
                    let part = jobs.get(t * size..end).unwrap_or(&[]);
                    solve_chunk(part, &pool, &flag)
                })
            })
            .collect();
        let mut results = Vec::with_capacity(jobs.len());
        for handle in handles {
            results.extend(handle.await.map_err(join_error)??);
        }
        Ok(Response::new(pb::ArrangeBatchResponse { results }))
    }

    async fn best_move(
        &self,
        request: Request<pb::BestMoveRequest>,
    ) -> Result<Response<pb::BestMoveResponse>, Status> {
        let job = MoveJob::new(request.get_ref())?;
        let pool = Arc::clone(&self.pool);
        let response = tokio::task::spawn_blocking(move || job.solve(&pool))
            .await
            .map_err(join_error)??;
        Ok(Response::new(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deckhand_rummikub::parse_tiles;

    #[test]
    fn locate_names_the_extra_copy() {
        let table = parse_tiles("k5 b5 o5").unwrap();
        let rack = parse_tiles("r1 k5 k5").unwrap();
        let lists: [(&str, &[Tile]); 2] = [("table", &table), ("rack", &rack)];
        let err = Error::TooManyCopies {
            tile: "k5".parse().unwrap(),
            count: 3,
            copies: 2,
        };
        assert_eq!(locate(&err, &lists), Some(("rack[2]".into(), true)));
        let err = Error::TooManyJokers {
            count: 1,
            jokers: 0,
        };
        assert_eq!(locate(&err, &lists), None);
    }

    #[test]
    fn rules_default_and_out_of_range() {
        assert_eq!(rules(None, "rules").unwrap(), RuleSet::default());
        let zero = pb::RuleSet::default();
        assert_eq!(rules(Some(&zero), "rules").unwrap(), RuleSet::default());
        let big = pb::RuleSet {
            numbers: 300,
            ..Default::default()
        };
        let status = rules(Some(&big), "items[1].rules").unwrap_err();
        assert_eq!(
            status.message(),
            "items[1].rules.numbers: 300 is outside the supported range 1..=31"
        );
        let opening = pb::RuleSet {
            opening_value: 70_000,
            ..Default::default()
        };
        let status = rules(Some(&opening), "rules").unwrap_err();
        assert_eq!(
            status.message(),
            "rules.opening_value: 70000 is outside the supported range 0..=255"
        );
    }

    #[test]
    fn rules_optional_jokers_and_new_fields() {
        let none = pb::RuleSet {
            jokers: Some(0),
            ..Default::default()
        };
        assert_eq!(rules(Some(&none), "rules").unwrap().jokers, 0);
        let one = pb::RuleSet {
            jokers: Some(1),
            opening_value: 25,
            forbid_redundant_jokers: true,
            ..Default::default()
        };
        assert_eq!(
            rules(Some(&one), "rules").unwrap(),
            RuleSet {
                jokers: 1,
                opening_value: 25,
                allow_redundant_jokers: false,
                ..RuleSet::default()
            }
        );
        let status = rules(
            Some(&pb::RuleSet {
                jokers: Some(300),
                ..Default::default()
            }),
            "rules",
        )
        .unwrap_err();
        assert_eq!(
            status.message(),
            "rules.jokers: 300 is outside the supported range 0..=4"
        );
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

    #[test]
    fn pool_keeps_only_standard_solvers() {
        let pool = SolverPool::new(1);
        let a = pool.take(RuleSet::default()).unwrap();
        let b = pool.take(RuleSet::default()).unwrap();
        let odd = pool
            .take(RuleSet {
                numbers: 9,
                ..RuleSet::default()
            })
            .unwrap();
        pool.give(a);
        pool.give(b);
        pool.give(odd);
        assert_eq!(pool.idle().len(), 1);
    }
}
