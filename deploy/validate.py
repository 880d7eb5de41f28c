"""Checks the deploy files: run through validate.sh, which installs the validators.

    python validate.py DEPLOY_DIR

Schema checks: every Kubernetes manifest against the Kubernetes OpenAPI JSON
schemas shipped inside the `kubernetes-validate` package (strict: unknown fields
fail; unknown kinds fail), and compose.yaml against the compose-spec schema
vendored in `check-jsonschema`. Neither fetches anything at run time.

Consistency checks: the facts the files must agree on (binaries, ports, health
service names, discovery names, grace periods, resources that fit the worker's
threads and tables, scrape annotations, kustomization contents), which no
schema can see. Ports and service names come from the table in the
repository's README.md. Tuning values (CPU counts, HPA bounds and targets,
replica counts) are not pinned, so a retune does not fail CI.

Prints one line per check and closes with `validate: N passed, M failed`;
exits 1 on any failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml


def read_services(readme: Path) -> dict[str, tuple[int, str]]:
    """The service table of the repository's README.md, the one place the ports
    and gRPC names are written: binary -> (port, gRPC service name used for health)."""
    row = re.compile(r"^\|\s*`([a-z-]+)`\s*\|\s*`(deckhand\.[\w.]+)`\s*\|.*\|\s*(\d+)\s*\|\s*$")
    services = {}
    for line in readme.read_text().splitlines():
        m = row.match(line)
        if m:
            services[m.group(1)] = (int(m.group(3)), m.group(2))
    if len(services) != 5:
        sys.exit(f"validate: expected the five services in the table of {readme}, got {services}")
    return services


SERVICES = read_services(Path(__file__).resolve().parent.parent / "README.md")
BINARIES = [*SERVICES, "deckhand"]
STATELESS = ["hand-ops", "rummikub", "mahjong"]
WORKER = "preferans-worker"
NAMESPACE = "deckhand"
METRICS_PORT = 9090
DEFAULT_GRACE_SECS = 20
# Oldest and newest schema sets shipped by kubernetes-validate 1.37.0.
K8S_VERSIONS = os.environ.get("DECKHAND_K8S_VERSIONS", "1.25.0 1.37.0").split()
# Memory a worker needs beyond its tables (runtime, buffers, code).
WORKER_OVERHEAD_MIB = 64


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"  ok    {what}")
        else:
            self.failed += 1
            print(f"  FAIL  {what}" + (f": {detail}" if detail else ""))
        return ok

    def section(self, title: str) -> None:
        print(f"== {title}")


# ---------------------------------------------------------------- helpers


def load_all(path: Path) -> list[dict]:
    with path.open() as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def interpolate(value: object) -> str:
    """Compose-style ${VAR:-default} / ${VAR-default} -> the environment or the default."""

    def sub(m: re.Match) -> str:
        name, default = m.group(1), m.group(3) or ""
        return os.environ.get(name, default)

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}]*))?\}", sub, str(value))


def duration_secs(text: object) -> float | None:
    """Compose durations: 30s, 1m30s, 1h, 250ms (a bare number is seconds)."""
    s = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return float(s)
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", s)
    if not parts or "".join(n + u for n, u in parts) != s:
        return None
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    return sum(float(n) * scale[u] for n, u in parts)


def quantity(text: object) -> float | None:
    """A Kubernetes quantity (cpu or memory) as a plain number (cores or bytes)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?", str(text).strip())
    if not m:
        return None
    scale = {
        None: 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
        "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
    }
    return float(m.group(1)) * scale[m.group(2)]


def port_of(hostport: object) -> int | None:
    m = re.fullmatch(r".*:(\d+)", str(hostport))
    return int(m.group(1)) if m else None


def env_map(container: dict) -> dict[str, str]:
    return {e["name"]: str(e.get("value", "")) for e in container.get("env") or []}


def prestop_sleep(container: dict) -> float:
    pre = (container.get("lifecycle") or {}).get("preStop") or {}
    if "sleep" in pre:
        return float(pre["sleep"].get("seconds", 0))
    cmd = (pre.get("exec") or {}).get("command") or []
    if len(cmd) == 2 and cmd[0] in ("sleep", "/bin/sleep"):
        return duration_secs(cmd[1]) or 0.0
    return 0.0


