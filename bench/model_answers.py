#!/usr/bin/env python3
"""Model-writer figures on real answers and real PRs (see bench/README.md).

1. The real model answers in ANSWERS (../shared/data/model-answers) are
   replayed by bench/replay_llm.py through `write --llm` for each binary
   given (a "before" build and the current one), on a store of the sglang
   history: items kept, citations removed, guides lost to the offline writer.
2. The same answers with planted fabrications (a ghost path in a focus point
   and in prose, lines outside the hunks in a focus point and in prose, a
   figure the PR never gives, identifiers said to be in the code): how many
   each binary removes, and what else it loses.
3. The largest PRs of the store, with synthesized answers: model calls,
   prompt tokens and plan per PR.
4. The last N PRs in both languages, with synthesized answers: prompt tokens
   with one bilingual call against one call per language.

Token counts are what the replay server reports: prompt characters / 4.
"""
import argparse
import copy
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LISTS = ["focus", "skim", "design_decisions", "questions", "number_cautions", "body_vs_code",
         "gaps", "advice", "references"]
GHOST = "python/sglang/srt/ghost_scheduler_v9.py"
MARKERS = ["ghost_scheduler_v9", "9001", "3.7x", "GhostDispatcherRegistry", "_ghost_refresh_state"]


def width(text):
    """prose::width: a CJK character or full-width mark 1, any other 0.375."""
    def cjk(c):
        o = ord(c)
        return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
                or 0x3000 <= o <= 0x303F)
    return sum(1 if cjk(c) else 0.375 for c in text)


def both_part(bins, db, answers_dir, tmp):
    """Answers for both languages (N.both.json, N.reduce-both.json, with the
    notes calls N.notes-K.json) replayed through `write --llm --lang both`:
    per PR and language the items kept, every removal (to judge against the
    diff), guides lost and headlines over the examples' length."""
    prs = sorted({int(f.split(".")[0]) for f in os.listdir(answers_dir)
                  if f.endswith("both.json")})
    small = os.path.join(tmp, "both-answers.db")
    small_store(db, prs, small)
    print(f"## Both languages: {answers_dir}")
    totals = {}
    for name, binary in bins:
        log = os.path.join(tmp, f"replay-both-{name}.jsonl")
        open(log, "w").close()
        rp = Replay(answers_dir, log)
        work = os.path.join(tmp, f"both-{name}.db")
        shutil.copy(small, work)
        run(binary, work, ["write", "--force", "--lang", "both"], rp.port)
        rp.close()
        t = totals.setdefault(name, {"kept": 0, "items": 0, "removed": 0, "lost": 0, "over": 0,
                                     "over_items": []})
        for n in prs:
            kind = "both" if os.path.exists(os.path.join(answers_dir, f"{n}.both.json")) \
                else "reduce-both"
            a = json.load(open(os.path.join(answers_dir, f"{n}.{kind}.json"), encoding="utf-8"))
            for lang in ("zh", "en"):
                g = guide_of(binary, work, n, lang)
                llm = g["writer"]["kind"] == "llm"
                t["items"] += items(a.get(lang, {}))
                t["kept"] += items(g) if llm else 0
                t["lost"] += 0 if llm else 1
                removed = g["writer"].get("removed", [])
                t["removed"] += len(removed)
                if llm and width(g.get("headline", "")) > 36:
                    t["over"] += 1
                    t["over_items"].append(f"#{n} {lang}: {g['headline']}")
                for r in removed:
                    print(f"  {name} #{n} {lang}: {r}")
                if not llm:
                    print(f"  {name} #{n} {lang}: LOST ({g['writer'].get('fallback_reason', '')})")
    print("| build | items kept | removals logged | guides lost | headlines over length |")
    print("|---|---|---|---|---|")
    for name, t in totals.items():
        print(f"| {name} | {t['kept']}/{t['items']} | {t['removed']} | {t['lost']} | {t['over']} |")
    for name, t in totals.items():
        for h in t["over_items"]:
            print(f"  over length ({name}): {h}")
    print()


def items(g):
    return sum(len(g.get(k, [])) for k in LISTS)


