// Checks a running `mergelens serve` against its OpenAPI document: the
// document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator), and
// every documented path answers as documented (status, content type, the
// body against the document's schema, with ajv), with CORS and conditional
// requests (RFC 9110), JSON errors for every status. With PRISM_URL, every
// documented request is sent again through Stoplight Prism's validating
// proxy (`prism proxy`, started by the caller in front of BASE_URL), and no
// response may break the document (Prism's sl-violations header). Exit
// status 0 when every check passed.
//   node api-check.mjs BASE_URL [PRISM_URL]      (e.g. http://127.0.0.1:8080)
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const base = process.argv[2].replace(/\/$/, "");
const prism = (process.argv[3] || "").replace(/\/$/, "");
let proxied = 0;
let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`[ OK ] ${name}`);
  } catch (e) {
    failures++;
    console.log(`[FAIL] ${name}: ${e.stack || e}`);
  }
}
const get = (path, headers = {}) => fetch(base + path, { headers });

const docResponse = await get("/api/openapi.json");
const doc = await docResponse.json();
await check("the OpenAPI document is valid 3.1", async () => {
  assert.equal(docResponse.status, 200);
  assert.match(docResponse.headers.get("content-type"), /^application\/json/);
  assert.match(doc.openapi, /^3\.1\./);
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  const again = await get("/api/v1/openapi.json");
  assert.deepEqual(await again.json(), doc);
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, "openapi.json");
function validate(ref, body) {
  const v = ajv.getSchema("openapi.json" + ref);
  assert.ok(v, `no schema ${ref}`);
  assert.ok(v(body), `${ref}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body).slice(0, 400)}`);
}
// No response through Prism's proxy breaks the document (request
// violations are the point of the error examples, so only responses count).
async function throughPrism(path) {
  if (!prism) return;
  // Prism 5 crashes on a comma list in an array path parameter declared as
  // the document does (style simple, explode false: stoplightio/prism#2710,
  // its fix not released): those requests are checked without it (ajv).
  if (/^\/api\/v1\/tags\/[^?]*,/.test(path)) return;
  const r = await fetch(prism + path);
  await r.arrayBuffer();
  const v = JSON.parse(r.headers.get("sl-violations") || "[]");
  const bad = v.filter((x) => (x.location || [])[0] === "response");
  assert.deepEqual(bad, [], `${path} through Prism: ${JSON.stringify(bad)}`);
  proxied++;
}
// Answers `path` as the document says `template` answers with `status`.
async function answers(template, path, status = 200) {
  await throughPrism(path);
  const r = await get(path);
  assert.equal(r.status, status, `${path}: ${r.status}`);
  assert.match(r.headers.get("content-type"), /^application\/json/, path);
  const responses = doc.paths[template].get.responses;
  const documented = responses[String(status)] || responses.default;
  assert.ok(documented, `${template} does not document ${status}`);
  const body = await r.json();
  validate(documented.content["application/json"].schema.$ref, body);
  return body;
}

// Values for the path parameters, read from the API itself.
const latest = await (await get("/api/v1/day")).json();
const change = latest.changes.find((c) => c.number !== null);
const tags = await (await get("/api/v1/tags")).json();
const examples = {
  "/api/v1/repos": ["/api/v1/repos"],
  "/api/v1/day": ["/api/v1/day", "/api/v1/day?lang=en"],
  "/api/v1/day/{date}": [`/api/v1/day/${latest.date}`, "/api/v1/day/2001-01-01"],
  "/api/v1/pr/{ref}": [`/api/v1/pr/${change.number}`, `/api/v1/pr/${change.sha.slice(0, 10)}?lang=en`],
  "/api/v1/tags": ["/api/v1/tags", "/api/v1/tags?lang=en"],
  "/api/v1/tags/{tags}": [`/api/v1/tags/${encodeURIComponent(tags.tags[0].tag)}?limit=3`,
    `/api/v1/tags/${encodeURIComponent(tags.tags[0].tag)}?verdict=close_read&min=2&from=2020-01-01&to=2030-12-31`],
  "/api/v1/search": [`/api/v1/search?q=${encodeURIComponent(change.title.split(/\s+/).find((w) => w.length > 4))}`],
  "/api/v1/week": ["/api/v1/week", "/api/v1/week?lang=en&min=selective_read",
    `/api/v1/week?tags=${encodeURIComponent(tags.tags[0].tag)},nonexistent`],
  "/api/v1/week/{week}": ["/api/v1/week/2001-W01"],
  "/api/v1/release-notes": [`/api/v1/release-notes?since=${latest.date}&lang=en`,
    `/api/v1/release-notes?since=2000-01-01&until=2100-01-01&highlights=3`],
};
await check("every documented path has an example here", async () => {
  assert.deepEqual(Object.keys(doc.paths).sort(), Object.keys(examples).sort());
});
for (const [template, paths] of Object.entries(examples))
  for (const p of paths) await check(`GET ${p} answers as documented`, () => answers(template, p));

await check("data, not a view model: ISO times, codes, absolute URLs", async () => {
  const pr = await answers("/api/v1/pr/{ref}", `/api/v1/pr/${change.number}`);
  assert.match(pr.merged_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  assert.ok(pr.page_url.startsWith(base + "/"), pr.page_url);
  assert.ok(pr.api_url.startsWith(base + "/api/v1/pr/"), pr.api_url);
  assert.equal(pr.verdict_label, undefined);
  assert.equal(pr.guide.lang, "zh");
  const en = await answers("/api/v1/pr/{ref}", `/api/v1/pr/${change.number}?lang=en`);
  assert.equal(en.guide.lang, "en");
  assert.match(en.page_url, /\?lang=en$/, "a page in the other language says so");
  assert.match(pr.url, /^https:\/\/github\.com\/[^/]+\/[^/]+\/pull\/\d+$/, "the PR on its host");
});
await check("tags: a comma list (style simple) reaches every tag", async () => {
  const two = tags.tags.slice(0, 2).map((t) => t.tag);
  const both = await answers("/api/v1/tags/{tags}", `/api/v1/tags/${two.join(",")}`);
  assert.deepEqual(both.tags.map((t) => t.tag), two);
});
await check("week and release notes (report/'s JSON under /api/v1)", async () => {
  const w = await answers("/api/v1/week", "/api/v1/week");
  assert.match(w.week, /^\d{4}-W\d{2}$/);
  assert.ok(w.page_url.startsWith(base + "/week/"), w.page_url);
  const same = await answers("/api/v1/week/{week}", `/api/v1/week/${w.week}`);
  assert.equal(same.merged, w.merged);
  const n = await answers("/api/v1/release-notes", `/api/v1/release-notes?since=2000-01-01&lang=en`);
  assert.ok(n.highlights.length >= 1);
  await answers("/api/v1/release-notes", "/api/v1/release-notes", 400);
  await answers("/api/v1/release-notes", "/api/v1/release-notes?since=2026-09-10&until=2026-08-01", 400);
  await answers("/api/v1/week/{week}", "/api/v1/week/2026-38", 400);
});
await check("404 for a path under a known prefix; JSON for every error", async () => {
  for (const path of [`/api/v1/pr/${change.number}/INVALID/PATH`, `/api/v1/day/${latest.date}/x`,
    "/api/v1/week/2026-W01/x", "/api/v1/nothing", "/api/nothing"]) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    assert.match(r.headers.get("content-type"), /^application\/json/, path);
    validate("#/components/schemas/Error", await r.json());
  }
  // Traversal-shaped paths, sent as written (fetch would resolve the dots).
  const { request } = await import("node:http");
  const raw = (path) => new Promise((resolve, reject) => {
    request(base + "/", { path }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body }));
    }).on("error", reject).end();
  });
  for (const path of ["/api/v1/..%2f..%2fetc/passwd", "/api/v1/%2e%2e/day", "/api/v1/day/../../x",
    "/api/v1/pr/%252e%252e"]) {
    const r = await raw(path);
    assert.equal(r.status, 400, path);
    assert.match(r.type, /^application\/json/, path);
    validate("#/components/schemas/Error", JSON.parse(r.body));
  }
  const post = await fetch(base + "/api/v1/day", { method: "POST", body: "{}" });
  assert.equal(post.status, 405);
  assert.match(post.headers.get("allow"), /GET/);
  assert.match(post.headers.get("content-type"), /^application\/json/);
  const body = await post.json();
  validate("#/components/schemas/Error", body);
  assert.equal(body.error.code, "method_not_allowed");
});
await check("the document: Last-Modified, gzip, 304 on If-Modified-Since", async () => {
  const modified = docResponse.headers.get("last-modified");
  assert.ok(modified && !Number.isNaN(Date.parse(modified)), modified);
  assert.equal((await get("/api/openapi.json", { "if-modified-since": modified })).status, 304);
  // Node's fetch decompresses: ask without it to see the encoding.
  const { request } = await import("node:http");
  const encoding = await new Promise((resolve, reject) => {
    request(base + "/api/openapi.json", { headers: { "accept-encoding": "gzip" } }, (res) => {
      res.resume();
      resolve(res.headers["content-encoding"]);
    }).on("error", reject).end();
  });
  assert.equal(encoding, "gzip");
});
await check("errors answer as documented", async () => {
  await answers("/api/v1/pr/{ref}", "/api/v1/pr/999999", 404);
  await answers("/api/v1/day/{date}", "/api/v1/day/2026-13-45", 400);
  await answers("/api/v1/search", "/api/v1/search", 400);
  await answers("/api/v1/search", "/api/v1/search?q=x&limit=999", 400);
  await answers("/api/v1/tags/{tags}", "/api/v1/tags/x?verdict=maybe", 400);
  await answers("/api/v1/day", "/api/v1/day?repo=nobody/nothing", 404);
  await answers("/api/v1/day", "/api/v1/day?lang=fr", 400);
});
await check("the unversioned /api/ paths still answer (the pages' view models)", async () => {
  const r = await get("/api/day");
  assert.equal(r.status, 200);
  assert.ok(Array.isArray((await r.json()).items));
});

