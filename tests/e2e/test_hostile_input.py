"""Hostile input from a watched repository and bad arguments (issue 22): commit
text cannot drive the terminal, commit dates of year 10000 and before 1970
break no page, digest or export, numeric options are range-checked, a named
configuration file must exist, a malformed configuration file in the watched
repository is a warning, and repository names are checked where they enter."""
import os
import subprocess
import urllib.error
import urllib.request

import common

args = common.parse_args()
W = args.work_dir
repo = os.path.join(W, "repo")
db = os.path.join(W, "store", "mergelens.db")
ml = common.Binary(args.binary, db)

EVIL = b"Evil \x1b]0;pwned\x07title \x1b[31mred\x1b[0m\rcover \xc2\x9b2J (#2)"


def make_repo():
    os.makedirs(repo)
    common.git(repo, "init", "-q", "-b", "main")
    commits = [
        (b"Normal change (#1)", {"src/a.py": b"def f(x):\n    return x\n"}),
        (EVIL, {"src/b.py": b"def g(x):\n    return x + 1\n"}),
        # The watched repository's own configuration files, malformed.
        (b"Add repository configuration (#3)",
         {".github/labeler.yml": b"docs:\n  - changed-files:\n    - any-glob-to-any-file: [\n",
          "mergelens.toml": b"[roles\nbroken = \n",
          "src/c.py": b"def h(x):\n    return x * 2\n"}),
    ]
    for k, (subject, files) in enumerate(commits, 1):
        for path, body in files.items():
            os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
            with open(os.path.join(repo, path), "wb") as f:
                f.write(body)
        common.git(repo, "add", "-A")
        msg = subject + b"\n\nBody \x1b[2J with \r a carriage return.\n"
        common.git(repo, "commit", "-q", "--cleanup=verbatim", "-F", "-",
                   f"--date=2026-09-01T0{k}:00:00Z", input=msg)


make_repo()


def expect(p, code, *needles):
    err = p.stderr.decode(errors="replace")
    assert p.returncode == code, (p.returncode, err, p.stdout.decode(errors="replace")[-2000:])
    for n in needles:
        assert n in err, (n, err)
    assert "AddressSanitizer" not in err and "internal error" not in err, err


def test_a_bad_repository_config_is_a_warning_not_a_stop():
    p = ml.run("run", repo, "--lang", "en", "--repo", "acme/hostile", check=False)
    expect(p, 0, "warning", ".github/labeler.yml:", "mergelens.toml:")
    out = p.stdout.decode(errors="replace")
    assert "3 analysed" in out and "3 guides written" in out, out
    # Every pass: a second run warns again and still succeeds.
    expect(ml.run("run", repo, "--lang", "en", "--repo", "acme/hostile", check=False), 0,
           "warning", "mergelens.toml:")


def no_raw_controls(text, what, c1=True):
    for bad in (b"\x1b", b"\x07", b"\r") + ((b"\xc2\x9b",) if c1 else ()):
        assert bad not in text, (what, bad, text[:3000])


def test_list_and_show_escape_control_characters():
    listed = ml.run("list").stdout
    no_raw_controls(listed, "list")
    assert b"\\x1b]0;pwned\\x07title" in listed and b"\\x0dcover" in listed, listed
    assert b"\\u009b2J" in listed, listed
    for ref in ("#2", "2"):
        shown = ml.run("show", ref, "--facts", "--patch").stdout
        no_raw_controls(shown, "show " + ref)
        assert b"\\x1b[31mred" in shown, shown[:2000]
        assert b"Body \\x1b[2J with \\x0d a carriage return.\n" in shown, shown[:2000]
    # JSON stays JSON: the control characters are escaped by the JSON writer.
    js = ml.run("list", "--json").stdout
    no_raw_controls(js, "list --json", c1=False)  # U+009B is plain JSON
    assert b"\\u001b]0;pwned" in js, js


def test_numeric_options_are_range_checked():
    for argv, needle in [
        (["serve", "--loops", "100000"], "--loops"),
        (["serve", "--port", "70000"], "--port"),
        (["serve", "--port=-1"], "--port"),
        (["serve", "--workers", "0"], "--workers"),
        (["run", repo, "--port", "65536", "--serve"], "--port"),
        (["run", repo, "--watch=-5"], "--watch"),
        (["sync", "acme/hostile", "--max-pages", "0"], "--max-pages"),
        (["worker", "--lease", "0"], "--lease"),
        (["list", "--limit=-1"], "--limit"),
        (["write", "--llm-concurrency", "100000"], "--llm-concurrency"),
    ]:
        expect(ml.run(*argv, check=False), 2, needle)


