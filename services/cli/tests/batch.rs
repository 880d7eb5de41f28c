//! `deckhand preferans batch …` end to end: the real CLI binary against a coordinator
//! and worker started in this process, each result checked against the engine solving
//! the same layouts directly.

use std::path::Path;
use std::process::{Command, Output};

use deckhand::server::{spawn, ServerConfig, Services};
use deckhand_preferans::{solve_all_foe, Contract, DeclarerView, Seat};
use preferans_worker::grpc::{SolverPool, Worker};
use serde_json::Value;
use tonic::server::NamedService;
use tonic::service::Routes;

const WORKER: &str =
    <preferans_worker::grpc::PreferansWorkerServiceServer<Worker> as NamedService>::NAME;

/// (view, contract, lead, layouts) of the problems in `problems.jsonl`.
const PROBLEMS: [(&str, &str, &str, std::ops::Range<u32>); 2] = [
    ("A*8*7.AKT.KJ.A987", "6C", "W", 0..3000),
    ("T987.T987.#98.*Q*J", "misere", "N", 5000..7000),
];

fn jsonl() -> String {
    PROBLEMS
        .iter()
        .enumerate()
        .map(|(i, (view, contract, lead, range))| {
            format!(
                "{{\"name\": \"p{i}\", \"view\": \"{view}\", \"contract\": \"{contract}\", \"lead\": \"{lead}\", \"layouts\": \"{}..{}\"}}\n",
                range.start, range.end
            )
        })
        .collect()
}

/// The declarer-trick histogram of a problem, solved by the engine here.
fn expected_histogram(i: usize) -> Vec<u64> {
    let (view, contract, lead, range) = &PROBLEMS[i];
    let contract: Contract = contract.parse().unwrap();
    let lead = Seat::from_char(lead.chars().next().unwrap()).unwrap();
    let view = DeclarerView::from_notation(view, Seat::N, contract, lead).unwrap();
    let analysis = solve_all_foe(&view, range.clone(), 2, |_| {}).unwrap();
    analysis.openings[0]
        .histogram
        .counts
        .iter()
        .map(|&c| u64::from(c))
        .collect()
}

fn deckhand(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_deckhand"))
        .args(args)
        .env_remove("DECKHAND_COORDINATOR")
        .output()
        .expect("run deckhand")
}

