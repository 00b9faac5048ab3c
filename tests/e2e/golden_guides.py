"""Renders the offline guides of every change of the sample repository, in
Chinese and English, as the Markdown `mergelens show` prints. Shared by the
golden test and by scripts/approve-golden.sh (which writes them as the new
expected output)."""
import json
import os

import common


def render(args):
    """Returns {relative file name: Markdown} for every change and language."""
    repo, _ = common.make_sample(args, "golden-sample")
    ml = common.Binary(args.binary, common.store(args, "golden-db"))
    ml.run("ingest", repo)
    ml.run("analyze")
    ml.run("write", "--lang", "both")
    listed = json.loads(ml.run("list", "--json").stdout)
    out = {}
    for c in listed:
        ref = f"#{c['number']}" if c.get("number") else c["sha"][:12]
        name = str(c["number"]) if c.get("number") else c["sha"][:12]
        for lang in ("zh", "en"):
            shown = json.loads(ml.run("show", ref, "--json", "--lang", lang).stdout)
            guide = shown.get("guide")
            assert guide, f"{ref} has no {lang} guide"
            assert not guide["writer"]["removed"], f"{ref} {lang}: citations removed: {guide['writer']['removed']}"
            md = ml.run("show", ref, "--lang", lang).stdout.decode()
            out[f"{lang}/{name}.md"] = md
    return out
