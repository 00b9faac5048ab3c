"""`mergelens sync` against a local server speaking the GitHub REST API for a few
pull requests of the generated sample repository: PR bodies, labels and review
comments join the changes ingested from the clone; an open PR is stored open,
and after a later sync in which it merged it is the same change, merged."""
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import common

args = common.parse_args()
repo, manifest_path = common.make_sample(args)
with open(manifest_path, encoding="utf-8") as f:
    manifest = json.load(f)
ml = common.Binary(args.binary, os.path.join(args.work_dir, "db", "mergelens.db"))
ml.run("ingest", repo)

OWNER_REPO = "lumen-ai/lumen"
TOKEN = "ghp_e2eSECRETtoken"
squashes = [c for c in manifest["changes"] if c["kind"] == "squash"][-3:]
OPEN = max(c["number"] for c in manifest["changes"] if c["number"]) + 1
OPEN_HEAD = "e" * 40
OPEN_MERGE = "f" * 40  # not in the clone: its diff comes from the files endpoint
BODY = ("## Benchmark\n\n| batch | before | after |\n|---|---|---|\n| 8 | 1520 tok/s | 2100 tok/s |\n\n"
        "Reviewed by airMeng.")


def user(login):
    return {"login": login, "id": abs(hash(login)) % 100000, "type": "User", "site_admin": False}


def pull(number, *, state, merged_at, merge_sha, head, updated, title, full):
    p = {"url": f"http://api/repos/{OWNER_REPO}/pulls/{number}", "id": 900000 + number,
         "number": number, "state": state, "locked": False, "title": title, "user": user("alice"),
         "body": f"{BODY}\n\nPR {number}.", "labels": [{"id": 1, "name": "performance", "color": "ededed",
                                                       "default": False, "description": None}],
         "created_at": "2026-09-01T00:00:00Z", "updated_at": updated,
         "closed_at": None if state == "open" else updated, "merged_at": merged_at,
         "merge_commit_sha": merge_sha, "draft": False,
         "html_url": f"https://github.com/{OWNER_REPO}/pull/{number}",
         "head": {"label": "alice:f", "ref": "f", "sha": head, "user": user("alice"), "repo": None},
         "base": {"label": "lumen-ai:main", "ref": "main", "sha": "0" * 40, "user": user("lumen-ai"),
                  "repo": None},
         "author_association": "CONTRIBUTOR", "auto_merge": None}
    if full:
        p.update({"merged": merged_at is not None, "merged_by": user("bob") if merged_at else None,
                  "comments": 1, "review_comments": 1, "commits": 1, "additions": 2, "deletions": 0,
                  "changed_files": 1, "mergeable": None, "mergeable_state": "unknown"})
    return p


class World:
    """What the fake GitHub serves; the test changes it between syncs."""

    def __init__(self):
        self.open_merged = False
        self.requests = 0
        self.auth = set()

    def pulls(self, full):
        out = []
        for i, c in enumerate(squashes):
            out.append(pull(c["number"], state="closed", merged_at=c["merged_at"], merge_sha=c["sha"],
                            head="1" * 40, updated=f"2026-09-2{i}T10:00:00Z", title=c["title"], full=full))
        if self.open_merged:
            out.append(pull(OPEN, state="closed", merged_at="2026-09-29T09:00:00Z", merge_sha=OPEN_MERGE,
                            head=OPEN_HEAD, updated="2026-09-29T09:00:00Z", title="Draft model warmup",
                            full=full))
        else:
            out.append(pull(OPEN, state="open", merged_at=None, merge_sha=None, head=OPEN_HEAD,
                            updated="2026-09-28T09:00:00Z", title="Draft model warmup", full=full))
        return {p["number"]: p for p in out}

    def route(self, path, query):
        base = f"/repos/{OWNER_REPO}"
        if not path.startswith(base):
            return 404, None, None
        rest = path[len(base):]
        pulls = self.pulls(full=False)
        if rest == "/pulls":
            want = query.get("state", ["open"])[0]
            items = sorted((p for p in pulls.values() if p["state"] == want),
                           key=lambda p: p["updated_at"], reverse=True)
            return 200, items, f'"{want}-{len(items)}-{self.open_merged}"'
        parts = rest.strip("/").split("/")
        if parts[0] == "issues" and parts[2:] == ["comments"]:
            return 200, [{"id": 5000 + int(parts[1]), "user": user("carol"),
                          "body": "Next step: port this to ROCm in a follow-up PR.",
                          "created_at": "2026-09-25T10:00:00Z", "updated_at": "2026-09-25T10:00:00Z"}], None
        number = int(parts[1])
        full = self.pulls(full=True)
        if number not in full:
            return 404, {"message": "Not Found"}, None
        if len(parts) == 2:
            return 200, full[number], None
        what = parts[2]
        if what == "reviews":
            return 200, [{"id": 7000 + number, "user": user("airMeng"), "state": "APPROVED",
                          "body": "LGTM", "submitted_at": "2026-09-25T09:00:00Z", "commit_id": "1" * 40}], None
        if what == "comments":
            return 200, [{"id": 8000 + number, "user": user("airMeng"), "path": "README.md",
                          "line": 3, "original_line": 3, "diff_hunk": "@@ -1,3 +1,4 @@",
                          "body": "Why is this needed here?", "created_at": "2026-09-25T08:00:00Z",
                          "in_reply_to_id": None}], None
        if what == "files":
            add = 4 if self.open_merged else 2
            patch = "@@ -0,0 +1,%d @@\n" % add + "\n".join(f"+line {i}" for i in range(add))
            return 200, [{"sha": "ab" * 20, "filename": "python/lumen/warmup.py", "status": "added",
                          "additions": add, "deletions": 0, "changes": add, "patch": patch}], None
        if what == "commits":
            return 200, [{"sha": OPEN_HEAD, "commit": {
                "author": {"name": "Alice", "email": "alice@example.com", "date": "2026-09-27T09:00:00Z"},
                "committer": {"name": "Alice", "email": "alice@example.com", "date": "2026-09-27T09:00:00Z"},
                "message": "warm up"}, "author": user("alice"), "parents": []}], None
        return 404, {"message": "Not Found"}, None


