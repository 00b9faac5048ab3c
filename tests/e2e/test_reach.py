"""Issue 24 through the real binary: a reader's filter, the week, release notes.

- feeds: /feed.xml?tags=T lists only entries tagged T, a named subscription
  (/s/NAME/feed.xml from [subscriptions.NAME]) lists the same, a filter that
  matches nothing is an empty feed, a malformed one is 400, an unknown name 404;
- the day page with a filter says what it left out and keeps the filter in its links;
- the week: /week/ and /week/YYYY-Www pages, /api/week/W, /week.xml (one entry
  per week linking its page), /s/NAME/week.xml, `digest --week W` as Markdown and JSON;
- delivery: a [[deliver]] target whose filter matches nothing sends nothing
  (a local stand-in for a WeCom robot counts requests), one whose filter
  matches sends the filtered day saying what it left out, send_empty sends; a weekly
  target sends its week once, linking the week page;
- `notes --from v1 --to v2` over a fixture history: exactly the PRs between the
  tags, every line linking its PR; --since/--until; bad revisions exit 2.
"""
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
import linear_repo  # noqa: E402
from common import Binary, git, main, make_sample, parse_args, stop  # noqa: E402

args = parse_args()
W = args.work_dir
ATOM = "{http://www.w3.org/2005/Atom}"
STATE = {}


def setup():
    repo, _ = make_sample(args)
    db = os.path.join(W, "db", "mergelens.db")
    b = Binary(args.binary, db)
    b.run("ingest", repo)
    b.run("analyze")
    b.run("write", "--lang", "both")
    STATE.update(repo=repo, b=b)
    # A tag carried by some but not all entries of the newest day.
    day = json.loads(b.run("digest", "--date", newest_day(b), "--format", "json").stdout)
    counts = {}
    for it in day["items"] + day["skipped"]:
        for t in it["tags"]:
            counts[t["tag"]] = counts.get(t["tag"], 0) + 1
    total = len(day["items"]) + len(day["skipped"])
    tag = next(t for t, n in sorted(counts.items(), key=lambda kv: kv[1]) if n < total)
    STATE.update(day=day["date"], tag=tag, tag_count=counts[tag], total=total)
    cfg = os.path.join(W, "serve.toml")
    with open(cfg, "w") as f:
        f.write(f'[subscriptions.mine]\ntags = ["{tag}"]\n')
    proc = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0", "--config", cfg],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    STATE.update(server=proc, base=line.strip().rsplit(" ", 1)[1].rstrip("/"))


def newest_day(b):
    out = b.run("list").stdout.decode()
    days = [w for w in out.split() if len(w) == 10 and w[4] == "-" and w[7] == "-"]
    return max(days)


