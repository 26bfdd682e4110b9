// Opens a tracegraph HTML report from file:// in headless Chromium
// (Debian's, driven by puppeteer-core) and prints what a user would see,
// as JSON, for test_html.rb to compare with the profile:
//   {"errors": [...], "requests": [...], "dialogs": [...], "readyMs",
//    "graph": {"svg", "boxes", "boxesWithMethod", "note"},
//    "table": {"<sort>": {"count", "first": [[name, calls], ...]}},
//    "filter": {"query", "names"},
//    "search": {"query", "matches", "opened", "method": {...}},
//    "method": {"name", "calls", "callers": [[name, calls], ...], "callees": ...},
//    "graphSearch": {"query", "hits", "hash"},
//    "focus": {"first", "ignored", "hidden", "undone", "back": state}}
// where a focus state is {"hash", "legend", "boxes": [[method index, name]],
// "edges": [[edge index, caller index, callee index, label]], "drawnMs",
// "boxTips": [[method index, tooltip]], "edgeTips": [[edge index, tooltip]],
// "layout": {"width", "height" (points), "viewWidth", "viewHeight",
// "windowWidth" (CSS pixels), "scale" (pixels per point, fitted),
// "drawnWidth", "smallestFont" (points)}}:
// the focus view (focus_graph.js) on --focus NAME (or --focus-regexp R), then with --ignore
// REGEXP typed in, then Back; the box named --hide clicked and hidden, then
// Undo. Indexes are the profile's (its methods and edges, in order).
// errors holds page errors and console errors (a Content-Security-Policy
// violation is one); requests every request for anything but the file
// itself (each is refused); dialogs every alert() a name might have run.
//    "flame": {"shown", "hover": {"name", "calls", "total", "self", "path"}, "zoomedIn", "zoomedOut", "search"}
//    "choice": {"table": {"count", "note", "rows": [[name, calls, self ns, total ns], ...]},
//               "method": {"name", "note", "callers": [[name, calls, time ns, self ns], ...], "callees", "link"},
//               "graphNote", "selects": [thread, idle], "changed": hash after the header's waiting is set to "show"}
//              or, without a call tree, {"why"}
//    (--choice PARAMS --choice-method NAME: the table and NAME's page with #...&PARAMS, e.g. thread=ID&idle=hide)
//    "firstScreen": {"hash", "view", "scrollWidth", "clientWidth", "smallestFont", "smallestText", "textNodes",
//                    "title", "what", "methods": [[name, calls], ...], "rowsInView", "paths": [{"head", "steps": [name, ...],
//                    "shares": [...], "end"}], "noPaths", "advice", "groupedLink", "graph": {"hash", "boxes", "fitNote"},
//                    "grouped": {"hash", "boxes", "boxesWithMethod"}}: the summary the page opens on at 1366×768
//                    (--first-screen PNG|-: a screenshot there, or none), then its links to the graphs clicked
// Usage: node html_report_check.js FILE [--first-screen PNG|-] [--browser chromium|firefox] [--search TEXT] [--method NAME] [--graph-search TEXT]
//        [--flame PARAMS|- [--flame-row N] [--flame-only]] (PARAMS as in #flame?PARAMS)
//        [--open #FRAGMENT (the first view opened)]
//        [--focus NAME|--focus-regexp REGEXP [--ignore REGEXP] [--hide NAME] [--focus-boxes N] [--focus-params PARAMS]]
//        [--focus-only (the focus steps alone)]
//        [--window WIDTHxHEIGHT (the browser window's size; 1400x900 unless given)]
//        [--no-wasm (the page runs without WebAssembly, as where it is disabled)]
//        [--sorts self,total,calls,self_allocations,allocations] [--screenshot PNG [--screenshot-view #FRAGMENT]]
//        [--ready-only (stop once the first view is drawn, and after --first-screen)]
//        [--opened (stop there, with "opened": {"hash", "view", "drawnWith", "noGraph", "boxes": [[tooltip, opens a method]]})]
"use strict";
const { withPage, graphState, zoomAndPan, graphSearch, headerSearch, injected, commandLine, run } = require("./browser_page");

const { args, file, option } = commandLine();
const firefox = option("--browser") === "firefox";

