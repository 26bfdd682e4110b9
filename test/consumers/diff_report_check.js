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
const { withPage, graphState, zoomAndPan, graphSearch, headerSearch, injected, commandLine, run } = require("./browser_page");

const { args, file, option } = commandLine();

async function main() {
  return withPage(file, async (page, url, out) => {
    await page.goto(url, { waitUntil: "load" });
    await page.waitForSelector("body[data-ready-ms]", { timeout: 30000 });
    out.pageReadyMs = Number(await page.$eval("body", (b) => b.dataset.readyMs));

    out.gate = await page.evaluate(() => {
      const gate = document.querySelector("#gate");
      return gate && { verdict: gate.querySelector("#gate-verdict").textContent, failed: gate.classList.contains("failed"),
        lines: [...gate.querySelectorAll("li")].map((li) => li.textContent) };
    });
    out.graph = await graphState(page);

    // Zoom in by the wheel over the graph's middle, then pan by a drag.
    if (out.graph.svg) out.graph.zoom = await zoomAndPan(page);

    const graphQuery = option("--graph-search");
    if (graphQuery && out.graph.svg) out.graphSearch = await graphSearch(page, graphQuery);

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
      out.search = await headerSearch(page, query);
      await page.evaluate((q) => { location.hash = "#changes?sort=self&q=" + encodeURIComponent(q); }, query);
      await page.waitForSelector("#changes", { timeout: 30000 });
      out.filter = { query, names: await page.$$eval("#changes tbody td.name", (tds) => tds.map((td) => td.textContent)) };
    }

    const name = option("--method");
    if (name) {
      // Opened by a click on its row in the table (not on its link).
      await page.evaluate(() => { location.hash = "#changes?sort=self"; });
      await page.waitForSelector("#changes tbody tr", { timeout: 30000 });
      const row = await page.evaluateHandle((n) => [...document.querySelectorAll("#changes tbody tr")]
        .find((tr) => tr.querySelector("td.name").textContent === n), name);
      await row.asElement().$eval("td.status", (td) => td.click());
      await page.waitForSelector("#method-name", { timeout: 30000 });
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
        await page.waitForFunction((n) => document.querySelector("#method-name") && document.querySelector("#method-name").textContent !== n, { timeout: 30000 }, name);
        out.method.callerOpened = await page.$eval("#method-name", (h) => h.textContent);
      }
    }
    out.injected = await injected(page);
    if (option("--screenshot")) {
      await page.evaluate((h) => { document.querySelector("#search").value = ""; location.hash = h; }, option("--screenshot-view") || "#graph");
      await new Promise((r) => setTimeout(r, 300));
      await page.screenshot({ path: option("--screenshot") });
    }
  });
}

run(main());
