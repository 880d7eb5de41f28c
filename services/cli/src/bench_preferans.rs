//! `deckhand bench preferans`: the ten standard all-foe problems solved in this
//! process on 1 and N threads, optionally side by side with another solver.
//!
//! `--compare CMD` runs `CMD NODES IDX` (through `sh -c`) for each problem, interleaved
//! with our runs so both see the same machine load. The command prints the histogram
//! (11 numbers, declarer tricks 0..10) on one line and its seconds on a later line.
//! Our one-thread figure is the CPU time of this process (the machine is shared; wall
//! time is printed too, and the kernel's part of the CPU time: mostly first touches of
//! table pages); the N-thread figure is wall time. Medians of `--repeats` runs.
//!
//! `--random N` solves N random declarer views instead, on one thread: the check that
//! a change to the solver serves any problem, not only the ten. With `--compare CMD`
//! it runs `CMD NODES CONTRACT LEADER VIEW` for each view (for example `CMD 50000 6S W
//! 'AKQ9.*KJT9.K9.*K8'`, the view in the declarer's notation) and checks that both
//! histograms agree. Each view's seconds are medians of `--repeats` runs per side, the
//! two sides alternating: a view of a fraction of a second is at the mercy of the
//! machine's load, and single runs moved one view's ratio from 1.50x to 0.93x.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context};
use deckhand_preferans::{
    analysis_order, solve_all_foe, solve_layouts_in, standard_problems, Cards, Contract,
    DeclarerView, Histogram, Seat, Solver, StandardProblem, Strain, DEFAULT_TT_BYTES,
    FIRST_LAYOUTS, LAYOUT_COUNT,
};

use crate::bench::Rng;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Threads for the multi-threaded run (default: available cores).
    #[arg(long)]
    threads: Option<usize>,
    /// A command taking `NODES IDX` (with `--random`: `NODES CONTRACT LEADER VIEW`)
    /// that prints the histogram line and seconds.
    #[arg(long)]
    compare: Option<String>,
    /// Runs per problem and side; the table shows medians.
    #[arg(long, default_value_t = 1)]
    repeats: usize,
    /// Layouts per problem (the first ones in layout order).
    #[arg(long, default_value_t = LAYOUT_COUNT)]
    layouts: u32,
    /// Only these problems (names or indices 0..9, comma-separated).
    #[arg(long, value_delimiter = ',')]
    problems: Vec<String>,
    /// Instead of the ten problems: this many random declarer views (declarer N, a
    /// random hand and talon, contract and leader W or E), one thread each.
    #[arg(long, conflicts_with = "problems")]
    random: Option<usize>,
    /// Seed of the random views (the same seed gives the same views).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// One problem's medians.