// What the focus view shows once Graphviz has drawn the fragment's state.
async function focusState(page) {
  await page.waitForFunction(() => {
    const v = document.querySelector("#graph-view.focus-view");
    return (v && v.dataset.drawn === location.hash) || document.querySelector("#graphviz-fallback");
  }, { timeout: 30000 });
  return page.evaluate(() => {
    const tip = (g) => { const a = g.querySelector("a"); return a ? (a.getAttribute("xlink:title") || a.getAttributeNS("http://www.w3.org/1999/xlink", "title") || "") : ""; };
    const view = document.querySelector("#graph-view.focus-view");
    const svg = view && view.querySelector("svg");
    // The drawing as it opens: its whole size in Graphviz's points, the
    // view's in CSS pixels, and the pixels per point it opens at (the
    // viewBox shown, fitted into the view as the SVG's default
    // preserveAspectRatio fits it).
    let layout = null;
    if (svg) {
      const [, , width, height] = svg.dataset.full.split(" ").map(Number);
      const [, , shownWidth, shownHeight] = svg.getAttribute("viewBox").split(" ").map(Number);
      const r = view.getBoundingClientRect();
      const scale = Math.min(r.width / shownWidth, r.height / shownHeight);
      const fonts = [...svg.querySelectorAll("g.node text")].map((t) => Number(t.getAttribute("font-size")));
      layout = { width, height, viewWidth: r.width, viewHeight: r.height, scale, drawnWidth: width * scale,
        windowWidth: window.innerWidth, smallestFont: Math.min(...fonts) };
    }
    return {
      hash: location.hash,
      layout,
      // Each box's and arrow's whole tooltip: its exact numbers.
      boxTips: [...document.querySelectorAll("#graph-view g.node")].map((g) => [Number(g.dataset.method), tip(g)]),
      edgeTips: [...document.querySelectorAll("#graph-view g.edge")].map((g) => [Number(g.dataset.edge), tip(g)]),
      legend: (document.querySelector("#focus-legend") || document.querySelector("#graphviz-fallback")).textContent,
      fallback: Boolean(document.querySelector("#graphviz-fallback")),
      drawnMs: view ? Number(view.dataset.drawnMs) : null,
      boxes: [...document.querySelectorAll("#graph-view g.node")].map((g) => [Number(g.dataset.method), tip(g).split("\n")[0]]),
      edges: [...document.querySelectorAll("#graph-view g.edge")].map((g) => {
        const [from, to] = g.querySelector("title").textContent.split("->").map((id) => Number(id.replace(/^m/, "")));
        return [Number(g.dataset.edge), from, to, [...g.querySelectorAll("text")].map((t) => t.textContent).join(" ").trim()];
      })
    };
  });
}

async function focusSteps(page, out) {
  const name = option("--focus");
  const boxes = option("--focus-boxes");
  const started = Date.now();
  // --focus NAME focuses on the method NAME; --focus-regexp on a regexp.
  // --focus-params PARAMS adds to the fragment (thread=ID&idle=hide).
  const regexp = option("--focus-regexp"), more = option("--focus-params");
  await page.evaluate((n, r, b, p) => {
    location.hash = "#focus?" + (r ? "focus=" + encodeURIComponent(r) : "m=" + encodeURIComponent(n)) + (b ? "&n=" + b : "") + (p ? "&" + p : "");
  }, name, regexp, boxes, more);
  const first = await focusState(page);
  // From the click (the fragment's change) to the drawing, seen from here.
  first.redrawMs = Date.now() - started;
  out.focus = { first };
  const ignore = option("--ignore");
  if (ignore && !first.fallback) {
    await page.click("#ignore-regexp");
    await page.type("#ignore-regexp", ignore);
    await page.keyboard.press("Enter");
    await page.waitForFunction((h) => location.hash !== h, { timeout: 30000 }, first.hash);
    out.focus.ignored = await focusState(page);
    await page.goBack();
    await page.waitForFunction((h) => location.hash === h, { timeout: 30000 }, first.hash);
    out.focus.back = await focusState(page);
  }
  const hide = option("--hide");
  if (hide && !first.fallback) {
    const index = first.boxes.find((b) => b[1] === hide);
    if (index) {
      await page.click(`#graph-view g.node[data-method="${index[0]}"]`);
      await page.waitForSelector("#focus-hide", { timeout: 30000 });
      out.focus.selected = await page.$eval("#focus-selected-name", (s) => s.textContent);
      await page.click("#focus-hide");
      await page.waitForFunction((h) => location.hash !== h, { timeout: 30000 }, first.hash);
      out.focus.hidden = await focusState(page);
      await page.click("#focus-undo");
      await page.waitForFunction((h) => location.hash === h, { timeout: 30000 }, first.hash);
      out.focus.undone = await focusState(page);
    }
  }
}

