"""Delivery with the real binary:

- e-mail: `mergelens deliver --date D --to mail` against a local SMTP server
  the test starts (python3-aiosmtpd, STARTTLS with a throwaway self-signed
  certificate, AUTH): the parsed message is multipart/alternative with a
  plain-text and an HTML part, its Chinese text and code spans survive, the
  subject is RFC 2047-encoded, hostile titles stay inert in the HTML, the
  password appears nowhere; a second run sends nothing; a refused login is
  exit 1 and the next good run sends the day once;
- `run` delivers the newest closed day to a webhook (a local stand-in for a
  WeCom group robot) once, and a later run sends nothing again;
- bad configuration (unknown target, missing secret, malformed URL, a secret
  written in the file) is exit 2 with a message naming it.
"""
import email
import email.policy
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from common import Binary, git, main, make_sample, parse_args, stop  # noqa: E402

args = parse_args()
W = args.work_dir
PASSWORD = "pw-Zq7-secret"
HOSTILE = '<script>window.__pwned=1</script> Fix `kv_cache` 缓存命中 <img src=x onerror=alert(1)>'
STATE = {}


def smtp_python():
    """An interpreter that has aiosmtpd (Debian's python3 when the test runs
    under another one)."""
    for py in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([py, "-c", "import aiosmtpd"], capture_output=True).returncode == 0:
            return py
    return None


