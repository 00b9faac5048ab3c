"""Workers: 4 `mergelens worker` processes share one store (SQLite, or with
MERGELENS_E2E_BACKEND=pg a PostgreSQL cluster this test starts itself) and
work through the sample repository (50 changes, guides in zh and en written
by a model) against tests/e2e/replay_llm.py, whose latency keeps the shape of
a real model (p50 8 s, p99 40 s) scaled by SCALE.

- Kills: a random worker is SIGKILLed every 0.3-1 s and restarted. Afterwards
  every change has its facts and both guides, by the model; the guides and
  facts equal those of a single `mergelens run`; no job is dead; and the
  replay log shows no change asked twice except a job whose worker was killed
  while asking (its answer never reached the store): such a job was claimed
  again, and it accounts for each extra request.
- PostgreSQL only: the server goes down for 3 s in the middle of a run. Workers
  wait, print an error naming the server, resume, and nothing is lost."""
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import common
import crash_resume

args = common.parse_args()
common.skip_unless_backend_available()
repo, _ = common.make_sample(args)
binary = args.binary
SCALE = 0.02  # p50 160 ms, p99 0.8 s
WORKERS = 4
PG = common.backend() == "pg"
# The cluster lives under the temporary folder, not the work folder: as root its server runs
# as `nobody`, who may not be allowed into a checkout's folders (a CI clone made by
# `mktemp -d` is 0700; the test that opened them, e2e_bad_input, may not have run yet).
# pg-test-cluster.sh gives the folder to that user and deletes it when it stops the cluster.
cluster = tempfile.mkdtemp(prefix="mergelens-e2e-pg-") if PG else None
cluster_script = os.path.join(args.source_dir, "scripts", "pg-test-cluster.sh")


server_url = None
if PG:
    server_url = subprocess.run([cluster_script, "start", cluster, str(common.free_port())], check=True,
                                capture_output=True, text=True).stdout.strip()


def new_store(name):
    if not PG:
        return os.path.join(args.work_dir, name, "mergelens.db")
    db = f"workers_{name}"
    common.psql(server_url, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)", f"CREATE DATABASE {db}")
    head, _, rest = server_url.rpartition("/")
    return f"{head}/{db}"


def start_replay(name):
    port_file = os.path.join(args.work_dir, name + ".port")
    log = os.path.join(args.work_dir, name + ".log")
    p = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "replay_llm.py"),
                          "--port-file", port_file, "--log", log, "--scale", str(SCALE)])
    for _ in range(100):
        if os.path.exists(port_file):
            break
        time.sleep(0.05)
    with open(port_file) as f:
        return p, f"http://127.0.0.1:{f.read().strip()}", log


def replay_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


LLM = ["--llm-model", "replay"]
procs = []
try:
    replay, url, ref_log = start_replay("replay-ref")
    procs.append(replay)
    ref_db = os.path.join(args.work_dir, "ref", "mergelens.db")
    # The single run, one language per call as the workers' jobs (run would ask for both at once).
    crash_resume.run_to_end(binary, ["ingest", repo], ref_db)
    crash_resume.run_to_end(binary, ["analyze"], ref_db)
    crash_resume.run_to_end(binary, ["write", "--lang", "both", "--llm", "--one-language-per-call",
                                     "--llm-base-url", url, *LLM], ref_db)
    replay.terminate()
    replay.wait()

    def worker(db, log_name, lease, url):
        err = open(os.path.join(args.work_dir, log_name), "ab")
        # An empty configuration (a named --config must exist): no [[repo]], [llm] or [[deliver]].
        none = os.path.join(args.work_dir, "none")
        open(none, "a").close()
        return subprocess.Popen(
            [binary, "--db", db, "worker", "--llm-base-url", url, *LLM, "--lease", str(lease),
             "--poll", "0.1", "--exit-when-idle", "--config", none],
            stdout=subprocess.DEVNULL, stderr=err)

    def setup(db):
        subprocess.run([binary, "--db", db, "repos", "add", "lumen-ai/lumen", "--path", repo,
                        "--lang", "both", "--llm"], check=True, capture_output=True)

    # --- kills ---
    replay, url, kill_log = start_replay("replay-kills")
    procs.append(replay)
    kill_db = new_store("kills")
    setup(kill_db)
    rng = random.Random(int(os.environ.get("MERGELENS_CRASH_SEED", "20261201")))
    running = [worker(kill_db, f"kills-{i}.err", 2, url) for i in range(WORKERS)]
    kills = 0
    start = time.monotonic()
    while any(p.poll() is None for p in running) and time.monotonic() - start < 240:
        time.sleep(rng.uniform(0.3, 1.0))
        alive = [i for i, p in enumerate(running) if p.poll() is None]
        if not alive or kills >= 12:
            continue
        i = rng.choice(alive)
        running[i].send_signal(signal.SIGKILL)
        running[i].wait()
        kills += 1
        running[i] = worker(kill_db, f"kills-{i}.err", 2, url)
    for p in running:
        p.wait(timeout=240)
    # The last worker out may have left nothing running; one more pass makes sure.
    worker(kill_db, "kills-final.err", 2, url).wait(timeout=240)
    kill_seconds = time.monotonic() - start
    replay.terminate()
    replay.wait()

    # --- PostgreSQL restarted mid-run ---
    restart_db = restart_log = None
    if PG:
        replay, url, restart_log = start_replay("replay-restart")
        procs.append(replay)
        restart_db = new_store("restart")
        setup(restart_db)
        running = [worker(restart_db, f"restart-{i}.err", 30, url) for i in range(WORKERS)]
        time.sleep(1.5)
        # Down for 3 s, as a failover takes: a server back at once can go unnoticed, the first
        # store call after it being one whose failure costs nothing (a model answer's cache
        # entry), and the next one reconnecting. Within 3 s every worker makes a call it waits on.
        subprocess.run([cluster_script, "restart", cluster, "3"], check=True, capture_output=True)
        for p in running:
            p.wait(timeout=300)
        replay.terminate()
        replay.wait()
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()