struct Row {
    name: &'static str,
    reference: Option<f64>,
    one_cpu: f64,
    /// The kernel's part of `one_cpu`.
    one_kernel: f64,
    one_wall: f64,
    many_wall: f64,
    exact: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.repeats > 0, "--repeats must be positive");
    anyhow::ensure!(
        (1..=LAYOUT_COUNT).contains(&args.layouts),
        "--layouts must be in 1..={LAYOUT_COUNT}"
    );
    if let Some(count) = args.random {
        return run_random(
            count,
            args.seed,
            args.layouts,
            args.repeats,
            args.compare.as_deref(),
        );
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    let all = standard_problems();
    let chosen: Vec<usize> = if args.problems.is_empty() {
        (0..all.len()).collect()
    } else {
        args.problems
            .iter()
            .map(|p| find_problem(&all, p))
            .collect::<anyhow::Result<_>>()?
    };
    let (cpu, wall) = fixed_cost(&all[0]);
    println!(
        "fixed cost per analysis (table of {} MB, touched as it fills; first layout solved): {:.2} ms CPU, {:.2} ms wall",
        DEFAULT_TT_BYTES >> 20,
        cpu * 1e3,
        wall * 1e3
    );
    println!(
        "{} layouts per problem, medians of {} run(s); ours: 1 thread (CPU s) and {threads} threads (wall s)",
        args.layouts, args.repeats
    );
    let mut rows = Vec::new();
    for &idx in &chosen {
        let p = &all[idx];
        // The published histograms, where the layouts are theirs; the other command's
        // histogram is held against ours in any case.
        let expected = match args.layouts {
            LAYOUT_COUNT => Some(p.histogram),
            FIRST_LAYOUTS => Some(p.first_histogram),
            _ => None,
        };
        let (mut reference, mut one_cpu, mut one_kernel, mut one_wall, mut many) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut exact = true;
        for _ in 0..args.repeats {
            let mut theirs = None;
            if let Some(cmd) = &args.compare {
                let (h, secs) = run_command(cmd, &format!("{} {idx}", args.layouts))?;
                theirs = Some(h);
                reference.push(secs);
            }
            let (h, cpu, wall) = ours(p, args.layouts, 1)?;
            exact &= expected.is_none_or(|e| e == h) && theirs.is_none_or(|t| t == h.counts);
            one_cpu.push(cpu.total());
            one_kernel.push(cpu.kernel);
            one_wall.push(wall);
            let (h_many, _, wall) = ours(p, args.layouts, threads)?;
            exact &= h_many == h;
            many.push(wall);
        }
        let row = Row {
            name: p.name,
            reference: (!reference.is_empty()).then(|| median(&mut reference)),
            one_cpu: median(&mut one_cpu),
            one_kernel: median(&mut one_kernel),
            one_wall: median(&mut one_wall),
            many_wall: median(&mut many),
            exact,
        };
        print_row(&row, threads);
        rows.push(row);
    }
    let total = |f: fn(&Row) -> f64| rows.iter().map(f).sum::<f64>();
    let reference = rows
        .iter()
        .map(|r| r.reference)
        .sum::<Option<f64>>()
        .filter(|_| args.compare.is_some());
    print_row(
        &Row {
            name: "total",
            reference,
            one_cpu: total(|r| r.one_cpu),
            one_kernel: total(|r| r.one_kernel),
            one_wall: total(|r| r.one_wall),
            many_wall: total(|r| r.many_wall),
            exact: rows.iter().all(|r| r.exact),
        },
        threads,
    );
    if rows.iter().any(|r| !r.exact) {
        bail!("a histogram differs from the published one or from the other command's");
    }
    Ok(())
}

