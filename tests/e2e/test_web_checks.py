"""Pages and feeds against the tools readers' software checks them with, on
the bundled sample, served and exported (issue 25):

- Nu HTML Checker (npm vnu-jar, one JVM over every served and exported
  page): 0 errors;
- axe-core in Debian's Chromium (puppeteer-core, tests/npm/page_checks.mjs)
  at 1280 and 390 px, and at 390 px in the dark theme, over a sample of
  served pages and four exported ones: 0 critical or serious violations; at
  390 px no page (every served one, the exported sample) is wider than the
  screen;
- every feed, served (absolute links from the Host) and exported (with
  --base-url, a path under the host), the week feeds among them: parsed by
  feedparser without a fault, and the W3C feed
  validator's rules we can state: absolute links, a self link naming the
  feed, ids unique, RFC 3339 dates, no Markdown backticks in type="text";
  zh and en entries with different ids; a tag feed titled by the tag's label
  in the feed's language and linking to the tag page; no Markdown backticks
  in the HTML content either;
- week pages (served and exported): autodiscovery of the week feed, the
  table "against the four weeks before" with header cells and a caption;
- English plurals over every served and exported English page and feed;
- the HTTP items: trailing slashes redirected, unknown tags 404 on pages,
  feeds and the API, /favicon.ico and /robots.txt, the stylesheet gzipped
  and If-None-Match: * answered 304.

The npm tools come from tests/npm (scripts/install-deps.sh runs npm ci).
Runs in the release build only (scripts/test.sh: CI time).
"""
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(__file__))
from common import Binary, main, make_sample, parse_args, stop  # noqa: E402

args = parse_args()
W = args.work_dir
NPM = os.path.join(args.source_dir, "tests", "npm")
VNU = os.path.join(NPM, "node_modules", "vnu-jar", "build", "dist", "vnu.jar")
BASE_URL = "https://lens.example.org/digest"
ATOM = "{http://www.w3.org/2005/Atom}"
STATE = {}


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("a", "link") and a.get("href"):
            self.links.append((tag, a.get("rel", ""), a.get("type", ""), a["href"]))


def links_of(html):
    p = Links()
    p.feed(html)
    return p.links


def get(path, headers=None, follow=True):
    req = urllib.request.Request(STATE["base"] + path, headers=headers or {})
    opener = urllib.request.build_opener() if follow else urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **kw):
        return None


def setup():
    repo, _ = make_sample(args)
    db = os.path.join(W, "db", "mergelens.db")
    os.makedirs(os.path.dirname(db), exist_ok=True)
    b = Binary(args.binary, db)
    b.run("ingest", repo)
    b.run("analyze")
    b.run("write", "--lang", "both")
    STATE["b"] = b
    server = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", server.stdout.readline())
    assert m
    STATE["server"] = server
    STATE["base"] = f"http://127.0.0.1:{m.group(1)}"
    # Every page reachable from the two home pages (the site's own links).
    pages, feeds, todo = {}, set(), ["/", "/?lang=en", "/search?q=cache", "/search?q=%E9%87%8F%E5%8C%96&lang=en"]
    while todo:
        path = todo.pop()
        if path in pages:
            continue
        status, headers, body = get(path)
        assert status == 200, (path, status)
        html = body.decode()
        pages[path] = html
        for tag, rel, typ, href in links_of(html):
            u = urllib.parse.urlsplit(href)
            if u.scheme or href.startswith("#") or u.path.startswith("/static/"):
                continue
            target = u.path + ("?" + u.query if u.query else "")
            if typ == "application/atom+xml" or u.path.endswith(".xml"):
                feeds.add(target)
            elif tag == "a" and target not in pages:
                todo.append(target)
    STATE["pages"], STATE["feeds"] = pages, sorted(feeds)
    out = os.path.join(W, "served")
    os.makedirs(out, exist_ok=True)
    for i, (path, html) in enumerate(sorted(pages.items())):
        with open(os.path.join(out, f"{i:03d}.html"), "w") as f:
            f.write(html)
    STATE["served_dir"] = out
    export = os.path.join(W, "export")
    b.run("export", "--out", export, "--base-url", BASE_URL + "/")
    STATE["export"] = export