def get(path):
    try:
        with urllib.request.urlopen(STATE["base"] + path, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def feed_entries(body):
    root = ET.fromstring(body)
    return root.findall(ATOM + "entry")


def test_filtered_feed_and_named_subscription():
    tag = STATE["tag"]
    status, body = get(f"/feed.xml?tags={tag}")
    assert status == 200, body
    entries = feed_entries(body)
    assert entries, body
    for e in entries:
        terms = [c.get("term") for c in e.findall(ATOM + "category")]
        assert tag in terms, (tag, terms)
    _, everything = get("/feed.xml")
    assert len(feed_entries(everything)) > len(entries)
    status, named = get("/s/mine/feed.xml")
    assert status == 200
    assert [e.find(ATOM + "id").text for e in feed_entries(named)] == \
        [e.find(ATOM + "id").text for e in entries]
    # Titled in words, following the filtered day; the named one by its name.
    root = ET.fromstring(body)
    title = root.findtext(ATOM + "title")
    assert "tags=" not in title and " · " in title, title
    alternate = [l.get("href") for l in root.findall(ATOM + "link") if l.get("rel") == "alternate"]
    assert alternate and f"tags={tag}" in alternate[0], alternate
    en = ET.fromstring(get(f"/feed.xml?tags={tag}&min=selective_read&lang=en")[1])
    assert en.findtext(ATOM + "title").endswith(" · selective reads and up"), \
        en.findtext(ATOM + "title")
    named_root = ET.fromstring(named)
    assert named_root.findtext(ATOM + "title").endswith(" · mine"), named_root.findtext(ATOM + "title")
    alternate = [l.get("href") for l in named_root.findall(ATOM + "link") if l.get("rel") == "alternate"]
    # The subscription's home itself, not its "/s/mine/" that redirects (and,
    # behind a proxy serving the site under a path, would leave it).
    assert alternate and alternate[0].endswith("/s/mine"), alternate
    assert get("/s/mine")[0] == 200
    # An unknown tag is 404, as on the tag pages; a filter matching nothing
    # is an empty feed dated now, not 1970.
    assert get("/feed.xml?tags=no-such-tag")[0] == 404
    assert get("/week.xml?tags=no-such-tag")[0] == 404
    status, none = get(f"/feed.xml?tags={tag}&authors=nobody-at-all")
    assert status == 200 and feed_entries(none) == [], none
    assert not ET.fromstring(none).findtext(ATOM + "updated").startswith("1970")
    assert get("/feed.xml?min=most")[0] == 400
    assert get("/s/nope/feed.xml")[0] == 404


def test_filtered_day_says_what_it_left_out():
    tag, day = STATE["tag"], STATE["day"]
    status, html = get(f"/day/{day}?tags={tag}")
    assert status == 200
    left = STATE["total"] - STATE["tag_count"]
    assert f"另有 {left} 个 PR 未列出" in html, html[:3000]
    status, page = get(f"/api/day/{day}?tags={tag}&lang=en")
    model = json.loads(page)
    assert model["left_out"] == left
    assert f"{left} more PR" in model["figures"]
    if model["prev"]:
        assert f"tags={tag}" in model["prev"]["href"]
    # The named form is the same page.
    status, named = get(f"/s/mine/day/{day}")
    assert status == 200 and f"另有 {left} 个 PR 未列出" in named


def test_week_page_api_feed_and_digest():
    status, html = get("/week/")
    assert status == 200 and "<section class=\"week\">" in html, html[:2000]
    status, api = get("/api/week")
    week = json.loads(api)
    w = week["week"]
    assert len(w) == 8 and w[4:6] == "-W", w
    assert week["data"]["entries"], week
    status, html = get(f"/week/{w}")
    assert status == 200 and w in html
    for g in week["groups"]:
        for it in g["items"]:
            assert it["verdict_class"] == "close_read"
            assert f'id="{it["anchor"]}"' in html
    status, body = get("/week.xml")
    assert status == 200
    entries = feed_entries(body)
    assert entries
    assert f"/week/{w}" in entries[0].find(ATOM + "link").get("href")
    assert get("/week/2026-W99")[0] == 400
    status, named = get("/s/mine/week.xml")
    assert status == 200 and ET.fromstring(named).findtext(ATOM + "title").endswith(" · mine")
    assert "/s/mine/week/" in named, named[:1500]
    # Filtered: fewer entries, and the count of the rest.
    status, api = get(f"/api/week/{w}?tags={STATE['tag']}")
    fw = json.loads(api)
    assert fw["left_out"] > 0 and len(fw["data"]["entries"]) < len(week["data"]["entries"])
    b = STATE["b"]
    md = b.run("digest", "--week", w, "--lang", "en").stdout.decode()
    assert md.startswith("# ") and w in md, md[:500]
    js = json.loads(b.run("digest", "--week", w, "--format", "json").stdout)
    assert js["week"] == w
    p = b.run("digest", "--week", "2026-38", check=False)
    assert p.returncode == 2 and b"ISO week" in p.stderr


class Robot(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Robot.seen.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"errcode": 0, "errmsg": "ok"}).encode())

    def log_message(self, *a):
        pass