/// Solves `count` random views on one thread; prints each view's nodes per layout and
/// CPU seconds (and with `compare`, the other solver's seconds and the ratio), medians
/// of `repeats` runs a side, then their totals by kind of strain.
fn run_random(
    count: usize,
    seed: u64,
    layouts: u32,
    repeats: usize,
    compare: Option<&str>,
) -> anyhow::Result<()> {
    let mut rng = views_rng(seed);
    println!(
        "{count} random views (seed {seed}), {layouts} layouts each, 1 thread, medians of {repeats} run(s)"
    );
    let mut kinds: BTreeMap<&str, KindTotals> = BTreeMap::new();
    let mut differ = 0;
    for _ in 0..count {
        let view = random_view(&mut rng);
        let (mut ref_runs, mut our_runs) = (Vec::new(), Vec::new());
        let mut same = true;
        let mut nodes = 0;
        let compare_args = format!(
            "{layouts} {} {} '{}'",
            view.contract(),
            view.leader(),
            view.notation()
        );
        for _ in 0..repeats {
            let reference = match compare {
                Some(cmd) => Some(run_command(cmd, &compare_args)?),
                None => None,
            };
            let mut solver = Solver::new(DEFAULT_TT_BYTES);
            let mut histogram = Histogram::default();
            let start = CpuTime::now();
            let order = analysis_order(&view, &(0..layouts));
            solve_layouts_in(&mut solver, &view, order, 0..layouts, |r| {
                histogram.add(r.tricks.as_slice()[0]);
                ControlFlow::Continue(())
            })?;
            our_runs.push(CpuTime::now().since(start).total());
            nodes = solver.stats().nodes;
            if let Some((h, secs)) = reference {
                same &= h == histogram.counts;
                ref_runs.push(secs);
            }
        }
        let cpu = median(&mut our_runs);
        let reference = (!ref_runs.is_empty()).then(|| median(&mut ref_runs));
        let ref_secs = reference.unwrap_or(0.0);
        let compared = match reference {
            Some(secs) => {
                differ += usize::from(!same);
                format!(
                    ", ref {secs:7.2} s, ratio {:6.2}x{}",
                    ratio(secs, cpu),
                    if same { "" } else { " HISTOGRAMS DIFFER" }
                )
            }
            None => String::new(),
        };
        println!(
            "{:<7} leader {} {:<16} {:8.1} nodes per layout, {cpu:6.2} s CPU{compared}",
            view.contract().to_string(),
            view.leader(),
            view.notation(),
            nodes as f64 / f64::from(layouts),
        );
        let kind = match view.contract().strain {
            Strain::Trump(_) => "trump",
            Strain::NoTrump => "no trump",
            Strain::Misere => "misere",
        };
        let totals = kinds.entry(kind).or_insert(KindTotals {
            views: 0,
            nodes: 0,
            cpu: 0.0,
            ref_secs: 0.0,
            least: f64::INFINITY,
        });
        totals.views += 1;
        totals.nodes += nodes;
        totals.cpu += cpu;
        totals.ref_secs += ref_secs;
        totals.least = totals.least.min(ratio(ref_secs, cpu));
    }
    for (kind, t) in kinds {
        let compared = match compare {
            Some(_) => format!(
                ", ref {:7.2} s, ratio {:5.2}x in sum, least {:5.2}x",
                t.ref_secs,
                ratio(t.ref_secs, t.cpu),
                t.least
            ),
            None => String::new(),
        };
        println!(
            "{kind:<8} {:3} views: {:8.1} nodes per layout, {:7.2} s CPU{compared}",
            t.views,
            t.nodes as f64 / (f64::from(t.views) * f64::from(layouts)),
            t.cpu,
        );
    }
    if differ > 0 {
        bail!(
            "{differ} view(s) got another histogram from `{}`",
            compare.unwrap_or_default()
        );
    }
    Ok(())
}

/// One kind of strain's random views, summed.
struct KindTotals {
    views: u32,
    nodes: u64,
    /// Our CPU seconds, and the other solver's.
    cpu: f64,
    ref_secs: f64,
    /// The least ratio of one view.
    least: f64,
}

/// How many times faster than the other solver's `reference` seconds ours are.
fn ratio(reference: f64, ours: f64) -> f64 {
    reference / ours.max(1e-3)
}

/// The source of the random views of `seed`.
fn views_rng(seed: u64) -> Rng {
    // xorshift never leaves a state of 0: the seed is mixed, and the one seed mixed to
    // 0 takes 1 instead.
    Rng((seed ^ 0x9E37_79B9_7F4A_7C15).max(1))
}

/// A random declarer view: declarer N with 10 random cards and a 2-card talon, one of
/// the six strains (at level 6), defender W or E on lead.
fn random_view(rng: &mut Rng) -> DeclarerView {
    let mut deck: Vec<u8> = (0..32).collect();
    for i in (1..deck.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        deck.swap(i, j);
    }
    let cards = |ids: &[u8]| Cards(ids.iter().fold(0, |m, &id| m | 1 << id));
    const CONTRACTS: [&str; 6] = ["6S", "6H", "6D", "6C", "6NT", "misere"];
    let contract: Contract = CONTRACTS[(rng.next() % 6) as usize]
        .parse()
        .expect("a valid contract");
    let leader = [Seat::W, Seat::E][(rng.next() % 2) as usize];
    DeclarerView::new(
        Seat::N,
        cards(&deck[..10]),
        cards(&deck[10..12]),
        contract,
        leader,
        Vec::new(),
    )
    .expect("10 distinct cards and a talon of 2 make a view")
}

