#!/usr/bin/env python3
"""Soak of the real nodes on loopback (issue 19, item 7): `rdcc sender` -> `rdcc receiver`,
N messages of LENGTH octets submitted through the sender's upper tester (docs/upper-tester.md),
at most WINDOW unanswered at a time and LIVE submitted but not finished; every SAMPLE messages the resident memory (VmRSS, from
/proc/PID/status) of both nodes. Target: each node's RSS flat within 10% after the first sample.

    tools/bench/node_soak.py build/default/tools/rdcc [--messages 1000000] [--length 4096]

Loopback only. Exit status 0 when every message is DONE and both RSS series stay within 10%
of their value at the first sample; 1 otherwise.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def ready_line(proc, what):
    line = proc.stderr.readline()
    try:
        ev = json.loads(line)
    except ValueError:
        sys.exit(f"node_soak: {what} did not start: {line.strip()!r}")
    if ev.get("event") != "ready":
        sys.exit(f"node_soak: {what} did not start: {line.strip()!r}")
    # The node goes on writing diagnostics to standard error: keep reading them, or a full pipe
    # would stop the node. The last few are kept for the report.
    tail = []

    def drain():
        for l in proc.stderr:
            tail.append(l.rstrip())
            del tail[:-5]

    threading.Thread(target=drain, daemon=True).start()
    return tail


def stall_report(call, handles):
    """What the unfinished messages are waiting for, when nothing finishes: their states
    counted, the first few in full, and the sender's counters (the receiver's go to its standard
    error on SIGUSR1, kept in its last diagnostics)."""
    states, first = {}, []
    for h in handles:
        st = call({"op": "status", "handle": h})
        state = st.get("state", st.get("error", "?"))
        states[state] = states.get(state, 0) + 1
        if state not in ("DONE", "no such message") and len(first) < 3:
            first.append(st)
    stats = call({"op": "stats"})["stats"]
    return f"states of the last {len(handles)} submitted: {states}; first unfinished: {first}; sender stats: {stats}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdcc")
    ap.add_argument("--messages", type=int, default=1000000)
    ap.add_argument("--length", type=int, default=4096)
    ap.add_argument("--sample", type=int, default=100000)
    ap.add_argument("--window", type=int, default=64, help="submissions sent before reading answers")
    ap.add_argument("--live", type=int, default=1024, help="most messages submitted and not finished")
    ap.add_argument("--port", type=int, default=53000, help="RDCC port (data: +1)")
    a = ap.parse_args()
    if a.messages < 1 or a.sample < 1 or a.window < 1 or a.length < 1 or a.live < a.window:
        sys.exit("node_soak: --messages, --sample, --window and --length must be positive, --live at least --window")

    rdcc_port, data_port, ut_port = a.port, a.port + 1, free_port()
    receiver = subprocess.Popen(
        [a.rdcc, "receiver", "--address", "127.0.0.1", "--rdcc-port", str(rdcc_port),
         "--data-port", str(data_port), "--budget", "4194304", "--unscheduled-budget", "1048576",
         "--link-capacity", "10000", "--unscheduled-limit", "65536", "--start-jitter", "10",
         "--backlog-threshold", "1048576", "--grant-lifetime", "1000", "--credit-unit", "4096",
         "--d-max", "100"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    receiver_tail = ready_line(receiver, "rdcc receiver")
    sender = subprocess.Popen(
        [a.rdcc, "sender", "--address", "127.0.0.2", "--rdcc-port", str(rdcc_port),
         "--data-port", str(data_port), "--line-rate", "10000",
         "--upper-tester", f"tcp:127.0.0.1:{ut_port}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sender_tail = ready_line(sender, "rdcc sender")
    status = 1
    sent = 0
    try:
        conn = socket.create_connection(("127.0.0.1", ut_port), timeout=60)
        rfile = conn.makefile("r")

        def call(req):
            conn.sendall((json.dumps(req) + "\n").encode())
            return json.loads(rfile.readline())

        submit = (json.dumps({"op": "submit", "receiver": f"127.0.0.1:{rdcc_port}",
                              "length": a.length}) + "\n").encode()
        samples = []
        handles = []
        start = time.monotonic()
        print(f"{'messages':>9} {'done':>9} {'sender_rss_kB':>14} {'receiver_rss_kB':>16} {'s':>8}")
        done = 0
        while sent < a.messages:
            n = min(a.window, a.messages - sent, a.sample - sent % a.sample)
            # At most --live messages unfinished: a soak of the steady state, not of a backlog
            # that grows as fast as the upper tester takes submissions.
            stalled_since = time.monotonic()
            while sent + n - done > a.live:
                now_done = call({"op": "stats"})["stats"]["sender"]["messages_done"]
                if now_done != done:
                    done, stalled_since = now_done, time.monotonic()
                elif time.monotonic() - stalled_since > 30:
                    stalled = stall_report(call, handles)
                    raise ValueError(f"no message finished for 30 s ({done} done of {sent} "
                                     f"submitted); {stalled}")
                else:
                    time.sleep(0.001)
            conn.sendall(submit * n)
            for _ in range(n):
                r = json.loads(rfile.readline())
                if not r.get("ok"):
                    sys.exit(f"node_soak: submit refused: {r}")
                handles.append(r["handle"])
            del handles[:-a.live]  # only the unfinished ones can stall
            sent += n
            if sent % a.sample == 0 or sent == a.messages:
                done = call({"op": "stats"})["stats"]["sender"]["messages_done"]
                s = (sent, done, rss_kb(sender.pid), rss_kb(receiver.pid), time.monotonic() - start)
                samples.append(s)
                print(f"{s[0]:>9} {s[1]:>9} {s[2]:>14} {s[3]:>16} {s[4]:>8.1f}", flush=True)
        deadline = time.monotonic() + 60
        done = 0
        while time.monotonic() < deadline:
            done = call({"op": "stats"})["stats"]["sender"]["messages_done"]
            if done >= a.messages:
                break
            time.sleep(0.2)
        first = samples[0]
        flat = all(s[2] <= first[2] * 1.1 and s[3] <= first[3] * 1.1 for s in samples)
        growth_s = (samples[-1][2] - first[2]) * 100.0 / first[2]
        growth_r = (samples[-1][3] - first[3]) * 100.0 / first[3]
        print(f"done {done} of {a.messages}; RSS after the first sample: sender {growth_s:+.1f}%, "
              f"receiver {growth_r:+.1f}% ({'flat within 10%' if flat else 'NOT flat within 10%'})")
        status = 0 if done >= a.messages and flat else 1
    except (OSError, ValueError) as e:
        print(f"node_soak: the sender's upper tester failed after {sent} submissions: {e!r}",
              file=sys.stderr)
        if receiver.poll() is None:
            receiver.send_signal(signal.SIGUSR1)  # its counters, into its last diagnostics
            time.sleep(0.5)
        for name, tail in (("sender", sender_tail), ("receiver", receiver_tail)):
            alive = "running" if (sender if name == "sender" else receiver).poll() is None else "exited"
            print(f"  rdcc {name} ({alive}), last diagnostics: {tail}", file=sys.stderr)
    finally:
        for p in (sender, receiver):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    return status


if __name__ == "__main__":
    sys.exit(main())