// The flame view at #flame?PARAMS: what it says and draws, the frame
// under the point one third across its second row (or --flame-row N) (hover), that frame
// clicked (zoom in) and clicked again (out one level), and the search for
// its name (the share it reports and the colour of its pixel).
async function checkFlame(page, params) {
  const result = {};
  const state = () => page.evaluate(() => {
    const view = document.querySelector("#flame-view");
    return {
      hash: location.hash, noFlame: (document.querySelector("#no-flame") || {}).textContent || null,
      notes: (document.querySelector("#flame-notes") || {}).textContent || null,
      frame: (document.querySelector("#flame-frame") || {}).textContent || null,
      frameLink: (document.querySelector("#flame-frame a") || {}).textContent || null,
      drawMs: view ? Number(view.dataset.drawMs) : null, unpackMs: view ? Number(view.dataset.unpackMs) : null, frames: view ? Number(view.dataset.frames) : null,
      threads: [...document.querySelectorAll("#flame-thread option")].map((o) => o.textContent),
      // The methods of the choice: [name, calls, self ns, total ns], the first 10.
      methods: [...document.querySelectorAll("#flame-methods tbody tr")].slice(0, 10)
        .map((tr) => [tr.children[0].textContent, tr.children[1].textContent, tr.children[2].title, tr.children[4].title])
    };
  });
  // The hash changes at once, but the view is rebuilt in the hashchange
  // event that follows: until then the old view, drawn, is still there.
  // So the old one is marked stale first, and only a fresh one counts (a
  // slow page, under ASan, was read before its zoom was drawn).
  const markStale = () => page.evaluate(() => {
    const view = document.querySelector("#flame-view");
    if (view) view.dataset.stale = "1";
  });
  const drawn = async (previousHash) => {
    await page.waitForFunction((h) => location.hash !== h &&
      (document.querySelector("#flame-view[data-draw-ms]:not([data-stale])") || document.querySelector("#no-flame")),
      { timeout: 30000 }, previousHash);
  };
  const started = Date.now();
  await page.evaluate((p) => { location.hash = "#flame" + (p && p !== "-" ? "?" + p : ""); }, params);
  await drawn("#unset");
  result.showMs = Date.now() - started;
  result.shown = await state();
  if (result.shown.noFlame) return result;
  const box = await page.$eval("#flame-canvas", (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width }; });
  const point = { x: box.x + box.width / 3, y: box.y + 18 * (Number(option("--flame-row") || 1) + 0.5) };
  const hover = async () => {
    await page.mouse.move(point.x - 1, point.y);
    await page.mouse.move(point.x, point.y);
    return page.evaluate(() => {
      const tip = document.querySelector("#flame-tip");
      if (tip.hidden) return null;
      const text = (id) => (document.querySelector(id) || {}).textContent || null;
      return { name: text("#flame-tip-name"), calls: text("#flame-tip-calls"), total: text("#flame-tip-total"),
               self: text("#flame-tip-self"), path: tip.dataset.path };
    });
  };
  result.hover = await hover();
  if (!result.hover) return result;
  let hash = await page.evaluate(() => location.hash);
  const clicked = Date.now();
  await markStale();
  await page.mouse.click(point.x, point.y);
  await drawn(hash);
  const zoomMs = Date.now() - clicked;
  result.zoomedIn = await state();
  result.zoomedIn.clickMs = zoomMs;
  result.zoomedIn.hover = await hover();
  hash = result.zoomedIn.hash;
  await markStale();
  await page.mouse.click(point.x, point.y);
  await drawn(hash);
  result.zoomedOut = await state();
  // Search for the hovered frame's name, as a regexp of exactly it.
  const exact = "^" + result.hover.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
  await page.click("#search", { clickCount: 3 });
  await page.keyboard.press("Backspace");
  await page.type("#search", exact);
  await page.keyboard.press("Escape");
  result.search = await page.evaluate((p) => {
    const hits = document.querySelector("#flame-hits");
    const canvas = document.querySelector("#flame-canvas");
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const pixel = [...canvas.getContext("2d").getImageData(Math.round((p.x - r.x) * dpr), Math.round((p.y - r.y) * dpr), 1, 1).data].slice(0, 3);
    return { text: hits.textContent, share: Number(hits.dataset.share), frames: Number(hits.dataset.frames), hash: location.hash, pixel };
  }, { x: point.x + 2, y: point.y - 4 });
  await page.$eval("#search", (s) => { s.value = ""; });
  return result;
}

