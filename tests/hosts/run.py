#!/usr/bin/env python3
"""The preferans cluster across real network hosts, with faults injected from outside.

Each host is a Linux network namespace with its own address (10.77.0.x/24) on
one bridge, which lives in a namespace of its own (the machine's own network is
not touched). The coordinator, the workers and the client run there as real
processes of the release build. Faults: a host's link set down (a partition:
no reset, packets vanish; mid-job, and while no job runs), SIGSTOP/SIGCONT (a
frozen host), SIGKILL (a crash), SIGTERM (a drain), a host added mid-job. Every
scenario ends with the exact histogram of a full problem (standard.txt), so
nothing was lost or counted twice, and reports the time to notice the fault, the
time to finish against the healthy run, re-leases and duplicate leases (the
coordinator's metrics).

Everything it makes (namespaces, links, processes) is removed when it ends, also
after a failure, Ctrl-C or SIGTERM. Needs root, `ip`, and the release binaries:

    cargo build --release -p coordinator -p preferans-worker -p deckhand-cli
    sudo python3 tests/hosts/run.py                 # every scenario
    sudo python3 tests/hosts/run.py partition crash  # some of them
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STANDARD = ROOT / "engines/preferans/tests/data/standard.txt"

SUBNET = "10.77.0"
COORDINATOR_IP = f"{SUBNET}.1"
CLIENT_IP = f"{SUBNET}.2"
COORDINATOR = f"{COORDINATOR_IP}:50055"
METRICS = f"http://{COORDINATOR_IP}:9090/metrics"
WORKER_PORT = 50054
# w1 is on the coordinator's static --workers list; the others register.
WORKERS = {"w1": f"{SUBNET}.11", "w2": f"{SUBNET}.12", "w3": f"{SUBNET}.13"}
SPARE = {"w4": f"{SUBNET}.14"}
STATIC = {"w1"}
# Where the script's own queries (ListWorkers, metrics) run from: never cut.
OPS_HOST = "coord"

# The defaults under test (see README, Operations).
KEEPALIVE_SECS = 4
HEARTBEAT_TIMEOUT_SECS = 15
LEASE_TIMEOUT_SECS = 60
# A fault must be noticed within two keepalive periods; slack for a loaded machine.
NOTICE_BOUND_SECS = 2 * KEEPALIVE_SECS + 6

NOTICE_MESSAGES = (
    "worker failed; its leases return to the queue",
    "worker down",
    "no heartbeat; forgetting the worker",
    "client went away; analysis cancelled",
)


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def sh(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


class Problem:
    """A solve-all-foe problem with its published histogram (a line of standard.txt)."""

    def __init__(self, line: str):
        fields = line.split()
        self.name, self.view, self.contract, self.lead = fields[:4]
        self.histogram = [int(n) for n in fields[4:15]]

    def args(self) -> list[str]:
        return ["--view", self.view, "--contract", self.contract, "--lead", self.lead]


def problems() -> dict[str, Problem]:
    lines = STANDARD.read_text().splitlines()
    found = [Problem(line) for line in lines if line and not line.startswith("#")]
    return {p.name: p for p in found}


class Hosts:
    """Network namespaces on one bridge; links can be cut and healed."""

    def __init__(self, tag: str):
        self.tag = tag
        self.switch = f"{tag}-switch"
        self.made: list[str] = []

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def create_switch(self) -> None:
        sh("ip", "netns", "add", self.switch)
        self.made.append(self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")

    def add(self, host: str, ip: str) -> None:
        ns = self.ns(host)
        sh("ip", "netns", "add", ns)
        self.made.append(ns)
        sh("ip", "link", "add", "name", "eth0", "netns", ns, "type", "veth",
           "peer", "name", f"to-{host}", "netns", self.switch)
        sh("ip", "-n", self.switch, "link", "set", f"to-{host}", "master", "br0", "up")
        sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")

    def cut(self, host: str) -> None:
        """The host's cable is pulled: its packets vanish, nobody gets a reset."""
        sh("ip", "-n", self.switch, "link", "set", f"to-{host}", "down")

    def heal(self, host: str) -> None:
        sh("ip", "-n", self.switch, "link", "set", f"to-{host}", "up")

    def remove(self) -> None:
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made.clear()