def test_schedule_beyond_a_year_is_refused():
    expect(ml.run("repos", "add", "acme/x", "--path", repo, "--schedule", "2562047788015216h",
                  check=False), 2, "2562047788015216h")


def test_a_named_config_file_must_exist():
    missing = os.path.join(W, "no-such.toml")
    for argv in (["run", repo, "--config", missing], ["write", "--config", missing],
                 ["deliver", "--due", "--config", missing]):
        expect(ml.run(*argv, check=False), 2, "no-such.toml")


def test_repository_names_are_checked_where_they_enter():
    for bad in ("..", "acme/..", "./x", "a/b/c", "a\r\nb", "a b", "acme/"):
        expect(ml.run("list", "--repo", bad, check=False), 2, "--repo", "not valid")
        expect(ml.run("repos", "add", bad, "--path", repo, check=False), 2, "not valid")
    clone = os.path.join(W, "dotdot")
    common.git(W, "clone", "-q", repo, clone)
    common.git(clone, "remote", "set-url", "origin", "https://github.com/evil/..")
    other = common.Binary(args.binary, os.path.join(W, "other", "mergelens.db"))
    expect(other.run("ingest", clone, check=False), 2, "origin remote", "--repo")
    # --repo overrides a bad remote.
    other.run("ingest", clone, "--repo", "evil/fine")


def make_dates_repo(path):
    """Three commits: a normal one, one dated in year 10000 (git takes it), and
    one dated 1906 (written as an object: git's date parser stops at 1970)."""
    os.makedirs(path)
    common.git(path, "init", "-q", "-b", "main")
    env = dict(os.environ, **common.GIT_ENV)
    for name, date, subject in (("a", "2026-09-01T10:00:00Z", "Normal change (#1)"),
                                ("b", "@253402300800 +0000", "From the year 10000 (#2)")):
        with open(os.path.join(path, name), "w") as f:
            f.write(name + "\n")
        common.git(path, "add", name)
        subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", subject],
                       cwd=path, check=True, capture_output=True,
                       env=dict(env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date))
    with open(os.path.join(path, "c"), "w") as f:
        f.write("c\n")
    common.git(path, "add", "c")
    tree = common.git(path, "write-tree").stdout.decode().strip()
    head = common.git(path, "rev-parse", "HEAD").stdout.decode().strip()
    obj = (f"tree {tree}\nparent {head}\nauthor T <t@example.com> -2000000000 +0000\n"
           f"committer T <t@example.com> -2000000000 +0000\n\nFrom 1906 (#3)\n").encode()
    sha = common.git(path, "hash-object", "-t", "commit", "-w", "--stdin", "--literally",
                     input=obj).stdout.decode().strip()
    common.git(path, "update-ref", "refs/heads/main", sha)


def test_hostile_commit_dates_break_no_page_digest_or_export():
    dates = os.path.join(W, "dates")
    make_dates_repo(dates)
    dm = common.Binary(args.binary, os.path.join(W, "dates-store", "mergelens.db"))
    expect(dm.run("run", dates, "--lang", "both", "--repo", "acme/dates", check=False), 0)
    listed = dm.run("list").stdout.decode()
    # Year 10000 is stored as the last instant of four-digit years; 1906 as it is.
    assert "9999-12-30" in listed and "1906-08-16" in listed, listed
    assert "10000-01-01" not in listed, listed
    expect(dm.run("digest", "--date", "1906-08-16", check=False), 0)
    expect(dm.run("digest", "--date", "9999-12-30", check=False), 0)
    for extra in ([], ["--since", "2026-09-01"], ["--since", "1900-01-01"]):
        site = os.path.join(W, "dates-site" + "".join(extra))
        expect(dm.run("export", "--out", site, *extra, check=False), 0)
        assert os.path.exists(os.path.join(site, "index.html")), extra
    port = common.free_port()
    p = subprocess.Popen([args.binary, "serve", "--db", dm.db, "--port", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        common.wait_serving(base)
        for path in ("/", "/?lang=en", "/day/1906-08-16", "/day/9999-12-30", "/pr/2", "/pr/3",
                     "/feed.xml"):
            try:
                with urllib.request.urlopen(base + path, timeout=10) as r:
                    status = r.status
            except urllib.error.HTTPError as e:
                status = e.code
            assert status == 200, (path, status)
    finally:
        common.stop(p)


common.main([test_a_bad_repository_config_is_a_warning_not_a_stop,
             test_hostile_commit_dates_break_no_page_digest_or_export,
             test_list_and_show_escape_control_characters,
             test_numeric_options_are_range_checked, test_schedule_beyond_a_year_is_refused,
             test_a_named_config_file_must_exist,
             test_repository_names_are_checked_where_they_enter])
