// Accessibility and phone-width checks of served pages, in Debian's Chromium
// (puppeteer-core: no browser is downloaded) with axe-core.
//
//   node page_checks.mjs OUT.json URL...
//
// Every URL is loaded at desktop width (1280 px) and at phone width (390 px).
// PAGE_CHECKS_WIDTHS="390" picks the widths, PAGE_CHECKS_NO_AXE=1 measures
// widths only. OUT.json gets, per URL and width, axe's violations (rule id, impact, a few
// targets) and the document's scroll width. The caller judges them.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const [out, ...urls] = process.argv.slice(2);
const widths = (process.env.PAGE_CHECKS_WIDTHS || "1280,390").split(",").map(Number);
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
  for (const width of widths) {
    await page.setViewport({ width, height: 900, deviceScaleFactor: 1, isMobile: width < 600 });
    for (const url of urls) {
      await page.goto(url, { waitUntil: "load" });
      if (runAxe) await page.evaluate(axeSource);
      const axe = !runAxe ? [] : await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ["violations"] });
        return r.violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
        }));
      });
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      const wide = await page.evaluate((w) => {
        // The widest elements, to say what overflows.
        return [...document.querySelectorAll("body *")]
          .filter((e) => e.getBoundingClientRect().right > w + 0.5)
          .slice(0, 5)
          .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
      }, width);
      results.push({ url, width, scrollWidth, violations: axe, wide });
    }
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, JSON.stringify(results, null, 1));
