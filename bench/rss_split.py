#!/usr/bin/env python3
"""Where a process's resident memory goes: runs a command, samples /proc/PID/smaps every 0.5 s,
and prints, at the sample with the largest RSS, the resident MB by kind of mapping: anonymous
(heap, thread stacks), the SQLite store (mmap), git pack files and indexes, other files.

    bench/rss_split.py [--label NAME] -- CMD ARGS...

Used by bench/memory.sh; exits with the command's status."""
import argparse
import collections
import subprocess
import sys
import time


def kind(path):
    if not path or path.startswith("["):
        return "anonymous"
    if path.endswith((".db", ".db-shm", ".db-wal", ".sqlite")):
        return "store (SQLite mmap)"
    if "/objects/pack/" in path:
        return "git packs"
    return "other files"


def sample(pid):
    out = collections.Counter()
    path = None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                head = line.split(None, 5)
                if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                    path = head[5].strip() if len(head) == 6 else ""
                elif line.startswith("Rss:"):
                    out[kind(path)] += int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--label", default="")
    p.add_argument("--timeline", type=float, default=0,
                   help="also print the largest RSS of every window of this many seconds")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, peak_total = collections.Counter(), 0
    start, window, window_max = time.monotonic(), 0, 0
    while proc.poll() is None:
        s = sample(proc.pid)
        if s and sum(s.values()) > peak_total:
            peak, peak_total = s, sum(s.values())
        if a.timeline and s:
            w = int((time.monotonic() - start) / a.timeline)
            if w != window:
                print(f"  {window * a.timeline:6.0f} s  {window_max // 1024} MB", flush=True)
                window, window_max = w, 0
            window_max = max(window_max, sum(s.values()))
        time.sleep(0.5)
    parts = ", ".join(f"{k} {v // 1024} MB" for k, v in peak.most_common())
    print(f"{a.label or cmd[0]}: sampled peak RSS {peak_total // 1024} MB = {parts}")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
