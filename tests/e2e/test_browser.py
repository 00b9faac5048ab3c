"""Browser test: the pages in headless Chromium (Debian's chromium and
chromium-driver, driven over W3C WebDriver with urllib).

The sample repository gets extra pull requests whose titles, bodies, author
names and tags carry script, event-handler, javascript: and raw-HTML
payloads (each would set window.__pwned). After ingest, analyze and write,
the test serves the store and navigates day -> PR -> tag -> aggregation ->
tag list -> search (Chinese queries of 2 and 4 characters, one English),
checks the content, checks that no payload ran, and keeps a screenshot of
each page under build/artifacts/screenshots/.

It also takes the README's screenshots from the bundled sample's own days
(day, PR, tag list, aggregation, at desktop and phone widths) after checking
what they show: every entry's paragraph and its "原始 PR · 作者 · 合并时间"
line, charts with axes, tick labels, hover values and a legend. With
MERGELENS_UPDATE_SCREENSHOTS=1 they are copied to docs/screenshots/.
"""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from common import Binary, free_port, git, main, make_sample, parse_args, stop  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

args = parse_args()
SHOTS = os.path.join(os.path.dirname(os.path.abspath(args.binary)), "artifacts", "screenshots")

HOSTILE_TITLE = '<script>window.__pwned="title"</script> Fix KV 缓存命中 regression'
HOSTILE_BODY = """Fixes the KV cache hit path.

"><img src=x onerror="window.__pwned='body-img'">
[click me](javascript:window.__pwned='md-link')
<iframe src="javascript:window.__pwned='iframe'"></iframe>
<a href="javascript:window.__pwned='a'">raw link</a>
<svg onload="window.__pwned='svg'"></svg>
"""
HOSTILE_AUTHOR = "<img src=x onerror=window.__pwned='author'>"
HOSTILE_TAG = "<img src=x onerror=window.__pwned='tag'>"


def add_hostile_prs(repo):
    with open(os.path.join(repo, "mergelens.toml"), "w") as f:
        f.write('[[tags]]\nname = "%s"\nkeywords = ["hostile", "regression"]\n' % HOSTILE_TAG)
    os.makedirs(os.path.join(repo, "python", "lumen", "cache"), exist_ok=True)
    with open(os.path.join(repo, "python", "lumen", "cache", "kv_hostile.py"), "w") as f:
        f.write("def hit(cache, key):\n    # <script>window.__pwned='code'</script>\n"
                "    if key in cache:\n        return cache[key]\n    return None\n")
    git(repo, "add", "-A")
    env_date = "2026-09-11T09:30:00Z"
    env = dict(GIT_AUTHOR_NAME=HOSTILE_AUTHOR, GIT_AUTHOR_EMAIL="evil@example.com",
               GIT_AUTHOR_DATE=env_date, GIT_COMMITTER_DATE=env_date)
    msg = HOSTILE_TITLE + " (#2001)\n\n" + HOSTILE_BODY
    run_git(repo, env, "commit", "-q", "-F", "-", input=msg.encode())
    with open(os.path.join(repo, "python", "lumen", "cache", "kv_hostile.py"), "a") as f:
        f.write("\n\ndef evict(cache):\n    cache.clear()\n")
    git(repo, "add", "-A")
    env_date = "2026-09-11T11:00:00Z"
    env.update(GIT_AUTHOR_DATE=env_date, GIT_COMMITTER_DATE=env_date,
               GIT_AUTHOR_NAME="Bob", GIT_AUTHOR_EMAIL="bob@example.com")
    run_git(repo, env, "commit", "-q", "-m",
            "[Quant] Add quantization eviction for hostile caches (#2002)\n\n"
            "Body with `<b>bold</b>` and a link [x](javascript:alert(1)).")


def run_git(repo, extra_env, *a, input=None):
    from common import GIT_ENV
    env = dict(os.environ, **GIT_ENV)
    env.update(extra_env)
    subprocess.run(["git", "-c", "commit.gpgsign=false", *a], cwd=repo, env=env, input=input,
                   check=True, capture_output=True)