print(f"{kills} workers killed over a {kill_seconds:.1f} s run")


def rows(db, sql):
    return [tuple(str(v) for v in r) for r in crash_resume.rows(db, sql)]


GUIDES = ("SELECT c.sha, g.lang, g.writer, g.headline, g.text FROM guides g "
          "JOIN changes c ON c.id = g.change_id ORDER BY 1, 2")
FACTS = ("SELECT c.sha, x.version, x.verdict, x.importance, x.insight FROM facts x "
         "JOIN changes c ON c.id = x.change_id ORDER BY 1")


def check_like_single_run(db):
    crash_resume.check_complete(db, langs=2)
    assert rows(db, crashlist := crash_resume.CHANGES) == rows(ref_db, crashlist)
    assert rows(db, FACTS) == rows(ref_db, FACTS), db
    got, want = rows(db, GUIDES), rows(ref_db, GUIDES)
    assert len(got) == len(want) == 100, (len(got), len(want))
    assert got == want, [(a[0][:8], a[1]) for a, b in zip(got, want) if a != b][:5]
    # The replay model's minimal answers sometimes contradict the analysis (its verdict): those
    # guides fall back to the offline writer, the same ones in both runs (compared above).
    assert sum(r[2] == "llm" for r in got) >= 0.8 * len(got), "most guides should be the model's"
    dead = rows(db, "SELECT key, last_error FROM jobs WHERE state IN ('dead', 'queued', 'running')")
    assert dead == [], dead


def test_the_workers_were_really_killed():
    assert kills >= 5, kills


def test_the_result_equals_a_single_process_run():
    check_like_single_run(kill_db)


def test_no_change_asked_twice_unless_its_worker_was_killed_asking():
    # Answers that reached a live client: a request the client gave up on (its timeout under
    # load, then its own retry) or whose worker died is logged as "client gone".
    # Guides only: a day's triage (lang "triage", pr = the day) is checked below.
    answered = collections.Counter(
        (e["pr"], e["lang"]) for e in replay_log(kill_log)
        if e.get("status") == 200 and e["lang"] != "triage")
    ref = collections.Counter(
        (e["pr"], e["lang"]) for e in replay_log(ref_log)
        if e.get("status") == 200 and e["lang"] != "triage")
    assert set(answered) == set(ref), "a guide was never asked for"
    ids = crash_resume.change_ids_by_ref(kill_db)
    # Claims of a guide's work, over every job row of its key: an analyze job run again after a
    # kill queues the write again, and that row's claims count beside the first row's.
    claims = collections.Counter()
    for key, attempts in rows(kill_db, "SELECT key, attempts FROM jobs WHERE kind = 'write'"):
        claims[key] += int(attempts)
    # A guide takes as many requests as in the single run (two when the first answer is
    # refused); more only for a job claimed again after its worker was killed while asking
    # (a kill loses at most the requests of one guide in flight).
    # A large PR's notes serve both languages (lang "notes" in the replay log): its write jobs
    # run one at a time, so the notes are asked again only when one of them is claimed again.
    def claimed_again(pr, lang):
        if lang != "notes":
            return claims.get(f"write:{ids[pr]}:{lang}", 0) >= 2
        return sum(claims.get(f"write:{ids[pr]}:{x}", 0) for x in ("zh", "en")) >= 3

    extra = 0
    for (pr, lang), n in answered.items():
        more = n - ref[(pr, lang)]
        if more > 0:
            key = f"write:{ids[pr]}:{lang}"
            if not claimed_again(pr, lang):
                # Everything there is to know, for a failure that shows once in many runs.
                jobs = rows(kill_db, "SELECT id, key, state, attempts, owner, last_error, "
                                     "created_at, updated_at FROM jobs WHERE key LIKE "
                                     f"'write:{ids[pr]}:%'")
                asked = [(e["key"], e.get("status"), round(e["arrived"], 2),
                          round(e.get("answered", 0), 2))
                         for e in replay_log(kill_log) if (e["pr"], e["lang"]) == (pr, lang)]
                raise AssertionError(f"{key}: {n} answers (single run {ref[(pr, lang)]}) and no "
                                     f"job claimed again; jobs {jobs}; requests {asked}")
            extra += more
    assert extra <= 2 * kills, (extra, kills)
    print(f"{sum(answered.values())} model requests for 100 guides ({sum(ref.values())} in the "
          f"single run); {extra} repeated after a kill")


def test_a_restarted_postgresql_makes_workers_wait_and_resume():
    if not PG:
        return
    errors = ""
    for i in range(WORKERS):
        with open(os.path.join(args.work_dir, f"restart-{i}.err"), errors="replace") as f:
            errors += f.read()
    port = server_url.split(":")[2].split("/")[0]
    assert f"PostgreSQL at 127.0.0.1:{port}" in errors, errors[-2000:]
    assert "the store is back" in errors or "will retry" in errors, errors[-2000:]
    check_like_single_run(restart_db)


try:
    common.main([test_the_workers_were_really_killed, test_the_result_equals_a_single_process_run,
                 test_no_change_asked_twice_unless_its_worker_was_killed_asking,
                 test_a_restarted_postgresql_makes_workers_wait_and_resume])
finally:
    if PG:
        subprocess.run([cluster_script, "stop", cluster], capture_output=True)