# ---------------------------------------------------------------- Dockerfile


DOCKER_INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK",
    "LABEL", "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}


def check_dockerfile(r: Report, deploy: Path) -> None:
    import dockerfile  # BuildKit's own Dockerfile parser (Go), from PyPI `dockerfile`

    r.section("Dockerfile (parsed with BuildKit's parser, PyPI `dockerfile`)")
    path = deploy / "Dockerfile"
    if not r.check(path.is_file(), "deploy/Dockerfile exists"):
        return
    try:
        cmds = dockerfile.parse_file(str(path))
        err = ""
    except dockerfile.GoParseError as e:
        cmds, err = (), str(e)
    if not r.check(not err, "Dockerfile parses", err):
        return
    unknown = [f"line {c.start_line}: {c.cmd}" for c in cmds if c.cmd not in DOCKER_INSTRUCTIONS]
    r.check(not unknown, "only known instructions", ", ".join(unknown))
    # Split into stages; ARGs before the first FROM give defaults for FROM lines.
    args: dict[str, str] = {}
    stages: list[list] = []
    for c in cmds:
        if c.cmd == "FROM":
            stages.append([c])
        elif stages:
            stages[-1].append(c)
        elif c.cmd == "ARG":
            for v in c.value:
                name, _, default = v.partition("=")
                args[name] = default

    def image_of(stage: list) -> str:
        return re.sub(r"\$\{(\w+)\}|\$(\w+)",
                      lambda m: args.get(m.group(1) or m.group(2), m.group(0)), stage[0].value[0])

    r.check(len(stages) >= 2, "multi-stage build", f"{len(stages)} stage(s)")
    if not stages:
        return
    first, last = image_of(stages[0]), image_of(stages[-1])
    r.check(re.match(r"(docker\.io/(library/)?)?rust:", first) is not None,
            "build stage is an official rust image", first)
    r.check(re.search(r"(^|/)debian:\S*slim|distroless/cc", last) is not None,
            "runtime stage is debian slim or distroless/cc", last)
    builds = [" ".join(c.value) for st in stages[:-1] for c in st
              if c.cmd == "RUN" and "cargo build" in " ".join(c.value)]
    r.check(any("--release" in b and "--locked" in b for b in builds),
            "build stage runs `cargo build --release --locked`")
    r.check(any("--workspace" in b for b in builds),
            "builds the whole workspace (default-members is only the CLI)")
    # Each binary must land in /usr/local/bin of the final stage.
    installed = set()
    for c in stages[-1]:
        if c.cmd in ("COPY", "ADD") and len(c.value) >= 2:
            *srcs, dest = c.value
            for src in srcs:
                if dest.rstrip("/") == "/usr/local/bin":
                    installed.add(Path(src).name)
                elif dest.startswith("/usr/local/bin/"):
                    installed.add(Path(dest).name)
    for b in BINARIES:
        r.check(b in installed, f"binary {b} copied to /usr/local/bin of the runtime stage")
    text = path.read_text()
    for b in BINARIES:
        r.check(re.search(rf"(^|[\s/]){re.escape(b)}(\s|;|$)", " ".join(builds)) is not None
                or f"target/release/{b}" in text,
                f"binary {b} taken from target/release")
    users = [c.value[0] for c in stages[-1] if c.cmd == "USER"]
    r.check(bool(users) and users[-1].split(":")[0] not in ("0", "root"),
            "runtime stage runs as a non-root user", users[-1] if users else "no USER")
    r.check(not any(c.cmd == "ENTRYPOINT" for c in stages[-1]),
            "no fixed ENTRYPOINT (compose/k8s choose the binary)")
    exposed = {v.split("/")[0] for c in stages[-1] if c.cmd == "EXPOSE" for v in c.value}
    want = {str(p) for p, _ in SERVICES.values()} | {str(METRICS_PORT)}
    r.check(want <= exposed, "EXPOSEs the five gRPC ports and metrics", str(sorted(exposed)))


# ---------------------------------------------------------------- compose


