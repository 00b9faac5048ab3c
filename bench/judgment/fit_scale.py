#!/usr/bin/env python3
"""Fit the importance weights and the calibrated 1-10 scale of both scores
(issue 21), and write them to src/mergelens/analysis/judgment/score_fitted.h.

Importance: each rule of importance.cc is a feature (stored per change in
facts.scores.importance_features); an L2-regularised logistic regression on
the PRs a release's highlights name (labelled repositories, release notes
parsed by release_notes.py) gives the weights. Validation, in the same run:
across labelled repositories both ways when two have labels, else across the
two halves of the labelled history both ways (fit on one, ROC AUC on the
other), each beside changed lines' AUC and the previous analysis's importance
(--old store) on the same PRs.

Scale: the raw importance (the fitted log-odds) and the raw insight (the
density of insight.cc) of every PR of the --scale stores, each repository
weighing the same, are cut at the shares of docs/judgment.md: levels 1-10 of
14, 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3 and 0.7 %. A cut is a value a level
starts at; the cut of 9 is the smallest value with at most 2 % at or above it
pooled and at most 2.5 % in every repository.
Never give this a sglang store for labels (its release notes are held out)
nor for the scale (the scale is fitted on other repositories).

  python3 bench/judgment/fit_scale.py \\
      --labelled DB,OWNER/NAME,CLONE[,BRANCH[,NOTES[,HIGHLIGHT]]] ... \\
      --scale DB,OWNER/NAME ... [--old DB] [--write src/mergelens/analysis/judgment/score_fitted.h]

Python 3 standard library only (no numpy here).
"""

import argparse
import datetime as dt
import math
import subprocess
import sys
import textwrap

import facts_lib as fl
import release_notes as rn

SHARES = [14, 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3, 0.7]  # % per level 1..10
TOP_SHARE = 2.0  # % at 9-10 the cut of 9 allows at most, pooled
REPO_TOP = 2.5   # ... and in any one repository
L2 = 2.0         # penalty on each weight (not the intercept)


def load(db, repo):
    con = fl.connect(db)
    rows = [c for c in fl.changes(con, repo) if c["number"]]
    facts = fl.facts(con, [c["id"] for c in rows])
    return [dict(c, f=facts[c["id"]]) for c in rows if c["id"] in facts]


def highlights(clone, branch, notes, repo, highlight):
    try:
        releases = rn.read(clone, branch, notes, repo)
    except subprocess.CalledProcessError:
        return set(), None
    pos, _, span = rn.labels(releases, highlight)
    return pos, span


def day(c):
    return dt.datetime.fromtimestamp(c["merged_at"], dt.timezone.utc).date()


def solve(a, b):
    """Solve a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                k = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= k * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(xs, ys, names):
    """L2-regularised logistic regression by Newton's method: (intercept, {name: w})."""
    d = len(names) + 1
    w = [0.0] * d
    rows = [[1.0] + [x.get(n, 0.0) for n in names] for x in xs]
    for _ in range(30):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        for r, y in zip(rows, ys):
            z = sum(a * b for a, b in zip(w, r))
            p = 1 / (1 + math.exp(-max(-30, min(30, z))))
            g, h = p - y, p * (1 - p)
            nz = [i for i, v in enumerate(r) if v]
            for i in nz:
                grad[i] += g * r[i]
                for j in nz:
                    hess[i][j] += h * r[i] * r[j]
        for i in range(1, d):
            grad[i] += L2 * w[i]
            hess[i][i] += L2
        hess[0][0] += 1e-6
        step = solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w[0], dict(zip(names, w[1:]))


def raw(x, model):
    b, ws = model
    return b + sum(ws.get(k, 0.0) * v for k, v in x.items())


def features(c):
    return c["f"]["scores"].get("importance_features") or {}


def size(c):
    return c["additions"] + c["deletions"]