// The table, a method's page and the graph under a thread and waiting
// chosen in the fragment (params), then the header's choice changed.
async function choiceSteps(page, params, name) {
  // Without a call tree: why there is no choice.
  const why = await page.evaluate(() => (document.querySelector("#view-choice-note") || {}).textContent || null);
  if (why) return { why };
  const result = {};
  await page.evaluate((p) => { location.hash = "#table?sort=self&" + p; }, params);
  await page.waitForSelector("#methods tbody", { timeout: 10000 });
  result.table = await page.evaluate(() => ({
    count: document.querySelector("#table-count").textContent,
    note: (document.querySelector("#view-note") || {}).textContent || null,
    rows: [...document.querySelectorAll("#methods tbody tr")].map((tr) => [tr.querySelector("td.name").textContent,
      tr.children[2].textContent, tr.children[3].title, tr.children[5].title])
  }));
  result.selects = await page.evaluate(() => [document.querySelector("#view-thread").value, document.querySelector("#view-idle").value]);
  await page.evaluate((n, p) => { location.hash = "#method=" + encodeURIComponent(n) + "&" + p; }, name, params);
  await page.waitForSelector("#method-name", { timeout: 30000 });
  result.method = await page.evaluate(() => {
    const rows = (id) => [...document.querySelectorAll(`#${id} tbody tr`)].map((tr) => [tr.querySelector("td.name").textContent,
      tr.children[1].textContent, tr.children[2].title, tr.children[4].title]);
    return { name: document.querySelector("#method-name").textContent, calls: document.querySelector("#method-calls").textContent,
      note: (document.querySelector("#view-note") || {}).textContent || null, callers: rows("callers"), callees: rows("callees"),
      link: (document.querySelector("#callers td.name a") || { getAttribute: () => null }).getAttribute("href") };
  });
  await page.evaluate((p) => { location.hash = "#graph?" + p; }, params);
  await page.waitForSelector("#nav-graph.current", { timeout: 30000 });
  result.graphNote = await page.evaluate(() => (document.querySelector("#view-note") || {}).textContent || null);
  await page.select("#view-idle", "show");
  result.changed = await page.evaluate(() => location.hash);
  return result;
}