def plants(answer, real_path):
    """(kind, answer with one fabrication) pairs, as tests/model_answers_test.cc plants them."""
    out = []
    a = copy.deepcopy(answer)
    a["focus"].append({"path": GHOST, "start_line": 10, "end_line": 20, "symbol": "",
                       "question": "这里的重试逻辑在并发下是否安全？", "why": "重试只在这里发生。"})
    out.append(("ghost path (focus)", a))
    a = copy.deepcopy(answer)
    a["why"] += f"真正的改动其实在 `{GHOST}` 的重试循环里。"
    out.append(("ghost path (prose)", a))
    a = copy.deepcopy(answer)
    a["focus"].append({"path": real_path, "start_line": 9001, "end_line": 9010, "symbol": "",
                       "question": "这一段的边界检查是否完整？", "why": "边界检查集中在这里。"})
    out.append(("lines outside the hunks (focus)", a))
    a = copy.deepcopy(answer)
    a["questions"].append("第 9001 行新增的分支为什么没有加锁？")
    out.append(("lines outside the hunks (prose)", a))
    a = copy.deepcopy(answer)
    a["number_cautions"].append("PR 称端到端提速 3.7x，但只在单卡上测得，不能外推到多卡。")
    out.append(("a figure the PR never gives", a))
    a = copy.deepcopy(answer)
    a["design_decisions"].append(
        "`GhostDispatcherRegistry` 统一登记所有后端，是本 PR 最值得借鉴的设计。")
    out.append(("an invented identifier (design)", a))
    a = copy.deepcopy(answer)
    a["questions"].append("`_ghost_refresh_state` 在两个线程同时调用时是否安全？")
    out.append(("an invented identifier (question)", a))
    return out


class Replay:
    def __init__(self, answers, log, synthesize=False):
        args = [sys.executable, os.path.join(HERE, "replay_llm.py"), "--answers", answers,
                "--port", "0", "--log", log]
        if synthesize:
            args.append("--synthesize")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        self.port = int(line.split()[-1])
        self.log = log

    def records(self):
        with open(self.log, encoding="utf-8") as f:
            return [json.loads(l) for l in f if l.strip()]

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def run(binary, db, args, port, env_extra=None):
    env = dict(os.environ, OPENAI_API_KEY="replay-key", **(env_extra or {}))
    cmd = [binary, "--db", db] + args
    if port:
        cmd += ["--llm", "--llm-base-url", f"http://127.0.0.1:{port}", "--llm-model", "replay"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr}")
    return p.stdout