def cuts(values_by_repo):
    """Nine cut points (levels 2..10 start at them) over the pooled values,
    each repository weighing the same."""
    pts = sorted((v, 1.0 / len(vals) / len(values_by_repo))
                 for vals in values_by_repo for v in vals)
    distinct, below, acc = [], [], 0.0
    for v, wt in pts:
        if not distinct or v != distinct[-1]:
            distinct.append(v)
            below.append(acc)
        acc += wt
    idx = []
    for k in range(9):
        cum = sum(SHARES[:k + 1]) / 100
        if k == 7:  # level 9: the smallest value with at most TOP_SHARE % at or above it
            i = next((i for i, b in enumerate(below) if 1 - b <= TOP_SHARE / 100 + 1e-12),
                     len(distinct) - 1)
        else:  # the closest share; a tie at the bottom (no lesson at all) is level 1
            i = min(range(1, len(distinct)), key=lambda i: abs(below[i] - cum))
        if idx:
            i = max(i, idx[-1] + 1)
        idx.append(i)
    # no repository above REPO_TOP % at 9-10: raise the cut of 9 (and of 10 after it)
    while idx[7] < len(distinct) - 1 and any(
            sum(v >= distinct[idx[7]] for v in vals) > REPO_TOP / 100 * len(vals)
            for vals in values_by_repo):
        idx[7] += 1
    # level 10: at most SHARES[9] % pooled at or above, past the cut of 9
    idx[8] = max(idx[8], idx[7] + 1)
    while idx[8] < len(distinct) - 1 and 1 - below[idx[8]] > SHARES[9] / 100 + 1e-12:
        idx[8] += 1
    out = []
    for i in idx:  # past the last distinct value: nothing reaches the level
        out.append(distinct[i] if i < len(distinct) else distinct[-1] + (i - len(distinct) + 1))
    return out


def level(v, cs):
    return 1 + sum(1 for c in cs if v >= c)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labelled", action="append", default=[])
    ap.add_argument("--scale", action="append", default=[])
    ap.add_argument("--old", help="store analysed by the previous analyzer (labelled repository)")
    ap.add_argument("--write", help="the header to write")
    args = ap.parse_args()
    for spec in args.labelled + args.scale:
        if "sglang" in spec.lower():
            sys.exit("sglang is held out: its release notes judge, they do not fit")

    sets = []  # (repo, rows, positives)
    for spec in args.labelled:
        parts = spec.split(",")
        db, repo, clone = parts[:3]
        branch = parts[3] if len(parts) > 3 else "main"
        notes = parts[4] if len(parts) > 4 else "docs/source/user_guide/release_notes.md"
        highlight = parts[5] if len(parts) > 5 else "highlight"
        pos, span = highlights(clone, branch, notes, repo, highlight)
        if not pos or not span:
            print(f"{repo}: the release notes at {branch}:{notes} name no PR in a highlights "
                  "section: not a labelled set")
            continue
        rows = [c for c in load(db, repo) if span[0] <= day(c) <= span[1]]
        print(f"{repo}: {len(rows)} PRs {span[0]} .. {span[1]}, "
              f"{sum(c['number'] in pos for c in rows)} in highlights")
        sets.append((repo, rows, pos))
    if not sets:
        sys.exit("no labelled set")
    names = sorted({k for _, rows, _ in sets for c in rows for k in features(c)})
    old = {}
    if args.old:
        for c in load(args.old, sets[0][0]):
            old[c["number"]] = c["f"]["scores"]["importance"]

    def validate(label, train, test, pos_train, pos_test):
        model = fit([features(c) for c in train], [c["number"] in pos_train for c in train], names)
        lab = [c["number"] in pos_test for c in test]
        a_fit = fl.auc([raw(features(c), model) for c in test], lab)
        a_size = fl.auc([size(c) for c in test], lab)
        a_old = fl.auc([old.get(c["number"], 0) for c in test], lab) if old else float("nan")
        print(f"  {label:<44} test PRs {len(test):>5} positives {sum(lab):>4}  AUC fitted "
              f"{a_fit:.3f}  changed lines {a_size:.3f}  previous importance {a_old:.3f}")
        return a_fit, a_size, a_old

    print("validation (fit on one part, ROC AUC on the other):")
    figures = []
    if len(sets) >= 2:
        for i in range(len(sets)):
            for j in range(len(sets)):
                if i != j:
                    figures.append((f"fit {sets[i][0]} -> {sets[j][0]}",
                                    validate(f"fit {sets[i][0]} -> test {sets[j][0]}",
                                             sets[i][1], sets[j][1], sets[i][2], sets[j][2])))
    else:
        repo, rows, pos = sets[0]
        rows = sorted(rows, key=lambda c: c["merged_at"])
        half = len(rows) // 2
        a, b = rows[:half], rows[half:]
        cut = day(b[0])
        figures.append((f"{repo} before {cut} -> from {cut}",
                        validate(f"fit before {cut} -> test from {cut}", a, b, pos, pos)))
        figures.append((f"{repo} from {cut} -> before {cut}",
                        validate(f"fit from {cut} -> test before {cut}", b, a, pos, pos)))
    all_rows = [c for _, rows, _ in sets for c in rows]
    all_pos = {(r, n) for r, _, pos in sets for n in pos}
    ys = [(repo, c["number"]) in all_pos for repo, rows, _ in sets for c in rows]
    model = fit([features(c) for c in all_rows], ys, names)
    counts = {n: sum(1 for c in all_rows if features(c).get(n)) for n in names}
    print(f"weights (fit on all {len(all_rows)} labelled PRs, {sum(ys)} positives, L2 {L2}):")
    print(f"  intercept {model[0]:+.3f}")
    for n in names:
        print(f"  {n:<20} {model[1][n]:+.3f}  (in {counts[n]} PRs)")

    imp_by_repo, ins_by_repo, repos = [], [], []
    for spec in args.scale:
        db, repo = spec.split(",")[:2]
        rows = load(db, repo)
        imp = [(-1e9 if c["f"].get("cleanup") else raw(features(c), model)) for c in rows]
        ins = [c["f"]["scores"].get("insight_raw", 0.0) for c in rows]
        imp_by_repo.append(imp)
        ins_by_repo.append(ins)
        repos.append((repo, len(rows)))
    imp_cuts, ins_cuts = cuts(imp_by_repo), cuts(ins_by_repo)
    print("importance cuts:", ", ".join(f"{c:.3f}" for c in imp_cuts))
    print("insight cuts:   ", ", ".join(f"{c:.3f}" for c in ins_cuts))
    dist_lines = []
    for (repo, n), imp, ins in zip(repos, imp_by_repo, ins_by_repo):
        for name, vals, cs in (("importance", imp, imp_cuts), ("insight", ins, ins_cuts)):
            hist = [0] * 10
            for v in vals:
                hist[level(v, cs) - 1] += 1
            line = (f"{repo} ({n} PRs) {name} 1-10 (before caps): {', '.join(map(str, hist))}; "
                    f"9-10 {100 * (hist[8] + hist[9]) / max(1, n):.1f} %")
            print(" ", line)
            dist_lines.append(line)
    if args.write:
        write_header(args.write, model, names, counts, imp_cuts, ins_cuts, figures, dist_lines,
                     sets, sum(ys), len(all_rows))
        print("wrote", args.write)
    print("command:", fl.command_line(sys.argv))


