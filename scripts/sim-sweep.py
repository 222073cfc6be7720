#!/usr/bin/env python3
"""A parameter sweep of `rdcc sim`: one process per point, as many at once as there are cores.

    scripts/sim-sweep.py RDCC DESCRIPTION.json --set PATH=V1,V2,... [--set ...]
                         [--seeds 1,2,3] [--engine sim|ns3] [--jobs N] [--out FILE.jsonl]

PATH names a key of the description (docs/sim.md) with dots and [i] indexes, e.g.
`receiver.budget`, `receivers[0].unscheduled_limit`, `workload.senders`, `queue.ecn_threshold`;
a value is JSON (a number, true, "text"). Every combination of the --set values and the seeds is
one point: the description with those values, run as `rdcc sim POINT.json --json --seed S`.
Each run is a process of its own (ns-3's simulator is one per process; docs/ns3.md). Prints one
line per point (tab-separated: the values, the exit status, and the summary's figures) and, with
--out, the points as JSON lines. Exit status: 0 when every point ran (exit 0 or 1: a point may
find a violation), 1 when a point could not run (a wrong PATH, exit 2, a crash).
"""

import argparse
import concurrent.futures
import copy
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


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
    parse_path(path)
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


def run_point(rdcc, engine, folder, index, doc, seed):
    path = os.path.join(folder, f"point-{index}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    cmd = [rdcc, "sim", path, "--json", "--engine", engine]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    result = {"status": p.returncode}
    if p.returncode in (0, 1):
        result.update(summarize(json.loads(p.stdout)))
    else:
        result["error"] = p.stderr.strip()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rdcc")
    ap.add_argument("description")
    ap.add_argument("--set", dest="sets", type=parse_set, action="append", default=[], metavar="PATH=V1,V2")
    ap.add_argument("--seeds", default="", help="comma-separated seeds (default: the description's)")
    ap.add_argument("--engine", default="sim", choices=["sim", "ns3"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", help="write the points as JSON lines to this file")
    a = ap.parse_args()

    with open(a.description) as f:
        base = json.load(f)
    seeds = [int(s) for s in a.seeds.split(",") if s] or [None]
    paths = [p for p, _ in a.sets]
    points = []
    for values in itertools.product(*[v for _, v in a.sets]):
        doc = copy.deepcopy(base)
        try:
            for path, value in zip(paths, values):
                assign(doc, path, value)
        except ValueError as e:
            print(f"sim-sweep: {a.description}: {e}", file=sys.stderr)
            return 1
        for seed in seeds:
            points.append((dict(zip(paths, values)), seed, doc))

    columns = ["status", "finished", "last_finished_us", "max_ratio", "max_peak_credit", "max_peak_queue",
               "ecn_marked", "violation_count", "events", "wall_s"]
    print("\t".join(paths + ["seed"] + columns))
    failed = 0
    with tempfile.TemporaryDirectory() as folder, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(run_point, a.rdcc, a.engine, folder, i, doc, seed)
                   for i, (_, seed, doc) in enumerate(points)]
        out = open(a.out, "w") if a.out else None
        for (values, seed, _), fut in zip(points, futures):
            r = fut.result()
            if r["status"] not in (0, 1):
                failed += 1
                print(f"sim-sweep: point {values} seed {seed}: exit {r['status']}: {r.get('error', '')}",
                      file=sys.stderr)
            row = [json.dumps(values[p]) for p in paths] + [str(seed if seed is not None else "-")]
            row += [str(r.get(c, "")) for c in columns]
            print("\t".join(row), flush=True)
            if out:
                out.write(json.dumps({"values": values, "seed": seed, **r}) + "\n")
        if out:
            out.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
