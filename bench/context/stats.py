#!/usr/bin/env python3
"""bench/context: what the context resolver put in each change's facts, over a whole store.

Usage: stats.py STORE.db [STORE.db ...] [--tsv OUT.tsv]

Reads every change's stored facts (zstd JSON, facts.context and facts.switches, the same
items guide/prompt_context.cc renders under "Code around the change") and prints, per store,
the distribution per PR of each kind the resolver finds: definitions the hunks edit
("changed", at most 8), definitions the changed lines call ("called", 8), module constants
they use ("constant", 4), definitions calling one whose signature changed ("caller", 6), what
the edited functions call on their unchanged lines ("callee", 4, at the merge), where the
attributes that added Python lines read are set ("attribute", 8, at the merge), existing
tests outside the diff that call an edited definition ("test", 4, at the merge), and
the switches (all read/declared; those with a declared default on either side; those the
change declares or edits, and of these the ones that existed at the parent). Each line: mean,
median, p90, max, the share of PRs with none and the share at the resolver's cap, over all PRs
and over the PRs that change a code file (.py, C/C++, CUDA). --tsv writes one row per PR.
"""
import json
import sqlite3
import statistics
import subprocess
import sys

CODE = (".py", ".pyi", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh")
CAPS = {"changed": 8, "called": 8, "constant": 4, "caller": 6, "callee": 4, "attribute": 8,
        "test": 4}
KINDS = ["context", "changed", "called", "constant", "caller", "callee", "attribute", "test",
         "switches", "switch_default", "switch_declared", "switch_existed", "switch_new"]


def docs(db):
    con = sqlite3.connect(db)
    rows = con.execute("SELECT c.number, c.sha, f.doc FROM facts f JOIN changes c ON c.id = f.change_id "
                       "ORDER BY c.merged_at, c.id").fetchall()
    for number, sha, doc in rows:
        out = subprocess.run(["zstd", "-dcq"], input=doc, capture_output=True, check=True).stdout
        yield number, sha, json.loads(out)


def counts(f):
    ctx = f.get("context", [])
    sw = f.get("switches", [])
    c = {k: 0 for k in KINDS}
    c["context"] = len(ctx)
    for it in ctx:
        c[it["why"]] = c.get(it["why"], 0) + 1
    c["switches"] = len(sw)
    for s in sw:
        if (s["before"] or {}).get("has_default") or (s["after"] or {}).get("has_default"):
            c["switch_default"] += 1
        if s["change"] != "used":  # the change adds, removes, edits or moves a declaration
            c["switch_declared"] += 1
            if s["existed_at_parent"]:
                c["switch_existed"] += 1
            if s["change"] == "added":
                c["switch_new"] += 1
    return c


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else 0


def line(name, v, cap=None):
    if not v:
        return f"  {name:16} (no PRs)"
    none = sum(1 for x in v if x == 0)
    s = (f"  {name:16} total {sum(v):6}  mean {sum(v)/len(v):5.2f}  median {statistics.median(v):4g}  "
         f"p90 {pct(v, .9):3}  max {max(v):3}  none {100*none/len(v):5.1f} %")
    if cap:
        s += f"  at cap ({cap}) {100*sum(1 for x in v if x >= cap)/len(v):4.1f} %"
    return s


def report(db, tsv):
    per = []
    known = 0
    for number, sha, f in docs(db):
        has_code = any(p.endswith(CODE) for p in f.get("languages", {}))
        known += bool(f.get("context_known"))
        c = counts(f)
        per.append((number, sha, has_code, c))
        if tsv:
            tsv.write("\t".join([db, str(number or ""), sha[:12], str(int(has_code))] +
                                [str(c[k]) for k in KINDS]) + "\n")
    code = [p for p in per if p[2]]
    print(f"{db}: {len(per)} PRs, context known for {known}, {len(code)} change a code file")
    for label, rows in (("all PRs", per), ("PRs changing code", code)):
        print(f" per PR, {label} ({len(rows)}):")
        for k in KINDS:
            print(line(k, [r[3][k] for r in rows], CAPS.get(k)))


def main():
    args = sys.argv[1:]
    tsv = None
    if "--tsv" in args:
        i = args.index("--tsv")
        tsv = open(args[i + 1], "w")
        tsv.write("\t".join(["store", "number", "sha", "code"] + KINDS) + "\n")
        del args[i:i + 2]
    for db in args:
        report(db, tsv)


main()