class Proc:
    """A process of the release build inside a host."""

    def __init__(self, hosts: Hosts, host: str, argv: list[str], logfile: Path):
        self.host = host
        self.logfile = logfile
        self.out = open(logfile, "ab")
        # `ip netns exec` execs the binary: the pid is the binary's.
        self.popen = subprocess.Popen(
            ["ip", "netns", "exec", hosts.ns(host), *argv],
            stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def signal(self, sig: int) -> None:
        if self.popen.poll() is None:
            os.kill(self.popen.pid, sig)

    def wait(self, timeout: float) -> int:
        return self.popen.wait(timeout=timeout)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGKILL)
            self.popen.wait()
        self.out.close()


class Cluster:
    """A coordinator, workers and clients on their hosts."""

    def __init__(self, hosts: Hosts, bin_dir: Path, logs: Path, name: str):
        self.hosts = hosts
        self.bin = bin_dir
        self.logs = logs / name
        self.logs.mkdir(parents=True)
        self.procs: list[Proc] = []
        self.workers: dict[str, Proc] = {}
        self.coordinator: Proc | None = None

    def start(self, name: str, host: str, argv: list[str]) -> Proc:
        proc = Proc(self.hosts, host, argv, self.logs / f"{name}.log")
        self.procs.append(proc)
        return proc

    def start_coordinator(self) -> None:
        static = ",".join(f"{WORKERS[w]}:{WORKER_PORT}" for w in sorted(STATIC))
        self.coordinator = self.start("coordinator", "coord", [
            str(self.bin / "coordinator"), "--listen", COORDINATOR,
            "--metrics-listen", f"{COORDINATOR_IP}:9090", "--log-format", "json",
            "--workers", static, "--max-jobs", "64"])

    def start_worker(self, name: str) -> None:
        ip = {**WORKERS, **SPARE}[name]
        # A 1 MB table: with a larger one, the copies of a batch after the first
        # find their positions in the table and take a fraction of the healthy
        # run, so the job ends before a fault has played out.
        argv = [str(self.bin / "preferans-worker"), "--listen", f"{ip}:{WORKER_PORT}",
                "--threads", "1", "--table-mb", "1", "--log-format", "json",
                "--metrics-listen", f"{ip}:9091", "--shutdown-grace-secs", "30"]
        if name not in STATIC:
            argv += ["--coordinator", COORDINATOR, "--advertise", f"{ip}:{WORKER_PORT}"]
        self.workers[name] = self.start(name, name, argv)

    def cli(self, *args: str, timeout: float = 20) -> str:
        done = subprocess.run(
            ["ip", "netns", "exec", self.hosts.ns(OPS_HOST), str(self.bin / "deckhand"),
             "preferans", *args], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"deckhand preferans {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def list_workers(self) -> dict[str, dict]:
        """ListWorkers by host name: state, joined, solved."""
        by_address = {f"{ip}:{WORKER_PORT}": n for n, ip in {**WORKERS, **SPARE}.items()}
        found = {}
        for line in self.cli("workers", "--coordinator", COORDINATOR).splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 5 and fields[0] in by_address:
                found[by_address[fields[0]]] = {
                    "state": fields[1], "joined": fields[2], "solved": int(fields[-1])}
        return found

    def metrics(self) -> dict[str, float]:
        done = subprocess.run(
            ["ip", "netns", "exec", self.hosts.ns(OPS_HOST), "curl", "-sf", "-m", "5", METRICS],
            capture_output=True, text=True)
        values = {}
        for line in done.stdout.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        return values

    def watches(self) -> float:
        """WatchAnalysis calls the coordinator has answered (counted at the response
        headers: a stream counts once it is open)."""
        return sum(value for name, value in self.metrics().items()
                   if name.startswith("deckhand_grpc_requests_total")
                   and "/WatchAnalysis\"" in name)

    def worker_metric(self, name: str, metric: str) -> float:
        ip = {**WORKERS, **SPARE}[name]
        done = subprocess.run(
            ["ip", "netns", "exec", self.hosts.ns(OPS_HOST), "curl", "-sf", "-m", "5",
             f"http://{ip}:9091/metrics"], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"no metrics from {name}")
        total = 0.0
        for line in done.stdout.splitlines():
            if line.startswith(metric):
                total += float(line.rpartition(" ")[2])
        return total

    def wait_for(self, what: str, check, timeout: float = 30, poll: float = 0.25):
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = check()
                if value:
                    return value
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(poll)

    def wait_workers_up(self, names) -> None:
        def up():
            found = self.list_workers()
            return all(found.get(n, {}).get("state") in ("idle", "busy") for n in names)
        self.wait_for(f"workers {', '.join(names)} up", up)

    def events(self) -> list[dict]:
        """The coordinator's log events, with a wall-clock `at`."""
        events = []
        for line in self.coordinator.logfile.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            stamp = datetime.datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00"))
            event["at"] = stamp.timestamp()
            events.append(event)
        return events

    def noticed(self, since: float, about: str | None = None) -> float | None:
        """Seconds from `since` (wall clock) to the coordinator's first sign of the fault."""
        for event in self.events():
            if event["at"] >= since and event.get("message") in NOTICE_MESSAGES:
                if about is None or event.get("worker", "").startswith(about):
                    return event["at"] - since
        return None

    def stop(self) -> None:
        for proc in self.procs:
            proc.kill()
        self.procs.clear()


class Batch:
    """`count` concurrent full analyses of one problem, each a CLI process on the client host."""

    def __init__(self, cluster: Cluster, problem: Problem, count: int, name: str = "job"):
        self.problem = problem
        self.started = time.monotonic()
        self.clients = [
            cluster.start(f"{name}{i}", "client", [
                str(cluster.bin / "deckhand"), "preferans", "solve-all-foe",
                "--coordinator", COORDINATOR, *problem.args(), "--json"])
            for i in range(count)]

        # When the last analysis ended, also if nobody waits for it then.
        self.ended = 0.0
        self.watcher = threading.Thread(target=self._note_end, daemon=True)
        self.watcher.start()

    def _note_end(self) -> None:
        for client in self.clients:
            client.popen.wait()
        self.ended = time.monotonic()

    def running(self) -> bool:
        return any(c.popen.poll() is None for c in self.clients)

    def wait(self, timeout: float = 600) -> float:
        """Waits for every analysis; checks each histogram exactly. Returns the seconds
        from the start to the end of the last analysis."""
        deadline = self.started + timeout
        for client in self.clients:
            rc = client.wait(timeout=max(1, deadline - time.monotonic()))
            output = client.logfile.read_text().strip().splitlines()
            if rc != 0:
                raise AssertionError(f"{client.logfile.name} failed: {output[-3:]}")
            result = json.loads(output[-1])
            histogram = result["openings"][0]["histogram"]
            if result["layouts"] != 184_756 or sum(histogram) != 184_756:
                raise AssertionError(f"{client.logfile.name}: layouts counted "
                                     f"{result['layouts']}, histogram sum {sum(histogram)}")
            if histogram != self.problem.histogram:
                raise AssertionError(f"{client.logfile.name}: histogram {histogram} "
                                     f"!= {self.problem.name} {self.problem.histogram}")
        self.watcher.join()  # every client has exited: it ends at once
        return self.ended - self.started


class Run:
    """The scenarios, sharing the hosts and the healthy figure."""

    def __init__(self, hosts: Hosts, bin_dir: Path, logs: Path):
        self.hosts = hosts
        self.bin = bin_dir
        self.logs = logs
        # A problem whose analyses last on 1 MB tables (3.3 s of one thread): a
        # batch must still run when a fault is noticed (8 s), or the scenario
        # measures the idle probe, not the re-lease. preferansRu1 served until the
        # solver took it from 1.9 s to 0.75 s and 40 copies ended before then.
        self.problem = problems()["preferansRu5"]
        self.healthy_one = 0.0

    def cluster(self, name: str) -> Cluster:
        cluster = Cluster(self.hosts, self.bin, self.logs, name)
        cluster.start_coordinator()
        for w in WORKERS:
            cluster.start_worker(w)
        cluster.wait_workers_up(WORKERS)
        return cluster

    def copies(self, seconds: float) -> int:
        """Concurrent analyses that keep the healthy cluster busy about `seconds`."""
        return max(1, min(40, math.ceil(seconds / self.healthy_one)))

    def figures(self, cluster: Cluster, batch: Batch, taken: float, notice: float | None,
                **extra) -> dict:
        metrics = cluster.metrics()
        healthy = self.healthy_one * len(batch.clients)
        figures = {
            "analyses": len(batch.clients),
            "notice_s": None if notice is None else round(notice, 2),
            "finish_s": round(taken, 1),
            "healthy_s": round(healthy, 1),
            "ratio": round(taken / healthy, 2),
            "re_leases": int(metrics.get("deckhand_coordinator_re_leases_total", -1)),
            "duplicate_leases": int(metrics.get("deckhand_coordinator_duplicate_leases_total", -1)),
        }
        figures.update(extra)
        return figures

    def back_at_work(self, c: Cluster, name: str, solved: int, since: float, batch: Batch,
                     fresh: Problem) -> float | None:
        """Seconds from `since` until worker `name` has solved more than `solved` layouts
        during `batch`; None when the batch ends first. Then a new analysis of `fresh`
        must use the worker."""
        def progress():
            if c.list_workers().get(name, {}).get("solved", 0) > solved:
                return ("working", time.time() - since)
            return None if batch.running() else ("ended", None)

        how, seconds = c.wait_for(f"{name} to work again", progress, timeout=40)
        if how == "ended":
            # Its driver redials with a backoff of up to 5 s: wait until it is up.
            c.wait_workers_up([name])
            # A problem none of the tables holds: the warm workers alone would
            # finish another copy of the batch's problem in a fraction of a
            # second, before the worker reports its first layouts.
            Batch(c, fresh, 1, "after").wait()
            if c.list_workers()[name]["solved"] <= solved:
                raise AssertionError(f"{name} got no work after it came back")
        return seconds

    # -- the scenarios ------------------------------------------------------

    def healthy(self, c: Cluster) -> dict:
        batch = Batch(c, self.problem, 1)
        self.healthy_one = batch.wait()
        joined = {n: w["joined"] for n, w in c.list_workers().items()}
        if joined != {"w1": "static", "w2": "registered", "w3": "registered"}:
            raise AssertionError(f"ListWorkers joined: {joined}")
        return self.figures(c, batch, self.healthy_one, None, joined=joined)

    def partition(self, c: Cluster) -> dict:
        """w1 (a --workers worker) loses its link for 30 s mid-job, then it heals."""
        batch = Batch(c, self.problem, self.copies(90))
        c.wait_for("w1 busy", lambda: c.list_workers()["w1"]["solved"] > 0)
        cut_at = time.time()
        c.hosts.cut("w1")
        notice = c.wait_for("the coordinator to notice", lambda: c.noticed(cut_at, WORKERS["w1"]),
                            timeout=LEASE_TIMEOUT_SECS + 10)
        released = c.metrics().get("deckhand_coordinator_re_leases_total", 0)
        if released < 1:
            raise AssertionError("w1's lease was not given back")
        time.sleep(max(0, cut_at + 30 - time.time()))
        c.hosts.heal("w1")
        healed_at = time.time()
        back = self.back_at_work(c, "w1", c.list_workers()["w1"]["solved"], healed_at, batch,
                                 problems()["preferansRu4"])
        taken = batch.wait()
        return self.figures(c, batch, taken, notice, reused_after_heal_s=back and round(back, 1))

    def idle_partition(self, c: Cluster) -> dict:
        """w1 (a --workers worker) loses its link while no job runs: the coordinator's
        Status probe of idle workers marks it down; healed, it is up and gets work."""
        cut_at = time.time()
        c.hosts.cut("w1")
        notice = c.wait_for("the coordinator to notice", lambda: c.noticed(cut_at, WORKERS["w1"]),
                            timeout=NOTICE_BOUND_SECS + 10)
        state = c.list_workers()["w1"]["state"]
        if state != "down":
            raise AssertionError(f"w1 is {state} after its cut was noticed")
        c.hosts.heal("w1")
        healed_at = time.time()
        c.wait_workers_up(["w1"])
        up_after_heal = time.time() - healed_at
        solved = c.list_workers()["w1"]["solved"]
        batch = Batch(c, self.problem, self.copies(10), "after")
        taken = batch.wait()
        if c.list_workers()["w1"]["solved"] <= solved:
            raise AssertionError("w1 got no work after it came back")
        return self.figures(c, batch, taken, notice, up_after_heal_s=round(up_after_heal, 1))

    def frozen(self, c: Cluster) -> dict:
        """w2 (registered) is frozen with SIGSTOP for 20 s (past the heartbeat timeout), then resumed."""
        batch = Batch(c, self.problem, self.copies(60))
        c.wait_for("w2 busy", lambda: c.list_workers()["w2"]["solved"] > 0)
        stop_at = time.time()
        c.workers["w2"].signal(signal.SIGSTOP)
        notice = c.wait_for("the coordinator to notice", lambda: c.noticed(stop_at, WORKERS["w2"]),
                            timeout=LEASE_TIMEOUT_SECS + 10)
        time.sleep(max(0, stop_at + HEARTBEAT_TIMEOUT_SECS + 5 - time.time()))
        forgotten = "w2" not in c.list_workers()
        c.workers["w2"].signal(signal.SIGCONT)
        resumed_at = time.time()
        # Forgotten, w2 registers afresh: its count of solved layouts starts at 0.
        back = self.back_at_work(c, "w2", 0, resumed_at, batch, problems()["preferansRu3"])
        taken = batch.wait()
        return self.figures(c, batch, taken, notice, forgotten_while_frozen=forgotten,
                            reused_after_resume_s=back and round(back, 1))

    def crash(self, c: Cluster) -> dict:
        """w3 is killed with SIGKILL mid-job."""
        batch = Batch(c, self.problem, self.copies(12))
        c.wait_for("w3 busy", lambda: c.list_workers()["w3"]["solved"] > 0)
        kill_at = time.time()
        c.workers["w3"].signal(signal.SIGKILL)
        notice = c.wait_for("the coordinator to notice", lambda: c.noticed(kill_at, WORKERS["w3"]),
                            timeout=LEASE_TIMEOUT_SECS + 10)
        taken = batch.wait()
        return self.figures(c, batch, taken, notice)

    def scale_out(self, c: Cluster) -> dict:
        """A new host w4 joins mid-job (it registers itself) and gets work."""
        batch = Batch(c, self.problem, self.copies(15))
        c.wait_for("the job to start", lambda: c.list_workers()["w1"]["solved"] > 0)
        c.hosts.add("w4", SPARE["w4"]) if c.hosts.ns("w4") not in c.hosts.made else None
        start_at = time.time()
        c.start_worker("w4")
        working = c.wait_for("w4 to get work",
                             lambda: c.list_workers().get("w4", {}).get("solved", 0) > 0
                             and time.time() - start_at, timeout=30)
        taken = batch.wait()
        share = c.list_workers()["w4"]["solved"]
        return self.figures(c, batch, taken, None, w4_first_work_s=round(working, 2),
                            w4_layouts=share)

    def scale_in(self, c: Cluster) -> dict:
        """w2 gets SIGTERM (it drains itself); w1 is drained by DrainWorker, then stopped."""
        batch = Batch(c, self.problem, self.copies(15))
        c.wait_for("w1 and w2 busy",
                   lambda: all(c.list_workers()[w]["solved"] > 0 for w in ("w1", "w2")))
        drain_at = time.monotonic()
        c.workers["w2"].signal(signal.SIGTERM)
        c.cli("drain", "--coordinator", COORDINATOR, f"{WORKERS['w1']}:{WORKER_PORT}")
        w1_at_drain = c.list_workers()["w1"]["solved"]
        rc = c.workers["w2"].wait(timeout=40)
        w2_left = time.monotonic() - drain_at
        # w1 stays up, drained, for a while: it must take no new lease.
        time.sleep(3)
        if c.list_workers()["w1"]["state"] != "draining":
            raise AssertionError("w1 is not shown as draining")
        c.workers["w1"].signal(signal.SIGTERM)
        c.workers["w1"].wait(timeout=40)
        taken = batch.wait()
        listed = c.list_workers()
        after_drain = listed["w1"]["solved"] - w1_at_drain
        figures = self.figures(c, batch, taken, None, w2_exit_code=rc,
                               w2_gone_after_s=round(w2_left, 2),
                               w1_layouts_after_drain=after_drain, listed=sorted(listed))
        if "w2" in listed:
            raise AssertionError("the drained w2 is still listed")
        # At most the two leases it held (--chunk-size 4096, two leases per worker).
        if after_drain > 2 * 4096:
            raise AssertionError(f"w1 solved {after_drain} layouts after its drain")
        if figures["re_leases"] != 0:
            raise AssertionError(f"a drain re-ran chunks: {figures['re_leases']} re-leases")
        return figures

    def rolling_restart(self, c: Cluster) -> dict:
        """Every worker is restarted in turn during a long job (a drain first for the static one)."""
        batch = Batch(c, self.problem, self.copies(30))
        c.wait_for("the job to start", lambda: c.list_workers()["w1"]["solved"] > 0)
        restarted_at = time.monotonic()
        for name in WORKERS:
            if name in STATIC:
                c.cli("drain", "--coordinator", COORDINATOR, f"{WORKERS[name]}:{WORKER_PORT}")
            c.workers[name].signal(signal.SIGTERM)
            c.workers[name].wait(timeout=40)
            c.start_worker(name)
            c.wait_workers_up([name])
        restart_s = time.monotonic() - restarted_at
        if not batch.running():
            raise AssertionError("the job ended before the restarts did; give it more analyses")
        taken = batch.wait()
        figures = self.figures(c, batch, taken, None, restarts_s=round(restart_s, 1))
        if figures["re_leases"] != 0:
            raise AssertionError(f"restarts re-ran chunks: {figures['re_leases']} re-leases")
        return figures

    def client_cut(self, c: Cluster) -> dict:
        """The client's link is cut for 10 s: the coordinator cancels its AnalyzeAllFoe job."""
        # Enough analyses that they are still running when the cut is noticed (8 s):
        # of preferansRu7, as copies of the healthy run's problem share its positions
        # (28 of them took under 8 s in all on a fast host, once the tables held them).
        batch = Batch(c, problems()["preferansRu7"], self.copies(30), "cut")
        c.wait_for("the job to start", lambda: c.list_workers()["w1"]["solved"] > 0)
        cut_at = time.time()
        c.hosts.cut("client")
        notice = c.wait_for("the coordinator to cancel the job",
                            lambda: c.noticed(cut_at), timeout=20, poll=0.1)
        stopped = c.wait_for(
            "the workers to stop",
            lambda: all(c.worker_metric(w, "deckhand_worker_busy") == 0 for w in WORKERS)
            and time.time() - cut_at, timeout=20)
        time.sleep(max(0, cut_at + 10 - time.time()))
        c.hosts.heal("client")
        metrics = c.metrics()
        if metrics.get("deckhand_coordinator_queue_depth") != 0:
            raise AssertionError("the cancelled job is still queued")
        for client in batch.clients:
            client.kill()
        after = Batch(c, self.problem, 1, "after")
        taken = after.wait()
        durable = self.durable_client_cut(c)
        return self.figures(c, after, taken, notice, workers_stopped_s=round(stopped, 2),
                            durable_jobs=durable)

    def durable_client_cut(self, c: Cluster) -> dict:
        """A batch job outlives its watcher's link: `batch wait` is cut off for
        10 s, watches again and gets every result, exact."""
        count = self.copies(20)
        jobs_file = c.logs / "durable.jsonl"
        problem = {"view": self.problem.view, "contract": self.problem.contract,
                   "lead": self.problem.lead}
        jobs_file.write_text("".join(json.dumps({"name": f"p{i}", **problem}) + "\n"
                                     for i in range(count)))
        solved = c.list_workers()["w1"]["solved"]
        watches = c.watches()
        job_id = c.cli("batch", "submit", str(jobs_file), "--coordinator", COORDINATOR).strip()
        waiter = c.start("durable-wait", "client", [
            str(c.bin / "deckhand"), "preferans", "batch", "wait", job_id,
            "--coordinator", COORDINATOR])
        # Cut only once the job runs and `batch wait` watches it (cut before it
        # connects, it fails at once: it cannot reach the coordinator).
        c.wait_for("the batch job to start", lambda: c.list_workers()["w1"]["solved"] > solved)
        c.wait_for("batch wait to watch the job", lambda: c.watches() > watches)
        c.hosts.cut("client")
        time.sleep(10)
        c.hosts.heal("client")
        rc = waiter.wait(timeout=600)
        lines = [json.loads(line) for line in waiter.logfile.read_text().splitlines()
                 if line.startswith("{")]
        if rc != 0 or len(lines) != count:
            raise AssertionError(f"batch wait exited {rc} with {len(lines)} of {count} results")
        for result in lines:
            histogram = result["openings"][0]["histogram"]
            if result["layouts"] != 184_756 or histogram != self.problem.histogram:
                raise AssertionError(f"batch job {job_id} {result['name']}: "
                                     f"{result['layouts']} layouts, histogram {histogram}")
        return {"problems": count, "results_exact": True}


SCENARIOS = ["healthy", "partition", "idle_partition", "frozen", "crash", "scale_out",
             "scale_in", "rolling_restart", "client_cut"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                        help=f"run after the healthy run (default: all): {' '.join(SCENARIOS[1:])}")
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(SCENARIOS[1:])
    if unknown:
        parser.error(f"unknown scenario {', '.join(sorted(unknown))}")
    if os.geteuid() != 0:
        print("tests/hosts/run.py needs root (network namespaces)", file=sys.stderr)
        return 2
    for tool in ("ip", "curl"):
        if shutil.which(tool) is None:
            print(f"tests/hosts/run.py needs `{tool}`", file=sys.stderr)
            return 2
    for binary in ("coordinator", "preferans-worker", "deckhand"):
        if not (args.bin / binary).exists():
            print(f"missing {args.bin / binary}: cargo build --release first", file=sys.stderr)
            return 2

    # SIGTERM cleans up like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    hosts = Hosts(f"dh{os.getpid()}")
    logs = Path(tempfile.mkdtemp(prefix="deckhand-hosts-"))
    run = Run(hosts, args.bin, logs)
    results: dict[str, dict] = {}
    failed = []
    started = time.monotonic()
    try:
        hosts.create_switch()
        for host, ip in {"coord": COORDINATOR_IP, "client": CLIENT_IP, **WORKERS}.items():
            hosts.add(host, ip)
        for name in ["healthy"] + (args.scenarios or SCENARIOS[1:]):
            log(f"== {name}")
            cluster = run.cluster(name)
            try:
                results[name] = getattr(run, name)(cluster)
                log(f"   {json.dumps(results[name])}")
            except Exception as e:  # one failed scenario does not stop the others
                failed.append(name)
                results[name] = {"failed": str(e)}
                log(f"   FAILED: {e}")
                if name == "healthy":
                    break
            finally:
                cluster.stop()
                for host in ("client", "w1"):
                    hosts.heal(host)
    finally:
        hosts.remove()
    log(f"done in {time.monotonic() - started:.0f} s; logs in {logs}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    shutil.rmtree(logs, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
