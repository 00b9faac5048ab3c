"""The documented API: /api/openapi.json validated as OpenAPI 3.1 by a
validator from npm, and every documented /api/v1/ path answering as
documented (status, content type, body against the document's schemas with
ajv), CORS and its preflight, and conditional requests per RFC 9110
(tests/npm/api-check.mjs). Then the CORS configuration of `serve --cors`: a
list of origins, and off."""
import urllib.request

import common
import npm_tools

args = common.parse_args()
npm = npm_tools.node_or_skip(args)
db = npm_tools.sample_store(args)


def test_documented_paths_cors_and_conditional_requests():
    p, base = npm_tools.serve(args, db)
    try:
        npm_tools.node(npm, "api-check.mjs", base)
    finally:
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


common.main([test_documented_paths_cors_and_conditional_requests, test_cors_configured])
