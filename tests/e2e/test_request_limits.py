"""No single request takes the server down (issue 34), through the real binary:
one test per row of the issue's table, and the held notes.

- A nested extglob in a filter is answered at once on every surface (pages,
  feeds, /api/, digest, notes, a subscription, a delivery filter), with a time
  and memory bound; a page past its deadline is a 503; SIGTERM stops a busy
  server within seconds.
- Unique query strings do not grow the server (ignored parameters, 414, the
  cache's bounds).
- MCP: batches refused or capped by protocol version, with a time and memory
  bound; Host and Origin checked against DNS rebinding; strict Accept and
  Content-Type.
- Errors name no path or engine text (a NUL in a search).
- Weeks of any valid year; brace globs in URLs and in the configuration;
  `mcp --base-url` checked; impossible dates and reversed ranges refused.
- Held: the CORS preflight allows a fixed list of headers; `list` escapes
  bidi overrides; a failed export leaves nothing behind; serve warns about CORS.
(/api/v1 errors for traversal-shaped paths and Last-Modified on
/api/openapi.json belong to issue 35.)"""
import concurrent.futures
import http.client
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.parse

import common

args = common.parse_args()
W = args.work_dir
repo = os.path.join(W, "repo")
db = os.path.join(W, "store", "mergelens.db")
ml = common.Binary(args.binary, db)

EVIL = "*(*(*(*(?))))[Q]*"  # the pattern: minutes per path before
LONG = "a" * 60
GEN = 1500  # files of the generated change (2026-09-02)


def write(path, text):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def commit(when, title):
    common.git(repo, "add", "-A")
    env = dict(os.environ, **common.GIT_ENV, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", title], cwd=repo,
                   env=env, check=True, capture_output=True)


def make_repo():
    os.makedirs(repo)
    common.git(repo, "init", "-q", "-b", "main")
    write("src/sched/scheduler.py", "def schedule(q):\n    return sorted(q)\n")
    write("docs/guide.md", "# Guide\n")
    commit("2026-09-01T10:00:00Z", "Add the scheduler (#1)")
    write("docs/users.md", "# Users\n")
    commit("2026-09-01T11:00:00Z", "Docs for users (#2)")
    write(f"src/{LONG}.py", "X = 1\n")
    commit("2026-09-01T12:00:00Z", "Rename \u202etxt.exe and a long name (#3)")
    for i in range(GEN):
        write(f"gen/{'b' * 70}_{i:05}.txt", f"{i}\n")
    commit("2026-09-02T10:00:00Z", "Generated files (#4)")
    # A commit of 1906 (git's own date parser stops at 1970: written as an object).
    write("old.py", "Y = 1\n")
    common.git(repo, "add", "-A")
    tree = common.git(repo, "write-tree").stdout.decode().strip()
    head = common.git(repo, "rev-parse", "HEAD").stdout.decode().strip()
    obj = (f"tree {tree}\nparent {head}\nauthor T <t@example.com> -2000000000 +0000\n"
           f"committer T <t@example.com> -2000000000 +0000\n\nFrom 1906 (#5)\n").encode()
    sha = common.git(repo, "hash-object", "-t", "commit", "-w", "--stdin", "--literally",
                     input=obj).stdout.decode().strip()
    common.git(repo, "update-ref", "refs/heads/main", sha)


make_repo()
ml.run("run", repo, "--lang", "en", "--repo", "acme/limits")


# --- helpers ---

def serve(*extra):
    """`serve` on a free port, its stderr in a file: (process, base URL, stderr path)."""
    log = os.path.join(W, f"serve-{time.monotonic_ns()}.log")
    p = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0", *extra],
                         stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    line = p.stdout.readline()
    m = re.search(r"at (http://127\.0\.0\.1:(\d+))/", line)
    if not m:
        common.stop(p)
        raise AssertionError(f"no URL line: {line!r} {open(log).read()}")
    return p, m.group(1), log


def request(base, method, target, body=None, headers=None, timeout=30):
    """(status, headers dict lowercased, body text) of one request; Host may be overridden."""
    port = int(base.rsplit(":", 1)[1])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = dict(headers or {})
    c.putrequest(method, target, skip_host="Host" in h, skip_accept_encoding=True)
    for k, v in h.items():
        c.putheader(k, v)
    data = body.encode() if isinstance(body, str) else body
    if data is not None:
        c.putheader("Content-Length", str(len(data)))
    c.endheaders(data)
    r = c.getresponse()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode(errors="replace"))
    c.close()
    return out