// The first screen, at a laptop's 1366×768: what the summary the page
// opens on says, whether the page is wider than the window, the smallest
// text in view; a screenshot (shot, unless "-"); then a click on the full
// graph's link, and back and a click on the grouped graph's, if any.
async function firstScreen(page, shot) {
  await page.setViewport({ width: 1366, height: 768 });
  await page.waitForSelector("#summary", { timeout: 10000 });
  const state = await page.evaluate(() => {
    const inView = (r) => r.width > 0 && r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
    let smallest = Infinity, smallestText = null, textNodes = 0;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!n.textContent.trim() || !parent || parent.closest("script, noscript")) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      if (![...range.getClientRects()].some(inView)) continue;
      textNodes++;
      const size = parseFloat(getComputedStyle(parent).fontSize);
      if (size < smallest) { smallest = size; smallestText = n.textContent.trim().slice(0, 80); }
    }
    const text = (id) => (document.querySelector(id) || {}).textContent || null;
    const rows = [...document.querySelectorAll("#summary-methods tbody tr")];
    return {
      hash: location.hash, view: (document.querySelector("nav a.current") || {}).id || null,
      scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
      smallestFont: smallest, smallestText, textNodes,
      title: text("#summary-title"), what: text("#summary-what"), tracing: text("#summary-tracing"), recordedBy: text("#recorded-by"),
      methods: rows.map((tr) => [tr.querySelector("td.name").textContent, tr.children[1].textContent]),
      rowsInView: rows.filter((tr) => tr.getBoundingClientRect().bottom <= innerHeight).length,
      paths: [...document.querySelectorAll("#summary-paths > li")].map((li) => ({
        head: li.querySelector(".path-head").textContent,
        steps: [...li.querySelectorAll(".path-steps > li[data-node]")].map((s) => s.firstChild.textContent),
        shares: [...li.querySelectorAll(".path-steps > li[data-node] .num")].map((s) => s.textContent.trim()),
        end: li.querySelector(".path-end").textContent
      })),
      noPaths: text("#summary-no-paths"), advice: text("#summary-advice-text"),
      groupedLink: (document.querySelector("#summary-grouped") || { getAttribute: () => null }).getAttribute("href")
    };
  });
  if (shot && shot !== "-") await page.screenshot({ path: shot });
  const graph = () => page.evaluate(() => ({ hash: location.hash, boxes: document.querySelectorAll("#graph-view g.node").length,
    boxesWithMethod: document.querySelectorAll("#graph-view g.node[data-method]").length,
    note: (document.querySelector("#no-graph") || {}).textContent || null,
    fitNote: (document.querySelector("#graph-fit-note") || {}).textContent || null }));
  await page.click("#summary-graph-link");
  await page.waitForSelector("#nav-graph.current", { timeout: 10000 });
  state.graph = await graph();
  if (state.groupedLink) {
    await page.goBack();
    await page.waitForSelector("#summary-grouped", { timeout: 10000 });
    await page.click("#summary-grouped");
    await page.waitForSelector("#graph-choice a.current#graph-grouped", { timeout: 10000 });
    state.grouped = await graph();
  }
  await page.setViewport({ width: 1400, height: 900 });
  return state;
}

// What the report opens on (--opened): its fragment, the nav's current
// view, the graph view's note of the options that drew it (#drawn-with),
// and each of its boxes' tooltip (the legend's too: "Legend") and whether
// it opens a method.
function opened(page) {
  return page.evaluate(() => ({
    hash: location.hash,
    view: (document.querySelector("nav a.current") || {}).id || null,
    drawnWith: (document.querySelector("#drawn-with") || {}).textContent || null,
    noGraph: (document.querySelector("#no-graph") || {}).textContent || null,
    boxes: [...document.querySelectorAll("#graph-view g.node")].map((g) => {
      const a = g.querySelector("a");
      return [a ? (a.getAttribute("xlink:title") || a.getAttributeNS("http://www.w3.org/1999/xlink", "title") || "") : "",
        g.dataset.method !== undefined];
    })
  }));
}

