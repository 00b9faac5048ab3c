#!/usr/bin/env python3
"""The model path end to end (issue 33): a day's triage first, then guides in
both languages, on stand-in answers for PRs of repositories other than sglang.

ANSWERS holds `prs.tsv` (repo, PR), the triage answers
(`triage-OWNER+NAME-DAY-K.json`) and each PR's answer (`N.both.json`, or
`N.notes-K.json` with `N.reduce-both.json` for a PR read in parts), and
`judged.tsv` (a careful reader's verdict on each removal the writer logged:
T = a true statement was removed, F = a false one was). Each binary given
(a "before" build and the current one) writes the PRs with `write --llm
--lang both` against bench/replay_llm.py on a copy of the store, triage
first, then again with fabrications planted in copies of the answers. Per
build: guides published, items kept, true statements removed, broken
renderings (dangling punctuation, cut sentences, untranslated enums,
languages that disagree) and planted fabrications left in any field
(guides, and the triage's scope and reason a reader sees).

Used by bench/model_answers.sh when MERGELENS_BENCH_REPOS is set; see
bench/README.md, "The model path end to end".
"""
import copy
import json
import os
import re
import shutil
import subprocess

from model_answers import LISTS, Replay, items, run

MARK = {
    "ghost path": "ghost_scheduler_v9",
    "lines outside the hunks": "9001",
    "invented identifier": "GhostDispatcherRegistry",
    "a PR never named": "99991",
    "a figure the PR never gives": "3.7x",
    "identifier in one language": "_ghost_refresh_state",
    "triage scope": "GhostScheduler",
}
# Raw values a reader should never see: the verdict enums anywhere, and in a
# Chinese rendering the English words of the verdicts and of the writer kind.
ENUMS = re.compile(r"(?<![`\w])(close_read|selective_read)(?![`\w])")
ENUMS_ZH = re.compile(r"(?<![`\w/.-])(close_read|selective_read|skim|skip|llm|offline)(?![`\w/.-])")
# The elements of a page that show a judgment or the writer (a PR's title or
# body may say "skip" in English on a Chinese page, which is no enum).
JUDGED = re.compile(r'<(?:p|span)[^>]*(?:class="(?:judgment|triage|triage-moved|badge[^"]*|writer)"|'
                    r'id="(?:writer|judgment|triage-judgment)")[^>]*>(.*?)</(?:p|span)>', re.S)
STOPS = ("。", "！", "？", ".", "!", "?", "…", ")", "）", "`", "\"", "”", "」")
DANGLING = re.compile(r"(?:[；;，,、：:]\s*$|；。|，。|;\.|,\.|^\s*[；;，,、：:])")