def setup():
    repo, _ = make_sample(args)
    # A hostile PR on a day of its own (2026-09-12), after the sample's days.
    os.makedirs(os.path.join(repo, "python", "lumen", "cache"), exist_ok=True)
    with open(os.path.join(repo, "python", "lumen", "cache", "kv_hostile.py"), "w") as f:
        # The guide's Chinese headline is built from the facts, not the title: the
        # hostile text reaches the digest as the code's own words, a comment it adds.
        f.write("def hit(cache, key):\n    # " + HOSTILE + " when the key is present\n"
                "    if key in cache:\n        return cache[key]\n    return None\n")
    git(repo, "add", "-A")
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-09-12T09:30:00Z",
               GIT_COMMITTER_DATE="2026-09-12T09:30:00Z", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_AUTHOR_NAME="Eve", GIT_AUTHOR_EMAIL="eve@example.com",
               GIT_COMMITTER_NAME="Eve", GIT_COMMITTER_EMAIL="eve@example.com")
    subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", HOSTILE + " (#2001)"],
                   cwd=repo, env=env, check=True, capture_output=True)
    db = os.path.join(W, "db", "mergelens.db")
    b = Binary(args.binary, db)
    b.run("ingest", repo)
    b.run("analyze")
    b.run("write", "--lang", "both")
    STATE.update(repo=repo, db=db, b=b)
    # A throwaway certificate for 127.0.0.1.
    cert, key = os.path.join(W, "cert.pem"), os.path.join(W, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    out = os.path.join(W, "mail")
    os.makedirs(out)
    proc = subprocess.Popen([STATE["py"], os.path.join(os.path.dirname(__file__), "smtp_server.py"),
                             cert, key, "digest-bot", PASSWORD, out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("port "), (line, proc.stderr.read() if proc.poll() is not None else "")
    STATE.update(smtp=proc, port=int(line.split()[1]), cert=cert, out=out)


def teardown():
    stop(STATE.get("smtp"))
    if "httpd" in STATE:
        STATE["httpd"].shutdown()


def config(extra=""):
    path = os.path.join(W, "mergelens.toml")
    with open(path, "w") as f:
        f.write(f"""[[deliver]]
name = "mail"
kind = "email"
smtp_url = "smtp://127.0.0.1:{STATE['port']}"
username = "digest-bot"
password_env = "SMTP_PASSWORD"
from = "mergelens 摘要 <digest@example.org>"
to = ["dev@example.org", "lead@example.org"]
ca_file = "{STATE['cert']}"
site_url = "https://lens.example.org"
timeout_s = 20
max_retries = 0
""" + extra)
    return path


def deliver(*a, password=PASSWORD, check=True):
    env = dict(os.environ, SMTP_PASSWORD=password)
    return STATE["b"].run("deliver", "--config", config(), *a, check=check, env=env)


def messages():
    return sorted(os.listdir(STATE["out"]), key=lambda n: int(n.split(".")[0]))


def test_email_has_both_parts_and_chinese_and_code_survive():
    p = deliver("--date", "2026-09-12", "--to", "mail")
    out = p.stdout.decode()
    assert "1 of 1 part sent" in out, out
    assert messages() == ["1.eml"], messages()
    raw = open(os.path.join(STATE["out"], "1.eml"), "rb").read()
    assert PASSWORD.encode() not in raw
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert "2026-09-12" in msg["Subject"] and "合并" in msg["Subject"], msg["Subject"]
    assert b"=?UTF-8?B?" in raw  # the subject is encoded on the wire
    assert msg["Message-ID"].startswith("<mergelens.2026-09-12.mail.1of1."), msg["Message-ID"]
    assert "digest@example.org" in msg["From"] and "摘要" in msg["From"]
    alt = [part for part in msg.walk() if part.get_content_type() == "multipart/alternative"]
    assert alt, [part.get_content_type() for part in msg.walk()]
    kinds = [part.get_content_type() for part in alt[0].iter_parts()]
    assert kinds == ["text/plain", "text/html"], kinds
    plain = alt[0].get_body(preferencelist=("plain",)).get_content()
    html = alt[0].get_body(preferencelist=("html",)).get_content()
    for text in (plain, html):
        assert "缓存命中" in text and "原始 PR #2001" in text and "合并时间" in text, text
    assert "`kv_cache`" in plain, plain
    assert "<code>kv_cache</code>" in html, html
    # Hostile text is text: inert in the HTML part.
    assert "<script" not in html and "<img" not in html, html
    assert "&lt;script&gt;" in html
    assert 'href="https://lens.example.org/pr/2001"' in html
    # What mail clients expect of a list message: parsed without defects, the
    # list headers (RFC 2369, RFC 2919), a viewport for phones.
    strict = email.message_from_bytes(raw, policy=email.policy.strict)
    defects = [(part.get_content_type(), part.defects) for part in strict.walk() if part.defects]
    assert not defects, defects
    for header in strict.keys():
        assert not strict[header].defects, (header, strict[header].defects)
    # Nothing honours an unsubscribe request for this target: no List-Unsubscribe.
    assert msg["List-Unsubscribe"] is None and msg["List-Unsubscribe-Post"] is None
    assert msg["List-Id"] == "<mail.mergelens.example.org>", msg["List-Id"]
    check_wire_form(raw)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html, html
    # A second run sends nothing.
    again = deliver("--date", "2026-09-12", "--to", "mail").stdout.decode()
    assert "already delivered" in again, again
    assert messages() == ["1.eml"]


def check_wire_form(raw):
    """Header lines of at most 78 characters (RFC 5322 2.1.1), folded;
    one multipart/alternative at the root, no one-part multipart/mixed."""
    head = raw.split(b"\r\n\r\n", 1)[0]
    for line in head.split(b"\r\n"):
        # A single word longer than a line (a long target's Message-ID) cannot
        # be folded: it stands alone on its continuation line (RFC 5322 2.1.1's
        # limit is a SHOULD; 998 is the MUST).
        alone = line.startswith(b" ") and b" " not in line[1:]
        assert len(line) <= 78 or (alone and len(line) <= 998), (len(line), line)
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg.get_content_type() == "multipart/alternative", msg.get_content_type()
    assert "multipart/mixed" not in [p.get_content_type() for p in msg.walk()]


def test_one_click_unsubscribe_where_it_is_honoured():
    # An operator's list manager takes RFC 8058 one-click POSTs at this address.
    url = "https://lens.example.org/lists/unsubscribe?list=mergelens-digest-for-the-whole-team"
    extra = (f'\n[[deliver]]\nname = "list-with-a-long-name-for-the-whole-team"\nkind = "email"\n'
             f'smtp_url = "smtp://127.0.0.1:{STATE["port"]}"\nusername = "digest-bot"\n'
             f'password_env = "SMTP_PASSWORD"\nfrom = "mergelens 每日摘要机器人 <digest@example.org>"\n'
             f'to = ["dev@example.org", "lead@example.org", "ops@example.org", '
             f'"Someone With A Long Name <someone.with.a.long.name@example.org>"]\n'
             f'ca_file = "{STATE["cert"]}"\nunsubscribe = "{url}"\ntimeout_s = 20\nmax_retries = 0\n')
    before = set(messages())
    env = dict(os.environ, SMTP_PASSWORD=PASSWORD)
    STATE["b"].run("deliver", "--config", config(extra), "--date", "2026-09-12", "--to",
                   "list-with-a-long-name-for-the-whole-team", env=env)
    new = [m for m in messages() if m not in before]
    assert len(new) == 1, new
    raw = open(os.path.join(STATE["out"], new[0]), "rb").read()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    # Folded onto its own line (the address is long): the value is the same.
    assert str(msg["List-Unsubscribe"]).strip() == f"<{url}>", msg["List-Unsubscribe"]
    assert str(msg["List-Unsubscribe-Post"]).strip() == "List-Unsubscribe=One-Click"
    assert "每日摘要" in str(msg["From"]) and "someone.with.a.long.name@example.org" in str(msg["To"])
    check_wire_form(raw)


def test_refused_login_is_a_failure_and_the_next_run_sends_once():
    p = deliver("--date", "2026-09-10", "--to", "mail", password="wrong-pw", check=False)
    err = p.stderr.decode() + p.stdout.decode()
    assert p.returncode == 1, (p.returncode, err)
    assert "wrong-pw" not in err and PASSWORD not in err, err
    assert "0 of 1 part sent" in err, err
    assert messages() == ["1.eml"]
    ok = deliver("--date", "2026-09-10", "--to", "mail").stdout.decode()
    assert "1 of 1 part sent" in ok, ok
    assert messages() == ["1.eml", "2.eml"]
    assert "2026-09-10" in email.message_from_bytes(
        open(os.path.join(STATE["out"], "2.eml"), "rb").read(), policy=email.policy.default)["Subject"]


class WeCom(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ok = ("key=hook-key" in self.path and body.get("msgtype") == "markdown"
              and len(body["markdown"]["content"].encode()) <= 4096)
        if ok:
            WeCom.seen.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"errcode": 0 if ok else 40008,
                                     "errmsg": "ok" if ok else "invalid message type"}).encode())

    def log_message(self, *a):
        pass


def test_run_delivers_the_closed_day_once():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), WeCom)
    STATE["httpd"] = httpd
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    path = os.path.join(W, "run.toml")
    with open(path, "w") as f:
        f.write('[[deliver]]\nname = "wecom"\nkind = "wecom"\nurl_env = "WECOM_URL"\n'
                'min_interval_ms = 0\n')
    env = dict(os.environ,
               WECOM_URL=f"http://127.0.0.1:{httpd.server_address[1]}/cgi-bin/webhook/send?key=hook-key")
    for _ in range(2):
        p = STATE["b"].run("run", STATE["repo"], "--config", path, env=env)
    # The newest closed day (the hostile PR's), sent in the first run only.
    assert len(WeCom.seen) >= 1, p.stdout.decode()
    parts = len(WeCom.seen)
    assert all("2026-09-12" in s["markdown"]["content"] for s in WeCom.seen)
    assert "<script" not in json.dumps(WeCom.seen, ensure_ascii=False)
    p = STATE["b"].run("run", STATE["repo"], "--config", path, env=env)
    assert len(WeCom.seen) == parts
    assert "hook-key" not in p.stdout.decode() + p.stderr.decode()