fn print_row(r: &Row, threads: usize) {
    let reference = match r.reference {
        Some(s) => format!("ref {s:8.2} s  ratio {:5.2}x  ", s / r.one_cpu.max(0.01)),
        None => String::new(),
    };
    println!(
        "{:<17} {reference}1 thread {:7.2} s (kernel {:5.2}, wall {:7.2})  {threads} threads {:7.2} s ({:4.2}x)  {}",
        r.name,
        r.one_cpu,
        r.one_kernel,
        r.one_wall,
        r.many_wall,
        r.one_wall / r.many_wall.max(0.001),
        if r.exact { "exact" } else { "WRONG" }
    );
}

/// Our analysis of the first `layouts` layouts: histogram, CPU time, wall seconds.
fn ours(
    p: &StandardProblem,
    layouts: u32,
    threads: usize,
) -> anyhow::Result<(Histogram, CpuTime, f64)> {
    let (start, cpu) = (Instant::now(), CpuTime::now());
    let analysis = solve_all_foe(&p.view, 0..layouts, threads, |_| {})?;
    let (wall, cpu) = (start.elapsed().as_secs_f64(), CpuTime::now().since(cpu));
    Ok((analysis.openings[0].histogram, cpu, wall))
}

/// CPU and wall seconds to allocate a solver's table and solve one layout: the cost
/// every analysis pays before its first result.
fn fixed_cost(p: &StandardProblem) -> (f64, f64) {
    let (start, cpu) = (Instant::now(), CpuTime::now());
    let mut solver = Solver::default();
    let _ = deckhand_preferans::solve_layouts(&mut solver, &p.view, 0..1, |_| {
        std::ops::ControlFlow::Continue(())
    });
    (
        CpuTime::now().since(cpu).total(),
        start.elapsed().as_secs_f64(),
    )
}

/// Runs `cmd ARGS`; returns its histogram and the seconds it printed.
fn run_command(cmd: &str, args: &str) -> anyhow::Result<([u32; 11], f64)> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{cmd} {args}"))
        .output()
        .with_context(|| format!("running `{cmd}`"))?;
    anyhow::ensure!(out.status.success(), "`{cmd}` failed: {}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut histogram = None;
    let mut seconds = None;
    for line in text.lines() {
        let numbers: Vec<&str> = line.split_whitespace().collect();
        if numbers.len() == 11 {
            let mut h = [0u32; 11];
            for (slot, n) in h.iter_mut().zip(&numbers) {
                *slot = n
                    .parse()
                    .with_context(|| format!("histogram line `{line}`"))?;
            }
            histogram = Some(h);
        } else if histogram.is_some() && numbers.len() == 1 {
            seconds = numbers[0].parse::<f64>().ok();
        }
    }
    match (histogram, seconds) {
        (Some(h), Some(s)) => Ok((h, s)),
        _ => bail!("`{cmd}` printed no histogram line and seconds: {text}"),
    }
}

/// The index of standard problem `name_or_index` (a name, or an index 0..9).
pub fn find_problem(all: &[StandardProblem], name_or_index: &str) -> anyhow::Result<usize> {
    name_or_index
        .parse::<usize>()
        .ok()
        .filter(|&i| i < all.len())
        .or_else(|| all.iter().position(|q| q.name == name_or_index))
        .with_context(|| {
            let names: Vec<&str> = all.iter().map(|q| q.name).collect();
            format!(
                "unknown problem `{name_or_index}`: one of {} or an index 0..{}",
                names.join(", "),
                all.len() - 1
            )
        })
}

/// CPU seconds of this process, in user mode and in the kernel.
#[derive(Clone, Copy)]
struct CpuTime {
    user: f64,
    kernel: f64,
}

