// tracegraph's HTML report. Reads the profile from #profile-data (JSON)
// and draws three views, chosen by the URL's fragment so a view can be
// shared: #graph?q=REGEXP, #table?sort=self&q=TEXT, #method=NAME. The
// scripts after this one add views (flame.js: #flame, focus_graph.js:
// #focus?m=NAME...) through window.tracegraphReport.addView, and
// focus_graph.js the method page's graph (methodGraph).
// Every name and path reaches the page through textContent or an
// attribute's value, never as markup.
"use strict";
(function () {
  const { group, time, percent, where, el, svgEl, matcher, decode, listHash, searchBox, readGraphSvg, panZoom, graphView } =
    window.tracegraphPageKit;
  const data = JSON.parse(document.getElementById("profile-data").textContent);
  const allocations = data.total_allocations !== null;

  const methods = data.methods.map((r, index) => ({
    index, name: r[0], file: r[1], line: r[2], calls: r[3], total: r[4], self: r[5], c: r[6],
    allocations: r[7], selfAllocations: r[8], callers: [], callees: []
  }));
  // Each method's key in #method=KEY: its name, or where a name is
  // shared (the blocks of one method, say) the name and file:line.
  const nameCount = new Map();
  for (const m of methods) nameCount.set(m.name, (nameCount.get(m.name) || 0) + 1);
  const byKey = new Map();
  for (const m of methods) {
    let key = nameCount.get(m.name) === 1 ? m.name : `${m.name} @ ${m.file ? `${m.file}:${m.line}` : "C"}`;
    if (byKey.has(key)) key = `${key} #${m.index}`;
    m.key = key;
    byKey.set(key, m);
  }
  for (const r of data.edges) {
    const e = { caller: methods[r[0]], callee: methods[r[1]], calls: r[2], total: r[3], self: r[4], allocations: r[5] };
    e.caller.callees.push(e);
    e.callee.callers.push(e);
  }

  const methodHash = (m) => "#method=" + encodeURIComponent(m.key);
  const methodLink = (m) => el("a", { href: methodHash(m), text: m.name, title: where(m) });

  // --- the page's frame ---
  const title = data.program ? `tracegraph: ${data.program}` : "tracegraph";
  const summary = `${data.clock} clock · total ${time(data.total_time)} · ${group(data.total_calls)} calls · ` +
    `${group(methods.length)} methods · ${data.threads.length} thread${data.threads.length === 1 ? "" : "s"}` +
    (allocations ? ` · ${group(data.total_allocations)} allocations` : "") + (data.complete ? "" : " · incomplete");
  const nav = el("nav", {},
    el("a", { href: "#graph", text: "Graph", id: "nav-graph" }),
    el("a", { href: "#table", text: "Table", id: "nav-table" }));
  let currentView = null;
  const { search, box: searchDiv } = searchBox(
    (test) => methods.filter((m) => test(m.name) || test(m.file)).sort((a, b) => b.total - a.total),
    (m) => ({ href: methodHash(m), num: `${time(m.total)} · ${group(m.calls)} calls`, name: m.name, file: where(m) }),
    "see the table", () => currentView && currentView.onSearch);
  const main = el("main", { id: "view" });
  document.body.append(el("header", {}, el("h1", { text: title }), el("span", { class: "summary", text: summary }), nav,
    searchDiv), main);
  document.title = title;

  // --- routing ---
  // Views the later scripts add: name -> show(params), which draws into
  // main and returns { onSearch } (or null).
  const addedViews = new Map();
  function parseHash() {
    if (location.hash.startsWith("#method=")) return { view: "method", name: decode(location.hash.slice(8)) };
    const [view, query] = location.hash.slice(1).split("?");
    const known = ["graph", "table"].includes(view) || addedViews.has(view) ? view : null;
    return { view: known || (data.svg ? "graph" : "table"), params: new URLSearchParams(query || "") };
  }
  function route() {
    const state = parseHash();
    for (const a of nav.querySelectorAll("a")) a.classList.toggle("current", a.id === `nav-${state.view}`);
    main.replaceChildren();
    if (state.view === "method") showMethod(state.name);
    else if (state.view === "table") showTable(state.params);
    else if (addedViews.has(state.view)) currentView = addedViews.get(state.view)(state.params) || { onSearch: null };
    else showGraph(state.params);
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);

  // --- the table ---
  const COLUMNS = [
    { key: "name", label: "Method", cls: "name" },
    { key: "file", label: "File", cls: "file" },
    { key: "calls", label: "Calls", sort: (m) => m.calls },
    { key: "self", label: "Self", sort: (m) => m.self },
    { key: "self%", label: "Self %" },
    { key: "total", label: "Total", sort: (m) => m.total },
    { key: "total%", label: "Total %" }
  ].concat(allocations ? [
    { key: "self_allocations", label: "Self alloc", sort: (m) => m.selfAllocations },
    { key: "allocations", label: "Total alloc", sort: (m) => m.allocations }
  ] : []);

  function showTable(params) {
    const sortKey = COLUMNS.some((c) => c.sort && c.key === params.get("sort")) ? params.get("sort") : "self";
    const sortBy = COLUMNS.find((c) => c.key === sortKey).sort;
    const filter = el("input", { type: "search", id: "table-filter", placeholder: "Filter by name or file", value: params.get("q") || "" });
    const count = el("span", { class: "note", id: "table-count" });
    const body = el("tbody");
    const head = el("tr");
    for (const c of COLUMNS) {
      const th = el("th", { class: `${c.cls || ""}${c.sort ? " sortable" : ""}${c.key === sortKey ? " sorted" : ""}`, text: c.label, "data-key": c.key });
      if (c.sort) th.addEventListener("click", () => setTableHash(c.key, filter.value));
      head.append(th);
    }
    function fill() {
      const test = matcher(filter.value);
      const rows = methods.filter((m) => !test || test(m.name) || test(m.file))
        .sort((a, b) => sortBy(b) - sortBy(a) || a.index - b.index);
      const fragment = document.createDocumentFragment();
      for (const m of rows) {
        const cells = [el("td", { class: "name" }, methodLink(m)), el("td", { class: "file", text: where(m) }),
          el("td", { text: group(m.calls) }), el("td", { text: time(m.self), title: `${group(m.self)} ns` }),
          el("td", { text: percent(m.self, data.total_time) }), el("td", { text: time(m.total), title: `${group(m.total)} ns` }),
          el("td", { text: percent(m.total, data.total_time) })];
        if (allocations) cells.push(el("td", { text: group(m.selfAllocations) }), el("td", { text: group(m.allocations) }));
        fragment.append(el("tr", { "data-method": String(m.index) }, ...cells));
      }
      body.replaceChildren(fragment);
      count.textContent = `${group(rows.length)} of ${group(methods.length)} methods, by ${COLUMNS.find((c) => c.key === sortKey).label.toLowerCase()}`;
    }
    let pending = null;
    filter.addEventListener("input", () => {
      clearTimeout(pending);
      pending = setTimeout(() => { history.replaceState(null, "", tableHash(sortKey, filter.value)); fill(); }, 150);
    });
    main.append(el("div", { class: "graph-tools" }, filter, count), el("table", { id: "methods" }, el("thead", {}, head), body));
    fill();
    currentView = { onSearch: null };
  }
  const tableHash = (sort, q) => listHash("table", sort, q);
  function setTableHash(sort, q) { location.hash = tableHash(sort, q); }

  // --- a method's page: its numbers, its callers and callees ---
  function showMethod(key) {
    const m = byKey.get(key);
    currentView = { onSearch: null };
    if (!m) {
      main.append(el("p", { class: "note", text: "No method of this name in the profile: " }, el("code", { text: key })));
      return;
    }
    document.title = `${m.name} · ${title}`;
    const facts = el("table", { class: "facts" },
      el("tr", {}, el("td", { text: "calls" }), el("td", { text: group(m.calls), id: "method-calls" })),
      el("tr", {}, el("td", { text: "self" }), el("td", { text: `${time(m.self)} (${percent(m.self, data.total_time)}), ${group(m.self)} ns`, id: "method-self" })),
      el("tr", {}, el("td", { text: "total" }), el("td", { text: `${time(m.total)} (${percent(m.total, data.total_time)}), ${group(m.total)} ns`, id: "method-total" })));
    if (allocations) {
      facts.append(el("tr", {}, el("td", { text: "allocations (self / total)" }), el("td", { text: `${group(m.selfAllocations)} / ${group(m.allocations)}` })));
    }
    const section = el("section", { class: "method", id: "method", "data-method": String(m.index) },
      el("h2", { text: m.name, id: "method-name" }), el("div", { class: "where", text: where(m) }), facts,
      api.methodGraph ? api.methodGraph(m) : egoGraph(m),
      el("h3", { text: `Callers (${group(m.callers.length)})` }),
      edgeTable(m.callers, "caller", m, "callers",
        "Time: spent in this method when called from the caller · Share: of this method's total"),
      el("h3", { text: `Callees (${group(m.callees.length)})` }),
      edgeTable(m.callees, "callee", m, "callees",
        "Time: spent in the callee when this method called it · Share: of this method's total"));
    main.append(section);
  }

  function edgeTable(edges, side, m, id, legend) {
    if (!edges.length) return el("p", { class: "note", text: side === "caller" ? "No callers: a root." : "No callees." });
    const head = el("tr", {}, ...["Method", "Calls", "Time", "Share", "Self in callee"].concat(allocations ? ["Alloc"] : [])
      .map((label, i) => el("th", { class: i === 0 ? "name" : "", text: label })));
    const body = el("tbody");
    for (const e of edges.slice().sort((a, b) => b.total - a.total || b.calls - a.calls)) {
      const other = e[side];
      const share = m.total > 0 ? e.total / m.total : 0;
      const cells = [el("td", { class: "name" }, methodLink(other)), el("td", { text: group(e.calls) }),
        el("td", { text: time(e.total), title: `${group(e.total)} ns` }),
        el("td", {}, el("span", { class: "bar", style: `width:${Math.round(Math.min(share, 1) * 60)}px` }), percent(e.total, m.total)),
        el("td", { text: time(e.self), title: `${group(e.self)} ns` })];
      if (allocations) cells.push(el("td", { text: group(e.allocations) }));
      body.append(el("tr", { "data-method": String(other.index) }, ...cells));
    }
    return el("div", {}, el("p", { class: "note", text: legend }), el("table", { id }, el("thead", {}, head), body));
  }

  // The method, its biggest callers to the left and callees to the right,
  // drawn here (no layout engine needed for two columns); each box opens
  // its method, each arrow says calls and time. What the method page
  // shows when Graphviz (focus_graph.js) could not start.
  function egoGraph(m) {
    const LIMIT = 12, boxW = 260, boxH = 34, gapY = 10, colGap = 130;
    const callers = m.callers.slice().sort((a, b) => b.total - a.total).slice(0, LIMIT);
    const callees = m.callees.slice().sort((a, b) => b.total - a.total).slice(0, LIMIT);
    const rows = Math.max(callers.length, callees.length, 1);
    const height = rows * (boxH + gapY) + gapY;
    const width = 3 * boxW + 2 * colGap;
    const svg = svgEl("svg", { class: "ego", width: String(width), height: String(height), viewBox: `0 0 ${width} ${height}` });
    const columnY = (count, i) => (height - count * (boxH + gapY) + gapY) / 2 + i * (boxH + gapY);
    function box(x, y, method, label, center) {
      const g = svgEl("g", { class: "box" });
      const t = svgEl("title");
      t.textContent = `${method.name}\n${where(method)}\nself ${time(method.self)} · total ${time(method.total)} · ${group(method.calls)} calls`;
      g.append(t, svgEl("rect", { x: String(x), y: String(y), width: String(boxW), height: String(boxH), rx: "4", class: center ? "center" : "" }));
      const text = svgEl("text", { x: String(x + 6), y: String(y + 14) });
      text.textContent = method.name.length > 36 ? method.name.slice(0, 35) + "…" : method.name;
      const sub = svgEl("text", { x: String(x + 6), y: String(y + 28) });
      sub.textContent = label;
      g.append(text, sub);
      if (!center) g.addEventListener("click", () => { location.hash = methodHash(method); });
      svg.append(g);
    }
    // The share is written by the outer column's end of the arrow, where
    // the arrows are apart.
    function arrow(x1, y1, x2, y2, label, atStart) {
      const mid = (x1 + x2) / 2;
      svg.append(svgEl("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}` }));
      const text = svgEl("text", { x: String(atStart ? x1 + 6 : x2 - 6), y: String((atStart ? y1 : y2) - 4),
        "text-anchor": atStart ? "start" : "end" });
      text.textContent = label;
      svg.append(text);
    }
    const cx = boxW + colGap, cy = (height - boxH) / 2;
    callers.forEach((e, i) => {
      const y = columnY(callers.length, i);
      box(0, y, e.caller, `×${group(e.calls)} · ${time(e.total)}`, false);
      arrow(boxW, y + boxH / 2, cx, cy + boxH / 2, percent(e.total, m.total), true);
    });
    callees.forEach((e, i) => {
      const y = columnY(callees.length, i);
      box(cx + boxW + colGap, y, e.callee, `×${group(e.calls)} · ${time(e.total)}`, false);
      arrow(cx + boxW, cy + boxH / 2, cx + boxW + colGap, y + boxH / 2, percent(e.total, m.total), false);
    });
    box(cx, cy, m, `self ${time(m.self)} · total ${time(m.total)}`, true);
    const more = [];
    if (m.callers.length > LIMIT) more.push(`${group(m.callers.length - LIMIT)} more callers`);
    if (m.callees.length > LIMIT) more.push(`${group(m.callees.length - LIMIT)} more callees`);
    return el("div", { style: "overflow:auto" }, svg, more.length ? el("p", { class: "note", text: `Not drawn: ${more.join(", ")} (in the tables below).` }) : null);
  }

  // --- the call graph, as the DOT writer draws it, laid out by Graphviz
  // when the report was written ---
  let graphSvg = null;
  function graphElement() {
    if (graphSvg || !data.svg) return graphSvg;
    graphSvg = readGraphSvg(data.svg, (lines) => { const m = boxMethod(lines); return m && m.index; });
    return graphSvg;
  }

  // A box's tooltip: its name, then its file:line (after "(ruby) " for
  // Ruby's own files) or, for a box split per caller, "from CALLER".
  function boxMethod(lines) {
    const named = methods.filter((m) => m.name === lines[0]);
    if (named.length <= 1) return named[0];
    return named.find((m) => m.file && lines[1] && lines[1].endsWith(`${m.file}:${m.line}`)) || named[0];
  }

  function showGraph(params) {
    const svg = graphElement();
    if (!svg) {
      main.append(el("p", { class: "note", id: "no-graph", text: `No graph view: ${data.graph_note || "the drawing could not be read"}. The table and every method's page work without it.` }));
      currentView = { onSearch: null };
      return;
    }
    const mark = graphView(main, svg, "Drag to pan, wheel to zoom, click a box to open its method; the search box highlights boxes.",
      (index) => { location.hash = methodHash(methods[index]); });
    const isHit = (test, index) => test(methods[index].name) || test(methods[index].file);
    const highlight = (query) => mark(query, isHit, (test) => methods.filter((m) => test(m.name) || test(m.file)).length, "the profile");
    currentView = { onSearch: highlight };
    const q = params.get("q");
    if (q) { search.value = q; }
    highlight(search.value);
  }

  // What the later scripts build on: the data, the helpers, addView(name,
  // label, show) for a view of their own at #name, and methodGraph(m),
  // which focus_graph.js sets to draw the method page's graph with
  // Graphviz (egoGraph, this file's own drawing, when it is not set).
  const api = window.tracegraphReport = {
    data, methods, byKey, nav, main, search, el, svgEl, group, time, percent, where, matcher, methodHash, methodLink,
    egoGraph, panZoom, methodGraph: null,
    addView(name, label, show) {
      addedViews.set(name, show);
      nav.append(el("a", { href: `#${name}`, text: label, id: `nav-${name}` }));
    }
  };

  // The first view is drawn once every script has run (they add views).
  document.addEventListener("DOMContentLoaded", () => {
    route();
    // When the first view is drawn, in ms since the page began to load (the
    // browser tests and the scale measurement read it).
    document.body.dataset.readyMs = String(Math.round(performance.now()));
  });
})();