fn ok_stdout(args: &[&str]) -> String {
    let out = deckhand(args);
    assert!(
        out.status.success(),
        "deckhand {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON result lines (one per problem) match the engine's own histograms.
fn check_results(stdout: &str) {
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), PROBLEMS.len(), "{stdout}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["name"], format!("p{i}"));
        let range = &PROBLEMS[i].3;
        assert_eq!(line["layouts"], u64::from(range.end - range.start));
        let histogram: Vec<u64> = line["openings"][0]["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(histogram, expected_histogram(i), "problem {i}");
    }
}

fn write_problems(dir: &Path) -> String {
    let file = dir.join("problems.jsonl");
    std::fs::write(&file, jsonl()).unwrap();
    file.to_str().unwrap().to_string()
}

#[test]
fn batch_commands_against_a_coordinator() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (worker, coordinator) = rt.block_on(async {
        let worker = Worker::new(SolverPool::new(1, 16 << 20)).into_server(64 << 20);
        let worker = spawn(
            ServerConfig::loopback(),
            Services::new(Routes::new(worker), &[WORKER]),
        )
        .await
        .unwrap();
        let config = coordinator::Config::new(vec![worker.addr.to_string()]);
        let coordinator = coordinator::spawn(config, ServerConfig::loopback())
            .await
            .unwrap();
        (worker, coordinator)
    });
    let addr = coordinator.addr.to_string();
    let dir = scratch_dir(line!());
    let file = write_problems(&dir);

    // submit prints the id; wait prints one exact line per problem.
    let id = ok_stdout(&[
        "preferans",
        "batch",
        "submit",
        &file,
        "--coordinator",
        &addr,
    ]);
    let id = id.trim().to_string();
    assert!(id.parse::<u64>().is_ok(), "job id: {id:?}");
    check_results(&ok_stdout(&[
        "preferans",
        "batch",
        "wait",
        &id,
        "--coordinator",
        &addr,
    ]));

    // get --json: the state and the same results.
    let got: Value = serde_json::from_str(&ok_stdout(&[
        "preferans",
        "batch",
        "get",
        &id,
        "--json",
        "--coordinator",
        &addr,
    ]))
    .unwrap();
    assert_eq!(got["state"], "done");
    assert_eq!(got["layouts_done"], got["layouts_total"]);
    assert_eq!(got["results"].as_array().unwrap().len(), PROBLEMS.len());

    // CSV: a header and one row per problem (one opening each here).
    let csv = ok_stdout(&[
        "preferans",
        "batch",
        "wait",
        &id,
        "--format",
        "csv",
        "--coordinator",
        &addr,
    ]);
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("name,view,contract,lead,layouts,card,t0,"));
    assert_eq!(rows.len(), 1 + PROBLEMS.len(), "{csv}");
    let counts: Vec<u64> = rows[1]
        .split(',')
        .skip(6)
        .take(11)
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(counts, expected_histogram(0));

    // A long job, cancelled while it runs; list shows both.
    let long = dir.join("long.jsonl");
    std::fs::write(
        &long,
        "{\"view\": \"AQJ*T8*7.KT8.KJ.9\", \"contract\": \"6S\", \"lead\": \"W\"}\n",
    )
    .unwrap();
    let long_id = ok_stdout(&[
        "preferans",
        "batch",
        "submit",
        long.to_str().unwrap(),
        "--coordinator",
        &addr,
    ]);
    let long_id = long_id.trim().to_string();
    let cancelled = ok_stdout(&[
        "preferans",
        "batch",
        "cancel",
        &long_id,
        "--coordinator",
        &addr,
    ]);
    assert!(cancelled.contains("cancelled"), "{cancelled}");
    let list = ok_stdout(&["preferans", "batch", "list", "--coordinator", &addr]);
    assert!(list.contains(&format!("job {id}: done")), "{list}");
    assert!(
        list.contains(&format!("job {long_id}: cancelled")),
        "{list}"
    );
    let only_done = ok_stdout(&[
        "preferans",
        "batch",
        "list",
        "--state",
        "done",
        "--coordinator",
        &addr,
    ]);
    assert!(!only_done.contains("cancelled"), "{only_done}");
    // wait on a cancelled job fails, naming the state.
    let out = deckhand(&[
        "preferans",
        "batch",
        "wait",
        &long_id,
        "--coordinator",
        &addr,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cancelled"));

    rt.block_on(async {
        coordinator.shutdown().await.unwrap();
        worker.shutdown().await.unwrap();
    });
}

#[test]
fn batch_submit_without_a_coordinator_runs_embedded() {
    let dir = scratch_dir(line!());
    let file = write_problems(&dir);
    check_results(&ok_stdout(&[
        "preferans",
        "batch",
        "submit",
        &file,
        "--threads",
        "1",
    ]));
}

#[test]
fn batch_errors_name_the_problem() {
    // Job commands need a coordinator: an embedded one keeps no jobs.
    for command in [["wait", "1"], ["get", "1"], ["cancel", "1"]] {
        let out = deckhand(&["preferans", "batch", command[0], command[1]]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--coordinator"), "{err}");
    }
    // A line that is not a problem is reported with its file and line number; a bad
    // view, by the server with the index of the problem.
    let dir = scratch_dir(line!());
    let good = r#"{"view": "A*8*7.AKT.KJ.A987", "contract": "6C", "lead": "W"}"#;
    for (second, wanted) in [
        (
            r#"{"view": "A*8*7.AKT.KJ.A987", "contract": "6C"}"#,
            "bad.jsonl:2",
        ),
        (
            r#"{"view": "AAA", "contract": "6C", "lead": "W"}"#,
            "problems[1].view.compact: bad view notation `AAA`",
        ),
    ] {
        let file = dir.join("bad.jsonl");
        std::fs::write(&file, format!("{good}\n{second}\n")).unwrap();
        let out = deckhand(&["preferans", "batch", "submit", file.to_str().unwrap()]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(wanted), "{err}");
    }
    // An unknown state filter names the allowed ones.
    let out = deckhand(&[
        "preferans",
        "batch",
        "list",
        "--state",
        "finished",
        "--coordinator",
        "127.0.0.1:1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("queued, running, done"));
}

/// A fresh directory for one test's files.
fn scratch_dir(tag: u32) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("deckhand-cli-batch-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