def check_compose(r: Report, deploy: Path) -> None:
    r.section("compose.yaml")
    path = deploy / "compose.yaml"
    if not r.check(path.is_file(), "deploy/compose.yaml exists"):
        return
    proc = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.compose-spec", str(path)],
        capture_output=True, text=True)
    r.check(proc.returncode == 0, "compose-spec JSON schema (check-jsonschema, vendored)",
            (proc.stdout + proc.stderr).strip())
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        r.check(False, "compose.yaml parses", str(e))
        return
    services = doc.get("services") or {}
    r.check(set(services) == set(SERVICES), "services are exactly the five servers",
            f"got {sorted(services)}")
    images = {interpolate(s.get("image")) for s in services.values()}
    r.check(len(images) == 1, "one image for every service", str(sorted(images)))
    for name, svc in services.items():
        build = svc.get("build")
        if isinstance(build, dict):
            dockerfile = (deploy / build.get("context", ".") / build.get("dockerfile", "Dockerfile"))
            r.check(dockerfile.resolve() == (deploy / "Dockerfile").resolve(),
                    f"{name}: build uses deploy/Dockerfile with the repo root as context",
                    str(dockerfile))
    for name, (port, _) in SERVICES.items():
        svc = services.get(name)
        if svc is None:
            continue
        cmd = svc.get("command")
        cmd = cmd.split() if isinstance(cmd, str) else cmd or []
        r.check(bool(cmd) and cmd[0] == name, f"{name}: command runs the {name} binary", str(cmd))
        env = svc.get("environment") or {}
        if isinstance(env, list):
            env = dict(e.split("=", 1) if "=" in e else (e, "") for e in env)
        env = {k: interpolate(v) for k, v in env.items()}
        listen = env.get("DECKHAND_LISTEN")
        r.check(listen is None or port_of(listen) == port,
                f"{name}: listens on {port}", str(listen))
        r.check(port_of(env.get("DECKHAND_METRICS_LISTEN", "")) == METRICS_PORT,
                f"{name}: metrics on :{METRICS_PORT}")
        grace = float(env.get("DECKHAND_SHUTDOWN_GRACE_SECS", DEFAULT_GRACE_SECS))
        stop = duration_secs(svc.get("stop_grace_period", "10s"))
        r.check(stop is not None and stop > grace,
                f"{name}: stop_grace_period > shutdown grace",
                f"{svc.get('stop_grace_period', '10s (default)')} vs {grace:g}s")
        r.check(bool(svc.get("restart")) or bool((svc.get("deploy") or {}).get("restart_policy")),
                f"{name}: has a restart policy")
        hc = svc.get("healthcheck")
        if hc is not None and not hc.get("disable"):
            test = " ".join(map(str, hc.get("test") or []))
            r.check(str(port) in test, f"{name}: healthcheck probes port {port}", test)
        published = [str(p) for p in svc.get("ports") or []]
        if name == WORKER:
            r.check(not published, f"{name}: publishes no host port (so it can scale)",
                    str(published))
            threads = int(env.get("DECKHAND_THREADS", "0") or 0)
            table = int(env.get("DECKHAND_TABLE_MB", "128") or 128)
            limit = ((svc.get("deploy") or {}).get("resources") or {}).get("limits") or {}
            cpus = float(limit.get("cpus", 0) or 0)
            r.check(threads >= 1 and (cpus == 0 or threads <= cpus),
                    f"{name}: DECKHAND_THREADS set and within the cpus limit",
                    f"threads={threads} cpus={cpus:g}")
            mem = str(limit.get("memory", "")).lower()
            mib = None
            m = re.fullmatch(r"(\d+)([kmg])b?", mem)
            if m:
                mib = int(m.group(1)) * {"k": 1 / 1024, "m": 1, "g": 1024}[m.group(2)]
            r.check(mib is None or threads * table + WORKER_OVERHEAD_MIB <= mib,
                    f"{name}: threads x table-mb fits the memory limit",
                    f"{threads}x{table} MiB + {WORKER_OVERHEAD_MIB} vs {mem}")
        else:
            r.check(any(re.search(rf"(^|:){port}(/tcp)?$", p) for p in published),
                    f"{name}: container port {port} published", str(published))
    coord = services.get("coordinator") or {}
    env = coord.get("environment") or {}
    dns = interpolate(env.get("DECKHAND_WORKERS_DNS", "")) if isinstance(env, dict) else ""
    r.check(dns == f"{WORKER}:{SERVICES[WORKER][0]}",
            "coordinator: --workers-dns is the worker service name",
            f"DECKHAND_WORKERS_DNS={dns!r}")