def test_bad_configuration_is_exit_2_naming_it():
    b = STATE["b"]
    cases = [
        ("", ["deliver", "--date", "2026-09-12", "--to", "nope"], "unknown delivery target \"nope\""),
        ('[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "NO_SUCH_VAR"\n',
         ["deliver", "--date", "2026-09-12", "--to", "s"], "NO_SUCH_VAR"),
        ('[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "BAD_URL"\n',
         ["deliver", "--date", "2026-09-12", "--to", "s"], "is not an http(s):// address"),
        ('[[deliver]]\nname = "s"\nkind = "slack"\nurl = "https://hooks.example/T/B/x"\n',
         ["deliver", "--date", "2026-09-12", "--to", "s"], "url is not read from files"),
        ('[[deliver]]\nname = "s"\nkind = "slack"\nurl_env = "BAD_URL"\n',
         ["run", STATE["repo"]], "is not an http(s):// address"),
    ]
    for toml, cmd, want in cases:
        path = os.path.join(W, "bad.toml")
        with open(path, "w") as f:
            f.write(toml)
        env = dict(os.environ, BAD_URL="ftp://example.org/x")
        p = b.run(*cmd, "--config", path, check=False, env=env)
        err = p.stderr.decode()
        assert p.returncode == 2, (cmd, p.returncode, err)
        assert want in err, (want, err)
        assert "ftp://example.org/x" not in err, err


if __name__ == "__main__":
    STATE["py"] = smtp_python()
    if not STATE["py"] or not shutil.which("openssl"):
        print("SKIP: python3-aiosmtpd or openssl is not installed (scripts/install-deps.sh "
              "installs them)")
        print("0 passed, 0 failed, 1 skipped")
        sys.exit(0)
    try:
        setup()
        main([test_email_has_both_parts_and_chinese_and_code_survive,
              test_refused_login_is_a_failure_and_the_next_run_sends_once,
              test_one_click_unsubscribe_where_it_is_honoured,
              test_run_delivers_the_closed_day_once, test_bad_configuration_is_exit_2_naming_it])
    finally:
        teardown()
