#!/usr/bin/env python3
"""Plants fabrications in copies of the stand-ins' answers (issue 31): each a
statement the change does not support, of a kind the checker now accepts when
true (an upstream reference, a symbol with a label, a derived figure, a name
pattern or built name, a "later" PR). Writes the answers with the plants to
OUT and the list of plants to OUT/plants.tsv (pr, kind, token); count what the
check removed with `plant.py --count OUT/plants.tsv REMOVED.tsv`.

    bench/audit/plant.py ANSWERS OUT
    bench/audit/plant.py --count OUT/plants.tsv OUT/removed.tsv
"""
import json
import pathlib
import shutil
import sys

# (answer file, kind, token, how to plant: (list, item) appended to en and zh)
PLANTS = [
    ("12968.both", "upstream reference", "vllm-project/vllm#50331",
     ("references", {"ref": "vllm-project/vllm#50331", "relation": "cause",
                     "note": "The upstream change that introduced the draft quant config bug."})),
    ("12968.both", "upstream commit", "vllm-project/vllm@9e1c0de5a7b44f1d2e3a6b7c8d9e0f1a2b3c4d5e",
     ("references", {"ref": "vllm-project/vllm@9e1c0de5a7b44f1d2e3a6b7c8d9e0f1a2b3c4d5e",
                     "relation": "tested against", "note": "The vLLM main commit the PR was tested on."})),
    ("12968.both", "figure", "2.71x",
     ("number_cautions", "MRV2 needs 2.71x less device memory than MRV1 in the same run.")),
    ("13994.both", "figure", "17.5%",
     ("number_cautions", "The PR reports a 17.5% lower latency on the same model.")),
    ("3053.both", "pattern", "static_ghost_*",
     ("design_decisions", "The `static_ghost_*` observers are rewritten the same way as the others.")),
    ("3060.both", "built name", "train_rlhf",
     ("questions", "Is the `train_rlhf` split of the dataset ever requested by the recipes?")),
    ("2950.both", "symbol with a label", "GhostObserverGrid (members)",
     ("focus", {"path": None, "start_line": 0, "end_line": 0, "symbol": "GhostObserverGrid (members)",
                "question": "Do the grid's members stay in sync with the observer's state?",
                "why": "The grid is where the search starts."})),
    ("12968.both", "later PR", "#12001",
     ("questions", "Does the later PR #12001 keep the `pad` values of the DSpark speculator?")),
    ("3041.both", "identifier", "replay_kwargs_cache",
     ("gaps", "No test covers `replay_kwargs_cache` when a module takes `*args`.")),
]


def plant(src, out):
    src, out = pathlib.Path(src), pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for f in src.glob("*.json"):
        shutil.copy(f, out / f.name)
    rows = []
    for name, kind, token, (field, value) in PLANTS:
        path = out / f"{name}.json"
        answer = json.loads(path.read_text())
        for lang in ("en", "zh"):
            g = answer[lang]
            v = json.loads(json.dumps(value))
            if field == "focus" and v["path"] is None:
                v["path"] = g["focus"][0]["path"]
            g.setdefault(field, []).append(v)
        path.write_text(json.dumps(answer, ensure_ascii=False, indent=1))
        rows.append(f"{name.split('.')[0]}\t{kind}\t{token}")
    (out / "plants.tsv").write_text("\n".join(rows) + "\n")
    print(f"{len(rows)} plants in {out}")


def count(plants, removed):
    lines = pathlib.Path(removed).read_text().splitlines()
    caught = 0
    rows = [r.split("\t") for r in pathlib.Path(plants).read_text().splitlines() if r]
    for pr, kind, token in rows:
        langs = sorted({l.split("\t")[1] for l in lines
                        if l.startswith(pr + "\t") and token.split(" ")[0] in l})
        ok = langs == ["en", "zh"]
        caught += ok
        print(f"{pr}\t{kind}\t{token}\t{'removed' if ok else 'KEPT in ' + str(set(['en', 'zh']) - set(langs))}")
    print(f"{caught} of {len(rows)} planted fabrications removed (both languages)")


if __name__ == "__main__":
    if sys.argv[1] == "--count":
        count(sys.argv[2], sys.argv[3])
    else:
        plant(sys.argv[1], sys.argv[2])