# ---------------------------------------------------------------- Kubernetes


def check_k8s(r: Report, deploy: Path) -> None:
    import kubernetes_validate as kv
    from kubernetes_validate import utils as kvu

    k8s = deploy / "k8s"
    r.section(f"k8s/ schemas (kubernetes-validate {kv_version()}, strict, "
              f"Kubernetes {', '.join(K8S_VERSIONS)})")
    kpath = k8s / "kustomization.yaml"
    if not r.check(kpath.is_file(), "k8s/kustomization.yaml exists"):
        return
    kust = yaml.safe_load(kpath.read_text()) or {}
    files = sorted(p.name for p in k8s.glob("*.y*ml") if p.name != "kustomization.yaml")
    listed = list(kust.get("resources") or [])
    r.check(sorted(listed) == files, "kustomization lists every manifest and nothing else",
            f"listed {sorted(listed)}, on disk {files}")
    r.check(kust.get("namespace") == NAMESPACE, f"kustomization namespace is {NAMESPACE}")

    docs: list[tuple[str, dict]] = []
    for name in files:
        try:
            docs += [(name, d) for d in load_all(k8s / name)]
        except yaml.YAMLError as e:
            r.check(False, f"{name} parses", str(e))

    def validate_docs(docs: list[tuple[str, dict]], label: str = "") -> None:
        for name, d in docs:
            what = f"{label}{name}: {d.get('kind')}/{(d.get('metadata') or {}).get('name')}"
            for version in K8S_VERSIONS:
                try:
                    kv.validate(d, version, strict=True)
                    err = ""
                except kvu.ValidationError as e:
                    path = ".".join(str(p) for p in e.path)
                    err = f"{path}: {e.message}"
                except (kvu.SchemaNotFoundError, kvu.VersionNotSupportedError,
                        kvu.InvalidSchemaError) as e:
                    err = e.message
                except Exception as e:  # a malformed document (no kind, ...)
                    err = f"{type(e).__name__}: {e}"
                r.check(not err, f"{what} valid for {version}", err)

    validate_docs(docs)

    # The rendered kustomization too, where kubectl is at hand (it is optional).
    kubectl = shutil.which("kubectl")
    if kubectl:
        proc = subprocess.run([kubectl, "kustomize", str(k8s)], capture_output=True, text=True)
        if r.check(proc.returncode == 0, "`kubectl kustomize` renders", proc.stderr.strip()):
            rendered = [("rendered", d) for d in yaml.safe_load_all(proc.stdout) if d]
            r.check(len(rendered) == len(docs), "rendering keeps every resource",
                    f"{len(rendered)} vs {len(docs)}")
            validate_docs(rendered, "kustomize ")
    else:
        print("  skip  `kubectl kustomize` (no kubectl here; the manifests are checked one by one)")

    r.section("k8s/ consistency")
    check_k8s_facts(r, [d for _, d in docs])


def kv_version() -> str:
    try:
        from importlib.metadata import version
        return version("kubernetes-validate")
    except Exception:
        return "?"


