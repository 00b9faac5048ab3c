#!/usr/bin/env python3
"""A discrete-event simulation of many repositories kept current by W workers
(bench/README.md, "Workers: 100 repositories"). Nothing runs for real: the
figures that matter are taken from bench/workers.sh (the store's ceiling in
jobs per second) and from the model's shape (p50 8 s, p99 40 s).

Arrivals: REPOS repositories x PRS merged PRs a day, each wanting LANGS
guides, merged over the day with a working-hours peak (a raised sine: 3x the
night rate at the peak), as Poisson arrivals. Each worker takes one write job
at a time; a job costs the store STORE_MS (claim, read, write, complete:
measured) plus one model request whose latency is log-normal with the given
median and 99th percentile, and every request passes the shared limit (RPM
requests a minute, spaced evenly). Runs DAYS days and reports, for each W,
the largest backlog, the backlog at the end, and the p95 wait from merge to
guide. The backlog is bounded when it ends no larger than it started each
day, i.e. the workers keep up.

  python3 bench/workers_sim.py [--repos 100] [--prs 50] [--langs 2] [--rpm 60] [--days 3]"""
import argparse
import heapq
import math
import random

p = argparse.ArgumentParser()
p.add_argument("--repos", type=int, default=100)
p.add_argument("--prs", type=float, default=50)
p.add_argument("--langs", type=int, default=2)
p.add_argument("--p50", type=float, default=8.0)
p.add_argument("--p99", type=float, default=40.0)
p.add_argument("--rpm", type=float, default=60)
p.add_argument("--store-ms", type=float, default=25.0)
p.add_argument("--days", type=int, default=3)
p.add_argument("--workers", default="1,2,3,4,6,8,12,16")
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
SIGMA = math.log(a.p99 / a.p50) / 2.3263
DAY = 86400.0
per_day = a.repos * a.prs * a.langs


def arrivals(rng):
    """Arrival times over the days (thinning a Poisson process with peak rate)."""
    mean_rate = per_day / DAY
    peak = mean_rate * 1.5  # rate(t) = mean * (1 + 0.5 sin): 0.5x at night, 1.5x at the peak
    t, out = 0.0, []
    while True:
        t += rng.expovariate(peak)
        if t >= a.days * DAY:
            return out
        rate = mean_rate * (1 + 0.5 * math.sin(2 * math.pi * (t / DAY - 0.375)))
        if rng.random() < rate / peak:
            out.append(t)


def simulate(workers, rng):
    jobs = arrivals(rng)
    interval = 60.0 / a.rpm if a.rpm > 0 else 0.0
    next_slot = 0.0  # the shared limit: the next time a request may go
    free = [0.0] * workers  # when each worker is next free
    heapq.heapify(free)
    waits, backlog_max, finish = [], 0, []
    for t in jobs:
        start = max(heapq.heappop(free), t)
        start = max(start + a.store_ms / 1000, next_slot)
        next_slot = max(next_slot, start) + interval
        done = start + a.p50 * math.exp(SIGMA * rng.gauss(0, 1))
        heapq.heappush(free, done)
        waits.append(done - t)
        finish.append(done)
    # Backlog at each arrival: jobs arrived but not finished.
    finish_sorted = sorted(finish)
    j = 0
    for i, t in enumerate(jobs):
        while j < len(finish_sorted) and finish_sorted[j] <= t:
            j += 1
        backlog_max = max(backlog_max, i + 1 - j)
    end = a.days * DAY
    at_end = sum(1 for f in finish if f > end)
    waits.sort()
    return backlog_max, at_end, waits[int(0.95 * (len(waits) - 1))], len(jobs)


print(f"{a.repos} repositories x {a.prs:g} PRs/day x {a.langs} languages = {per_day:.0f} guides/day "
      f"({per_day / 1440:.1f}/min on average, {1.5 * per_day / 1440:.1f}/min at the peak); model "
      f"p50 {a.p50:g} s, p99 {a.p99:g} s (mean {a.p50 * math.exp(SIGMA ** 2 / 2):.1f} s); shared "
      f"limit {a.rpm:g} requests/min; store {a.store_ms:g} ms per job; {a.days} days")
print(f"{'workers':>8} {'max backlog':>12} {'left at end':>12} {'p95 merge->guide':>18}  verdict")
for w in [int(x) for x in a.workers.split(",")]:
    mx, left, p95, n = simulate(w, random.Random(a.seed))
    bounded = left < per_day / 24  # less than an hour of arrivals left over
    print(f"{w:>8} {mx:>12} {left:>12} {p95 / 60:>15.1f} min  "
          f"{'keeps up' if bounded else 'falls behind'}")
