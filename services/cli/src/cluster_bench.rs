//! `deckhand bench cluster [--problem NAME]`: what the cluster costs and what it buys.
//!
//! 1. The in-process solve (threads sharing one table) on 1 and 2 threads, in the
//!    layout order the coordinator uses: the baseline.
//! 2. The same analysis through a coordinator on 1 and on 2 worker processes
//!    (one solver thread each): layouts/s, the 2:1 ratio, and the overhead
//!    against the baseline on as many threads; then on 2 workers sharing one table
//!    file (`--table-file`), as workers on one host may. The workers open a fresh
//!    file, faulted in as they start, before the analysis is timed.
//! 3. Warm against cold tables: layouts [n, 2n) on a worker that has just solved
//!    [0, n) with the same trumps, against the same layouts on a fresh worker (when
//!    2n layouts exist).
//!
//! `--repeats N` runs every measurement N times, with fresh workers each round, and
//! shows medians (and each round's ratios): single runs of the 2-worker rows moved by
//! up to a third.
//!
//! On Linux the 2-worker rows also give the workers' CPU seconds for the analysis
//! (from /proc, which leaves out the time the hypervisor gave other machines): one
//! worker's against the busier of two, and the two together against one. When the
//! first ratio matches the layouts/s ratio, the 2 workers lost nothing to waiting,
//! the transport or the coordinator, only to computing more slowly or more. It does
//! not take the host's noise out: a core shared with other machines computes more
//! slowly without being taken away. (preferansRu7, `--repeats 3`, six runs: the CPU
//! ratio within 0.04 of the layouts/s ratio in each; both workers on one table file
//! did 0.99× to 1.23× one worker's CPU seconds, for the same work.)
//!
//! So is this process's CPU time meanwhile, the coordinator's and the client's, which
//! on one host would be taken from the workers (preferansRu7: 0.05 s of a 3 s
//! analysis).
//!
//! The workers' search nodes (from their Status) are shown too: the work of 2 workers
//! against 1's, whatever the host's speed. Twice one worker's nodes over two workers'
//! bounds what 2 workers can reach running as fast per node as one.
//!
//! The problem is one of the ten standard ones; the long ones (solvealldeals3,
//! preferansRu4, preferansRu7) show what workers buy once tables are warm.

use std::net::TcpListener;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use coordinator::RunningCoordinator;
use deckhand::proto::preferans::v1 as pb;
use deckhand::server::ServerConfig;
use deckhand_preferans::{
    analysis_order, solve_all_foe_with, solve_layouts_in, standard_problems, Solver,
    StandardProblem, DEFAULT_TT_BYTES, LAYOUT_COUNT,
};
use pb::coordinator_service_client::CoordinatorServiceClient;
use pb::preferans_worker_service_client::PreferansWorkerServiceClient;

use crate::bench_preferans::median;

struct WorkerProcess(Child, String);

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl WorkerProcess {
    /// CPU seconds (user and kernel, all threads) the worker has used so far, from
    /// /proc in 10 ms ticks; None where unreadable (not Linux).
    fn cpu_seconds(&self) -> Option<f64> {
        cpu_seconds(&self.0.id().to_string())
    }
}

/// CPU seconds process `pid` ("self": this one) has used so far, as
/// [`WorkerProcess::cpu_seconds`].
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some(cpu_ticks(&stat)? / per_second)
}

/// User and kernel clock ticks from a /proc/PID/stat line: its fields 14 and 15,
/// counted after the command name, which is in parentheses and may hold spaces and
/// parentheses of its own.
fn cpu_ticks(stat: &str) -> Option<f64> {
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // The state, field 3, comes first after the name.
    let field = |i: usize| fields.get(i - 3)?.parse::<f64>().ok();
    Some(field(14)? + field(15)?)
}

/// What the workers spent on one analysis.
#[derive(Debug, Clone)]
struct Cost {
    /// Each worker's CPU seconds, where readable (see [`WorkerProcess::cpu_seconds`]).
    cpu: Option<Vec<f64>>,
    /// Search nodes of all the workers together: the work, whatever the host's speed.
    nodes: u64,
    /// CPU seconds of this process meanwhile: the coordinator and the client, which on
    /// one host take them from the workers.
    coordinator_cpu: Option<f64>,
}