world = World()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        world.requests += 1
        world.auth.add(self.headers.get("Authorization", ""))
        url = urlparse(self.path)
        status, body, etag = world.route(url.path, parse_qs(url.query))
        if etag and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Limit", "5000")
        self.send_header("X-RateLimit-Remaining", "4999")
        self.send_header("X-RateLimit-Reset", "1893456000")
        if etag:
            self.send_header("ETag", etag)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
ENV = dict(os.environ, MERGELENS_GITHUB_API=f"http://127.0.0.1:{server.server_address[1]}",
           GITHUB_TOKEN=TOKEN)


def sync():
    p = ml.run("sync", OWNER_REPO, env=ENV)
    out = p.stdout.decode() + p.stderr.decode()
    assert TOKEN not in out, out
    return p.stdout.decode()


def show(ref):
    return json.loads(ml.run("show", ref, "--json").stdout)


first_out = sync()
open_before = show(f"#{OPEN}")


def test_first_sync_joins_bodies_labels_and_reviews():
    assert f"Bearer {TOKEN}" in world.auth
    assert "3 merged PRs (3 joined with the clone" in first_out, first_out
    for c in squashes:
        got = show(f"#{c['number']}")
        assert got["sha"] == c["sha"], got["sha"]
        assert "| 8 | 1520 tok/s | 2100 tok/s |" in got["body"], got["body"]
        assert got["labels"] == ["performance"], got["labels"]
        assert got["author"]["login"] == "alice"
        assert got["merged_by"] == "bob"
        assert [r["body"] for r in got["review_comments"]] == ["Why is this needed here?"]
        assert got["review_comments"][0]["path"] == "README.md"
        assert got["reviews"][0]["author"] == "airMeng"
        # The diff is still the clone's.
        want = sorted(f["path"] for f in c["files"])
        assert sorted(f["path"] for f in got["files"]) == want, (got["files"], want)


def test_open_pr_is_stored_open_and_analysed_as_open():
    assert open_before["state"] == "open" and open_before["open"] is True
    assert open_before["merged_at"] is None
    assert open_before["head_sha"] == OPEN_HEAD
    ml.run("analyze")
    got = show(f"#{OPEN}")
    assert got["analysed"] is True
    assert got["open"] is True  # facts carry it too
    assert "airMeng" in got["reviewers"] and "carol" in got["reviewers"]
    assert any(p["kind"] == "follow_up" for p in got["review_points"])
    # Its guide is marked open and addressed to reviewers before merge.
    ml.run("write", "--lang", "both")
    for lang, mark in (("zh", "【未合并】"), ("en", "[open]")):
        g = json.loads(ml.run("show", f"#{OPEN}", "--json", "--lang", lang).stdout)["guide"]
        assert g["source"]["open"] is True and g["source"]["merged_at"] == "", g["source"]
        assert g["verdict_text"].startswith(mark), g["verdict_text"]
        assert any(a["role"] == "reviewer" for a in g["advice"]), g["advice"]


def test_repeated_sync_costs_only_conditional_requests():
    before = world.requests
    out = sync()
    assert world.requests - before == 2, world.requests - before
    assert "2 requests (2 not modified" in out, out


def test_open_pr_that_merges_is_the_same_change_merged():
    world.open_merged = True
    out = sync()
    assert "1 turned merged" in out, out
    got = show(f"#{OPEN}")
    assert got["id"] == open_before["id"]
    assert got["state"] == "merged" and got["open"] is False
    assert got["sha"] == OPEN_MERGE
    assert got["merged_at"] == "2026-09-29T09:00:00Z"
    assert got["files"][0]["additions"] == 4
    listed = json.loads(ml.run("list", "--json").stdout)
    assert sum(1 for c in listed if c["number"] == OPEN) == 1
    # After analysis and writing, the same change has a merged guide.
    ml.run("analyze")
    ml.run("write")
    g = json.loads(ml.run("show", f"#{OPEN}", "--json").stdout)["guide"]
    assert g["source"]["open"] is False and g["source"]["merged_at"] == "2026-09-29T09:00:00Z"
    assert not g["verdict_text"].startswith("【未合并】"), g["verdict_text"]


common.main([test_first_sync_joins_bodies_labels_and_reviews,
             test_open_pr_is_stored_open_and_analysed_as_open,
             test_repeated_sync_costs_only_conditional_requests,
             test_open_pr_that_merges_is_the_same_change_merged])