def check_k8s_facts(r: Report, docs: list[dict]) -> None:
    def by_kind(kind: str) -> dict[str, dict]:
        return {(d.get("metadata") or {}).get("name"): d for d in docs if d.get("kind") == kind}

    for d in docs:
        meta = d.get("metadata") or {}
        if d.get("kind") == "Namespace":
            continue
        r.check(meta.get("namespace") == NAMESPACE,
                f"{d.get('kind')}/{meta.get('name')} in namespace {NAMESPACE}",
                str(meta.get("namespace")))
    r.check(NAMESPACE in by_kind("Namespace"), f"Namespace {NAMESPACE} defined")

    deployments = by_kind("Deployment")
    services = by_kind("Service")
    r.check(set(deployments) == set(SERVICES), "a Deployment for each of the five servers",
            f"got {sorted(deployments)}")
    images = set()
    for name, (port, health) in SERVICES.items():
        dep = deployments.get(name)
        if dep is None:
            continue
        spec = dep.get("spec") or {}
        tmpl = spec.get("template") or {}
        labels = (tmpl.get("metadata") or {}).get("labels") or {}
        pod = tmpl.get("spec") or {}
        sel = (spec.get("selector") or {}).get("matchLabels") or {}
        r.check(bool(sel) and all(labels.get(k) == v for k, v in sel.items()),
                f"{name}: selector matches the pod labels")
        containers = pod.get("containers") or []
        if not r.check(len(containers) == 1, f"{name}: one container"):
            continue
        c = containers[0]
        images.add(c.get("image"))
        cmd = c.get("command") or c.get("args") or []
        r.check(bool(cmd) and cmd[0] == name, f"{name}: command runs the {name} binary", str(cmd))
        env = env_map(c)
        r.check(port_of(env.get("DECKHAND_LISTEN", f":{port}")) == port,
                f"{name}: DECKHAND_LISTEN on {port}")
        r.check(port_of(env.get("DECKHAND_METRICS_LISTEN", "")) == METRICS_PORT,
                f"{name}: DECKHAND_METRICS_LISTEN on :{METRICS_PORT}")
        cports = {p.get("containerPort") for p in c.get("ports") or []}
        r.check({port, METRICS_PORT} <= cports, f"{name}: containerPorts {port} and {METRICS_PORT}",
                str(sorted(cports)))
        # With TLS on, probes go to the plaintext health-only listener.
        probe_port = port_of(env["DECKHAND_HEALTH_LISTEN"]) if "DECKHAND_HEALTH_LISTEN" in env else port
        r.check(probe_port in cports, f"{name}: containerPort {probe_port} for probes",
                str(sorted(cports)))
        if "DECKHAND_TLS_CERT" in env:
            r.check(probe_port != port, f"{name}: TLS on, so probes use DECKHAND_HEALTH_LISTEN")
        mounts = [m.get("mountPath", "") for m in c.get("volumeMounts") or []]
        for var, value in env.items():
            if var.startswith(("DECKHAND_TLS_", "DECKHAND_AUTH_", "DECKHAND_WORKER_")) and value.startswith("/"):
                r.check(any(value.startswith(m.rstrip("/") + "/") for m in mounts),
                        f"{name}: {var} lies on a mounted volume", value)
        for probe in ("readinessProbe", "livenessProbe"):
            g = (c.get(probe) or {}).get("grpc") or {}
            r.check(g.get("port") == probe_port and g.get("service", "") in (health, ""),
                    f"{name}: {probe} is native gRPC on {probe_port} ({g.get('service', '') or 'server'})",
                    str(c.get(probe)))
        ready = (c.get("readinessProbe") or {}).get("grpc") or {}
        r.check(ready.get("service") == health, f"{name}: readiness asks for {health}")
        grace = float(env.get("DECKHAND_SHUTDOWN_GRACE_SECS", DEFAULT_GRACE_SECS))
        sleep = prestop_sleep(c)
        term = pod.get("terminationGracePeriodSeconds", 30)
        r.check(term > grace + sleep,
                f"{name}: terminationGracePeriodSeconds > preStop + shutdown grace",
                f"{term} vs {sleep:g}+{grace:g}")
        live = c.get("livenessProbe") or {}
        window = live.get("periodSeconds", 10) * live.get("failureThreshold", 3)
        r.check(window >= grace + sleep, f"{name}: liveness outlasts a drain",
                f"{window}s vs {sleep:g}+{grace:g}s")
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for key in ("cpu", "memory"):
            rq, lm = quantity(req.get(key)), quantity(lim.get(key))
            r.check(rq is not None and lm is not None and rq <= lm,
                    f"{name}: {key} request and limit set, request <= limit",
                    f"{req.get(key)} / {lim.get(key)}")
        ann = (tmpl.get("metadata") or {}).get("annotations") or {}
        r.check(ann.get("prometheus.io/scrape") == "true"
                and ann.get("prometheus.io/port") == str(METRICS_PORT)
                and ann.get("prometheus.io/path") == "/metrics",
                f"{name}: prometheus scrape annotations (:{METRICS_PORT}/metrics)", str(ann))
        psc = pod.get("securityContext") or {}
        r.check(psc.get("runAsNonRoot") is True, f"{name}: runAsNonRoot")

        if name == WORKER:
            continue
        svc = services.get(name)
        if not r.check(svc is not None, f"{name}: has a Service"):
            continue
        sspec = svc.get("spec") or {}
        r.check(sspec.get("type", "ClusterIP") == "ClusterIP" and sspec.get("clusterIP") != "None",
                f"{name}: Service is ClusterIP")
        ssel = sspec.get("selector") or {}
        r.check(bool(ssel) and all(labels.get(k) == v for k, v in ssel.items()),
                f"{name}: Service selects the pods")
        r.check(service_targets(sspec, port, c), f"{name}: Service port {port} reaches the container")

    r.check(len(images) == 1, "one image for every Deployment", str(sorted(images, key=str)))

    # Workers: headless Service, DNS discovery, HPA, sizing.
    wport, _ = SERVICES[WORKER]
    wsvc = services.get(WORKER)
    wdep = deployments.get(WORKER) or {}
    wpod = ((wdep.get("spec") or {}).get("template") or {})
    wlabels = (wpod.get("metadata") or {}).get("labels") or {}
    if r.check(wsvc is not None, f"{WORKER}: has a Service"):
        sspec = wsvc.get("spec") or {}
        r.check(sspec.get("clusterIP") == "None", f"{WORKER}: Service is headless (clusterIP: None)")
        ssel = sspec.get("selector") or {}
        r.check(bool(ssel) and all(wlabels.get(k) == v for k, v in ssel.items()),
                f"{WORKER}: headless Service selects the worker pods")
        wc = ((wpod.get("spec") or {}).get("containers") or [{}])[0]
        r.check(service_targets(sspec, wport, wc), f"{WORKER}: Service port {wport} reaches the container")
        r.check(not sspec.get("publishNotReadyAddresses", False),
                f"{WORKER}: DNS lists only ready workers")
    coord = deployments.get("coordinator")
    if coord is not None:
        cenv = env_map(((coord["spec"]["template"]["spec"]).get("containers") or [{}])[0])
        want = f"{WORKER}.{NAMESPACE}.svc.cluster.local:{wport}"
        r.check(cenv.get("DECKHAND_WORKERS_DNS") == want,
                f"coordinator: DECKHAND_WORKERS_DNS={want}", str(cenv.get("DECKHAND_WORKERS_DNS")))
    r.check("replicas" not in (wdep.get("spec") or {}),
            f"{WORKER}: Deployment leaves replicas to the HPA")
    if wdep:
        wc = ((wpod.get("spec") or {}).get("containers") or [{}])[0]
        env = env_map(wc)
        res = wc.get("resources") or {}
        cpu = quantity((res.get("requests") or {}).get("cpu"))
        mem_req = quantity((res.get("requests") or {}).get("memory")) or 0
        mem_lim = quantity((res.get("limits") or {}).get("memory")) or 0
        threads = int(env.get("DECKHAND_THREADS", "0") or 0)
        table = int(env.get("DECKHAND_TABLE_MB", "128") or 128)
        r.check(threads >= 1 and cpu is not None and threads <= cpu,
                f"{WORKER}: DECKHAND_THREADS set and <= requested CPUs", f"{threads} vs {cpu}")
        r.check(0 < mem_req <= mem_lim, f"{WORKER}: memory request <= limit")
        r.check((threads * table + WORKER_OVERHEAD_MIB) * 2**20 <= mem_req,
                f"{WORKER}: threads x table-mb + overhead fits the memory request",
                f"{threads}x{table}+{WORKER_OVERHEAD_MIB} MiB vs {mem_req / 2**20:g} MiB")
    hpas = by_kind("HorizontalPodAutoscaler")
    hpa = next((h for h in hpas.values()
                if ((h.get("spec") or {}).get("scaleTargetRef") or {}).get("name") == WORKER), None)
    if r.check(hpa is not None, f"{WORKER}: has a HorizontalPodAutoscaler"):
        hs = hpa["spec"]
        ref = hs.get("scaleTargetRef") or {}
        r.check(hpa.get("apiVersion") == "autoscaling/v2", "HPA is autoscaling/v2")
        r.check(ref.get("kind") == "Deployment" and ref.get("apiVersion") == "apps/v1",
                "HPA targets the worker Deployment")
        lo, hi = hs.get("minReplicas", 1), hs.get("maxReplicas")
        r.check(isinstance(hi, int) and 1 <= lo <= hi, "HPA replica bounds are ordered",
                f"{lo}..{hi}")
        cpu_targets = [m["resource"]["target"].get("averageUtilization")
                       for m in hs.get("metrics") or []
                       if m.get("type") == "Resource" and (m.get("resource") or {}).get("name") == "cpu"]
        r.check(len(cpu_targets) == 1 and isinstance(cpu_targets[0], int)
                and 0 < cpu_targets[0] <= 100,
                "HPA scales on CPU utilization", str(cpu_targets))


