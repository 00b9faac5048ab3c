"""A UTF8 PostgreSQL store keeps commit text byte for byte (issue 22): commits
with Chinese and English text, with bytes that are not UTF-8 (in paths and
patches; ingest reads such commit text as Latin-1) and with a character of
the block the escape uses go SQLite -> a SQL_ASCII PostgreSQL
store (the kind mergelens needed before) -> a UTF8 one -> SQLite again with
`migrate-store`, and every change's text is byte-compared with the original
after the round trip. On the UTF8 store the server holds the text as
characters, and search and the day pages find Chinese and English words.
PostgreSQL only: skipped (77) unless MERGELENS_TEST_PG names a server."""
import os
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import common

if not os.environ.get("MERGELENS_TEST_PG"):
    print("MERGELENS_TEST_PG is not set: skipped")
    sys.exit(77)

args = common.parse_args()
W = args.work_dir
repo = os.path.join(W, "repo")
first = os.path.join(W, "first", "mergelens.db")
last = os.path.join(W, "last", "mergelens.db")
server = os.environ["MERGELENS_TEST_PG"]
ascii_url = common.pg_url("e2e_utf8_migrate_ascii")
utf8_url = common.pg_url("e2e_utf8_migrate_utf8")

COMMITS = [
    # (subject, body, author name, {path: content})
    (b"\xe4\xbf\xae\xe5\xa4\x8d\xe7\xbc\x93\xe5\xad\x98\xe5\x91\xbd\xe4\xb8\xad\xe7\x8e\x87 (#11)",
     "缓存命中率在多轮对话中下降。\n\n第二段：中文说明。\n".encode(), "张伟".encode(),
     {"src/缓存/命中.py".encode(): "def 命中(x):\n    return x  # 中文注释\n".encode()}),
    (b"Fix the scheduler's queue order (#12)", b"English body.\n\nSecond paragraph.\n",
     b"Ada Lovelace", {b"src/sched/queue.py": b"def order(q):\n    return sorted(q)\n"}),
    # Latin-1 bytes, a lone continuation byte, an encoded surrogate, a byte of
    # the block the escape uses (U+10FE41), and bytes that are no UTF-8 at all.
    (b"Caf\xe9 \xff\xfe r\xe9sum\xe9 \x80 \xed\xa0\x80 \xf4\x8f\xb9\x81 (#13)",
     b"Body in Latin-1: na\xefve fa\xe7ade.\n\n\xc3\x28 broken pair\n", b"J\xf6rg M\xfcller",
     {b"src/\xe9t\xe9/caf\xe9.py": b"s = '\xe9\xff'\nt = '\xe4\xb8\xad'\n"}),
]


def make_repo():
    os.makedirs(repo)
    common.git(repo, "init", "-q", "-b", "main")
    for k, (subject, body, author, files) in enumerate(COMMITS, 1):
        for path, content in files.items():
            full = os.path.join(repo.encode(), path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(content)
        common.git(repo, "add", "-A")
        env = {k.encode(): v.encode() for k, v in {**os.environ, **common.GIT_ENV}.items()}
        env[b"GIT_AUTHOR_NAME"] = author
        env[b"GIT_COMMITTER_DATE"] = env[b"GIT_AUTHOR_DATE"] = f"2026-09-0{k}T10:00:00Z".encode()
        subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "i18n.commitEncoding=UTF-8",
                        "commit", "-q", "--cleanup=verbatim", "-F", "-"], cwd=repo, env=env,
                       input=subject + b"\n\n" + body, check=True, capture_output=True)


def texts(db):
    """Every change's text as bytes, keyed by sha: subject, body, author,
    commits, labels, files with their paths and patches."""
    c = sqlite3.connect(db)
    c.text_factory = bytes
    out = {}
    for (cid, sha, *row) in c.execute(
            "SELECT id, sha, number, title, body, author_name, author_email, merged_at, url "
            "FROM changes"):
        files = c.execute("SELECT idx, path, old_path, status, binary, additions, deletions, "
                          "patch FROM change_files WHERE change_id = ? ORDER BY idx",
                          (cid,)).fetchall()
        commits = c.execute("SELECT idx, sha, author_name, author_email, message FROM "
                            "change_commits WHERE change_id = ? ORDER BY idx", (cid,)).fetchall()
        labels = c.execute("SELECT name FROM change_labels WHERE change_id = ? ORDER BY name",
                           (cid,)).fetchall()
        out[sha] = (row, files, commits, labels)
    return out


