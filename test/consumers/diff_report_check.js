// Opens a tracegraph HTML diff report from file:// in headless Chromium
// (Debian's, driven by puppeteer-core) and prints what a user would see,
// as JSON, for test_diff_html.rb to compare with the two profiles:
//   {"errors": [...], "requests": [...], "dialogs": [...], "pageReadyMs",
//    "gate": {"verdict", "lines"} or null,
//    "graph": {"svg", "boxes", "boxesWithMethod", "note", "zoom": {...}},
//    "graphSearch": {"query", "hits", "hash", "clicked"},
//    "changes": {"<sort>": {"count", "ms" (from asking to drawn), "rows": [[name, status, delta cell of the sort, its exact value, its %], ...]}},
//    "showAll": {"before", "after", "count"} (when the table has more rows than it draws at first),
//    "clickedHash", "filter": {"query", "names"},
//    "search": {"query", "matches", "opened"},
//    "method": {"name", "facts": {"<measure>": [base, head, change, %]},
//               "callers": [[name, calls base, calls head], ...], "callees": ..., "callerOpened"},
//    "injected": {"pwned", "images", "scripts"}}
// errors holds page errors and console errors (a Content-Security-Policy
// violation is one); requests every request for anything but the file
// itself (each is refused); dialogs every alert() a name might have run.
// Usage: node diff_report_check.js FILE [--search TEXT] [--method NAME] [--graph-search TEXT]
//        [--sorts self,total,calls,allocations] [--screenshot PNG [--screenshot-view #FRAGMENT]]
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const args = process.argv.slice(2);
const file = path.resolve(args[0]);
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

