"""The model's triage of each day through the real binary, on the generated
sample repository, against answers a strong-model stand-in wrote for exactly
the requests `mergelens triage --dump-requests` prints (tests/fixtures/triage-sample,
replayed by bench/replay_llm.py): every day judged, both judgments in
`show --json`, the digest in the triage's order with its reasons, no request
on a re-run, guides that start from the triage, and copies of the answers
with planted faults (a PR that is not in the day, a name the PR does not
show, a malformed answer) handled as docs/triage.md says."""
import json
import os
import re
import shutil
import subprocess
import sys

import common

args = common.parse_args()
common.skip_unless_backend_available()
repo, _ = common.make_sample(args)
ANSWERS = os.path.join(args.source_dir, "tests", "fixtures", "triage-sample")
REPLAY = os.path.join(args.source_dir, "bench", "replay_llm.py")


def start_replay(answers, name):
    log = os.path.join(args.work_dir, f"{name}.jsonl")
    p = subprocess.Popen([sys.executable, REPLAY, "--answers", answers, "--port", "0", "--log", log],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    port = int(p.stdout.readline().decode().split()[-1])
    return p, f"http://127.0.0.1:{port}", log


def requests(log):
    with open(log, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def store(name):
    ml = common.Binary(args.binary, common.store(args, name))
    ml.run("ingest", repo)
    ml.run("analyze")
    return ml


def show(ml, ref):
    """`show --json` of a PR number or a sha prefix."""
    ref = f"#{ref}" if isinstance(ref, int) or str(ref).isdigit() else ref
    return json.loads(ml.run("show", ref, "--json").stdout)


days = sorted(f[len("triage-"):-len("-1.json")] for f in os.listdir(ANSWERS))
replay, url, log = start_replay(ANSWERS, "replay")
ml = store("db")
LLM = ["--llm-base-url", url, "--llm-model", "standin"]
first = ml.run("triage", *LLM).stdout.decode()


def test_every_day_is_triaged_in_one_call_each():
    assert f"{len(days)} days, {len(days)} batches (0 from the cache, 0 failed)" in first, first
    asked = requests(log)
    assert sorted(r["pr"] for r in asked) == days, asked
    assert all(r["found"] for r in asked)


def test_show_json_keeps_both_judgments():
    listed = json.loads(ml.run("list", "--json").stdout)
    numbers = [c["number"] for c in listed if c.get("number")]
    with_triage = 0
    for n in numbers:
        j = show(ml, n)
        assert "verdict" in j and "scores" in j, n  # the analysis's
        t = j["triage"]
        if t is None:
            continue
        with_triage += 1
        assert t["day"] == j["merged_at"][:10], (n, t)
        assert 1 <= t["importance"] <= 10 and 1 <= t["insight"] <= 10
        assert t["verdict"] in ("close_read", "selective_read", "skim", "skip")
        assert t["model"] == "standin"
    assert with_triage == len(numbers), (with_triage, len(numbers))


def test_the_digest_follows_the_triage_order_and_shows_its_reasons():
    for day in days:
        d = json.loads(ml.run("digest", "--date", day, "--format", "json").stdout)
        refs = [it["ref"] for it in d["items"]]
        ranks = [show(ml, r.lstrip("#"))["triage"]["rank"] for r in refs]
        # Verdict groups first (skips listed apart), the model's rank inside each.
        verdict_order = {"close_read": 0, "selective_read": 1, "skim": 2}
        keys = [(verdict_order[it["verdict"]], rank) for it, rank in zip(d["items"], ranks)]
        assert keys == sorted(keys), (day, list(zip(refs, keys)))
        assert all(it["triaged"] for it in d["items"]), day
        assert not d["judged_by_analysis"], day
    md = ml.run("digest", "--date", days[-1], "--format", "md").stdout.decode()
    assert "模型分诊：" in md, md
    assert "没有模型分诊" not in md, md


def test_a_rerun_asks_nothing():
    before = len(requests(log))
    out = ml.run("triage", *LLM).stdout.decode()
    assert f"{len(days)} from the cache, 0 failed), 0 model calls" in out, out
    assert len(requests(log)) == before


def test_guides_start_from_the_triage():
    # No guide answers are stored: each guide falls back to the offline writer,
    # which states the triage's verdict and scores.
    out = ml.run("write", "--llm", *LLM, "--lang", "zh").stdout.decode()
    assert "triage:" in out and "0 model calls" in out, out
    for c in json.loads(ml.run("list", "--json").stdout):
        if not c.get("number"):
            continue
        j = show(ml, c["number"])
        g, t = j["guide"], j["triage"]
        assert g["verdict"] == t["verdict"], (c["number"], g["verdict"], t)
        assert g["importance"]["value"] == t["importance"], (c["number"], g["importance"], t)


def test_planted_faults_are_dropped_and_the_rest_is_kept():
    bad = os.path.join(args.work_dir, "bad-answers")
    shutil.copytree(ANSWERS, bad)
    day_bad, day_ghost, day_broken = days[-3], days[-2], days[-1]
    # A PR from another day, and a scope citing a function the entry does not show.
    path = os.path.join(bad, f"triage-{day_ghost}-1.json")
    with open(path, encoding="utf-8") as f:
        a = json.load(f)
    a["prs"].insert(0, {"pr": "#99999", "importance": 10, "insight": 10, "verdict": "close_read",
                        "scope": "", "reason_zh": "植入", "reason_en": "planted"})
    a["prs"][1]["scope"] = "only `ghost_function_not_in_the_pr`"
    a["prs"][1]["verdict"] = "close_read"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(a, f)
    # One PR left out of the answer.
    path = os.path.join(bad, f"triage-{day_bad}-1.json")
    with open(path, encoding="utf-8") as f:
        a = json.load(f)
    left_out = a["prs"].pop()["pr"]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(a, f)
    # An answer that is not JSON at all.
    with open(os.path.join(bad, f"triage-{day_broken}-1.json"), "w", encoding="utf-8") as f:
        f.write("I would rank the scheduler change first.")
    p, bad_url, bad_log = start_replay(bad, "replay-bad")
    try:
        other = store("bad")
        out = other.run("triage", "--llm-base-url", bad_url, "--llm-model", "standin").stdout.decode()
    finally:
        p.terminate()
        p.wait()
    assert "1 failed" in out, out
    assert "#99999 is not in this batch" in out, out
    assert "`ghost_function_not_in_the_pr` is not in its entry" in out, out
    assert "unusable answer" in out, out
    # The broken day was asked twice (one retry) and keeps the analysis's judgment.
    asked = [r["pr"] for r in requests(bad_log)]
    assert asked.count(day_broken) == 2, asked
    d = json.loads(other.run("digest", "--date", day_broken, "--format", "json").stdout)
    assert d["judged_by_analysis"], d["figures"]
    md = other.run("digest", "--date", day_broken, "--format", "md").stdout.decode()
    assert "没有模型分诊" in md, md
    # The left-out PR keeps the analysis's; the others of its day are triaged.
    assert show(other, left_out.lstrip("#"))["triage"] is None
    d = json.loads(other.run("digest", "--date", day_bad, "--format", "json").stdout)
    assert d["partly_triaged"], d


try:
    common.main([test_every_day_is_triaged_in_one_call_each,
                 test_show_json_keeps_both_judgments,
                 test_the_digest_follows_the_triage_order_and_shows_its_reasons,
                 test_a_rerun_asks_nothing,
                 test_guides_start_from_the_triage,
                 test_planted_faults_are_dropped_and_the_rest_is_kept])
finally:
    replay.terminate()
