#!/usr/bin/python3
"""A parameter sweep of `rdcc sim` on Dask distributed: one task per point.

    scripts/sim-sweep.py RDCC DESCRIPTION.json --set PATH=V1,V2,... [--set ...]
                         [--seeds 1,2,3] [--engine sim|ns3]
                         [--jobs N | --scheduler ADDRESS] [--out FILE.json]

PATH names a key of the description (docs/sim.md) with dots and [i] indexes, e.g.
`receiver.budget`, `receivers[0].unscheduled_limit`, `workload.senders`, `queue.ecn_threshold`;
a value is JSON (a number, true, "text"). Every combination of the --set values and the seeds is
one point: the description with those values, run as `rdcc sim POINT.json --json --seed S`.

The points run as tasks on Dask distributed (Debian's python3-distributed, for /usr/bin/python3):
by default on a local cluster of N worker processes (--jobs, default the cores), or with
--scheduler tcp://HOST:PORT on a cluster started with `dask-scheduler` and `dask-worker` on other
machines (each worker runs the point as a process of its own, `rdcc sim` at the path RDCC on
that machine; ns-3's simulator is one per process, docs/ns3.md). A worker lost mid-point (killed,
its machine gone) does not lose the point: the scheduler runs it again on another worker.

Prints one table (tab-separated, one line per point in the order of the combinations: the
values, the seed, where it ran, the exit status and the summary's figures), and with --out one
JSON document holding every point with its parameters and its result. A point that could not run
(exit 2: a wrong PATH or value; a crash; no rdcc on the worker; its task lost more often than the
scheduler allows) is in both with its error, and on standard error. Exit status: 0 when every
point ran (exit 0 or 1: a point may find a violation), 1 when a point could not run, 2 on a
wrong command line or description.
"""

import argparse
import copy
import itertools
import json
import logging
import os
import re
import sys

STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

COLUMNS = ["status", "finished", "last_finished_us", "max_ratio", "max_peak_credit",
           "max_peak_queue", "ecn_marked", "violation_count", "events", "wall_s"]


def parse_path(path):
    steps = []
    for key, index in STEP.findall(path):
        steps.append(int(index) if index else key)
    if not steps:
        raise ValueError(f"{path}: not a key path")
    return steps