impl CpuTime {
    /// The CPU time used by this process so far, to the microsecond (the kernel's
    /// accounting, as the reference's getrusage; /proc/self/stat counts 10 ms ticks,
    /// too coarse for a short view).
    fn now() -> CpuTime {
        // SAFETY: getrusage only writes the struct it is given.
        let usage = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut usage);
            usage
        };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        CpuTime {
            user: seconds(usage.ru_utime),
            kernel: seconds(usage.ru_stime),
        }
    }

    fn since(self, start: CpuTime) -> CpuTime {
        CpuTime {
            user: self.user - start.user,
            kernel: self.kernel - start.kernel,
        }
    }

    fn total(self) -> f64 {
        self.user + self.kernel
    }
}

pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The printed notation reads back as the same view, so a slow random view can be
    /// rerun by hand; and one seed gives one sequence of views.
    #[test]
    fn random_views_print_a_notation_that_reads_back() {
        let mut rng = Rng(7);
        let mut again = Rng(7);
        let mut strains = std::collections::HashSet::new();
        for _ in 0..200 {
            let view = random_view(&mut rng);
            assert_eq!(view, random_view(&mut again));
            let text = view.notation();
            let read = DeclarerView::from_notation(&text, Seat::N, view.contract(), view.leader())
                .unwrap();
            assert_eq!(read, view, "{text}");
            strains.insert(view.contract().to_string());
        }
        assert_eq!(strains.len(), 6, "every strain comes up: {strains:?}");
    }

    /// With `--compare CMD` the ten problems' histograms are held against the
    /// command's on any number of layouts, not only against the published ones.
    #[test]
    fn standard_problems_compare_their_histograms_with_the_command() {
        let p = &standard_problems()[0];
        let layouts = 40;
        let ours = solve_all_foe(&p.view, 0..layouts, 1, |_| {})
            .unwrap()
            .openings[0]
            .histogram
            .counts;
        let mut wrong = ours;
        let moved = wrong.iter().position(|&c| c > 0).unwrap();
        wrong[moved] -= 1;
        wrong[(moved + 1) % 11] += 1;
        let bench = |counts: [u32; 11]| {
            let line: Vec<String> = counts.iter().map(u32::to_string).collect();
            run(Args {
                threads: Some(1),
                compare: Some(format!("echo {}; echo 0.25; true", line.join(" "))),
                repeats: 1,
                layouts,
                problems: vec!["0".to_string()],
                random: None,
                seed: 1,
            })
        };
        bench(ours).unwrap();
        let error = bench(wrong).unwrap_err().to_string();
        assert!(error.contains("other command's"), "{error}");
    }

    /// `--random --compare CMD` hands CMD the layouts, contract, leader and view (its
    /// `*` reaching it unexpanded) once per repeat, and fails when the histograms differ.
    #[test]
    fn random_views_compare_their_histograms_with_the_command() {
        let dir = std::env::temp_dir().join(format!("deckhand-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let args_file = dir.join("args");
        // Claims that the declarer takes all 10 tricks in each of the 40 layouts; the
        // test solves the view itself to know whether that is so.
        let cmd = format!(
            "f() {{ printf '%s|' \"$@\" >> {}; echo 0 0 0 0 0 0 0 0 0 0 40; echo 0.25; }}; f",
            args_file.display()
        );
        let mut rng = views_rng(7);
        let view = random_view(&mut rng);
        let mut solver = Solver::default();
        let mut tens = 0;
        deckhand_preferans::solve_layouts(&mut solver, &view, 0..40, |r| {
            tens += u32::from(r.tricks.as_slice()[0] == 10);
            ControlFlow::Continue(())
        })
        .unwrap();
        // Three runs a side: the command is called three times.
        let result = run_random(1, 7, 40, 3, Some(&cmd));
        let sent = std::fs::read_to_string(&args_file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            sent,
            format!(
                "40|{}|{}|{}|",
                view.contract(),
                view.leader(),
                view.notation()
            )
            .repeat(3)
        );
        assert!(view.notation().contains('*'));
        if tens == 40 {
            result.unwrap();
        } else {
            let error = result.unwrap_err().to_string();
            assert!(error.contains("another histogram"), "{error}");
        }
    }
}
