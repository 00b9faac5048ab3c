"""Resource limits: a 3 MB single-file diff, a 500-file PR, a 1 MB PR body and a
10,000-character title go through `mergelens run` (ingest, analyse, write zh
and en). Each gets a guide; caps are flagged in the guide, not dropped
silently; peak memory stays bounded. Times and peak RSS are printed (the
stated figures live in docs/limits.md; no timing is asserted here)."""
import json
import os
import subprocess

import common

args = common.parse_args()
repo = os.path.join(args.work_dir, "repo")
os.makedirs(repo)
common.git(repo, "init", "-q", "-b", "main")
common.git(repo, "remote", "add", "origin", "https://github.com/o/limits.git")


def write(path, text):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def commit(message, when):
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    common.git(repo, "add", "-A")
    subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-F", "-"], cwd=repo,
                   input=message.encode(), check=True,
                   env=dict(os.environ, **common.GIT_ENV, **env))


write("README.md", "# limits\n")
commit("Initial import", "2026-09-01T08:00:00Z")
# 1. A 3 MB diff in one file (60,000 lines of ~50 bytes).
write("python/pkg/table.py", "".join(f"ENTRY_{i:06d} = ({i}, {i * 7 % 1000}, 'value-{i:06d}')\n"
                                     for i in range(60000)))
commit("Add a generated lookup table (#1)", "2026-09-02T08:00:00Z")
# 2. 500 files in one PR.
for i in range(500):
    write(f"python/pkg/mod_{i:03d}.py", f"def f_{i}(x):\n    return x + {i}\n")
commit("Split the helpers into 500 modules (#2)", "2026-09-03T08:00:00Z")
# 3. A 1 MB body.
write("python/pkg/mod_000.py", "def f_0(x):\n    if x is None:\n        return 0\n    return x\n")
body = "".join(f"Line {i}: the scheduler keeps {i % 97} requests in flight.\n" for i in range(20000))
commit("Guard f_0 against None (#3)\n\n" + body, "2026-09-04T08:00:00Z")
# 4. A 10,000-character title.
write("python/pkg/mod_001.py", "def f_1(x):\n    return x + 2\n")
commit("Fix " + "very " * 2000 + "long title (#4)", "2026-09-05T08:00:00Z")

db = os.path.join(args.work_dir, "db", "mergelens.db")
timing = os.path.join(args.work_dir, "time.txt")
p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", timing, args.binary, "run", repo,
                    "--lang", "both", "--db", db], capture_output=True)
assert p.returncode == 0, p.stderr.decode(errors="replace")
with open(timing) as f:
    seconds, kb = f.read().split()[-2:]
print(f"run over the four oversized PRs: {float(seconds):.1f} s, peak RSS {int(kb) // 1024} MB")
ml = common.Binary(args.binary, db)


def show(n, lang="zh"):
    return json.loads(ml.run("show", f"#{n}", "--json", "--lang", lang).stdout)


def test_memory_stays_bounded():
    assert int(kb) < 1024 * 1024, f"peak RSS {int(kb) // 1024} MB"


def test_three_megabyte_diff_is_capped_and_the_guide_says_so():
    got = show(1)
    f = got["files"][0]
    assert f["additions"] == 60000, f["additions"]  # counted in full
    assert f["truncated"] is True
    for lang in ("zh", "en"):
        g = show(1, lang)["guide"]
        assert any("python/pkg/table.py" in x for x in g["limits"]), g["limits"]


def test_five_hundred_files_are_all_stored_and_guided():
    got = show(2)
    assert len(got["files"]) == 500
    assert got["files_truncated"] is False
    g = got["guide"]
    assert g["headline"] and g["verdict_text"], g
    assert g["limits"] == [], g["limits"]


def test_one_megabyte_body_is_kept_and_flagged_for_the_model_prompt():
    got = show(3)
    assert len(got["body"]) > 1_000_000
    g = got["guide"]
    assert any("KB" in x for x in g["limits"]), g["limits"]
    prompt = json.loads(ml.run("show", "#3", "--prompt", "--json").stdout)
    assert prompt["estimated_tokens"] <= 12000, prompt["estimated_tokens"]


def test_ten_thousand_character_title_gets_a_short_headline():
    got = show(4)
    assert len(got["title"]) > 10000
    for lang in ("zh", "en"):
        g = show(4, lang)["guide"]
        assert len(g["headline"]) <= 210, len(g["headline"])
        assert g["limits"], g


common.main([test_memory_stays_bounded, test_three_megabyte_diff_is_capped_and_the_guide_says_so,
             test_five_hundred_files_are_all_stored_and_guided,
             test_one_megabyte_body_is_kept_and_flagged_for_the_model_prompt,
             test_ten_thousand_character_title_gets_a_short_headline])
