#!/usr/bin/env python3
"""Workers over a real backlog (run by bench/workers.sh, which makes the
window repository, the seed store and the PostgreSQL cluster).

1. prepared: the seed store copied into PostgreSQL with `migrate-store`, the
   window added with `repos add --llm`, and workers limited to ingest and
   analyze run until idle: WINDOW write jobs wait in the queue.
2. throughput: for 1, 2 and 4 workers, a copy of prepared (CREATE DATABASE
   ... TEMPLATE), the replay server (tests/e2e/replay_llm.py: p50 8 s, p99
   40 s times SCALE, its own limit of SERVER_RPM), the workers sharing a
   limit of RPM requests a minute; guides written per minute over DURATION s,
   the 429s the server sent, the time spent waiting for the shared limit.
3. store ceiling: 4 workers with --offline (no model) work the whole queue;
   jobs per second is what the store and the queue sustain.
4. kills: 4 workers work the whole queue while one of them is SIGKILLed every
   0.5-3 s and restarted; then the guides and facts are compared with a
   single `mergelens run` (SQLite, the same replay server), and the replay
   log is checked for changes asked twice (allowed only for a job whose
   worker was killed while asking, claimed again afterwards)."""
import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "e2e"))
import common  # noqa: E402
import crash_resume as cr  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--binary", required=True)
p.add_argument("--repo", required=True)
p.add_argument("--seed", required=True)
p.add_argument("--server", required=True)  # postgresql://.../postgres
p.add_argument("--work", required=True)
p.add_argument("--name", required=True)
p.add_argument("--url-base", required=True)
p.add_argument("--scale", type=float, default=0.02)
p.add_argument("--rpm", type=float, default=900)
p.add_argument("--server-rpm", type=float, default=1000)
p.add_argument("--duration", type=float, default=60)
p.add_argument("--kills", type=int, default=25)
a = p.parse_args()
replay_py = os.path.join(os.path.dirname(__file__), "..", "tests", "e2e", "replay_llm.py")
procs = []


def db_url(db):
    head, _, _ = a.server.rpartition("/")
    return f"{head}/{db}"


def fresh_db(db, template=None):
    common.psql(a.server, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)",
                f"CREATE DATABASE {db}" + (f" TEMPLATE {template}" if template else ""))
    return db_url(db)


def replay(name, rpm=0):
    port_file = os.path.join(a.work, name + ".port")
    log = os.path.join(a.work, name + ".log")
    for f in (port_file, log):
        if os.path.exists(f):
            os.remove(f)
    proc = subprocess.Popen([sys.executable, replay_py, "--port-file", port_file, "--log", log,
                             "--scale", str(a.scale), "--rpm", str(rpm)])
    procs.append(proc)
    while not os.path.exists(port_file):
        time.sleep(0.05)
    with open(port_file) as f:
        return proc, f"http://127.0.0.1:{f.read().strip()}", log


def ml(*args, db, check=True, **kw):
    r = subprocess.run([a.binary, "--db", db, *args], capture_output=True, text=True, **kw)
    if check and r.returncode:
        raise SystemExit(f"mergelens {' '.join(args)} failed: {r.stderr}")
    return r


def worker(db, url, *extra, log=None):
    err = open(log, "ab") if log else subprocess.DEVNULL
    open(os.path.join(a.work, "none"), "a").close()  # an empty --config (a named one must exist)
    return subprocess.Popen([a.binary, "--db", db, "worker", "--llm-base-url", url, "--llm-model",
                             "replay", "--rpm", str(a.rpm), "--poll", "0.2", "--exit-when-idle",
                             "--config", os.path.join(a.work, "none"), *extra],
                            stdout=subprocess.PIPE, stderr=err, text=True)


def count(db, sql):
    return int(cr.rows(db, sql)[0][0])