await check("CORS on GET, and the preflight", async () => {
  const r = await get("/api/v1/day", { origin: "https://elsewhere.example" });
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  assert.match(r.headers.get("access-control-expose-headers"), /ETag/);
  const pre = await fetch(base + "/api/v1/day", { method: "OPTIONS", headers: {
    origin: "https://elsewhere.example", "access-control-request-method": "GET",
    "access-control-request-headers": "if-none-match" } });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  assert.match(pre.headers.get("access-control-allow-methods"), /GET/);
  assert.match(pre.headers.get("access-control-allow-headers"), /if-none-match/i);
  const post = await fetch(base + "/api/v1/day", { method: "OPTIONS", headers: {
    origin: "https://elsewhere.example", "access-control-request-method": "POST" } });
  assert.equal(post.headers.get("access-control-allow-origin"), null);
  assert.equal((await fetch(base + "/api/v1/day", { method: "POST" })).status, 405);
});

await check("conditional requests (RFC 9110)", async () => {
  const path = `/api/v1/day/${latest.date}`;
  const first = await get(path);
  const etag = first.headers.get("etag");
  const modified = first.headers.get("last-modified");
  assert.match(etag, /^W\/"/);
  assert.ok(modified);
  const status = async (h) => (await get(path, h)).status;
  assert.equal(await status({ "if-none-match": etag }), 304);
  assert.equal(await status({ "if-none-match": `"nope", ${etag}` }), 304, "a list");
  assert.equal(await status({ "if-none-match": etag.slice(2) }), 304, "weak comparison");
  assert.equal(await status({ "if-none-match": "*" }), 304);
  assert.equal(await status({ "if-none-match": `"nope", W/"other"` }), 200);
  assert.equal(await status({ "if-modified-since": modified }), 304);
  const later = new Date(Date.parse(modified) + 3600e3).toUTCString();
  const earlier = new Date(Date.parse(modified) - 3600e3).toUTCString();
  assert.equal(await status({ "if-modified-since": later }), 304);
  assert.equal(await status({ "if-modified-since": earlier }), 200);
  assert.equal(await status({ "if-modified-since": "yesterday" }), 200, "malformed date ignored");
  // The obsolete forms RFC 9110 (5.6.7) requires a recipient to accept.
  const t = new Date(Date.parse(modified) + 3600e3);
  const days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p2 = (n) => String(n).padStart(2, "0");
  const hms = `${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())}`;
  const rfc850 = `${days[t.getUTCDay()]}, ${p2(t.getUTCDate())}-${months[t.getUTCMonth()]}-` +
    `${p2(t.getUTCFullYear() % 100)} ${hms} GMT`;
  const asctime = `${days[t.getUTCDay()].slice(0, 3)} ${months[t.getUTCMonth()]} ` +
    `${String(t.getUTCDate()).padStart(2, " ")} ${hms} ${t.getUTCFullYear()}`;
  assert.equal(await status({ "if-modified-since": rfc850 }), 304, rfc850);
  assert.equal(await status({ "if-modified-since": asctime }), 304, asctime);
  const early = new Date(Date.parse(modified) - 86400e3);
  const asctimeEarly = `${days[early.getUTCDay()].slice(0, 3)} ${months[early.getUTCMonth()]} ` +
    `${String(early.getUTCDate()).padStart(2, " ")} ${hms} ${early.getUTCFullYear()}`;
  assert.equal(await status({ "if-modified-since": asctimeEarly }), 200, asctimeEarly);
  assert.equal(await status({ "if-none-match": '"nope"', "if-modified-since": modified }), 200,
    "If-None-Match takes precedence");
  const nm = await get(path, { "if-none-match": etag, origin: "https://x.example" });
  assert.equal(nm.status, 304);
  assert.equal(nm.headers.get("etag"), etag);
  assert.equal(nm.headers.get("access-control-allow-origin"), "*");
  const doc304 = await get("/api/openapi.json", { "if-none-match": docResponse.headers.get("etag") });
  assert.equal(doc304.status, 304);
});

if (prism) console.log(`${proxied} requests through Prism's validating proxy, no response outside the document`);
console.log(failures ? `${failures} failed` : "all passed");
process.exit(failures ? 1 : 0);