class WebDriver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1400", "--lang=zh-CN", "--no-first-run"]}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read().decode()).get("value")
        except urllib.error.HTTPError as e:
            raise AssertionError(f"webdriver {method} {path}: {e.read().decode()[:500]}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def find_all(self, css):
        return [e[ELEMENT] for e in self.s("POST", "/elements",
                                           {"using": "css selector", "value": css})]

    def text(self, css):
        return self.s("GET", f"/element/{self.find(css)}/text")

    def click(self, css):
        self.s("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css, text):
        eid = self.find(css)
        self.s("POST", f"/element/{eid}/clear", {})
        self.s("POST", f"/element/{eid}/value", {"text": text})

    def js(self, script):
        return self.s("POST", "/execute/sync", {"script": script, "args": []})

    def url(self):
        return self.s("GET", "/url")

    def source(self):
        return self.s("GET", "/source")

    def size(self, width, height):
        self.s("POST", "/window/rect", {"width": width, "height": height})

    def shot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        png = base64.b64decode(self.s("GET", "/screenshot"))
        with open(os.path.join(SHOTS, name + ".png"), "wb") as f:
            f.write(png)
        assert len(png) > 1000, name

    def assert_inert(self, where):
        pwned = self.js("return window.__pwned === undefined ? null : String(window.__pwned)")
        assert pwned is None, f"{where}: a payload ran ({pwned})"
        n = self.js("return document.querySelectorAll('script,iframe,img,svg[onload]').length")
        assert n == 0, f"{where}: {n} injected elements in the DOM"
        hrefs = self.js("return Array.from(document.querySelectorAll('a[href]'))"
                        ".map(a => a.getAttribute('href'))")
        bad = [h for h in hrefs if h.strip().lower().startswith("javascript:")]
        assert not bad, f"{where}: javascript: links {bad}"

    def quit(self):
        try:
            self.call("DELETE", f"/session/{self.sid}")
        except Exception:  # noqa: BLE001
            pass


STATE = {}


def setup():
    repo, _ = make_sample(args)
    add_hostile_prs(repo)
    db = os.path.join(args.work_dir, "db", "mergelens.db")
    b = Binary(args.binary, db)
    b.run("ingest", repo)
    b.run("analyze")
    b.run("write", "--lang", "both")
    # The analyzer turns tag names into slugs, so a tag carrying markup can only
    # come from elsewhere (a future source, a hand-edited store): put one in.
    import sqlite3
    con = sqlite3.connect(db)
    # (A tag row carries its change's repository and merge time: store migration 14.)
    con.execute("INSERT INTO change_tags(change_id, name, source, repo_id, merged_at) "
                "SELECT id, ?, 'config', repo_id, merged_at FROM changes WHERE number = 2001",
                (HOSTILE_TAG,))
    con.commit()
    con.close()
    server = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert m, f"serve printed {line!r}, stderr {server.stderr.read() if server.poll() is not None else ''}"
    STATE["server"] = server
    STATE["base"] = f"http://127.0.0.1:{m.group(1)}"
    dport = free_port()
    STATE["driver_proc"] = subprocess.Popen([CHROMEDRIVER, f"--port={dport}"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{dport}/status", timeout=1)
            break
        except Exception:  # noqa: BLE001
            time.sleep(0.1)
    STATE["wd"] = WebDriver(dport)


def teardown():
    if "wd" in STATE:
        STATE["wd"].quit()
    for key in ("driver_proc", "server"):
        stop(STATE.get(key))


def test_day_pr_tag_aggregation_search():
    wd, base = STATE["wd"], STATE["base"]
    # Day: the newest day holds the hostile PRs.
    wd.go(base + "/")
    assert wd.text("h1") == "2026-09-11", wd.text("h1")
    counts = wd.text("#counts")
    assert re.search(r"合并 2 个，其中 \d+ 个值得精读", counts), counts
    headlines = [wd.s("GET", f"/element/{e}/text")
                 for e in wd.find_all("a.headline") + wd.find_all("ul.skipped li")]
    assert len(headlines) == 2, headlines
    # The digest leads with the guide's Chinese headline: the kind of change from
    # the facts, then the PR's title (a bare file name is no key object), shown as
    # text: the hostile title's markup is not run.
    assert any(h.startswith("修复：") and "<script>" in h for h in headlines), headlines
    assert wd.find_all("a.prev"), "no link to the previous day"
    wd.assert_inert("day")
    wd.shot("1-day")
    # PR page of the hostile PR.
    wd.go(base + "/pr/2001")
    assert "<script>" in wd.text("p.title") and "缓存命中" in wd.text("p.title"), wd.text("p.title")
    # git drops '<' and '>' from author names; the rest must show as text.
    assert "onerror=window.__pwned" in wd.text("span.author"), wd.text("span.author")
    src = wd.source()
    assert "精读要点" in src or "浏览即可" in src
    assert "离线撰写" in wd.text("#writer"), wd.text("#writer")  # the writer's kind, translated
    wd.assert_inert("hostile PR")
    wd.shot("2-pr-hostile")
    # A PR page reached by clicking from the day page.
    wd.go(base + "/day/2026-09-10")
    wd.click("li.entry a.headline")
    assert "/pr/" in wd.url()
    assert wd.text("#headline")
    assert wd.find_all("a.original")
    wd.assert_inert("pr")
    wd.shot("3-pr")
    # Tag -> aggregation.
    wd.click("ul.tags li a")
    assert "/tags/" in wd.url(), wd.url()
    assert int(wd.text("#fig-count")) >= 1
    assert wd.find_all("svg.chart") or True
    wd.assert_inert("aggregation")
    wd.shot("4-aggregation")
    # Filters: a verdict and a minimum score narrow the list.
    tag_url = wd.url().split("?")[0]
    wd.go(tag_url + "?min=10&verdict=close_read")
    assert int(wd.text("#fig-count")) == 0
    # Tag list, then the hostile tag's aggregation.
    wd.click("#nav-tags")
    rows = wd.find_all("table.tag-table tbody tr")
    assert len(rows) >= 5, len(rows)
    assert HOSTILE_TAG in wd.source().replace("&lt;", "<").replace("&gt;", ">")
    assert wd.find_all("svg.spark rect.bar title")
    wd.assert_inert("tags")
    wd.shot("5-tags")
    wd.go(base + "/tags/" + urllib.parse.quote(HOSTILE_TAG, safe=""))
    assert int(wd.text("#fig-count")) >= 1
    wd.assert_inert("hostile tag")
    wd.shot("6-aggregation-hostile-tag")
    # Search: two Chinese characters, four, then English.
    # The Chinese queries find the hostile PR by its title (the guide's Chinese
    # headline is built from the facts); the marks show the term or, through the
    # glossary, its English side.
    for name, q, want in (("7-search-zh2", "缓存", ("缓存", "cache")),
                          ("8-search-zh4", "缓存命中", ("缓存命中", "cache hit")),
                          ("9-search-en", "quant*", ("quant",))):
        wd.go(base + "/")
        wd.type("#search-q", q + "\ue007")
        for _ in range(50):
            if "/search" in wd.url():
                break
            time.sleep(0.1)
        n = int(wd.text("#result-count"))
        assert n >= 1, (q, n)
        marks = [wd.s("GET", f"/element/{e}/text") for e in wd.find_all("mark")]
        assert any(w in m.lower() for m in marks for w in want), (q, marks)
        if q.startswith("缓存"):
            assert wd.find_all('a.headline[href$="/pr/2001"]'), (q, "no #2001")
        wd.assert_inert("search " + q)
        wd.shot(name)
    # A malformed query is a clear message.
    wd.go(base + "/search?q=" + urllib.parse.quote('"unclosed'))
    assert "无法理解" in wd.text("h1")
    wd.shot("10-search-malformed")
    # English switch.
    wd.go(base + "/day/2026-09-11")
    wd.click("#switch-lang")
    assert "merged" in wd.text("#counts"), wd.text("#counts")
    wd.assert_inert("english day")
    wd.shot("11-day-en")


README_SHOTS = (("day", "/day/2026-09-08"), ("pr", "/pr/1248"), ("tags", "/tags?sort=recent"),
                ("aggregation", "/tags/perf"))
WIDTHS = (("desktop", 1100, 820), ("phone", 390, 820))


def test_digest_views_read_like_the_examples_and_readme_screenshots():
    wd, base = STATE["wd"], STATE["base"]
    # The day page: headline, paragraph, tags and the original-PR line per entry.
    # A day with a close read and a skip (the sample's verdicts move with the analysis).
    wd.go(base + "/day/2026-09-05")
    entries = wd.find_all("li.digest-entry")
    assert len(entries) >= 3, len(entries)
    paragraphs = [wd.s("GET", f"/element/{e}/text") for e in wd.find_all("li.digest-entry p.paragraph")]
    assert len(paragraphs) >= 3 and all(len(p) > 10 for p in paragraphs), paragraphs
    sources = [wd.s("GET", f"/element/{e}/text") for e in wd.find_all("li.digest-entry p.source")]
    assert len(sources) == len(entries), (len(sources), len(entries))
    for line in sources:
        assert re.match(r"原始 PR #\d+ · 作者 \S.* · 合并时间 2026-09-05 \d\d:\d\d$", line), line
    assert "值得精读" in wd.text("#close-links")
    assert wd.find_all("#close-links a[href^='#pr-']")
    # Close reads first; skip-verdict PRs one line each at the bottom.
    badges = [wd.s("GET", f"/element/{e}/text") for e in wd.find_all("li.digest-entry .badge")]
    assert badges[0] == "值得精读", badges
    assert wd.find_all("ul.skipped li"), "no skipped list"
    assert "`" not in wd.text("main"), "raw backticks on the day page"
    wd.assert_inert("digest day")
    # The aggregation chart: axes, tick labels, a title per bar, a legend.
    wd.go(base + "/tags/perf")
    assert wd.find_all("svg.chart line.axis"), "no axes"
    ticks = [wd.s("GET", f"/element/{e}/text") for e in wd.find_all("svg.chart text.tick")]
    assert "0" in ticks and "10" in ticks and any(re.match(r"\d\d-\d\d", t) for t in ticks), ticks
    assert wd.find_all("svg.chart text.axis-title")
    hover = wd.js("return Array.from(document.querySelectorAll('svg.chart rect.bar title'))"
                  ".map(t => t.textContent)")
    assert hover and all("这一周" in h for h in hover), hover
    assert "平均重要度" in wd.text("figcaption.legend")
    assert wd.find_all("ol.top li.digest-entry p.paragraph"), "aggregation entries without paragraphs"
    assert "重要度" in wd.text("ol.top li.digest-entry p.scores")
    wd.assert_inert("aggregation chart")
    # The tag list by the last four weeks.
    wd.go(base + "/tags?sort=recent")
    recent = [int(wd.s("GET", f"/element/{e}/text")) for e in wd.find_all("td.recent")]
    assert recent == sorted(recent, reverse=True), recent
    assert wd.find_all("svg.spark text.scale")
    assert "量化" in wd.text("table.tag-table") or "性能" in wd.text("table.tag-table")
    wd.assert_inert("tags by recent")
    # The PR page: a headline with code spans shows no backticks.
    wd.go(base + "/pr/1248")
    assert "`" not in wd.text("#headline")
    wd.assert_inert("sample pr")
    # The README's screenshots.
    docs = os.path.join(args.source_dir, "docs", "screenshots")
    for width_name, w, h in WIDTHS:
        wd.size(w, h)
        for name, path in README_SHOTS:
            wd.go(base + path)
            wd.assert_inert(f"{name} {width_name}")
            shot = f"readme-{name}-{width_name}"
            wd.shot(shot)
            if os.environ.get("MERGELENS_UPDATE_SCREENSHOTS") == "1":
                os.makedirs(docs, exist_ok=True)
                shutil.copy(os.path.join(SHOTS, shot + ".png"), os.path.join(docs, shot + ".png"))
    wd.size(1280, 1400)


def test_security_headers_and_traversal():
    base = STATE["base"]
    for path in ("/", "/pr/2001", "/tags", "/search?q=x", "/feed.xml"):
        with urllib.request.urlopen(base + path) as r:
            csp = r.headers.get("Content-Security-Policy", "")
            assert "default-src 'none'" in csp and "script-src" not in csp, csp
            assert r.headers.get("X-Content-Type-Options") == "nosniff"
    for path in ("/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                 "/static/..%2f..%2fetc%2fpasswd", "/static/%252e%252e%252fetc%252fpasswd"):
        s = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        s.close()
        status = int(data.split(b" ", 2)[1])
        assert status in (400, 404), (path, status)
        assert b"root:" not in data


if __name__ == "__main__":
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        print(f"SKIP: {CHROMIUM} or {CHROMEDRIVER} is not installed "
              "(apt-get install chromium chromium-driver; scripts/install-deps.sh does)")
        print("0 passed, 0 failed, 1 skipped")
        sys.exit(0)
    shutil.rmtree(SHOTS, ignore_errors=True)
    try:
        setup()
        main([test_day_pr_tag_aggregation_search,
              test_digest_views_read_like_the_examples_and_readme_screenshots,
              test_security_headers_and_traversal])
    finally:
        teardown()