def service_targets(sspec: dict, port: int, container: dict) -> bool:
    """Whether the Service exposes `port` and its targetPort names/numbers a container port."""
    for p in sspec.get("ports") or []:
        if p.get("port") != port:
            continue
        target = p.get("targetPort", port)
        for cp in container.get("ports") or []:
            if target in (cp.get("name"), cp.get("containerPort")) and cp.get("containerPort") == port:
                return True
    return False


# ---------------------------------------------------------------- deploy/README.md


def check_deploy_readme(r: Report, deploy: Path) -> None:
    r.section("deploy/README.md")
    row = re.compile(r"^\|\s*`([a-z-]+)`\s*\|\s*(\d+)\s*\|\s*`(deckhand\.[\w.]+)`\s*\|")
    table = {}
    for line in (deploy / "README.md").read_text().splitlines():
        m = row.match(line)
        if m:
            table[m.group(1)] = (int(m.group(2)), m.group(3))
    r.check(table == SERVICES, "its service table matches README.md's",
            f"{table} vs {SERVICES}")


# ---------------------------------------------------------------- main


def metric_names_in_code(repo: Path) -> set[str]:
    """Every `deckhand_*` name written in the Rust sources (what the binaries export)."""
    names: set[str] = set()
    for path in [*repo.glob("src/**/*.rs"), *repo.glob("services/*/src/**/*.rs")]:
        names.update(re.findall(r'"(deckhand_[a-z0-9_]+)"', path.read_text(errors="replace")))
    return names


