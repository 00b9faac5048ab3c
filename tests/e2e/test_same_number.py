"""Two commits carrying the same PR number (a revert-and-reland, a cherry-pick
titled like the original): the newer one answers `/pr/106` and `show 106`,
the older one is listed, linked and exported by its sha, never hidden; each
PR page links the other; `show` says that another change carries the number."""
import json
import os
import subprocess

import common

args = common.parse_args()
common.skip_unless_backend_available()
src = os.path.join(args.work_dir, "src")
T0 = 1788220800  # 2026-09-01


def commit(hours, title, path, text):
    full = os.path.join(src, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    common.git(src, "add", "-A")
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = f"{T0 + hours * 3600} +0000"
    common.git(src, "commit", "-q", "-m", title)
    return common.git(src, "rev-parse", "HEAD").stdout.decode().strip()


os.makedirs(src)
common.git(src, "init", "-q", "-b", "main")
commit(1, "Start (#100)", "pkg/a.py", "X = 1\n")
OLD = commit(2, "Add the cache (#106)", "pkg/cache.py", "def get(k):\n    return k\n")
commit(3, "Unrelated (#107)", "pkg/b.py", "Y = 2\n")
NEW = commit(4, "Add the cache again (#106)", "pkg/cache.py",
             "def get(k):\n    return k\n\n\ndef put(k, v):\n    return v\n")
os.environ.pop("GIT_AUTHOR_DATE")
os.environ.pop("GIT_COMMITTER_DATE")
b = common.Binary(args.binary, common.store(args, "store"))
b.run("run", src, "--lang", "en", "--repo", "acme/same")


def test_show_names_the_newer_and_points_at_the_older():
    p = b.run("show", "106", "--json")
    assert json.loads(p.stdout)["sha"] == NEW
    err = p.stderr.decode()
    assert OLD[:12] in err and "also carries #106" in err, err
    older = json.loads(b.run("show", OLD[:12], "--json").stdout)
    assert older["sha"] == OLD and older["number"] == 106, older
    err = b.run("show", OLD[:12], "--json").stderr.decode()
    assert NEW[:12] in err, err


def test_list_gives_the_older_one_by_sha():
    rows = json.loads(b.run("list", "--json").stdout)
    refs = {r["sha"]: r["ref"] for r in rows}
    assert refs[NEW] == "#106" and refs[OLD] == OLD[:12], refs
    assert all(r["number"] == 106 for r in rows if r["sha"] in (OLD, NEW)), rows
    text = b.run("list").stdout.decode()
    assert OLD[:9] in text and "#106" in text, text


def changes_in(doc):
    """Every object with a "sha" and a "page_url" anywhere in an API answer."""
    if isinstance(doc, dict):
        if "sha" in doc and "page_url" in doc:
            yield doc
        for v in doc.values():
            yield from changes_in(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from changes_in(v)


def links_to(html, ref):
    return f'href="/pr/{ref}"' in html or f'href="/pr/{ref}?' in html


def test_pages_link_both_and_each_page_links_the_other():
    port = common.free_port()
    p = subprocess.Popen([args.binary, "serve", "--db", b.db, "--port", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        common.wait_serving(base)
        status, day = common.http_get(base + "/day/2026-09-01?lang=en")
        assert status == 200, status
        assert links_to(day, "106") and links_to(day, OLD[:12]), day[-3000:]
        status, newer = common.http_get(base + "/pr/106?lang=en")
        assert status == 200 and "Add the cache again" in newer, newer[-3000:]
        assert links_to(newer, OLD[:12]), newer[-3000:]
        status, older = common.http_get(base + f"/pr/{OLD[:12]}?lang=en")
        assert status == 200 and "Add the cache" in older, older[-3000:]
        assert "Add the cache again</" not in older.split('class="same-number"')[0], older[-3000:]
        assert links_to(older, "106"), older[-3000:]
        # The API's day gives each its own page: the newer by number, the older by sha.
        status, api = common.http_get(base + "/api/v1/day/2026-09-01")
        assert status == 200, (status, api[-2000:])
        pages = {c["sha"]: c["page_url"] for c in changes_in(json.loads(api))}
        assert pages[NEW].endswith("/pr/106"), pages
        assert pages[OLD].endswith("/pr/" + OLD[:12]), pages
        # The older one's own answer links itself, not the newer (issue 34).
        status, api = common.http_get(base + f"/api/v1/pr/{OLD[:12]}")
        assert status == 200, (status, api[-2000:])
        older = json.loads(api)
        assert older["sha"] == OLD and older["page_url"].endswith("/pr/" + OLD[:12]), older
        assert f"/api/v1/pr/{OLD[:12]}" in older["api_url"], older["api_url"]
        status, api = common.http_get(base + "/api/v1/pr/106")
        assert json.loads(api)["page_url"].endswith("/pr/106"), api[:500]
    finally:
        common.stop(p)


def test_the_mcp_pr_tool_links_the_older_one_by_sha():
    lines = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "pr", "arguments": {"ref": ref}}}
             for i, ref in enumerate((OLD[:12], "106"))]
    r = subprocess.run([args.binary, "mcp", "--db", b.db, "--base-url", "https://lens.example.org"],
                       input="\n".join(json.dumps(m) for m in lines) + "\n", capture_output=True,
                       text=True, timeout=60, check=True)
    out = [json.loads(line)["result"]["structuredContent"] for line in r.stdout.splitlines()]
    assert out[0]["sha"] == OLD, out[0]
    assert out[0]["page_url"] == "https://lens.example.org/pr/" + OLD[:12], out[0]["page_url"]
    assert out[1]["page_url"] == "https://lens.example.org/pr/106", out[1]["page_url"]


def test_the_export_has_a_page_for_each():
    site = os.path.join(args.work_dir, "site")
    b.run("export", "--out", site)
    assert os.path.exists(os.path.join(site, "pr", "106.html"))
    older = os.path.join(site, "pr", OLD[:12] + ".html")
    assert os.path.exists(older), sorted(os.listdir(os.path.join(site, "pr")))
    with open(older) as f:
        page = f.read()
    assert "Add the cache" in page and "106.html" in page, page[-3000:]


common.main([test_show_names_the_newer_and_points_at_the_older,
             test_list_gives_the_older_one_by_sha,
             test_pages_link_both_and_each_page_links_the_other,
             test_the_mcp_pr_tool_links_the_older_one_by_sha,
             test_the_export_has_a_page_for_each])
