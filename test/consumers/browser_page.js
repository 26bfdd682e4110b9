// What both HTML checkers (html_report_check.js, diff_report_check.js)
// open a page with: a headless browser (Debian's Chromium, or with
// firefox: true Firefox ESR) in a fresh profile, and a page at file://FILE
// that records what the page must never do: out.errors holds page errors
// and console errors (a Content-Security-Policy violation is one),
// out.requests every request for anything but the file itself (each is
// refused), out.dialogs every alert() a name might have run.
//
// With TRACEGRAPH_CHROMIUM set (the DevTools endpoint of the Chromium that
// browser_server.js started for a test process, test/ruby/browser_helper.rb),
// a Chromium page opens in a fresh context of that browser, which keeps
// nothing from the contexts before it (cookies, storage, cache): a browser
// of its own took about 0.5 s more to start and stop.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox-esr";

// A headless browser with its profile in profileDir.
function launch(profileDir, { firefox = false } = {}) {
  return puppeteer.launch(firefox ? { browser: "firefox", executablePath: FIREFOX, userDataDir: profileDir, headless: true } : {
    executablePath: CHROMIUM, userDataDir: profileDir, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"]
  });
}

// Runs check(page, url, out) on the page of file, then closes the browser
// and removes its profile (or closes the shared browser's context);
// resolves to out.
async function withPage(file, check, { firefox = false } = {}) {
  const shared = !firefox && process.env.TRACEGRAPH_CHROMIUM;
  const profileDir = shared ? null : fs.mkdtempSync(path.join(os.tmpdir(), "tracegraph-chromium-"));
  const browser = shared ? await puppeteer.connect({ browserWSEndpoint: shared }) : await launch(profileDir, { firefox });
  const context = shared ? await browser.createBrowserContext() : browser;
  const out = { errors: [], requests: [], dialogs: [] };
  try {
    const page = await context.newPage();
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
    await check(page, url, out);
  } finally {
    if (shared) {
      await context.close();
      await browser.disconnect();
    } else {
      await browser.close();
      // Firefox's helpers may still be writing its profile as it closes
      // (ENOTEMPTY): retry, and a leftover temporary folder fails no check.
      try { fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch (_) { /* kept */ }
    }
  }
  return out;
}

// The graph view as drawn: is there an SVG, its boxes, those that name a
// method, and the note where there is no graph.
const graphState = (page) => page.evaluate(() => ({
  svg: Boolean(document.querySelector("#graph-view svg")),
  boxes: document.querySelectorAll("#graph-view g.node").length,
  boxesWithMethod: document.querySelectorAll("#graph-view g.node[data-method]").length,
  note: (document.querySelector("#no-graph") || {}).textContent || null
}));

// Zooms in by the wheel over the graph's middle, then pans by a drag, then
// fits it again (the tools' button): the viewBox before, zoomed, panned.
async function zoomAndPan(page) {
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
  await page.click(".graph-tools button");
  return { before, zoomed, panned };
}

// Types query into the header's search over the graph: how many boxes it
// highlights and the fragment; a click on the first opens its method
// (clicked: its name). The search is cleared after.
async function graphSearch(page, query) {
  await page.type("#search", query);
  const result = await page.evaluate((q) => ({
    query: q, hits: document.querySelectorAll("#graph-view g.node.hit").length, hash: location.hash
  }), query);
  const box = await page.$("#graph-view g.node.hit");
  if (box) {
    await page.keyboard.press("Escape");
    await box.click();
    await page.waitForSelector("#method-name", { timeout: 30000 });
    result.clicked = await page.$eval("#method-name", (h) => h.textContent);
  }
  await page.$eval("#search", (s) => { s.value = ""; });
  return result;
}

// Types query into the header's search: the names it lists, and the page
// Enter opens (opened: its name).
async function headerSearch(page, query) {
  await page.click("#search", { clickCount: 3 });
  await page.type("#search", query);
  await page.waitForSelector("#matches li a", { timeout: 30000 });
  const matches = await page.$$eval("#matches li a", (as) => as.map((a) => a.querySelector(".mname").textContent));
  await page.keyboard.press("Enter");
  await page.waitForSelector("#method-name", { timeout: 30000 });
  return { query, matches, opened: await page.$eval("#method-name", (h) => h.textContent) };
}

// What a name could have injected: a script run (window.__pwned), images
// and scripts in the page.
const injected = (page) => page.evaluate(() => ({
  pwned: Boolean(window.__pwned),
  images: document.querySelectorAll("img").length,
  scripts: document.querySelectorAll("script").length
}));

// The command line's options: args, option(name) (its value or null).
function commandLine() {
  const args = process.argv.slice(2);
  return { args, file: path.resolve(args[0]), option: (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; } };
}

// Prints out as one line of JSON, or the error and exits 1.
function run(promise) {
  promise.then((out) => process.stdout.write(JSON.stringify(out) + "\n"))
    .catch((error) => { console.error(error.stack || String(error)); process.exit(1); });
}

module.exports = { launch, withPage, graphState, zoomAndPan, graphSearch, headerSearch, injected, commandLine, run };