def guide_of(binary, db, number, lang="zh"):
    out = subprocess.run([binary, "--db", db, "show", str(number), "--json", "--lang", lang],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["guide"]


def visible(g):
    g = dict(g)
    g.pop("writer", None)
    text = json.dumps(g, ensure_ascii=False)
    return text


def work_copy(db, tmp):
    """A copy to read with the current binary (which may migrate it), so the
    store stays readable by the older binary measured beside it."""
    path = os.path.join(tmp, "listing.db")
    if not os.path.exists(path):
        shutil.copy(db, path)
    return path


def small_store(db, prs, path):
    """A copy of `db` holding only the PRs with stored answers (their facts,
    computed over the whole history, are kept), so a binary without `write
    REF...` writes just those."""
    shutil.copy(db, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys = ON")
    marks = ",".join("?" * len(prs))
    con.execute(f"DELETE FROM changes WHERE number IS NULL OR number NOT IN ({marks})", prs)
    con.commit()
    con.execute("VACUUM")
    con.close()


def answers_part(bins, db, answers_dir, prs, tmp):
    rows = {}
    small = os.path.join(tmp, "answers.db")
    small_store(db, prs, small)
    for name, binary in bins:
        log = os.path.join(tmp, f"replay-{name}.jsonl")
        open(log, "w").close()
        rp = Replay(answers_dir, log)
        work = os.path.join(tmp, f"{name}.db")
        shutil.copy(small, work)
        run(binary, work, ["write", "--force"], rp.port)
        for n in prs:
            a = json.load(open(os.path.join(answers_dir, f"{n}.answer.json"), encoding="utf-8"))
            g = guide_of(binary, work, n)
            calls = [r for r in rp.records() if r["pr"] == str(n)]
            rows.setdefault(n, {})[name] = {
                "answer_items": items(a), "kept": items(g) if g["writer"]["kind"] == "llm" else 0,
                "removed": len(g["writer"].get("removed", [])),
                "lost": g["writer"]["kind"] != "llm",
                "over": int(g["writer"]["kind"] == "llm" and width(g.get("headline", "")) > 36),
                "calls": len(calls), "tokens": sum(r["prompt_chars"] for r in calls) // 4}
        # Planted fabrications.
        caught = planted = lost_items = lost_guides = 0
        for kind_index in range(7):
            pdir = os.path.join(tmp, f"plant-{name}-{kind_index}")
            os.makedirs(pdir, exist_ok=True)
            for n in prs:
                a = json.load(open(os.path.join(answers_dir, f"{n}.answer.json"), encoding="utf-8"))
                real = a["focus"][0]["path"] if a["focus"] else GHOST
                _, planted_answer = plants(a, real)[kind_index]
                with open(os.path.join(pdir, f"{n}.answer.json"), "w", encoding="utf-8") as f:
                    json.dump(planted_answer, f, ensure_ascii=False)
            rp.close()
            rp = Replay(pdir, log)
            run(binary, work, ["write", "--force"], rp.port)
            for n in prs:
                g = guide_of(binary, work, n)
                planted += 1
                text = visible(g)
                ok = not any(m in text for m in MARKERS)
                caught += ok
                if g["writer"]["kind"] != "llm":
                    lost_guides += 1
                else:
                    lost_items += max(0, rows[n][name]["kept"] - items(g))
        rp.close()
        rows.setdefault("_plants", {})[name] = {"planted": planted, "caught": caught,
                                                "lost_items": lost_items,
                                                "lost_guides": lost_guides}
    return rows


def largest_part(binary, db, tmp, count):
    listing = json.loads(subprocess.run([binary, "--db", work_copy(db, tmp), "list", "--json"],
                                        capture_output=True, text=True, check=True).stdout)
    listing = [c for c in listing if c.get("number")]
    listing.sort(key=lambda c: -(c["additions"] + c["deletions"]))
    top = listing[:count]
    log = os.path.join(tmp, "replay-largest.jsonl")
    open(log, "w").close()
    rp = Replay(os.path.join(tmp, "none"), log, synthesize=True)
    work = os.path.join(tmp, "largest.db")
    shutil.copy(db, work)
    run(binary, work, ["write", "--force"] + [str(c["number"]) for c in top], rp.port)
    rows = []
    recs = rp.records()
    for c in top:
        calls = [r for r in recs if r["pr"] == str(c["number"])]
        prompt = json.loads(subprocess.run(
            [binary, "--db", work, "show", str(c["number"]), "--prompt", "--json"],
            capture_output=True, text=True, check=True).stdout)
        rows.append({"pr": c["number"], "lines": c["additions"] + c["deletions"],
                     "files": c.get("files", c.get("file_count", 0)),
                     "calls": len(calls), "kinds": [r["call"] for r in calls],
                     "tokens": sum(r["prompt_chars"] for r in calls) // 4,
                     "single_shown": prompt.get("top_regions_shown"),
                     "top": prompt.get("top_regions"),
                     "split_regions": (prompt.get("split") or {}).get("regions")})
    rp.close()
    return rows


def bilingual_part(binary, db, tmp, last):
    listing = json.loads(subprocess.run([binary, "--db", work_copy(db, tmp), "list", "--json"],
                                        capture_output=True, text=True, check=True).stdout)
    numbers = [str(c["number"]) for c in listing if c.get("number")][:last]
    out = {}
    for mode, extra in (("one call for both", []), ("one call per language",
                                                    ["--one-language-per-call"])):
        log = os.path.join(tmp, f"replay-both-{len(extra)}.jsonl")
        open(log, "w").close()
        rp = Replay(os.path.join(tmp, "none"), log, synthesize=True)
        work = os.path.join(tmp, f"both-{len(extra)}.db")
        shutil.copy(db, work)
        t0 = time.time()
        run(binary, work, ["write", "--force", "--lang", "both"] + extra + numbers, rp.port)
        recs = rp.records()
        out[mode] = {"requests": len(recs), "prompt_tokens": sum(r["prompt_chars"] for r in recs) // 4,
                     "seconds": round(time.time() - t0, 1)}
        rp.close()
    out["prs"] = len(numbers)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True, help="an analysed store of the sglang history")
    ap.add_argument("--answers", required=True, action="append",
                    help="a folder of answers; repeatable (N.answer.json: one zh guide; "
                         "N.both.json or N.reduce-both.json: both languages, --lang both; "
                         "with prs.tsv: triage first, then both languages, on any "
                         "repositories: bench/model_answers_triage.py)")
    ap.add_argument("--answers-only", action="store_true",
                    help="skip the largest PRs and the bilingual token figures")
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH, in order")
    ap.add_argument("--largest", type=int, default=10)
    ap.add_argument("--last", type=int, default=2000)
    args = ap.parse_args()
    bins = [tuple(b.split("=", 1)) for b in args.bin]
    tmp = tempfile.mkdtemp(prefix="mergelens-answers-")
    current = bins[-1][1]
    triage_dirs = [d for d in args.answers if os.path.exists(os.path.join(d, "prs.tsv"))]
    single_dirs = [d for d in args.answers
                   if any(f.endswith(".answer.json") for f in os.listdir(d))]
    both_dirs = [d for d in args.answers if d not in single_dirs and d not in triage_dirs]
    for d in triage_dirs:
        from model_answers_triage import triage_part
        triage_part(bins, args.db, d, tmp)
    for d in both_dirs:
        both_part(bins, args.db, d, tmp)
    if not single_dirs:
        shutil.rmtree(tmp, ignore_errors=True)
        return
    args.answers = single_dirs[0]
    prs = sorted(int(f.split(".")[0]) for f in os.listdir(args.answers) if f.endswith(".answer.json"))
    result = {"answers": answers_part(bins, args.db, args.answers, prs, tmp)}
    if not args.answers_only:
        result["largest"] = largest_part(current, args.db, tmp, args.largest)
        result["bilingual"] = bilingual_part(current, args.db, tmp, args.last)
    shutil.rmtree(tmp, ignore_errors=True)

    names = [b[0] for b in bins]
    print("## Real answers (items kept / in the answer; citations removed; guide lost)")
    print("| PR | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    tot = {n: [0, 0, 0, 0] for n in names}
    for pr in prs:
        cells = []
        for n in names:
            r = result["answers"][pr][n]
            cells.append(f"{r['kept']}/{r['answer_items']}, {r['removed']} removed"
                         + (", LOST" if r["lost"] else "") + f", {r['calls']} call(s)")
            t = tot[n]
            t[0] += r["kept"]; t[1] += r["answer_items"]; t[2] += r["removed"]; t[3] += r["lost"]
        print(f"| #{pr} | " + " | ".join(cells) + " |")
    print("| all | " + " | ".join(
        f"{t[0]}/{t[1]} ({100 * t[0] / max(t[1], 1):.1f} %), {t[2]} removed, {t[3]} lost"
        for t in tot.values()) + " |")
    print("\n## Planted fabrications (7 kinds × each answer)")
    for n in names:
        p = result["answers"]["_plants"][n]
        print(f"- {n}: {p['caught']}/{p['planted']} removed; {p['lost_items']} other items and "
              f"{p['lost_guides']} guides lost with them")
    over = {n: sum(r[n].get("over", 0) for k, r in result["answers"].items() if k != "_plants")
            for n in names}
    print("\nheadlines over the examples' length (width > 36): " +
          ", ".join(f"{n} {over[n]}" for n in names))
    if args.answers_only:
        return
    print("\n## Largest PRs (synthesized answers): calls and prompt tokens")
    print("| PR | changed lines | calls | prompt tokens | top regions one prompt shows | regions the split reads |")
    print("|---|---|---|---|---|---|")
    for r in result["largest"]:
        print(f"| #{r['pr']} | {r['lines']} | {r['calls']} ({', '.join(r['kinds'])}) | {r['tokens']} | "
              f"{r['single_shown']} of {r['top']} | {r['split_regions'] or '-'} |")
    b = result["bilingual"]
    one, two = b["one call for both"], b["one call per language"]
    saved = two["prompt_tokens"] - one["prompt_tokens"]
    print(f"\n## Both languages over the last {b['prs']} PRs (synthesized answers)")
    print(f"- one call for both: {one['requests']} requests, {one['prompt_tokens']} prompt tokens")
    print(f"- one call per language: {two['requests']} requests, {two['prompt_tokens']} prompt tokens")
    print(f"- saved: {saved} prompt tokens ({100 * saved / max(two['prompt_tokens'], 1):.1f} %), "
          f"{two['requests'] - one['requests']} requests")


if __name__ == "__main__":
    main()
