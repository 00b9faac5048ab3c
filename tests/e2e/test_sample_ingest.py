"""Ingest the generated sample repository with the real binary and compare
every change with what the generator says it wrote."""
import json
import os

import common

args = common.parse_args()
repo, manifest_path = common.make_sample(args)
with open(manifest_path, encoding="utf-8") as f:
    manifest = json.load(f)
common.skip_unless_backend_available()
ml = common.Binary(args.binary, common.store(args, "db"))
first = ml.run("ingest", repo)


def ref_of(change):
    return f"#{change['number']}" if change["number"] is not None else change["sha"]


def test_every_change_is_stored_once():
    listed = json.loads(ml.run("list", "--json").stdout)
    assert len(listed) == len(manifest["changes"]), (len(listed), len(manifest["changes"]))
    assert len({c["sha"] for c in listed}) == len(listed)
    numbers = sorted(c["number"] for c in listed if c["number"] is not None)
    expected = sorted(c["number"] for c in manifest["changes"] if c["number"] is not None)
    assert numbers == expected


def test_fields_match_the_generator():
    problems = []
    for want in manifest["changes"]:
        got = json.loads(ml.run("show", ref_of(want), "--json").stdout)
        for key, value in [("sha", want["sha"]), ("kind", want["kind"]), ("number", want["number"]),
                           ("title", want["title"]), ("merged_at", want["merged_at"])]:
            if got[key] != value:
                problems.append(f"{ref_of(want)} {key}: {got[key]!r} != {value!r}")
        author = got["author"]
        if (author["name"], author["email"], author["login"]) != (
                want["author_name"], want["author_email"], want["login"]):
            problems.append(f"{ref_of(want)} author: {author} != {want['author_name']}, "
                            f"{want['author_email']}, {want['login']}")
        if got["url"] != (f"https://github.com/lumen-ai/lumen/pull/{want['number']}"
                          if want["number"] is not None
                          else f"https://github.com/lumen-ai/lumen/commit/{want['sha']}"):
            problems.append(f"{ref_of(want)} url: {got['url']}")
        got_files = sorted((f["path"], f["status"], f["old_path"], f["binary"]) for f in got["files"])
        want_files = sorted((f["path"], f["status"], f.get("old_path"), f.get("binary", False))
                            for f in want["files"])
        if got_files != want_files:
            problems.append(f"{ref_of(want)} files: {got_files} != {want_files}")
        for gf in got["files"]:
            wf = next((f for f in want["files"] if f["path"] == gf["path"]), None)
            if wf and wf.get("additions") is not None and not gf["binary"]:
                if (gf["additions"], gf["deletions"]) != (wf["additions"], wf["deletions"]):
                    problems.append(f"{ref_of(want)} {gf['path']} counts: "
                                    f"{gf['additions']}/{gf['deletions']} != "
                                    f"{wf['additions']}/{wf['deletions']}")
    assert not problems, "\n".join(problems)


def test_special_cases_are_present():
    kinds = {c["kind"] for c in manifest["changes"]}
    assert {"squash", "merge", "commit"} <= kinds, kinds
    assert any(c.get("message_has_invalid_utf8") for c in manifest["changes"])
    assert any(f.get("binary") for c in manifest["changes"] for f in c["files"])
    assert any(f["status"] == "renamed" for c in manifest["changes"] for f in c["files"])


def test_hunks_carry_new_file_line_numbers():
    checked = 0
    for want in manifest["changes"]:
        if want["kind"] != "squash":
            continue
        got = json.loads(ml.run("show", ref_of(want), "--json").stdout)
        for f in got["files"]:
            for h in f.get("hunks", []):
                new = h["new_start"]
                for line in h["lines"]:
                    if line["origin"] in " +":
                        assert line["new"] == new, (f["path"], line, new)
                        new += 1
                        checked += 1
    assert checked > 1000, checked


def test_second_run_is_a_no_op():
    again = ml.run("ingest", repo)
    assert b"0 new changes" in again.stdout, again.stdout
    assert b"0 commits walked" in again.stdout, again.stdout


def test_list_groups_by_day_and_show_prints_text():
    out = ml.run("list").stdout.decode()
    days = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert days == sorted(days, reverse=True) and len(days) >= 9, days
    squash = next(c for c in manifest["changes"] if c["kind"] == "squash")
    text = ml.run("show", str(squash["number"])).stdout.decode(errors="replace")
    assert squash["title"] in text


common.main([test_every_change_is_stored_once, test_fields_match_the_generator,
             test_special_cases_are_present, test_hunks_carry_new_file_line_numbers,
             test_second_run_is_a_no_op, test_list_groups_by_day_and_show_prints_text])