def migrate(src, dst):
    p = subprocess.run([args.binary, "migrate-store", "--db", src, "--to", dst],
                       capture_output=True)
    assert p.returncode == 0, (src, dst, p.stderr.decode(errors="replace"))
    assert b"3 changes" in p.stdout, p.stdout


def test_sql_ascii_to_utf8_and_back_keeps_every_byte():
    make_repo()
    common.Binary(args.binary, first).run("ingest", repo, "--repo", "acme/text")
    before = texts(first)
    assert len(before) == 3
    # Sanity: the bytes that are not UTF-8 reached the store as they are in
    # paths (ingest reads commit text that is not UTF-8 as Latin-1), and the
    # subject holds a character of the block the escape uses.
    assert any(b"\xf4\x8f\xb9\x81" in row[1] for row, *_ in before.values())
    assert any(f[1] == b"src/\xe9t\xe9/caf\xe9.py" for _, files, *_ in before.values()
               for f in files)

    common.psql(server, "DROP DATABASE IF EXISTS e2e_utf8_migrate_ascii WITH (FORCE)",
                "CREATE DATABASE e2e_utf8_migrate_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' "
                "LC_CTYPE 'C' TEMPLATE template0",
                "DROP DATABASE IF EXISTS e2e_utf8_migrate_utf8 WITH (FORCE)",
                "CREATE DATABASE e2e_utf8_migrate_utf8 ENCODING 'UTF8' TEMPLATE template0")
    assert common.pg_rows(ascii_url, "SHOW server_encoding") == [("SQL_ASCII",)]
    assert common.pg_rows(utf8_url, "SHOW server_encoding") == [("UTF8",)]
    migrate(first, ascii_url)
    migrate(ascii_url, utf8_url)
    migrate(utf8_url, last)
    after = texts(last)
    assert after.keys() == before.keys()
    for sha in before:
        assert after[sha] == before[sha], (sha, before[sha], after[sha])

    # The UTF8 database holds valid text as characters (other tools read it,
    # the server compares it): the Chinese subject and path as they are.
    rows = common.pg_rows(utf8_url, "SELECT title, length(title) FROM changes WHERE number = 11")
    assert rows == [("修复缓存命中率", "7")], rows
    rows = common.pg_rows(utf8_url, "SELECT count(*) FROM change_files WHERE path LIKE '%命中.py'")
    assert rows == [("1",)], rows


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode(errors="replace")


def test_utf8_store_searches_and_shows_chinese_and_english():
    ml = common.Binary(args.binary, utf8_url)
    ml.run("analyze")
    ml.run("write", "--lang", "both")
    shown = ml.run("show", "13").stdout
    assert "J\u00f6rg M\u00fcller".encode() in shown, shown[:500]
    port = common.free_port()
    p = subprocess.Popen([args.binary, "serve", "--db", utf8_url, "--port", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                get(base + "/")
                break
            except OSError:
                time.sleep(0.2)
        for term, number in (("缓存", "11"), ("命中率", "11"), ("scheduler", "12"),
                             ("queue order", "12"), ("caf*", "13"),
                             ("résumé", "13")):
            page = get(base + "/search?q=" + urllib.parse.quote(term))
            assert f"/pr/{number}" in page, (term, page[:3000])
            for other in {"11", "12", "13"} - {number}:
                assert f"/pr/{other}\"" not in page, (term, other)
        day = get(base + "/day/2026-09-01")
        assert "张伟" in day and "/pr/11" in day, day[:2000]
    finally:
        common.stop(p)


common.main([test_sql_ascii_to_utf8_and_back_keeps_every_byte,
             test_utf8_store_searches_and_shows_chinese_and_english])
