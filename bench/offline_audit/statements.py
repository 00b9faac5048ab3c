#!/usr/bin/env python3
"""Splits offline guides into the statements a reader classifies.

A statement is one published item of a guide: the headline, the summary, the
verdict, the lesson ("why"), each focus point (its question and its reasons),
the skim list, each design decision, question, caution on numbers, body-vs-code
item, gap, piece of advice, reference, the audience, each score's reason and
each tag. An item and its translation are one statement when they say the same
thing (same element, same position, and the same code spans); the headlines of
the two languages, built differently, are two. The digest paragraph repeats the
verdict and the lesson and is not counted.

usage: statements.py --db STORE --repo OWNER/NAME --prs 1 2 3 --binary BIN --out FILE.tsv
Writes one row per statement: key, pr, element, en, zh (tab-separated, newlines
folded). `key` is a hash of the PR, the kind of element and both texts, so a
statement that is unchanged between two runs has the same key.
"""
import argparse, hashlib, json, re, subprocess, sys


def guide(binary, db, pr, lang):
    out = subprocess.run([binary, "--db", db, "show", str(pr), "--json", "--lang", lang],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["guide"]


def units(g):
    u = [("headline", g["headline"]), ("summary", g["summary"]), ("verdict", g["verdict_text"])]
    if g.get("why"):
        u.append(("why", g["why"]))
    for i, f in enumerate(g.get("focus", [])):
        u.append((f"focus{i+1}", f"{f['path']}:{f['start_line']}-{f['end_line']} {f.get('symbol','')} | Q: {f.get('question','')} | {f.get('why','')}"))
    if g.get("skim"):
        u.append(("skim", "; ".join(f"{s['path']} ({s['reason']})" for s in g["skim"])))
    for k in ("design_decisions", "questions", "number_cautions", "body_vs_code", "gaps"):
        for i, s in enumerate(g.get(k, [])):
            u.append((f"{k}{i+1}", s))
    for i, a in enumerate(g.get("advice", [])):
        u.append((f"advice{i+1}", f"{a['role']}: {a['text']}"))
    if g.get("audience"):
        u.append(("audience", g["audience"]))
    for i, r in enumerate(g.get("references", [])):
        u.append((f"ref{i+1}", r["note"]))
    u.append(("importance_reason", g["importance"]["reason"]))
    u.append(("insight_reason", g["insight"]["reason"]))
    for t in g.get("tags", []):
        u.append(("tag", t))
    return u


def fold(s):
    return re.sub(r"\s+", " ", s).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--prs", nargs="+", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.out, "w") as out:
        for pr in a.prs:
            en, zh = guide(a.binary, a.db, pr, "en"), guide(a.binary, a.db, pr, "zh")
            ue, uz = units(en), units(zh)
            zh_by = {}
            for k, t in uz:
                zh_by.setdefault(k, []).append(t)
            seen = {}
            for k, t in ue:
                n = seen.get(k, 0)
                seen[k] = n + 1
                z = zh_by.get(k, [])
                zt = z[n] if n < len(z) else ""
                if k == "tag":
                    zt = t
                rows = [(k, t, zt)]
                if k == "headline":  # built differently in the two languages
                    rows = [("headline_en", t, ""), ("headline_zh", "", zt)]
                for kk, tt, zz in rows:
                    base = kk.rstrip("0123456789")  # "advice2" and "advice1" are one kind
                    key = hashlib.sha1(f"{a.repo}#{pr}|{base}|{fold(tt)}|{fold(zz)}".encode()).hexdigest()[:10]
                    out.write("\t".join([key, f"{a.repo}#{pr}", kk, fold(tt), fold(zz)]) + "\n")


if __name__ == "__main__":
    main()