def teardown():
    stop(STATE.get("server"))


def test_html_validator_finds_no_error():
    assert os.path.exists(VNU), f"{VNU} missing: run scripts/install-deps.sh (npm ci in tests/npm)"
    start = time.time()
    p = subprocess.run(["java", "-jar", VNU, "--format", "json", "--skip-non-html",
                        STATE["served_dir"], STATE["export"]], capture_output=True, text=True)
    messages = json.loads(p.stderr or '{"messages": []}')["messages"]
    errors = [m for m in messages if m.get("type") == "error"]
    n_served = len(STATE["pages"])
    n_export = sum(f.endswith(".html") for _, _, fs in os.walk(STATE["export"]) for f in fs)
    print(f"vnu: {n_served} served and {n_export} exported pages, {len(errors)} errors, "
          f"{time.time() - start:.1f} s")
    assert n_served >= 30 and n_export >= 100, (n_served, n_export)
    assert not errors, json.dumps(errors[:10], ensure_ascii=False, indent=1)


def test_axe_and_phone_width():
    # Each page family in both languages, the widest PR pages, an error page.
    pages = STATE["pages"]
    pick = ["/", "/?lang=en", "/week", "/week?lang=en", "/tags", "/tags?lang=en", "/search?q=cache",
            "/tags/perf",
            "/tags/perf?lang=en", "/search?q=%E9%87%8F%E5%8C%96&lang=en"]
    prs = sorted((p for p in pages if p.startswith("/pr/")), key=lambda p: -len(pages[p]))
    pick += prs[:4] + [p + "?lang=en" for p in prs[:2] if "?" not in p]
    days = [p for p in pages if p.startswith("/day/")]
    pick += days[:3]
    urls = [STATE["base"] + p for p in pick] + [STATE["base"] + "/tags/nonexistent"]
    # The export's own markup (no search form, relative links), read from disk.
    urls += ["file://" + os.path.join(STATE["export"], p) for p in
             ("index.html", "en/index.html", "tags/perf.html", "week/index.html", "en/week/index.html",
              next(p for p in prs if "?" not in p)[1:] + ".html")]
    out = os.path.join(W, "axe.json")
    start = time.time()
    subprocess.run(["node", os.path.join(NPM, "page_checks.mjs"), out, *urls], check=True)
    results = json.load(open(out))
    bad = [(r["url"], r["width"], r["scheme"], v) for r in results for v in r["violations"]
           if v["impact"] in ("critical", "serious")]
    wide = [(r["url"], r["scrollWidth"], r["wide"]) for r in results
            if r["width"] == 390 and r["scrollWidth"] > 390]
    print(f"axe: {len(results)} page views, {len(bad)} critical/serious, {len(wide)} wider than "
          f"390 px, {time.time() - start:.1f} s")
    assert len(results) == 3 * len(urls)
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)
    assert not wide, wide


def test_every_page_fits_a_phone():
    # Overflow over every crawled page at 390 px (axe above covers a sample,
    # exported pages included: the same templates, without the search form).
    urls = [STATE["base"] + p for p in sorted(STATE["pages"])]
    start = time.time()
    out = os.path.join(W, "phone.json")
    env = dict(os.environ, PAGE_CHECKS_VIEWS="390", PAGE_CHECKS_NO_AXE="1")
    subprocess.run(["node", os.path.join(NPM, "page_checks.mjs"), out, *urls], check=True, env=env)
    results = json.load(open(out))
    wide = [(r["url"], r["scrollWidth"], r["wide"]) for r in results if r["scrollWidth"] > 390]
    print(f"phone: {len(results)} served pages at 390 px, {len(wide)} wider, "
          f"{time.time() - start:.1f} s")
    assert len(results) == len(urls)
    assert not wide, wide


RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def check_feed(name, data, self_url):
    """feedparser plus the W3C validator's rules we can state. Returns the
    entry ids and the feed title."""
    import feedparser
    parsed = feedparser.parse(data)
    assert not parsed.bozo, (name, parsed.get("bozo_exception"))
    root = ET.fromstring(data)
    assert root.tag == ATOM + "feed", name
    assert root.get("{http://www.w3.org/XML/1998/namespace}lang") in ("zh-CN", "en"), name
    for el in root.iter():
        if el.tag in (ATOM + "updated", ATOM + "published"):
            assert RFC3339.match(el.text or ""), (name, el.text)
            assert not el.text.startswith("1970"), (name, el.text)
        if el.tag == ATOM + "link":
            href = el.get("href")
            assert href.startswith(("http://", "https://")), (name, "relative link", href)
        if el.tag in (ATOM + "title", ATOM + "summary") and el.get("type", "text") == "text":
            assert "`" not in (el.text or ""), (name, "Markdown in a text construct", el.text)
        if el.tag == ATOM + "content" and el.get("type") == "html":
            assert "`" not in (el.text or ""), (name, "Markdown in the HTML content", el.text[:300])
    selfs = [l.get("href") for l in root.findall(ATOM + "link") if l.get("rel") == "self"]
    assert selfs == [self_url], (name, selfs, self_url)
    alternates = [l.get("href") for l in root.findall(ATOM + "link") if l.get("rel") == "alternate"]
    assert len(alternates) == 1, (name, alternates)
    ids = [e.findtext(ATOM + "id") for e in root.findall(ATOM + "entry")]
    assert len(ids) == len(set(ids)), (name, "duplicate ids")
    for e in root.findall(ATOM + "entry"):
        assert e.find(ATOM + "author") is not None or root.find(ATOM + "author") is not None
        assert [l for l in e.findall(ATOM + "link") if l.get("rel") == "alternate"], name
    return set(ids), root.findtext(ATOM + "title"), alternates[0]


def test_served_feeds_are_valid_with_absolute_links():
    feeds = set(STATE["feeds"])
    assert "/feed.xml" in feeds and "/feed.xml?lang=en" in feeds, feeds
    assert "/feed/tags/quantization.xml" in feeds, feeds  # announced by the tag page
    assert "/week.xml" in feeds and "/week.xml?lang=en" in feeds, feeds  # by the week pages
    ids = {}
    for path in sorted(feeds):
        status, headers, body = get(path)
        assert status == 200 and headers["Content-Type"].startswith("application/atom+xml"), path
        ids[path], title, alternate = check_feed(path, body, STATE["base"] + path)
        if path.startswith("/feed/tags/"):
            tag = path[len("/feed/tags/"):].split(".xml")[0]
            assert alternate.startswith(STATE["base"] + "/tags/" + tag), (path, alternate)
    assert not ids["/feed.xml"] & ids["/feed.xml?lang=en"], "zh and en entries share ids"
    zh_title = check_feed("q", get("/feed/tags/quantization.xml")[2],
                          STATE["base"] + "/feed/tags/quantization.xml")[1]
    assert "量化" in zh_title and "quantization" not in zh_title, zh_title
    print(f"feeds: {len(feeds)} served feeds valid")


def test_exported_feeds_are_valid_with_absolute_links():
    export = STATE["export"]
    n = 0
    for folder, _, files in os.walk(export):
        for f in files:
            if not f.endswith(".xml"):
                continue
            rel = os.path.relpath(os.path.join(folder, f), export)
            data = open(os.path.join(folder, f), "rb").read()
            _, _, alternate = check_feed(rel, data, BASE_URL + "/" + rel)
            assert alternate.startswith(BASE_URL + "/"), (rel, alternate)
            for href in re.findall(rb'href="([^"]+)"', data):
                h = href.decode()
                if h.startswith(BASE_URL):
                    local = os.path.join(export, h[len(BASE_URL) + 1:])
                    assert os.path.exists(local), (rel, h)
            n += 1
    print(f"feeds: {n} exported feeds valid")
    assert n >= 20, n