async function main() {
  return withPage(file, async (page, url, out) => {
    if (args.includes("--no-wasm")) await page.evaluateOnNewDocument(() => { delete window.WebAssembly; });
    if (option("--window")) {
      const [width, height] = option("--window").split("x").map(Number);
      await page.setViewport({ width, height });
    }
    const started = Date.now();
    await page.goto(url + (option("--open") || ""), { waitUntil: "load" });
    await page.waitForSelector("body[data-ready-ms]", { timeout: 30000 });
    out.readyMs = Date.now() - started;
    out.pageReadyMs = Number(await page.$eval("body", (b) => b.dataset.readyMs));

    if (option("--first-screen")) out.firstScreen = await firstScreen(page, option("--first-screen"));
    if (args.includes("--opened")) {
      out.opened = await opened(page);
      return out;
    }
    if (args.includes("--ready-only")) return out;
    if (option("--choice")) {
      out.choice = await choiceSteps(page, option("--choice"), option("--choice-method"));
      return out;
    }
    if (args.includes("--focus-only") || option("--focus-regexp")) {
      await focusSteps(page, out);
      return out;
    }

    if (args.includes("--flame")) {
      out.flame = await checkFlame(page, option("--flame"));
      if (args.includes("--flame-only")) return out;
    }

    // The page opens on its summary: the graph is a click away.
    // (the methods' graph, not the grouped one: #graph?by=gem)
    await page.evaluate(() => { if (!/^#graph(\?|$)/.test(location.hash) || location.hash.includes("by=")) location.hash = "#graph"; });
    await page.waitForFunction(() => document.querySelector("#nav-graph.current") && !document.querySelector("#graph-grouped.current"),
      { timeout: 10000 });
    out.graph = await graphState(page);

    // Zoom in by the wheel over the graph's middle, then pan by a drag:
    // the viewBox narrows, then moves.
    if (out.graph.svg) out.graph.zoom = await zoomAndPan(page);

    const graphQuery = option("--graph-search");
    if (graphQuery && out.graph.svg) out.graphSearch = await graphSearch(page, graphQuery);

    out.table = {};
    for (const sort of (option("--sorts") || "self,total,calls").split(",")) {
      await page.evaluate((s) => { location.hash = "#table?sort=" + s; }, sort);
      await page.waitForSelector(`#methods th.sorted[data-key="${sort}"]`, { timeout: 10000 });
      out.table[sort] = await page.evaluate(() => ({
        count: document.querySelectorAll("#methods tbody tr").length,
        first: [...document.querySelectorAll("#methods tbody tr")].slice(0, 5)
          .map((tr) => [tr.querySelector("td.name").textContent, tr.children[2].textContent])
      }));
    }
    // Sorting by a click on a column's head.
    await page.click('#methods th[data-key="total"]');
    await page.waitForSelector('#methods th.sorted[data-key="total"]', { timeout: 10000 });
    out.table.clickedHash = await page.evaluate(() => location.hash);

    const query = option("--search");
    if (query) {
      out.search = await headerSearch(page, query);
      // The table's filter, by the same text.
      await page.evaluate((q) => { location.hash = "#table?sort=self&q=" + encodeURIComponent(q); }, query);
      await page.waitForSelector("#methods", { timeout: 30000 });
      out.filter = { query, names: await page.$$eval("#methods tbody td.name", (tds) => tds.map((td) => td.textContent)) };
    }

    const name = option("--method");
    if (name) {
      await page.evaluate((n) => { location.hash = "#method=" + encodeURIComponent(n); }, name);
      // (A name two methods share takes " @ file:line" after it.)
      await page.waitForSelector("#method-name", { timeout: 30000 });
      await page.waitForSelector("#method-graph[data-drawn]", { timeout: 30000 });
      out.method = await page.evaluate(() => {
        const rows = (id) => [...document.querySelectorAll(`#${id} tbody tr`)]
          .map((tr) => [tr.querySelector("td.name").textContent, tr.children[1].textContent]);
        return {
          name: document.querySelector("#method-name").textContent,
          calls: document.querySelector("#method-calls").textContent,
          callers: rows("callers"), callees: rows("callees"),
          egoBoxes: document.querySelectorAll("svg.ego g.box").length,
          fallback: (document.querySelector("#graphviz-fallback") || {}).textContent || null,
          graphBoxes: [...document.querySelectorAll("#method-graph g.node")].map((g) => Number(g.dataset.method)),
          graphDrawn: (document.querySelector("#method-graph") || { dataset: {} }).dataset.drawn || null,
          title: document.title
        };
      });
      // A caller's link opens the caller's page, one click away.
      const link = await page.$("#callers td.name a");
      if (link) {
        await link.click();
        await page.waitForFunction((n) => document.querySelector("#method-name") && document.querySelector("#method-name").textContent !== n, { timeout: 30000 }, name);
        out.method.callerOpened = await page.$eval("#method-name", (h) => h.textContent);
      }
      // Another view after a method's page: the report's title again.
      await page.evaluate(() => { location.hash = "#table"; });
      await page.waitForSelector("#methods", { timeout: 30000 });
      out.method.titleAfter = await page.evaluate(() => document.title);
    }
    if (option("--focus")) await focusSteps(page, out);
    out.injected = await injected(page);
    if (option("--screenshot")) {
      await page.evaluate((h) => { document.querySelector("#search").value = ""; location.hash = h; }, option("--screenshot-view") || "#graph");
      await new Promise((r) => setTimeout(r, 300));
      // A focused graph: once Graphviz has drawn it.
      await page.waitForFunction(() => !location.hash.startsWith("#focus") || document.querySelector("#graph-view.focus-view[data-drawn]"), { timeout: 30000 });
      await page.screenshot({ path: option("--screenshot") });
    }
  }, { firefox });
}

run(main());