def log_entries(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


try:
    # 1. prepared
    t0 = time.monotonic()
    fresh_db("prepared")
    ml("migrate-store", "--to", db_url("prepared"), db=a.seed)
    prepared = db_url("prepared")
    ml("repos", "add", a.name, "--path", a.repo, "--lang", "zh", "--llm", db=prepared)
    _, url, _ = replay("replay-prepare")
    w = worker(prepared, url, "--kinds", "ingest,analyze")
    w.wait()
    writes = count(prepared, "SELECT count(*) FROM jobs WHERE kind = 'write' AND state = 'queued'")
    print(f"prepared: {writes} write jobs queued after ingest and analyze "
          f"({time.monotonic() - t0:.0f} s)", flush=True)
    # The template must have no connection left.
    common.psql(a.server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = 'prepared' AND pid != pg_backend_pid()")

    # 2. throughput (MERGELENS_WORKERS_ONLY_KILLS=1 skips 2 and 3)
    only_kills = os.environ.get("MERGELENS_WORKERS_ONLY_KILLS") == "1"
    print(f"throughput over {a.duration:.0f} s (latency p50 {8 * a.scale:.2f} s, "
          f"p99 {40 * a.scale:.2f} s = 8 s / 40 s x {a.scale}; shared limit {a.rpm:.0f} rpm, "
          f"server limit {a.server_rpm:.0f} rpm):", flush=True)
    base = None
    for n in () if only_kills else (1, 2, 4):
        db = fresh_db(f"tp{n}", "prepared")
        proc, url, log = replay(f"replay-tp{n}", a.server_rpm)
        ws = [worker(db, url) for _ in range(n)]
        time.sleep(a.duration)
        for w in ws:
            w.send_signal(signal.SIGKILL)
            w.wait()
        proc.terminate()
        proc.wait()
        entries = log_entries(log)
        ok = sum(1 for e in entries if e.get("status") == 200)
        limited = sum(1 for e in entries if e.get("status") == 429)
        done = count(db, "SELECT count(*) FROM jobs WHERE kind = 'write' AND state = 'done'")
        rate = done * 60 / a.duration
        base = base or rate
        print(f"  {n} worker{'s' if n > 1 else ' '}: {rate:6.0f} guides/min ({done} in "
              f"{a.duration:.0f} s, x{rate / base:.2f} of 1 worker); {ok} answers, "
              f"{limited} 429s from the server", flush=True)

    # 3. store ceiling
    if not only_kills:
        db = fresh_db("offline", "prepared")
        start = time.monotonic()
        ws = [worker(db, "http://127.0.0.1:9", "--offline") for _ in range(4)]
        for w in ws:
            w.wait()
        took = time.monotonic() - start
        done = count(db, "SELECT count(*) FROM jobs WHERE kind = 'write' AND state = 'done'")
        print(f"store ceiling: 4 workers --offline: {done} write jobs in {took:.1f} s = "
              f"{done / took:.0f} jobs/s ({done / took * 60:.0f}/min)", flush=True)

    # 4. kills, and the single-process reference
    proc, url, kill_log = replay("replay-kills")
    db = fresh_db("kills", "prepared")
    rng = random.Random(20261201)
    errs = os.path.join(a.work, "kills.err")
    ws = [worker(db, url, "--lease", "10", log=errs) for _ in range(4)]
    kills = 0
    start = time.monotonic()
    while any(w.poll() is None for w in ws):
        time.sleep(rng.uniform(0.5, 3.0))
        alive = [i for i, w in enumerate(ws) if w.poll() is None]
        if alive and kills < a.kills:
            i = rng.choice(alive)
            ws[i].send_signal(signal.SIGKILL)
            ws[i].wait()
            kills += 1
            ws[i] = worker(db, url, "--lease", "10", log=errs)
    worker(db, url, "--lease", "10", log=errs).wait()
    took = time.monotonic() - start
    print(f"kills: 4 workers, {kills} SIGKILLed and restarted, queue done in {took:.0f} s",
          flush=True)
    proc.terminate()  # the kill phase's log ends here; the single run gets its own server
    proc.wait()
    proc, url, _ = replay("replay-ref")
    ref = os.path.join(a.work, "ref.db")
    if os.path.exists(ref):
        os.remove(ref)
    import shutil
    shutil.copyfile(a.seed, ref)
    start = time.monotonic()
    ml("--repo", a.name, "ingest", a.repo, "--url-base", a.url_base, db=ref)
    ml("--repo", a.name, "analyze", db=ref)
    ml("--repo", a.name, "write", "--lang", "zh", "--llm",
       "--llm-base-url", url, "--llm-model", "replay", "--llm-concurrency", "4", db=ref)
    print(f"single `mergelens run` (4 requests in flight): {time.monotonic() - start:.0f} s",
          flush=True)
    proc.terminate()
    proc.wait()
finally:
    for pr in procs:
        if pr.poll() is None:
            pr.kill()
            pr.wait()

GUIDES = ("SELECT c.sha, g.lang, g.writer, g.headline, g.text FROM guides g "
          "JOIN changes c ON c.id = g.change_id ORDER BY 1, 2")
FACTS = ("SELECT c.sha, x.version, x.verdict, x.importance, x.insight FROM facts x "
         "JOIN changes c ON c.id = x.change_id ORDER BY 1")


def rows(d, q):
    return [tuple(str(v) for v in r) for r in cr.rows(d, q)]


same_changes = rows(db, cr.CHANGES) == rows(ref, cr.CHANGES)
same_facts = rows(db, FACTS) == rows(ref, FACTS)
got, want = rows(db, GUIDES), rows(ref, GUIDES)
same_guides = got == want
left = rows(db, "SELECT state, count(*) FROM jobs WHERE state != 'done' GROUP BY 1")
entries = [e for e in log_entries(kill_log) if e.get("status") in (200, "client gone")]
asked = collections.Counter(e["key"] for e in entries)
by_change = collections.Counter((e["pr"], e["lang"]) for e in entries)
repeated = {k: n for k, n in by_change.items() if n > 1}
ids = cr.change_ids_by_ref(db)
claims = {r[0]: int(r[1]) for r in rows(db, "SELECT key, attempts FROM jobs WHERE kind = 'write'")}
unexplained = [k for k, n in repeated.items()
               if claims.get(f"write:{ids.get(k[0])}:{k[1]}", 0) < n]
print(f"  result vs the single run: changes {'equal' if same_changes else 'DIFFERENT'}, facts "
      f"{'equal' if same_facts else 'DIFFERENT'}, guides {'equal' if same_guides else 'DIFFERENT'} "
      f"({len(got)} vs {len(want)}); jobs not done: {left or 'none'}")
print(f"  model requests: {len(entries)} for {len(by_change)} guides; {len(repeated)} changes asked "
      f"again after their worker was killed asking ({sum(repeated.values()) - len(repeated)} "
      f"extra requests, {kills} kills), {len(unexplained)} repeated without such a kill")
ok = same_changes and same_facts and same_guides and not left and not unexplained
sys.exit(0 if ok else 1)