def test_filtered_delivery_sends_nothing_when_nothing_matches():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Robot)
    STATE["httpd"] = httpd
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    cfg = os.path.join(W, "deliver.toml")
    with open(cfg, "w") as f:
        f.write(f"""[[deliver]]
name = "nothing"
kind = "wecom"
url_env = "ROBOT_URL"
min_interval_ms = 0
filter = {{ tags = ["no-such-tag"] }}

[[deliver]]
name = "mine"
kind = "wecom"
url_env = "ROBOT_URL"
min_interval_ms = 0
lang = "en"
filter = {{ tags = ["{STATE['tag']}"] }}

[[deliver]]
name = "always"
kind = "wecom"
url_env = "ROBOT_URL"
min_interval_ms = 0
send_empty = true
filter = {{ tags = ["no-such-tag"] }}
""")
    env = dict(os.environ, ROBOT_URL=f"http://127.0.0.1:{httpd.server_address[1]}/send?key=k")
    b, day = STATE["b"], STATE["day"]
    b.run("deliver", "--config", cfg, "--date", day, "--to", "nothing", env=env)
    assert Robot.seen == []
    b.run("deliver", "--config", cfg, "--date", day, "--to", "mine", env=env)
    assert len(Robot.seen) >= 1
    text = " ".join(m["markdown"]["content"] for m in Robot.seen)
    left = STATE["total"] - STATE["tag_count"]
    assert f"{left} more PR" in text, text
    n = len(Robot.seen)
    b.run("deliver", "--config", cfg, "--date", day, "--to", "always", env=env)
    assert len(Robot.seen) == n + 1
    # A weekly target sends the week the day belongs to, once, linking the week page.
    with open(cfg, "a") as f:
        f.write('\n[[deliver]]\nname = "weekly"\nkind = "wecom"\nurl_env = "ROBOT_URL"\n'
                'min_interval_ms = 0\nschedule = "weekly"\nsite_url = "https://lens.example.org"\n')
    week = json.loads(get(f"/api/week")[1])["week"]
    n = len(Robot.seen)
    b.run("deliver", "--config", cfg, "--date", week, "--to", "weekly", env=env)
    assert len(Robot.seen) > n
    text = " ".join(m["markdown"]["content"] for m in Robot.seen[n:])
    assert week in text and f"https://lens.example.org/week/{week}" in text, text
    sent = len(Robot.seen)
    b.run("deliver", "--config", cfg, "--date", week, "--to", "weekly", env=env)
    assert len(Robot.seen) == sent  # never twice
    bad = os.path.join(W, "bad.toml")
    with open(bad, "w") as f:
        f.write('[[deliver]]\nname = "x"\nkind = "wecom"\nurl_env = "ROBOT_URL"\n'
                'filter = { min = "most" }\n')
    p = b.run("deliver", "--config", bad, "--date", day, "--to", "x", env=env, check=False)
    assert p.returncode == 2 and b"min" in p.stderr, p.stderr


def test_notes_over_a_fixture_range():
    repo = os.path.join(W, "linear")
    linear_repo.make(repo, 12)
    git(repo, "remote", "add", "origin", "https://github.com/acme/linear.git")
    shas = git(repo, "rev-list", "--first-parent", "--reverse", "main").stdout.decode().split()
    git(repo, "tag", "v1", shas[3])   # after change 4
    git(repo, "tag", "v2", shas[9])   # after change 10
    b = Binary(args.binary, os.path.join(W, "notes", "mergelens.db"))
    b.run("ingest", repo)
    b.run("analyze")
    b.run("write", "--lang", "both")
    js = json.loads(b.run("notes", "--from", "v1", "--to", "v2", "--format", "json",
                          "--all").stdout)
    refs = [e["ref"] for t in js["highlights"] for e in t["entries"]]
    refs += [e["ref"] for s in js["sections"] for t in s["lines"] for e in t["entries"]]
    assert js["merged"] == 6, js
    # Every PR of the range once, in a highlight or a section line.
    assert sorted(refs, key=lambda r: int(r[1:])) == [f"#{k}" for k in range(5, 11)], refs
    md = b.run("notes", "--from", "v1", "--to", "v2", "--lang", "en", "--all").stdout.decode()
    lines = [ln for ln in md.splitlines() if ln.startswith("- ")]
    assert len(lines) >= 6, md
    for ln in lines:
        assert "](https://github.com/acme/linear/pull/" in ln, ln
    # Dates: changes are 10 minutes apart from 2026-09-01T00:00Z.
    js = json.loads(b.run("notes", "--since", "2026-09-01T00:15:00Z",
                          "--until", "2026-09-01T00:45:00Z", "--format", "json").stdout)
    assert js["merged"] == 3, js
    for bad in (["--from", "nope"], ["--since", "yesterday"], [],
                ["--since", "2026-09-02", "--until", "2026-09-01"]):
        p = b.run("notes", *bad, check=False)
        assert p.returncode == 2, (bad, p.stderr)


def teardown():
    stop(STATE.get("server"))
    if "httpd" in STATE:
        STATE["httpd"].shutdown()


try:
    setup()
    main([test_filtered_feed_and_named_subscription, test_filtered_day_says_what_it_left_out,
          test_week_page_api_feed_and_digest,
          test_filtered_delivery_sends_nothing_when_nothing_matches,
          test_notes_over_a_fixture_range])
finally:
    teardown()