def test_http_answers_readers_expect():
    for path, want in (("/day/2026-09-07/", "/day/2026-09-07"), ("/pr/1242/", "/pr/1242"),
                       ("/tags/perf/?lang=en", "/tags/perf?lang=en")):
        status, headers, _ = get(path, follow=False)
        assert status == 301 and headers["Location"] == want, (path, status, headers)
    for path in ("/tags/nonexistent", "/feed/tags/nonexistent.xml", "/api/tags/nonexistent",
                 "/tags/nonexistent?lang=en"):
        status, _, _ = get(path)
        assert status == 404, (path, status)
    status, headers, body = get("/favicon.ico")
    assert status == 200 and headers["Content-Type"] == "image/x-icon" and body[:4] == b"\0\0\1\0"
    status, headers, body = get("/robots.txt")
    assert status == 200 and b"User-agent" in body, body
    status, headers, body = get("/static/style.css", {"Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("Content-Encoding") == "gzip", headers
    assert b"overflow-wrap" in gzip.decompress(body)
    status, _, _ = get("/static/style.css", {"If-None-Match": "*"})
    assert status == 304, status
    status, _, _ = get("/static/style.css", {"If-None-Match": '"other"'})
    assert status == 200, status
    # Feeds link to the Host the reader asked for; without one (HTTP/1.0), to the bound address.
    status, _, body = get("/feed.xml", {"Host": "lens.example:8081"})
    assert b'rel="self" type="application/atom+xml" href="http://lens.example:8081/feed.xml"' in body
    u = urllib.parse.urlsplit(STATE["base"])
    with socket.create_connection((u.hostname, u.port)) as s:
        s.sendall(b"GET /feed.xml HTTP/1.0\r\n\r\n")
        answer = b"".join(iter(lambda: s.recv(65536), b""))
    assert ('href="' + STATE["base"] + '/feed.xml"').encode() in answer, answer[:2000]
    # The tag page announces its feed; no entry id is empty; a description.
    html = STATE["pages"]["/tags/perf"]
    assert re.search(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" '
                     r'href="/feed/tags/perf.xml">', html), html[:1500]
    assert 'id=""' not in html
    assert '<meta name="description" content="' in html
    # The week page announces its feed, and its table has headers and a caption.
    html = STATE["pages"]["/week"]
    assert re.search(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" '
                     r'href="/week.xml">', html), html[:1500]
    if '<table class="moves">' in html:
        assert "<caption>" in html and '<th scope="col">' in html and '<th scope="row">' in html
    # Plural forms in English, served and exported: never "1 lines", "1 regions".
    one = re.compile(r"\b1 (?:lines|files|regions|PRs|changes|places|weeks|days|modules|tags|"
                     r"matches|results|close reads|selective reads)\b")
    english = {p: t for p, t in STATE["pages"].items() if "lang=en" in p}
    for folder, _, files in os.walk(os.path.join(STATE["export"], "en")):
        for f in files:
            if f.endswith((".html", ".xml")):
                english[os.path.join(folder, f)] = open(os.path.join(folder, f)).read()
    for path, text in english.items():
        m = one.search(text)
        assert not m, (path, m and text[max(0, m.start() - 80):m.end() + 20])
    print(f"plurals: {len(english)} English pages and feeds without \"1 lines\"")


def python_with_feedparser():
    """The feeds are parsed by Debian's python3-feedparser (install-deps.sh). ctest runs the
    first python3 on PATH; where that one lacks feedparser (a pyenv or venv interpreter),
    the test runs again under Debian's."""
    try:
        import feedparser  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and subprocess.run(
            [system, "-c", "import feedparser"], capture_output=True).returncode == 0:
        os.execv(system, [system, *sys.argv])
    sys.exit("feedparser is not installed: run scripts/install-deps.sh (python3-feedparser)")


if __name__ == "__main__":
    python_with_feedparser()
    for tool in ("java", "node"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            sys.exit(f"{tool} is not installed: run scripts/install-deps.sh")
    try:
        setup()
        main([test_html_validator_finds_no_error, test_axe_and_phone_width,
              test_every_page_fits_a_phone, test_served_feeds_are_valid_with_absolute_links,
              test_exported_feeds_are_valid_with_absolute_links, test_http_answers_readers_expect])
    finally:
        teardown()
