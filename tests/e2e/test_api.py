"""The documented API: /api/openapi.json validated as OpenAPI 3.1 by a
validator from npm, and every documented /api/v1/ path answering as
documented (status, content type, body against the document's schemas with
ajv), CORS and its preflight, and conditional requests per RFC 9110
(tests/npm/api-check.mjs), JSON errors for every status, the three HTTP-date
forms. The document passes Redocly's recommended rules with no error, and the
same requests go through Stoplight Prism's validating proxy with no response
outside the document. Then the CORS configuration of `serve --cors`: a list
of origins, and off."""
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import common
import npm_tools

args = common.parse_args()
npm = npm_tools.node_or_skip(args)
db = npm_tools.sample_store(args)


def bin_of(tool):
    return os.path.join(npm, "node_modules", ".bin", tool)


def test_redocly_recommended_rules_find_no_error():
    doc = os.path.join(args.source_dir, "src", "mergelens", "web", "templates", "openapi.json")
    env = dict(os.environ, REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true")
    r = subprocess.run([bin_of("redocly"), "lint", "--extends=recommended", "--format=json", doc],
                       capture_output=True, text=True, timeout=180, env=env, cwd=npm)
    report = json.loads(r.stdout[r.stdout.index("{"):])
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    print(f"redocly: {len(errors)} errors, "
          f"{sum(p['severity'] == 'warn' for p in report['problems'])} warnings")
    assert not errors and r.returncode == 0, json.dumps(errors, indent=1)[:3000]


def test_documented_paths_through_prism_cors_and_conditional_requests():
    p, base = npm_tools.serve(args, db)
    port = common.free_port()
    prism = subprocess.Popen([bin_of("prism"), "proxy", base + "/api/openapi.json", base,
                              "--host", "127.0.0.1", "--port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=npm)
    try:
        deadline = time.time() + 60
        while True:
            line = prism.stdout.readline()
            if re.search(r"Prism is listening", line):
                break
            assert line and time.time() < deadline, "prism did not start: " + line
        # Prism logs every request: keep reading so it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in prism.stdout], daemon=True).start()
        npm_tools.node(npm, "api-check.mjs", base, f"http://127.0.0.1:{port}")
    finally:
        common.stop(prism)
        common.stop(p)


def headers_of(url, method="GET", **headers):
    req = urllib.request.Request(url, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers


def test_cors_configured():
    p, base = npm_tools.serve(args, db, "--cors", "https://a.example, https://b.example")
    try:
        _, h = headers_of(base + "/api/v1/tags", Origin="https://b.example")
        assert h["Access-Control-Allow-Origin"] == "https://b.example", h
        assert "Origin" in h.get_all("Vary"), h
        _, h = headers_of(base + "/api/v1/tags", Origin="https://c.example")
        assert h["Access-Control-Allow-Origin"] is None, h
        status, h = headers_of(base + "/api/v1/tags", "OPTIONS", Origin="https://a.example",
                               **{"Access-Control-Request-Method": "GET"})
        assert status == 204 and h["Access-Control-Allow-Origin"] == "https://a.example", h
        # The pages themselves never carry CORS headers.
        _, h = headers_of(base + "/", Origin="https://a.example")
        assert h["Access-Control-Allow-Origin"] is None, h
    finally:
        common.stop(p)
    p, base = npm_tools.serve(args, db, "--cors", "")
    try:
        _, h = headers_of(base + "/api/v1/tags", Origin="https://a.example")
        assert h["Access-Control-Allow-Origin"] is None, h
    finally:
        common.stop(p)


common.main([test_redocly_recommended_rules_find_no_error,
             test_documented_paths_through_prism_cors_and_conditional_requests,
             test_cors_configured])