def write_header(path, model, names, counts, imp_cuts, ins_cuts, figures, dist_lines, sets,
                 n_pos, n_rows):
    out = ["// Written by bench/judgment/fit_scale.py: do not edit by hand, run the script",
           "// (bench/README.md, \"Calibrated scale and fitted weights\", gives the command).",
           "//",
           "// Importance weights: L2-regularised logistic regression (L2 "
           f"{L2}) of \"a release's highlights name the PR\" on {n_rows} PRs of "
           + ", ".join(r for r, _, _ in sets) + f" ({n_pos} positives).",
           "// Validation, fit on one part and ROC AUC on the other, beside changed lines and the",
           "// previous (hand-set) importance on the same PRs:"]
    for label, (a, s, o) in figures:
        out.append(f"//   {label}: fitted {a:.3f}, changed lines {s:.3f}, previous {o:.3f}")
    out += ["//",
            "// Scale: cuts at the shares of docs/judgment.md (1-10: "
            + ", ".join(f"{s:g}" for s in SHARES) + " %), each repository weighing the same;",
            "// level 9 starts where at most 2 % are at or above (2.5 % in any repository).",
            "// Levels before the caps (the caps only lower them):"]
    for line in dist_lines:
        out.append(f"//   {line}")
    out += ["#pragma once", "", "#include <string_view>", "",
            "namespace mergelens::score_fitted {", "",
            "struct Weight {", "  std::string_view feature;", "  double weight;", "};", "",
            f"inline constexpr double kImportanceIntercept = {model[0]:.4f};",
            "inline constexpr Weight kImportanceWeights[] = {"]
    for n in names:
        out.append(f"    {{\"{n}\", {model[1][n]:.4f}}},  // in {counts[n]} PRs")
    out += ["};",
            "// Level k + 2 starts at cut k (raw ≥ cut): the raw importance (log-odds) ...",
            "inline constexpr double kImportanceCuts[9] = {"
            + ", ".join(f"{c:.4f}" for c in imp_cuts) + "};",
            "// ... and the raw insight (density, insight.cc).",
            "inline constexpr double kInsightCuts[9] = {"
            + ", ".join(f"{c:.4f}" for c in ins_cuts) + "};",
            "", "}  // namespace mergelens::score_fitted", ""]
    wrapped = []
    for line in out:  # comments within the 100 columns of .clang-format
        if line.startswith("//") and len(line) > 100:
            lead = "//     " if line.startswith("//   ") else "// "
            wrapped += textwrap.wrap(line, 100, subsequent_indent=lead,
                                     break_long_words=False, break_on_hyphens=False)
        else:
            wrapped.append(line)
    with open(path, "w") as fh:
        fh.write("\n".join(wrapped))
    try:  # the project's style (.clang-format), when the tool is there
        subprocess.run(["clang-format", "-i", path], check=False)
    except OSError:
        pass


if __name__ == "__main__":
    main()