def load_prs(answers):
    out = []
    with open(os.path.join(answers, "prs.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            repo, pr = line.split()[:2]
            out.append((repo, int(pr)))
    return out


def answer_of(answers, n):
    for kind in ("both", "reduce-both"):
        p = os.path.join(answers, f"{n}.{kind}.json")
        if os.path.exists(p):
            return kind, json.load(open(p, encoding="utf-8"))
    return None, None


def show(binary, db, repo, n, lang, as_json=True):
    args = [binary, "--db", db, "--repo", repo, "show", str(n), "--lang", lang]
    if as_json:
        args.append("--json")
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out) if as_json else out


def texts(g):
    """Every prose field of a guide (or an answer), by slot name."""
    out = {}
    for k in ("headline", "digest", "summary", "verdict_text", "why", "audience"):
        out[k] = g.get(k, "") or ""
    for k in ("importance", "insight"):
        out[k + ".reason"] = (g.get(k) or {}).get("reason", "") or ""
    for k in ("design_decisions", "questions", "number_cautions", "body_vs_code", "gaps"):
        for i, x in enumerate(g.get(k, [])):
            out[f"{k}[{i}]"] = x
    for i, f in enumerate(g.get("focus", [])):
        out[f"focus[{i}].question"] = f.get("question", "")
        out[f"focus[{i}].why"] = f.get("why", "")
    for i, a in enumerate(g.get("advice", [])):
        out[f"advice[{i}]"] = a.get("text", "")
    for i, r in enumerate(g.get("references", [])):
        out[f"references[{i}]"] = r.get("note", "")
    return out


def spans(t):
    return set(re.findall(r"`([^`]+)`", t))


def raw_enums(text, zh):
    plain = re.sub(r"`[^`]*`|<code>.*?</code>", "", text, flags=re.S)
    plain = re.sub(r"<[^>]+>", " ", plain)
    plain = re.sub(r"https?://\S+", "", plain)
    return [m.group(1) for m in (ENUMS_ZH if zh else ENUMS).finditer(plain)]


def page_enums(site, n, lang):
    """Raw enums in the judgment and writer elements of a PR's page."""
    path = os.path.join(site, "en" if lang == "en" else "", "pr", f"{n}.html")
    if not os.path.exists(path):
        return []
    html = open(path, encoding="utf-8").read()
    out = []
    for m in JUDGED.finditer(html):
        out += raw_enums(m.group(1), lang == "zh")
    return out


def broken(g, answer_g, md):
    """Broken renderings of one published guide: dangling punctuation, cut
    sentences (an edited text left without its stop, or ending "…" or
    "[… clipped]"), untranslated enums in its rendering."""
    out = []
    answered = set(texts(answer_g).values()) if answer_g else set()
    for slot, t in texts(g).items():
        t = t.strip()
        if not t:
            continue
        if DANGLING.search(t):
            out.append(("dangling", slot, t))
        if t not in answered:  # the writer edited or wrote it
            if "[… clipped]" in t or (t.endswith("…") and not any(t == a for a in answered)):
                out.append(("cut", slot, t))
            elif slot not in ("headline",) and not t.endswith(STOPS) and any(
                    a.strip().endswith(STOPS) for a in answered if a and a[:12] == t[:12]):
                out.append(("cut", slot, t))
    for e in raw_enums(md, g.get("lang") == "zh"):
        out.append(("enum", "show", e))
    return out


def disagree(zh, en, a_zh, a_en):
    """Places where the two languages of one answer disagree after the writer
    but agreed in the answer: the judgment, a list's length, or the code a
    text names."""
    out = []
    for k in ("verdict",):
        if zh.get(k) != en.get(k):
            out.append(k)
    for k in ("importance", "insight"):
        if (zh.get(k) or {}).get("value") != (en.get(k) or {}).get("value"):
            out.append(k)
    for k in LISTS:
        if len(a_zh.get(k, [])) == len(a_en.get(k, [])) and len(zh.get(k, [])) != len(en.get(k, [])):
            out.append(f"{k}: {len(zh.get(k, []))} zh, {len(en.get(k, []))} en")
    tz, te, az, ae = texts(zh), texts(en), texts(a_zh), texts(a_en)
    for slot in ("digest", "verdict_text", "why", "summary"):
        if spans(az.get(slot, "")) == spans(ae.get(slot, "")) and \
                spans(tz.get(slot, "")) != spans(te.get(slot, "")):
            out.append(f"{slot}: {sorted(spans(tz[slot]) ^ spans(te[slot]))}")
    return out


def plant(answer, lang, real_path):
    """The answer of one language with the planted fabrications; returns the
    true companions whose loss counts as a true statement removed."""
    zh = lang == "zh"
    a = copy.deepcopy(answer)
    companions = []
    # A false clause sharing a sentence with a true one (the #34869 case).
    d = a.get("digest", "").rstrip()
    if d:
        cut = max(d[:-1].rfind("。"), d[:-1].rfind(". "))
        last = d[cut + 1:].strip() if cut >= 0 else d
        companions.append(("digest", last[:-1][:24]))
        a["digest"] = d[:-1] + ("；#99991 随后跟进了这一点。" if zh else ", and #99991 follows up on it.")
    if a.get("advice"):
        t = a["advice"][0]["text"].rstrip()
        companions.append(("advice[0]", t[:-1][:24] if t.endswith(STOPS) else t[:24]))
        a["advice"][0]["text"] = t.rstrip("。.") + (
            "，像 #99991 对其他地方做的那样。" if zh else ", as #99991 does elsewhere.")
    a.setdefault("focus", []).append({
        "path": real_path, "start_line": 9001, "end_line": 9010, "symbol": "",
        "question": "第 9001-9010 行的批量路径是否与旧路径等价？" if zh else
        "Is the batched path at lines 9001-9010 equivalent to the old one?",
        "why": "批量路径集中在这里。" if zh else "The batched path sits here."})
    a["focus"].append({"path": real_path.rsplit("/", 1)[0] + "/ghost_scheduler_v9.py",
                       "start_line": 10, "end_line": 20, "symbol": "",
                       "question": "这里的重试在并发下是否安全？" if zh else
                       "Is the retry here safe under concurrency?",
                       "why": "重试只在这里。" if zh else "The retry lives here."})
    a.setdefault("design_decisions", []).append(
        "`GhostDispatcherRegistry` 在一处登记所有后端，是最值得借鉴的设计。" if zh else
        "`GhostDispatcherRegistry` registers every backend in one place, the design to borrow.")
    a.setdefault("number_cautions", []).append(
        "PR 称端到端提速 3.7x，但只在单卡上测得。" if zh else
        "The PR reports a 3.7x end-to-end speedup measured on one card only.")
    a.setdefault("questions", []).append(
        "`_ghost_refresh_state` 在并发调用时是否安全？" if zh else
        "Is the ghost refresh state safe under concurrent calls?")
    return a, companions


def plant_triage(t):
    t = copy.deepcopy(t)
    for item in t.get("prs", []):
        item["reason_en"] = item.get("reason_en", "").rstrip(".") + "; #99991 follows up."
        item["reason_zh"] = item.get("reason_zh", "") + "，#99991 跟进"
        if item.get("scope"):
            item["scope"] += " and `GhostScheduler`"
        if item.get("scope_zh"):
            item["scope_zh"] += "，以及 `GhostScheduler`"
    return t


def planted_dir(answers, dest, prs):
    os.makedirs(dest, exist_ok=True)
    companions = {}
    for name in os.listdir(answers):
        src = os.path.join(answers, name)
        if name.startswith("triage-") and name.endswith(".json"):
            json.dump(plant_triage(json.load(open(src, encoding="utf-8"))),
                      open(os.path.join(dest, name), "w", encoding="utf-8"), ensure_ascii=False)
        elif name.endswith(".json"):
            shutil.copy(src, dest)
    for repo, n in prs:
        kind, a = answer_of(answers, n)
        if not a:
            continue
        out = {}
        for lang in ("zh", "en"):
            g = a.get(lang, {})
            real = g["focus"][0]["path"] if g.get("focus") else "ghost/ghost.py"
            out[lang], companions[(n, lang)] = plant(g, lang, real)
        json.dump(out, open(os.path.join(dest, f"{n}.{kind}.json"), "w", encoding="utf-8"),
                  ensure_ascii=False)
    return companions


def write_all(binary, db, answers, prs, tmp, name):
    work = os.path.join(tmp, f"i33-{name}.db")
    shutil.copy(db, work)
    log = os.path.join(tmp, f"i33-{name}.jsonl")
    open(log, "w").close()
    rp = Replay(answers, log)
    try:
        for repo in sorted({r for r, _ in prs}):
            nums = [str(n) for r, n in prs if r == repo]
            run(binary, work, ["--repo", repo, "write", "--force", "--lang", "both"] + nums,
                rp.port)
    finally:
        rp.close()
    return work, rp.records()


def removal_key(repo, n, lang, line):
    head = line.rsplit("): ", 1)[0] + ")" if "): " in line else line
    return f"{repo.split('/')[-1]}#{n} {lang} {head}"


def export_sites(binary, work, prs, tmp, name):
    sites = {}
    for repo in sorted({r for r, _ in prs}):
        out = os.path.join(tmp, f"site-{name}-{repo.replace('/', '+')}")
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([binary, "--db", work, "--repo", repo, "export", "--out", out, "--since",
                        "2026-08-18"], capture_output=True, text=True, check=True)
        sites[repo] = out
    return sites


def day_marks(sites, prs):
    """PRs the day pages mark as moved far by the triage, with what they say."""
    out = []
    for repo, site in sites.items():
        days = os.path.join(site, "day")
        for name in sorted(os.listdir(days)) if os.path.isdir(days) else []:
            html = open(os.path.join(days, name), encoding="utf-8").read()
            for m in re.finditer(r'<p class="triage-moved">(.*?)</p>', html, re.S):
                before = html[:m.start()]
                ref = re.findall(r'id="pr-(\d+)"', before)
                out.append(f"{repo.split('/')[-1]}#{ref[-1] if ref else '?'} ({name[:-5]}): "
                           f"{m.group(1).strip()}")
    return out


def headline_width(h):
    h = h.replace("`", "")
    cjk = sum(1 for ch in h if "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f"
              or "\uff00" <= ch <= "\uffef")
    return cjk + (len(h) - cjk) * 4 / 9


def measure(binary, work, answers, prs, judged, sites=None):
    m = {"published": 0, "guides": 0, "kept": 0, "items": 0, "true_removed": 0,
         "unjudged": [], "broken": [], "disagree": [], "over": [], "triage_moved": 0,
         "removals": []}
    for repo, n in prs:
        kind, a = answer_of(answers, n)
        guides = {}
        for lang in ("zh", "en"):
            d = show(binary, work, repo, n, lang)
            g = d.get("guide") or {}
            guides[lang] = g
            m["guides"] += 1
            llm = (g.get("writer") or {}).get("kind") == "llm"
            m["published"] += llm
            ag = (a or {}).get(lang, {})
            m["items"] += items(ag)
            m["kept"] += items(g) if llm else 0
            for line in (g.get("writer") or {}).get("removed", []) + [
                    e for e in (g.get("writer") or {}).get("edits", []) if "removed" in e]:
                key = removal_key(repo, n, lang, line)
                m["removals"].append(key)
                v = judged.get(key)
                if v is None:
                    m["unjudged"].append(key)
                elif v == "T":
                    m["true_removed"] += 1
            if llm:
                md = show(binary, work, repo, n, lang, as_json=False)
                for b in broken(g, ag, md):
                    m["broken"].append((f"{repo.split('/')[-1]}#{n} {lang}",) + b)
                if sites:
                    for e in page_enums(sites[repo], n, lang):
                        m["broken"].append((f"{repo.split('/')[-1]}#{n} {lang}", "enum", "page", e))
                if headline_width(g.get("headline", "")) > 40.01:
                    m["over"].append(f"#{n} {lang}: {g['headline']}")
        if all((guides[l].get("writer") or {}).get("kind") == "llm" for l in ("zh", "en")) and a:
            for x in disagree(guides["zh"], guides["en"], a.get("zh", {}), a.get("en", {})):
                m["disagree"].append(f"{repo.split('/')[-1]}#{n}: {x}")
    return m


def markers_left(binary, work, prs, companions):
    left, lost = [], []
    for repo, n in prs:
        for lang in ("zh", "en"):
            d = show(binary, work, repo, n, lang)
            g = dict(d.get("guide") or {})
            published = (g.get("writer") or {}).get("kind") == "llm"
            g.pop("writer", None)
            text = json.dumps(g, ensure_ascii=False) + json.dumps(d.get("triage"), ensure_ascii=False)
            for kind, mark in MARK.items():
                if mark in text:
                    left.append(f"#{n} {lang}: {kind}")
            if published:
                t = texts(g)
                for slot, companion in companions.get((n, lang), []):
                    if companion and companion not in t.get(slot, "") and companion not in \
                            json.dumps(g, ensure_ascii=False):
                        lost.append(f"#{n} {lang} {slot}: \"{companion}…\"")
    return left, lost


def triage_part(bins, db, answers, tmp):
    prs = load_prs(answers)
    judged = {}
    jpath = os.path.join(answers, "judged.tsv")
    if os.path.exists(jpath):
        for line in open(jpath, encoding="utf-8"):
            if line.strip() and not line.startswith("#"):
                key, v = line.rstrip("\n").rsplit("\t", 1)
                judged[key] = v.strip()
    pdir = os.path.join(tmp, "i33-planted")
    companions = planted_dir(answers, pdir, prs)
    results = {}
    for name, binary in bins:
        work, recs = write_all(binary, db, answers, prs, tmp, name)
        sites = export_sites(binary, work, prs, tmp, name)
        m = measure(binary, work, answers, prs, judged, sites)
        m["marks"] = day_marks(sites, prs)
        m["requests"] = len(recs)
        m["triage_requests"] = sum(1 for r in recs if r["call"] == "triage")
        pwork, _ = write_all(binary, db, pdir, prs, tmp, name + "-planted")
        psites = export_sites(binary, pwork, prs, tmp, name + "-planted")
        pm = measure(binary, pwork, pdir, prs, {}, psites)
        m["planted_left"], m["companions_lost"] = markers_left(binary, pwork, prs, companions)
        m["planted_broken"] = pm["broken"]
        m["planted_disagree"] = pm["disagree"]
        m["planted_published"] = pm["published"]
        results[name] = m
    print(f"## The model path end to end: {answers}")
    print(f"{len(prs)} PRs of {len({r for r, _ in prs})} repositories, both languages, triage first")
    print("| build | guides published | items kept | true statements removed | broken renderings "
          "(dangling / cut / untranslated enums / languages disagree) | planted fabrications left "
          "| true companions of planted clauses lost | headlines over length | day-page marks of "
          "a far triage move |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in results.items():
        kinds = lambda bl: [sum(1 for b in bl if b[1] == k) for k in ("dangling", "cut", "enum")]
        d, c, e = kinds(m["broken"])
        pd, pc, pe = kinds(m["planted_broken"])
        print(f"| {name} | {m['published']}/{m['guides']} (planted: {m['planted_published']}) "
              f"| {m['kept']}/{m['items']} | {m['true_removed']} of {len(m['removals'])} removals "
              f"| {d} / {c} / {e} / {len(m['disagree'])} (planted: {pd} / {pc} / {pe} / "
              f"{len(m['planted_disagree'])}) | {len(m['planted_left'])} "
              f"| {len(m['companions_lost'])} | {len(m['over'])} | {len(m['marks'])} |")
    for name, m in results.items():
        print(f"\n### {name}: {m['requests']} requests ({m['triage_requests']} triage)")
        for b in m["broken"] + m["planted_broken"]:
            print(f"- broken {b[1]} {b[0]} {b[2]}: {b[3][:160]}")
        for x in m["disagree"] + m["planted_disagree"]:
            print(f"- languages disagree: {x}")
        for x in m["planted_left"]:
            print(f"- planted left: {x}")
        for x in m["companions_lost"]:
            print(f"- true companion lost: {x}")
        for x in m["over"]:
            print(f"- headline over length: {x}")
        for x in m["marks"]:
            print(f"- day page: {x}")
        for x in m["unjudged"]:
            print(f"- removal not judged yet: {x}")
    print()