def get(base, target, **kw):
    return request(base, "GET", target, **kw)


# A sanitizer build (scripts/test.sh sets ASAN_OPTIONS for it) holds freed memory in
# ASan's quarantine and maps shadow memory: its RSS says nothing of the server's bounds,
# which the release build's run of this file checks. Time bounds still hold there.
SANITIZED = bool(os.environ.get("ASAN_OPTIONS"))


def memory_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def q(value):
    return urllib.parse.quote(value, safe="")


def timed(fn, *a, **kw):
    t0 = time.monotonic()
    out = fn(*a, **kw)
    return out, time.monotonic() - t0


def run_bounded(*argv, env=None):
    """Runs the binary; returns (process, seconds, peak RSS of the child in MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.monotonic()
    p = subprocess.run([args.binary, *argv, "--db", db], capture_output=True, timeout=60, env=env)
    took = time.monotonic() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return p, took, max(peak, before) / 1024


def expect(p, code, *needles):
    err = p.stderr.decode(errors="replace")
    assert p.returncode == code, (p.returncode, err, p.stdout.decode(errors="replace")[-2000:])
    for n in needles:
        assert n in err, (n, err)


MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}


def mcp_post(base, message, version=None, **headers):
    h = dict(MCP_HEADERS, **headers)
    if version:
        h["MCP-Protocol-Version"] = version
    return request(base, "POST", "/mcp", body=json.dumps(message), headers=h)


def notes_call(i):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "release_notes", "arguments": {"since": "1900-01-01"}}}


# --- row 1: a nested extglob hung a thread for minutes ---

def test_a_nested_extglob_is_answered_at_once_on_every_surface():
    cfg = os.path.join(W, "evil.toml")
    with open(cfg, "w") as f:
        f.write(f'[subscriptions.evil]\npaths = ["{EVIL}"]\n\n'
                f'[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "SLACK_URL"\n'
                f'filter = {{ paths = ["{EVIL}"] }}\n')
    p, base, _ = serve("--config", cfg)
    try:
        for target in (f"/day/2026-09-01?paths={q(EVIL)}", f"/?paths={q(EVIL)}",
                       f"/feed.xml?paths={q(EVIL)}", f"/week/2026-W36?paths={q(EVIL)}",
                       f"/api/day/2026-09-01?paths={q(EVIL)}", "/s/evil", "/s/evil/feed.xml",
                       f"/day/2026-09-02?paths={q(EVIL)}"):
            (status, _, body), took = timed(get, base, target)
            assert status == 200, (target, status, body[-500:])
            assert took < 5, (target, took)
        assert SANITIZED or memory_kb(p.pid, "VmHWM") < 300 * 1024, memory_kb(p.pid, "VmHWM")
    finally:
        common.stop(p)
    for argv in (["digest", "--date", "2026-09-01", "--filter", f"paths={EVIL}"],
                 ["notes", "--since", "2026-08-01", "--filter", f"paths={EVIL}"],
                 ["deliver", "--date", "2026-09-01", "--to", "s", "--dry-run", "--config", cfg]):
        r, took, peak = run_bounded(*argv, env=dict(os.environ, SLACK_URL="https://hooks.example/x"))
        expect(r, 0)
        assert took < 10 and (SANITIZED or peak < 300), (argv, took, peak)


HEAVY_ALTS = "{[Q],[R]}{?,[!a]}{?,[!b]}{?,[!c]}"  # 16 brace alternatives


def get_status_of_long_url():
    p, base, _ = serve()
    try:
        return get(base, f"/day/2026-09-02?paths={q(heavy_glob())}")[0]
    finally:
        common.stop(p)


def heavy_glob():
    """The costliest glob a filter takes (near 16,384 automaton states), which keeps
    every state alive over a whole path segment and fails at its first character."""
    return "**/" + HEAVY_ALTS + "*(?|[!Q])" * 320


def test_a_page_past_its_deadline_is_a_503_and_sigterm_stops_a_busy_server():
    # Longer than a URL may be (4 KB, percent-encoded): a subscription holds it.
    assert get_status_of_long_url() == 414
    cfg = os.path.join(W, "heavy.toml")
    with open(cfg, "w") as f:
        f.write(f'[subscriptions.heavy]\npaths = ["{heavy_glob()}"]\n')
    target = "/s/heavy/day/2026-09-02?lang=en"
    # Past --timeout: 503, at once (the page takes seconds of CPU to build).
    p, base, log = serve("--timeout", "1", "--config", cfg)
    try:
        (status, _, body), took = timed(get, base, target, timeout=60)
        assert status == 503, (status, took, "a page under the costliest glob built within 1 s: "
                               "make the test's glob or day heavier", body[-300:])
        assert "took too long" in body, body[-500:]
        assert took < 4, took
    finally:
        common.stop(p)
    # Workers busy with no deadline, then SIGTERM: out within seconds, not minutes.
    p, base, _ = serve("--timeout", "0", "--config", cfg)
    try:
        pool = concurrent.futures.ThreadPoolExecutor(6)
        busy = [pool.submit(get, base, target + f"&authors=x{i}", timeout=120) for i in range(6)]
        time.sleep(1)
        assert not any(b.done() for b in busy), "the workers were not busy"
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
        stopped = time.monotonic() - t0
        assert stopped < 5, stopped
        for b in busy:
            try:
                b.result()
            except Exception:  # noqa: BLE001 - the server went away mid-answer
                pass
        pool.shutdown()
    finally:
        common.stop(p)


# --- row 2: unique query strings grew RSS to 3 GB ---

def test_unique_query_strings_do_not_grow_the_server():
    p, base, _ = serve("--cache-mb", "8")
    try:
        assert get(base, "/day/2026-09-01")[0] == 200
        status, _, body = get(base, "/day/2026-09-01?x=" + "q" * 16384)
        assert status == 414, (status, body[:200])
        before = memory_kb(p.pid, "VmRSS")
        # Unknown parameters are dropped: one page, one cache entry.
        for i in range(400):
            status, _, body = get(base, f"/day/2026-09-01?utm_{i}={'z' * 3000}{i}")
            assert status == 200, status
        # Unique filters are pages of their own: the cache's bounds hold them.
        for i in range(400):
            status, _, _ = get(base, f"/day/2026-09-01?authors=nobody{i}{'y' * 2000}")
            assert status == 200, status
        grown = memory_kb(p.pid, "VmRSS") - before
        assert SANITIZED or grown < 40 * 1024, f"RSS grew by {grown} KB"
        # The language switch of a page does not carry a dropped parameter.
        _, _, page = get(base, "/day/2026-09-01?utm_source=evil&tags=docs")
        assert "utm_source" not in page and "evil" not in page.split("<main")[0], page[:2000]
    finally:
        common.stop(p)


# --- row 3: a batch of 480 release_notes calls: 298 s of CPU, 2 GB ---

def test_mcp_batches_are_refused_or_capped():
    p, base, _ = serve()
    try:
        big = [notes_call(i) for i in range(480)]
        for version in ("2025-06-18", "2025-11-25", None):
            (status, _, body), took = timed(mcp_post, base, big, version)
            assert status == 400 and took < 2, (version, status, took)
            err = json.loads(body)["error"]
            assert err["code"] == -32600, err
            assert ("batches" in err["message"]) if version else ("at most 8" in err["message"]), err
        (status, _, body), took = timed(mcp_post, base, [notes_call(i) for i in range(8)],
                                        "2025-03-26")
        assert status == 200 and took < (20 if SANITIZED else 5), (status, took)
        answers = json.loads(body)
        assert len(answers) == 8 and len(body) <= 4 << 20, (len(answers), len(body))
        assert all(a["result"]["isError"] is False for a in answers[:1]), answers[0]
        assert SANITIZED or memory_kb(p.pid, "VmHWM") < 300 * 1024, memory_kb(p.pid, "VmHWM")
    finally:
        common.stop(p)


# --- row 4: DNS rebinding reached /mcp ---

def test_dns_rebinding_and_strict_media_types():
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    p, base, _ = serve()
    port = base.rsplit(":", 1)[1]
    try:
        status, _, body = mcp_post(base, ping, Host=f"evil.example:{port}",
                                   Origin=f"http://evil.example:{port}")
        assert status == 403, (status, body)
        assert mcp_post(base, ping, Host=f"evil.example:{port}")[0] == 403
        assert mcp_post(base, ping, Host=f"127.0.0.1:{port}")[0] == 200
        assert mcp_post(base, ping, Origin="http://localhost:6274")[0] == 200
        for accept in ("application/jsonx, text/event-streamy", "application/json",
                       "application/json, text/event-stream;q=0"):
            assert mcp_post(base, ping, Accept=accept)[0] == 406, accept
        assert mcp_post(base, ping, Accept="*/*")[0] == 200
        for ctype in ("application/json-seq", "application/jsonp", "text/plain"):
            assert mcp_post(base, ping, **{"Content-Type": ctype})[0] == 415, ctype
    finally:
        common.stop(p)
    p, base, _ = serve("--base-url", "https://lens.example.org/digest")
    try:
        assert mcp_post(base, ping, Host="lens.example.org",
                        Origin="https://lens.example.org")[0] == 200
        assert mcp_post(base, ping, Host="evil.example")[0] == 403
    finally:
        common.stop(p)


# --- row 5: a NUL in a search gave the store's path and FTS5's words ---

def test_search_errors_name_no_path_or_engine_text():
    p, base, log = serve()
    secrets = (db, os.path.dirname(db), "fts5", "FTS5", "unterminated", "sqlite", "syntax error")
    try:
        for target in ("/search?q=a%00b", "/search?q=%00", "/api/search?q=x%00%22",
                       "/api/v1/search?q=sched%00uler", "/all/search?q=%00%22x",
                       "/r/acme/limits/search?q=a%00", '/search?q=%22%00%22'):
            status, _, body = get(base, target)
            assert status in (200, 400), (target, status)
            for s in secrets:
                assert s not in body, (target, s, body[-800:])
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search", "arguments": {"q": "sched\u0000\"uler"}}}
        status, _, body = mcp_post(base, call)
        assert status == 200, status
        for s in secrets:
            assert s not in body, (s, body)
    finally:
        common.stop(p)


# --- row 7: weeks before 1970 and of year 0001 were refused ---

def test_weeks_of_any_valid_year():
    week = ml.run("digest", "--week", "1906-W33", "--format", "json", check=False)
    expect(week, 0)
    assert "From 1906" in week.stdout.decode(), week.stdout[:1000]
    expect(ml.run("digest", "--week", "0001-W01", check=False), 0)
    expect(ml.run("digest", "--week", "0000-W01", check=False), 2, "0000-W01")
    p, base, _ = serve()
    try:
        for target in ("/week/1906-W33", "/api/week/1906-W33", "/week/0001-W01", "/week/9999-W52"):
            status, _, body = get(base, target)
            assert status == 200, (target, status, body[-300:])
        assert "From 1906" in get(base, "/api/week/1906-W33?lang=en")[2]
        assert get(base, "/week/2021-W53")[0] == 400
    finally:
        common.stop(p)


# --- row 8: brace globs could not be used in any filter ---

def test_brace_globs_in_urls_and_in_the_configuration():
    md = json.loads(ml.run("digest", "--date", "2026-09-01", "--format", "json", "--filter",
                           "paths=**/*.{md,rst},nothing/**").stdout)
    text = json.dumps(md)
    assert "Docs for users" in text and "Add the scheduler" in text, text[:2000]
    assert "long name" not in text, text[:2000]
    cfg = os.path.join(W, "braces.toml")
    with open(cfg, "w") as f:
        f.write('[subscriptions.docs]\npaths = ["**/*.{md,rst}"]\n\n'
                '[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "SLACK_URL"\n'
                'filter = { paths = ["docs/**/*.{md,txt}"] }\n')
    r = ml.run("deliver", "--date", "2026-09-01", "--to", "s", "--dry-run", "--config", cfg,
               env=dict(os.environ, SLACK_URL="https://hooks.example/x"), check=False)
    expect(r, 0)
    assert "Docs for users" in r.stdout.decode() and "long name" not in r.stdout.decode()
    p, base, _ = serve("--config", cfg)
    try:
        status, _, day = get(base, "/day/2026-09-01?lang=en&paths=" + q("**/*.{md,rst}"))
        assert status == 200, status
        assert "Docs for users" in day and "long name" not in day, day[-2000:]
        status, _, sub = get(base, "/s/docs/day/2026-09-01?lang=en")
        assert status == 200 and "Docs for users" in sub and "long name" not in sub
        assert get(base, "/day/2026-09-01?paths=" + q("**/*.{md"))[0] == 400
    finally:
        common.stop(p)


# --- row 9: mcp --base-url took javascript: ---

def test_base_url_is_checked_the_same_way_everywhere():
    for argv in (["mcp", "--base-url", "javascript:alert(1)//"],
                 ["serve", "--base-url", "javascript:alert(1)//"],
                 ["export", "--out", os.path.join(W, "x"), "--base-url", "javascript:alert(1)//"],
                 ["mcp", "--base-url", "https://ok.example/?q=1"],
                 # run checks it before any work, whether it serves, exports or neither.
                 ["run", repo, "--base-url", "javascript:alert(1)//"]):
        expect(ml.run(*argv, check=False, input=b""), 2, "--base-url")
    cfg = os.path.join(W, "badsite.toml")
    with open(cfg, "w") as f:
        f.write('[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "SLACK_URL"\n'
                'site_url = "javascript:alert(1)//"\n')
    expect(ml.run("deliver", "--date", "2026-09-01", "--to", "s", "--dry-run", "--config", cfg,
                  env=dict(os.environ, SLACK_URL="https://hooks.example/x"), check=False), 2,
           "site_url")


# --- row 10: impossible dates accepted, reversed ranges silently empty ---

def test_impossible_dates_and_reversed_ranges_are_refused():
    for argv in (["notes", "--since", "2026-02-30"], ["notes", "--since", "0000-01-01"],
                 ["list", "--since", "2026-02-30"], ["list", "--until", "2025-02-29"],
                 ["digest", "--date", "2026-02-30"], ["ingest", repo, "--since", "2026-13-01"]):
        expect(ml.run(*argv, check=False), 2, argv[-1])
    expect(ml.run("list", "--since", "2026-09-10", "--until", "2026-08-01", check=False), 2,
           "--until 2026-08-01 is not after --since 2026-09-10")
    # An empty range is refused by notes as by list, /api/v1 and MCP.
    expect(ml.run("notes", "--since", "2026-09-01", "--until", "2026-09-01", check=False), 2,
           "the range is empty")
    p, base, _ = serve()
    try:
        status, _, body = get(base, "/api/v1/tags/docs?from=2026-09-10&to=2026-08-01")
        assert status == 400 and "not after" in body, (status, body)
        assert get(base, "/day/2026-02-30")[0] == 400
    finally:
        common.stop(p)


# --- held notes ---

def test_held_preflight_bidi_export_and_cors_warning():
    p, base, log = serve()
    try:
        status, headers, _ = request(base, "OPTIONS", "/api/v1/day", headers={
            "Origin": "https://a.example", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "If-None-Match, X-Evil, " + "x" * 8000})
        assert status == 204, status
        assert headers.get("access-control-allow-headers") == "if-none-match", headers
    finally:
        common.stop(p)
    assert "CORS" in open(log).read(), open(log).read()
    listed = ml.run("list").stdout.decode()
    assert "\u202e" not in listed and "\\u202e" in listed, listed
    # An export that fails midway (files larger than 20 KB cannot be written)
    # leaves neither the folder nor partial files.
    out = os.path.join(W, "site-full")

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    r = subprocess.run([args.binary, "export", "--out", out, "--db", db], capture_output=True,
                       preexec_fn=small_files)
    assert r.returncode != 0, r.stdout[-500:]
    assert not os.path.exists(out), os.listdir(out)
    assert not [n for n in os.listdir(W) if n.startswith(".site-full")], os.listdir(W)
    expect(ml.run("export", "--out", out, check=False), 0)
    assert os.path.exists(os.path.join(out, "index.html"))
    # Again over it: replaced in place, others' files kept.
    with open(os.path.join(out, "CNAME"), "w") as f:
        f.write("lens.example.org\n")
    expect(ml.run("export", "--out", out, check=False), 0)
    assert os.path.exists(os.path.join(out, "CNAME"))
    assert not [n for n in os.listdir(W) if n.startswith(".site-full")], os.listdir(W)


common.main([test_a_nested_extglob_is_answered_at_once_on_every_surface,
             test_a_page_past_its_deadline_is_a_503_and_sigterm_stops_a_busy_server,
             test_unique_query_strings_do_not_grow_the_server,
             test_mcp_batches_are_refused_or_capped,
             test_dns_rebinding_and_strict_media_types,
             test_search_errors_name_no_path_or_engine_text,
             test_weeks_of_any_valid_year,
             test_brace_globs_in_urls_and_in_the_configuration,
             test_base_url_is_checked_the_same_way_everywhere,
             test_impossible_dates_and_reversed_ranges_are_refused,
             test_held_preflight_bidi_export_and_cors_warning])