# What the cluster dashboard must show (by panel title).
DASHBOARD_PANELS = ["Layouts/s per worker", "Queue depth", "Leases and re-leases",
                    "Workers by state", "Request latency by method", "Error rate"]


def check_dashboards(r: Report, deploy: Path) -> None:
    r.section("Grafana dashboards (deploy/grafana)")
    exported = metric_names_in_code(deploy.parent)
    r.check(bool(exported), "metric names found in the Rust sources")
    for path in sorted((deploy / "grafana").glob("*.json")):
        try:
            dash = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            r.check(False, f"{path.name} is valid JSON", str(e))
            continue
        r.check(True, f"{path.name} is valid JSON")
        panels = dash.get("panels", [])
        r.check(bool(dash.get("uid")) and bool(dash.get("title")), f"{path.name}: uid and title")
        ids = [p.get("id") for p in panels]
        r.check(len(ids) == len(set(ids)) and None not in ids, f"{path.name}: panel ids unique")
        titles = " | ".join(p.get("title", "") for p in panels)
        missing = [t for t in DASHBOARD_PANELS if t not in titles]
        r.check(not missing, f"{path.name}: panels for {', '.join(DASHBOARD_PANELS)}",
                f"missing {missing}")
        exprs = [t.get("expr", "") for p in panels for t in p.get("targets", [])]
        r.check(all(exprs) and bool(exprs), f"{path.name}: every panel queries something")
        used = {re.sub(r"_(bucket|sum|count)$", "", m)
                for e in exprs for m in re.findall(r"deckhand_[a-z0-9_]+", e)}
        # Counters may be named without `_total` in the code (the encoder appends it).
        unknown = sorted(n for n in used if n not in exported
                         and n.removesuffix("_total") not in exported)
        r.check(not unknown, f"{path.name}: its {len(used)} metric names exist in the code",
                f"not exported: {unknown}")
        balanced = all(e.count("(") == e.count(")") and e.count("[") == e.count("]")
                       and e.count("{") == e.count("}") for e in exprs)
        r.check(balanced, f"{path.name}: PromQL brackets balance")


def main() -> int:
    deploy = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent).resolve()
    r = Report()
    for check in (check_dockerfile, check_compose, check_k8s, check_deploy_readme,
                  check_dashboards):
        try:
            check(r, deploy)
        except Exception as e:  # a file too malformed for the checks above
            r.check(False, f"{check.__name__} ran to the end", f"{type(e).__name__}: {e}")
    print(f"validate: {r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