/// What `workers` spent while `work` ran, and `work`'s answer.
async fn with_cost<T>(
    workers: &[WorkerProcess],
    work: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<(T, Cost)> {
    let cpu = || {
        workers
            .iter()
            .map(WorkerProcess::cpu_seconds)
            .collect::<Option<Vec<f64>>>()
    };
    let (cpu_before, nodes_before) = (cpu(), search_nodes(workers).await?);
    let own_before = cpu_seconds("self");
    let answer = work.await?;
    let coordinator_cpu = own_before.zip(cpu_seconds("self")).map(|(b, a)| a - b);
    let nodes = search_nodes(workers).await? - nodes_before;
    let cpu = cpu_before
        .zip(cpu())
        .map(|(before, after)| after.iter().zip(&before).map(|(a, b)| a - b).collect());
    Ok((
        answer,
        Cost {
            cpu,
            nodes,
            coordinator_cpu,
        },
    ))
}

/// The search nodes of all `workers`' threads, once none is busy (a thread's count is
/// updated when its piece of work ends, just after its last layouts are sent).
async fn search_nodes(workers: &[WorkerProcess]) -> anyhow::Result<u64> {
    let mut total = 0;
    for w in workers {
        let mut client = PreferansWorkerServiceClient::connect(format!("http://{}", w.1)).await?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let status = client.status(pb::StatusRequest {}).await?.into_inner();
            if status.threads.iter().all(|t| !t.busy) {
                total += status.threads.iter().map(|t| t.search_nodes).sum::<u64>();
                break;
            }
            if Instant::now() > deadline {
                bail!("worker {} still busy 10 s after the analysis", w.1);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    Ok(total)
}

/// A worker of one solver thread; with `table_file`, on that shared table.
fn start_worker(bin: &Path, table_file: Option<&Path>) -> anyhow::Result<WorkerProcess> {
    let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?.to_string();
    let mut command = Command::new(bin);
    command.args(["--listen", &addr, "--threads", "1"]);
    if let Some(path) = table_file {
        command.arg("--table-file").arg(path);
    }
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {}", bin.display()))?;
    Ok(WorkerProcess(child, addr))
}

/// A table file for the bench's workers, on /dev/shm where it exists; removed when
/// dropped.
struct TableFile(PathBuf);

impl TableFile {
    fn new() -> TableFile {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let path = dir.join(format!("deckhand-bench-{}.table", std::process::id()));
        let _ = std::fs::remove_file(&path);
        if !huge_pages_on(&dir) {
            eprintln!(
                "warning: {} is not a tmpfs mounted with huge=advise (or always, within_size): the table file gets small pages, which cost its searches about 30%",
                dir.display()
            );
        }
        TableFile(path)
    }
}

/// Whether `dir` is the mount point of a tmpfs that gives files huge pages.
fn huge_pages_on(dir: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts.lines().any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        matches!(fields[..], [_, point, "tmpfs", options, ..]
        if Path::new(point) == dir
            && options.split(',').any(|o| {
                matches!(o, "huge=advise" | "huge=always" | "huge=within_size")
            }))
    })
}

impl Drop for TableFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn wait_serving(addr: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(mut c) = PreferansWorkerServiceClient::connect(format!("http://{addr}")).await {
            if c.status(pb::StatusRequest {}).await.is_ok() {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!("worker {addr} did not start")
}

async fn coordinator(workers: &[WorkerProcess]) -> anyhow::Result<RunningCoordinator> {
    for w in workers {
        wait_serving(&w.1).await?;
    }
    let config = coordinator::Config::new(workers.iter().map(|w| w.1.clone()).collect());
    let server = coordinator::spawn(config, ServerConfig::loopback()).await?;
    // Let the drivers see their workers before timing.
    let mut client = CoordinatorServiceClient::connect(format!("http://{}", server.addr)).await?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let list = client
            .list_workers(pb::ListWorkersRequest {})
            .await?
            .into_inner();
        let up = list
            .workers
            .iter()
            .filter(|w| w.state != pb::WorkerState::Down as i32)
            .count();
        if up == workers.len() {
            return Ok(server);
        }
        if Instant::now() > deadline {
            bail!("coordinator does not see its workers");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs one analysis through the coordinator; returns layouts/s.
async fn analyze(
    server: &RunningCoordinator,
    problem: &StandardProblem,
    start: u32,
    end: u32,
) -> anyhow::Result<f64> {
    let view = &problem.view;
    let mut client = CoordinatorServiceClient::connect(format!("http://{}", server.addr)).await?;
    let request = pb::AnalyzeAllFoeRequest {
        view: Some(pb::DeclarerView {
            declarer: deckhand::preferans::seat_to_proto(view.declarer()) as i32,
            contract: view.contract().to_string(),
            leader: deckhand::preferans::seat_to_proto(view.leader()) as i32,
            compact: problem.notation.into(),
            ..Default::default()
        }),
        start,
        end,
    };
    let began = Instant::now();
    let mut stream = client.analyze_all_foe(request).await?.into_inner();
    while let Some(event) = stream.message().await? {
        if let Some(pb::analyze_all_foe_response::Event::Result(r)) = event.event {
            return Ok(f64::from(r.layouts) / began.elapsed().as_secs_f64());
        }
    }
    bail!("no result")
}

/// The in-process solve on `threads` threads sharing one table, in the order the
/// coordinator cuts these layouts in, as the cluster rows are.
fn in_process(problem: &StandardProblem, threads: usize, end: u32) -> anyhow::Result<f64> {
    let order = analysis_order(&problem.view, &(0..end));
    let began = Instant::now();
    let analysis = solve_all_foe_with(
        &problem.view,
        order,
        0..end,
        threads,
        DEFAULT_TT_BYTES,
        |_| {},
    )?;
    Ok(f64::from(analysis.layouts()) / began.elapsed().as_secs_f64())
}

/// Two workers on hosts of their own, estimated in this process: each half of the
/// layouts solved alone on one thread with a table of its own, one after the other, so
/// the halves share no cache (as across hosts; on one host two workers also share the
/// L3). The rate is that of the slower half. The halves are the coordinator's.
fn halves_alone(problem: &StandardProblem, end: u32) -> anyhow::Result<f64> {
    let order = analysis_order(&problem.view, &(0..end));
    let mut slowest = 0f64;
    for half in [0..end / 2, end / 2..end] {
        let began = Instant::now();
        solve_layouts_in(&mut Solver::default(), &problem.view, order, half, |_| {
            ControlFlow::Continue(())
        })?;
        slowest = slowest.max(began.elapsed().as_secs_f64());
    }
    Ok(f64::from(end) / slowest)
}

/// One round of every measurement, in layouts/s.
#[derive(Debug, Clone)]
struct Round {
    in_process_1: f64,
    in_process_2: f64,
    hosts_2: f64,
    cluster_1: f64,
    cluster_2: f64,
    cluster_2_shared: f64,
    /// What the workers spent on the analysis (see the module's documentation), on 1
    /// worker, on 2 with a table each and on 2 on one table file.
    cost_1: Cost,
    cost_2: Cost,
    cost_2_shared: Cost,
    /// Layouts [n, 2n) on the worker that has just solved [0, n), and on a fresh one
    /// (when 2n layouts exist).
    warm_cold: Option<(f64, f64)>,
}

async fn round(problem: &Arc<StandardProblem>, bin: &Path, layouts: u32) -> anyhow::Result<Round> {
    let p = problem.clone();
    let in_process_1 = tokio::task::spawn_blocking(move || in_process(&p, 1, layouts)).await??;
    let p = problem.clone();
    let in_process_2 = tokio::task::spawn_blocking(move || in_process(&p, 2, layouts)).await??;
    let p = problem.clone();
    let hosts_2 = tokio::task::spawn_blocking(move || halves_alone(&p, layouts)).await??;

    let one = [start_worker(bin, None)?];
    let server = coordinator(&one).await?;
    let (cluster_1, cost_1) = with_cost(&one, analyze(&server, problem, 0, layouts)).await?;
    let warm = if 2 * layouts <= LAYOUT_COUNT {
        Some(analyze(&server, problem, layouts, 2 * layouts).await?)
    } else {
        None
    };
    server.shutdown().await?;
    drop(one);

    let two = [start_worker(bin, None)?, start_worker(bin, None)?];
    let server = coordinator(&two).await?;
    let (cluster_2, cost_2) = with_cost(&two, analyze(&server, problem, 0, layouts)).await?;
    server.shutdown().await?;
    drop(two);

    let table_file = TableFile::new();
    let two = [
        start_worker(bin, Some(&table_file.0))?,
        start_worker(bin, Some(&table_file.0))?,
    ];
    let server = coordinator(&two).await?;
    let (cluster_2_shared, cost_2_shared) =
        with_cost(&two, analyze(&server, problem, 0, layouts)).await?;
    server.shutdown().await?;
    drop(two);
    drop(table_file);

    let warm_cold = match warm {
        Some(warm) => {
            let fresh = [start_worker(bin, None)?];
            let server = coordinator(&fresh).await?;
            let cold = analyze(&server, problem, layouts, 2 * layouts).await?;
            server.shutdown().await?;
            Some((warm, cold))
        }
        None => None,
    };
    Ok(Round {
        in_process_1,
        in_process_2,
        hosts_2,
        cluster_1,
        cluster_2,
        cluster_2_shared,
        cost_1,
        cost_2,
        cost_2_shared,
        warm_cold,
    })
}

pub async fn run(
    layouts: u32,
    problem: &str,
    worker_bin: Option<PathBuf>,
    repeats: usize,
) -> anyhow::Result<()> {
    anyhow::ensure!(repeats > 0, "--repeats must be positive");
    let mut all = standard_problems();
    let problem = all.swap_remove(crate::bench_preferans::find_problem(&all, problem)?);
    if !(1..=LAYOUT_COUNT).contains(&layouts) {
        bail!("--layouts must be in 1..={LAYOUT_COUNT}");
    }
    let problem = Arc::new(problem);
    let bin = match worker_bin {
        Some(bin) => bin,
        None => std::env::current_exe()?.with_file_name("preferans-worker"),
    };
    if !bin.exists() {
        bail!("{} not found: build it (cargo build --release -p preferans-worker) or pass --worker-bin", bin.display());
    }
    // A worker left from an older build may hold an older engine than the in-process
    // rows (a plain `cargo build` builds only this binary, not the worker). A build of
    // the whole workspace links the worker a little before this binary, hence the margin.
    let modified = |path: &std::path::Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let (Some(worker), Some(bench)) = (modified(&bin), modified(&std::env::current_exe()?)) {
        if let Ok(older) = bench.duration_since(worker) {
            if older > Duration::from_secs(600) {
                eprintln!(
                    "warning: {} was built {} min before this binary; rebuild both (cargo build --release --workspace), or the cluster rows may measure an older engine",
                    bin.display(),
                    older.as_secs() / 60
                );
            }
        }
    }
    let view = &problem.view;
    println!(
        "problem {} ({}, {}, {} leads), layouts 0..{layouts}",
        problem.name,
        problem.notation,
        view.contract(),
        view.leader()
    );

    let mut rounds = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        rounds.push(round(&problem, &bin, layouts).await?);
    }
    // Each row's median over the rounds, and the ratios of those medians; with several
    // rounds, also each round's own ratio, to show the spread, and their median: the
    // two sides of a round run within seconds of each other, so it follows the host's
    // changes of speed between rounds less than the ratio of medians does.
    let median_of =
        |rate: fn(&Round) -> f64| median(&mut rounds.iter().map(rate).collect::<Vec<_>>());
    let spread = |ratio: fn(&Round) -> f64| {
        if rounds.len() < 2 {
            return String::new();
        }
        let each: Vec<String> = rounds.iter().map(|r| format!("{:.2}", ratio(r))).collect();
        format!(
            "; rounds {}, their median {:.2}x",
            each.join(" "),
            median_of(ratio)
        )
    };
    let base1 = median_of(|r| r.in_process_1);
    let base2 = median_of(|r| r.in_process_2);
    let hosts2 = median_of(|r| r.hosts_2);
    let cluster1 = median_of(|r| r.cluster_1);
    let cluster2 = median_of(|r| r.cluster_2);
    let cluster2_shared = median_of(|r| r.cluster_2_shared);
    println!("medians of {repeats} round(s), in layouts/s");
    println!("in-process, 1 thread : {base1:>9.0} layouts/s");
    println!(
        "in-process, 2 threads: {base2:>9.0} layouts/s  ({:.2}x{})",
        base2 / base1,
        spread(|r| r.in_process_2 / r.in_process_1)
    );
    println!(
        "2 hosts, estimated   : {hosts2:>9.0} layouts/s  ({:.2}x; each half of the layouts alone, a table each{})",
        hosts2 / base1,
        spread(|r| r.hosts_2 / r.in_process_1)
    );
    let overhead = |cluster: f64, base: f64| (base / cluster - 1.0) * 100.0;
    println!(
        "cluster, 1 worker   : {cluster1:>9.0} layouts/s  (overhead vs in-process 1 thread: {:+.1}%)",
        overhead(cluster1, base1)
    );
    println!(
        "cluster, 2 workers  : {cluster2:>9.0} layouts/s  ({:.2}x of 1 worker{}; overhead vs in-process 2 threads: {:+.1}%)",
        cluster2 / cluster1,
        spread(|r| r.cluster_2 / r.cluster_1),
        overhead(cluster2, base2)
    );
    println!(
        "cluster, 2 workers on one table file: {cluster2_shared:>9.0} layouts/s  ({:.2}x of 1 worker{})",
        cluster2_shared / cluster1,
        spread(|r| r.cluster_2_shared / r.cluster_1)
    );
    // The CPU rows, where every round read the workers' CPU time: per round the one
    // worker's seconds, the busier of two's and both together.
    let cpu_row = |name: &str, two: fn(&Round) -> Option<&[f64]>| {
        let Some(each) = rounds
            .iter()
            .map(|r| {
                let (one, two) = (r.cost_1.cpu.as_deref()?, two(r)?);
                let busier = two.iter().copied().fold(0.0, f64::max);
                Some((one.iter().sum::<f64>(), busier, two.iter().sum::<f64>()))
            })
            .collect::<Option<Vec<(f64, f64, f64)>>>()
        else {
            return;
        };
        let median_of =
            |f: fn(&(f64, f64, f64)) -> f64| median(&mut each.iter().map(f).collect::<Vec<_>>());
        let (one, busier, both) = (median_of(|e| e.0), median_of(|e| e.1), median_of(|e| e.2));
        let ratios: Vec<String> = each.iter().map(|e| format!("{:.2}", e.0 / e.1)).collect();
        println!(
            "  CPU, {name}: 1 worker {one:.2} s, the busier of 2 {busier:.2} s ({:.2}x; rounds {}), both {both:.2} s ({:.2}x the work of 1)",
            one / busier,
            ratios.join(" "),
            both / one
        );
    };
    cpu_row("a table each", |r| r.cost_2.cpu.as_deref());
    cpu_row("one table file", |r| r.cost_2_shared.cpu.as_deref());
    if rounds.iter().all(|r| r.cost_1.coordinator_cpu.is_some()) {
        println!(
            "  CPU of the coordinator and client (this process): with 1 worker {:.2} s, 2 with a table each {:.2} s, 2 on one table file {:.2} s",
            median_of(|r| r.cost_1.coordinator_cpu.unwrap_or(0.0)),
            median_of(|r| r.cost_2.coordinator_cpu.unwrap_or(0.0)),
            median_of(|r| r.cost_2_shared.coordinator_cpu.unwrap_or(0.0))
        );
    }
    // The nodes: how much of a 2-worker row's loss is more work, not slower work.
    let one = median_of(|r| r.cost_1.nodes as f64) / f64::from(layouts);
    let each = median_of(|r| r.cost_2.nodes as f64) / f64::from(layouts);
    let shared = median_of(|r| r.cost_2_shared.nodes as f64) / f64::from(layouts);
    println!(
        "  nodes per layout: 1 worker {one:.1}; 2 with a table each {each:.1} ({:.3}x the work of 1, so at most {:.2}x at equal speed); on one table file {shared:.1} ({:.3}x)",
        each / one,
        2.0 * one / each,
        shared / one
    );
    if rounds[0].warm_cold.is_none() {
        println!(
            "warm against cold worker: skipped (needs --layouts at most {})",
            LAYOUT_COUNT / 2
        );
        return Ok(());
    }
    let warm = median_of(|r| r.warm_cold.map_or(0.0, |(warm, _)| warm));
    let cold = median_of(|r| r.warm_cold.map_or(0.0, |(_, cold)| cold));
    println!(
        "layouts {layouts}..{}: warm worker {warm:.0} layouts/s, cold worker {cold:.0} layouts/s ({:.2}x)",
        2 * layouts,
        warm / cold
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_ticks_are_read_after_the_command_name() {
        let stat = "4321 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 250 17 3 4 20 0 1 0 77";
        assert_eq!(super::cpu_ticks(stat), Some(267.0));
        assert_eq!(super::cpu_ticks("4321 (short) S 1 2"), None);
        assert_eq!(super::cpu_ticks("no name"), None);
        if cfg!(target_os = "linux") {
            // This process's own line parses.
            let own = std::fs::read_to_string("/proc/self/stat").unwrap();
            assert!(super::cpu_ticks(&own).is_some());
        }
    }

    #[tokio::test]
    async fn no_rounds_is_refused_before_anything_starts() {
        let error = super::run(200, "preferansRu1", None, 0).await.unwrap_err();
        assert!(error.to_string().contains("--repeats"), "{error}");
    }
}
