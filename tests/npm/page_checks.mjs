// Accessibility and phone-width checks of served pages, in Debian's Chromium
// (puppeteer-core: no browser is downloaded) with axe-core.
//
//   node page_checks.mjs OUT.json URL...
//
// Every URL is loaded at desktop width (1280 px) and at phone width (390 px),
// and at phone width again with a dark system theme (the stylesheet follows
// it). PAGE_CHECKS_VIEWS="390" picks the views (WIDTH or WIDTH-dark),
// PAGE_CHECKS_NO_AXE=1 measures widths only. OUT.json gets, per URL and view,
// axe's violations (rule id, impact, the first five nodes' selectors and
// HTML), the document's scroll width and the innermost elements past the
// screen's edge. The caller judges them.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const [out, ...urls] = process.argv.slice(2);
const views = (process.env.PAGE_CHECKS_VIEWS || "1280,390,390-dark").split(",");
const runAxe = !process.env.PAGE_CHECKS_NO_AXE;
const profile = mkdtempSync(join(tmpdir(), "mergelens-chromium-"));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         `--user-data-dir=${profile}`],
});
const results = [];
try {
  const page = await browser.newPage();
  // The pages' CSP allows no script: axe is evaluated through the debugger.
  await page.setBypassCSP(true);
  for (const view of views) {
    const [width, scheme] = [Number(view.split("-")[0]), view.endsWith("-dark") ? "dark" : "light"];
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
    await page.setViewport({ width, height: 900, deviceScaleFactor: 1, isMobile: width < 600 });
    for (const url of urls) {
      await page.goto(url, { waitUntil: "load" });
      if (runAxe) await page.evaluate(axeSource);
      const axe = !runAxe ? [] : await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ["violations"] });
        return r.violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.length,
          targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.html.slice(0, 200)}`),
        }));
      });
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      const wide = await page.evaluate((w) => {
        // The innermost elements that reach past the screen, to say what overflows.
        const over = (e) => e.getBoundingClientRect().right > w + 0.5;
        return [...document.querySelectorAll("body *")]
          .filter((e) => over(e) && ![...e.children].some(over))
          .slice(0, 5)
          .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
      }, width);
      results.push({ url, width, scheme, scrollWidth, violations: axe, wide });
    }
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, JSON.stringify(results, null, 1));