async function main() {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "tracegraph-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, userDataDir: profileDir, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"]
  });
  const out = { errors: [], requests: [], dialogs: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const url = "file://" + file;
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const u = request.url();
      if (u === url || u.startsWith(url + "#")) return request.continue();
      out.requests.push(u);
      request.abort();
    });
    page.on("pageerror", (error) => out.errors.push(`page error: ${error.message}`));
    page.on("console", (message) => { if (message.type() === "error") out.errors.push(`console: ${message.text()}`); });
    page.on("dialog", async (dialog) => { out.dialogs.push(dialog.message()); await dialog.dismiss(); });

    await page.goto(url, { waitUntil: "load" });
    await page.waitForSelector("body[data-ready-ms]", { timeout: 30000 });
    out.pageReadyMs = Number(await page.$eval("body", (b) => b.dataset.readyMs));

    out.gate = await page.evaluate(() => {
      const gate = document.querySelector("#gate");
      return gate && { verdict: gate.querySelector("#gate-verdict").textContent, failed: gate.classList.contains("failed"),
        lines: [...gate.querySelectorAll("li")].map((li) => li.textContent) };
    });
    out.graph = await page.evaluate(() => ({
      svg: Boolean(document.querySelector("#graph-view svg")),
      boxes: document.querySelectorAll("#graph-view g.node").length,
      boxesWithMethod: document.querySelectorAll("#graph-view g.node[data-method]").length,
      note: (document.querySelector("#no-graph") || {}).textContent || null
    }));

    // Zoom in by the wheel over the graph's middle, then pan by a drag.
    if (out.graph.svg) {
      const viewBox = () => page.$eval("#graph-view svg", (svg) => svg.getAttribute("viewBox").split(" ").map(Number));
      const rect = await page.$eval("#graph-view", (v) => { const r = v.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
      const before = await viewBox();
      await page.mouse.move(rect.x, rect.y);
      await page.mouse.wheel({ deltaY: -400 });
      await new Promise((r) => setTimeout(r, 100));
      const zoomed = await viewBox();
      await page.mouse.down();
      await page.mouse.move(rect.x + 100, rect.y + 50, { steps: 5 });
      await page.mouse.up();
      const panned = await viewBox();
      out.graph.zoom = { before, zoomed, panned };
      await page.click(".graph-tools button");
    }

    const graphQuery = option("--graph-search");
    if (graphQuery && out.graph.svg) {
      await page.type("#search", graphQuery);
      out.graphSearch = await page.evaluate((q) => ({
        query: q, hits: document.querySelectorAll("#graph-view g.node.hit").length, hash: location.hash
      }), graphQuery);
      const box = await page.$("#graph-view g.node.hit");
      if (box) {
        await page.keyboard.press("Escape");
        await box.click();
        await page.waitForSelector("#method-name", { timeout: 5000 });
        out.graphSearch.clicked = await page.$eval("#method-name", (h) => h.textContent);
      }
      await page.$eval("#search", (s) => { s.value = ""; });
    }

    // The table of changes by each measure: each row's name, status, and
    // the sorted measure's change (as shown, exact, and in percent).
    out.changes = {};
    for (const sort of (option("--sorts") || "self,total,calls").split(",")) {
      const asked = Date.now();
      await page.evaluate((s) => { location.hash = "#changes?sort=" + s; }, sort);
      await page.waitForSelector(`#changes th.sorted[data-key="${sort}"]`, { timeout: 10000 });
      const ms = Date.now() - asked;
      out.changes[sort] = await page.evaluate((s) => {
        const heads = [...document.querySelectorAll("#changes thead tr:first-child th.group")].map((th) => th.dataset.key);
        const at = 2 + 4 * heads.indexOf(s);
        return {
          count: document.querySelectorAll("#changes tbody tr").length,
          rows: [...document.querySelectorAll("#changes tbody tr")].map((tr) => [
            tr.querySelector("td.name").textContent, tr.children[1].textContent,
            tr.children[at].textContent, tr.children[at + 1].textContent, tr.children[at + 2].textContent,
            Number(tr.children[at + 2].dataset.delta), tr.children[at + 3].textContent])
        };
      }, sort);
      out.changes[sort].ms = ms;
    }
    // Past the first rows drawn, "Show all" draws the rest.
    if (await page.$("#changes-all:not([hidden])")) {
      const before = await page.$$eval("#changes tbody tr", (trs) => trs.length);
      await page.click("#changes-all");
      out.showAll = { before, after: await page.$$eval("#changes tbody tr", (trs) => trs.length),
        count: await page.$eval("#changes-count", (c) => c.textContent) };
    }
    // Sorting by a click on a measure's head.
    await page.click('#changes th[data-key="total"]');
    await page.waitForSelector('#changes th.sorted[data-key="total"]', { timeout: 10000 });
    out.clickedHash = await page.evaluate(() => location.hash);

    const query = option("--search");
    if (query) {
      await page.click("#search", { clickCount: 3 });
      await page.type("#search", query);
      await page.waitForSelector("#matches li a", { timeout: 5000 });
      const matches = await page.$$eval("#matches li a", (as) => as.map((a) => a.querySelector(".mname").textContent));
      await page.keyboard.press("Enter");
      await page.waitForSelector("#method-name", { timeout: 5000 });
      out.search = { query, matches, opened: await page.$eval("#method-name", (h) => h.textContent) };
      await page.evaluate((q) => { location.hash = "#changes?sort=self&q=" + encodeURIComponent(q); }, query);
      await page.waitForSelector("#changes", { timeout: 5000 });
      out.filter = { query, names: await page.$$eval("#changes tbody td.name", (tds) => tds.map((td) => td.textContent)) };
    }

    const name = option("--method");
    if (name) {
      // Opened by a click on its row in the table (not on its link).
      await page.evaluate(() => { location.hash = "#changes?sort=self"; });
      await page.waitForSelector("#changes tbody tr", { timeout: 5000 });
      const row = await page.evaluateHandle((n) => [...document.querySelectorAll("#changes tbody tr")]
        .find((tr) => tr.querySelector("td.name").textContent === n), name);
      await row.asElement().$eval("td.status", (td) => td.click());
      await page.waitForSelector("#method-name", { timeout: 5000 });
      out.method = await page.evaluate(() => {
        const rows = (id) => [...document.querySelectorAll(`#${id} tbody tr`)]
          .map((tr) => [tr.querySelector("td.name").textContent, tr.children[1].textContent, tr.children[2].textContent]);
        const facts = {};
        for (const tr of document.querySelectorAll("#method-facts tr[data-key]")) {
          facts[tr.dataset.key] = [...tr.children].slice(1).map((td) => td.textContent);
        }
        return { name: document.querySelector("#method-name").textContent, hash: location.hash, facts,
          callers: rows("callers"), callees: rows("callees") };
      });
      // (Not the method itself, where it recurses.)
      const link = await page.evaluateHandle((n) => [...document.querySelectorAll("#callers td.name a")]
        .find((a) => a.textContent !== n) || null, name).then((h) => h.asElement());
      if (link) {
        await link.click();
        await page.waitForFunction((n) => document.querySelector("#method-name") && document.querySelector("#method-name").textContent !== n, { timeout: 5000 }, name);
        out.method.callerOpened = await page.$eval("#method-name", (h) => h.textContent);
      }
    }
    out.injected = await page.evaluate(() => ({
      pwned: Boolean(window.__pwned),
      images: document.querySelectorAll("img").length,
      scripts: document.querySelectorAll("script").length
    }));
    if (option("--screenshot")) {
      await page.evaluate((h) => { document.querySelector("#search").value = ""; location.hash = h; }, option("--screenshot-view") || "#graph");
      await new Promise((r) => setTimeout(r, 300));
      await page.screenshot({ path: option("--screenshot") });
    }
  } finally {
    await browser.close();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  return out;
}

main().then((out) => process.stdout.write(JSON.stringify(out) + "\n")).catch((error) => { console.error(error.stack || String(error)); process.exit(1); });