def assign(doc, path, value):
    steps = parse_path(path)
    node = doc
    for i, step in enumerate(steps[:-1]):
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                raise ValueError(f"{path}: no element {step} there")
            node = node[step]
        else:
            if not isinstance(node, dict):
                raise ValueError(f"{path}: {step} is not inside an object")
            node = node.setdefault(step, {} if not isinstance(steps[i + 1], int) else [])
    last = steps[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last >= len(node):
            raise ValueError(f"{path}: no element {last} there")
    elif not isinstance(node, dict):
        raise ValueError(f"{path}: {last} is not inside an object")
    node[last] = value


def parse_set(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text}: expected PATH=V1,V2,...")
    path, values = text.split("=", 1)
    try:
        parse_path(path)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e
    out = []
    for v in values.split(","):
        try:
            out.append(json.loads(v))
        except json.JSONDecodeError:
            out.append(v)  # a bare word: a string
    return path, out


def summarize(j):
    receivers = j.get("receivers", [])
    return {
        "finished": j.get("finished"),
        "last_finished_us": j.get("last_finished_us"),
        "max_ratio": max((r.get("ratio", 0) for r in receivers), default=0),
        "max_peak_credit": max((r.get("peak_credit", 0) for r in receivers), default=0),
        "max_peak_queue": max((r.get("peak_queue", 0) for r in receivers), default=0),
        "ecn_marked": j.get("network", {}).get("ecn_marked"),
        "violation_count": j.get("violation_count"),
        "events": j.get("events"),
        "wall_s": j.get("wall_s"),
    }


def run_point(rdcc, engine, index, doc, seed):
    """One point, on a worker: `rdcc sim` as a process of its own. Runs where Dask puts it, so it
    imports what it needs and names the worker it ran on."""
    import socket
    import subprocess
    import tempfile

    try:
        from distributed import get_worker
        worker = get_worker().name
    except (ImportError, ValueError):
        worker = None
    result = {"worker": str(worker) if worker is not None else socket.gethostname()}
    with tempfile.TemporaryDirectory(prefix="rdcc-sweep-") as folder:
        path = os.path.join(folder, f"point-{index}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        cmd = [rdcc, "sim", path, "--json", "--engine", engine]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as e:
            result.update(status=None, error=f"{rdcc}: {e.strerror} on {socket.gethostname()}")
            return result
    result["status"] = p.returncode
    if p.returncode in (0, 1):
        try:
            result.update(summarize(json.loads(p.stdout)))
        except json.JSONDecodeError as e:
            result["error"] = f"rdcc sim printed no JSON summary ({e}): {p.stderr.strip()}"
    elif p.returncode < 0:
        result["error"] = f"rdcc sim killed by signal {-p.returncode}: {p.stderr.strip()}"
    else:
        result["error"] = p.stderr.strip() or f"rdcc sim exited {p.returncode}"
    return result


def build_points(base, sets, seeds):
    paths = [p for p, _ in sets]
    points = []
    for values in itertools.product(*[v for _, v in sets]):
        doc = copy.deepcopy(base)
        for path, value in zip(paths, values):
            assign(doc, path, value)
        for seed in seeds:
            points.append({"values": dict(zip(paths, values)), "seed": seed, "doc": doc})
    return paths, points


def connect(a):
    """A Dask client: to the scheduler at --scheduler, or to a local cluster of --jobs worker
    processes (one thread each: a point is a process of its own)."""
    from distributed import Client, LocalCluster

    if a.scheduler:
        return Client(a.scheduler, timeout=a.connect_timeout), None
    cluster = LocalCluster(n_workers=max(1, a.jobs), threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster), cluster


def run_all(client, a, points):
    """Every point's result, in the order of the points. A task whose worker is lost is run
    again by the scheduler (up to its allowed-failures); one that raises is retried --retries
    times; what still fails is a result with its error, never a point left out."""
    from distributed import as_completed

    futures = [client.submit(run_point, a.rdcc, a.engine, i, p["doc"], p["seed"], pure=False,
                             retries=a.retries, key=f"rdcc-sim-point-{i}-{os.getpid()}")
               for i, p in enumerate(points)]
    index = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(points)
    for fut in as_completed(futures):
        i = index[fut.key]
        try:
            results[i] = fut.result()
        except Exception as e:  # noqa: BLE001 - whatever the task or the cluster raised is the point's error
            results[i] = {"status": None, "error": f"{type(e).__name__}: {e}"}
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rdcc", help="the rdcc binary, at the same path on every worker")
    ap.add_argument("description")
    ap.add_argument("--set", dest="sets", type=parse_set, action="append", default=[], metavar="PATH=V1,V2")
    ap.add_argument("--seeds", default="", help="comma-separated seeds (default: the description's)")
    ap.add_argument("--engine", default="sim", choices=["sim", "ns3"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="worker processes of the local cluster (default: the cores)")
    ap.add_argument("--scheduler", metavar="ADDRESS",
                    help="a running Dask scheduler (tcp://HOST:PORT) instead of a local cluster")
    ap.add_argument("--connect-timeout", default="30s", help="how long to wait for --scheduler")
    ap.add_argument("--retries", type=int, default=2, help="runs again of a point whose task raised")
    ap.add_argument("--out", help="write every point, its parameters and its result, as one JSON document")
    a = ap.parse_args()

    try:
        with open(a.description) as f:
            base = json.load(f)
        seeds = [int(s) for s in a.seeds.split(",") if s] or [None]
        paths, points = build_points(base, a.sets, seeds)
    except (OSError, ValueError) as e:
        print(f"sim-sweep: {a.description}: {e}", file=sys.stderr)
        return 2
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("sim-sweep: Dask distributed is not installed for this Python "
              f"({sys.executable}); scripts/setup.sh installs python3-distributed for /usr/bin/python3",
              file=sys.stderr)
        return 2

    client, cluster = connect(a)
    try:
        results = run_all(client, a, points)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    print("\t".join(paths + ["seed", "worker"] + COLUMNS))
    failed = 0
    for p, r in zip(points, results):
        if r.get("status") not in (0, 1) or "error" in r:
            failed += 1
            print(f"sim-sweep: point {json.dumps(p['values'])} seed {p['seed']}: "
                  f"exit {r.get('status')}: {r.get('error', '')}", file=sys.stderr)
        row = [json.dumps(p["values"][k]) for k in paths]
        row += [str(p["seed"] if p["seed"] is not None else "-"), str(r.get("worker", "-"))]
        row += [str(r.get(c, "")) for c in COLUMNS]
        print("\t".join(row), flush=True)
    if a.out:
        doc = {"rdcc": a.rdcc, "description": a.description, "engine": a.engine,
               "scheduler": a.scheduler or "local", "failed": failed,
               "points": [{"index": i, "values": p["values"], "seed": p["seed"], **r}
                          for i, (p, r) in enumerate(zip(points, results))]}
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
