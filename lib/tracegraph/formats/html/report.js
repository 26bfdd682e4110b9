// tracegraph's HTML report. Reads the profile from #profile-data (JSON)
// and draws three views, chosen by the URL's fragment so a view can be
// shared: #graph?q=REGEXP (#graph?by=gem: the graph by the grouping the
// command's advice recommends, where it gives one), #table?sort=self&q=TEXT,
// #method=NAME. Every
// view's fragment may also choose threads and waiting, as --thread and
// --idle hide do: thread=ID&idle=hide (#method=NAME&thread=ID...); the
// table, the method pages and the focus graph are then counted from the
// call tree (call_tree.js), and the graph stays as written. The
// scripts after this one add views (flame.js: #flame, focus_graph.js:
// #focus?m=NAME..., summary.js: #summary, which an empty fragment opens)
// through window.tracegraphReport.addView, and
// focus_graph.js the method page's graph (methodGraph).
// Every name and path reaches the page through textContent or an
// attribute's value, never as markup.
"use strict";
(function () {
  const { group, time, percent, where, el, svgEl, matcher, matchesMethod, listHash, searchBox, router, lazyGraph,
    panZoom, graphView, graphSearch, noMethod, methodSection, relatives } = window.tracegraphPageKit;
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
  const writtenEdge = new Map();   // caller index * methods + callee index -> the edge's place in data.edges
  data.edges.forEach((r, i) => {
    const e = { caller: methods[r[0]], callee: methods[r[1]], calls: r[2], total: r[3], self: r[4], allocations: r[5] };
    e.caller.callees.push(e);
    e.callee.callers.push(e);
    writtenEdge.set(r[0] * methods.length + r[1], i);
  });
  const NUMBERS = ["calls", "total", "self", "allocations", "selfAllocations", "callers", "callees"];
  for (const m of methods) m.written = Object.fromEntries(NUMBERS.map((k) => [k, m[k]]));

  // --- the threads and waiting chosen (thread=ID&idle=hide in any
  // fragment): every method's numbers, callers and callees are the
  // chosen view's, counted from the call tree as Profile#view counts
  // them; a method the view has no call of is absent. Without a choice,
  // the report as written. ---
  // Waiting hidden or shown: a fragment's idle=hide or idle=show, else
  // the report's own default, "hide" when it has a call tree and waiting
  // in it (data.idle_default): working time first, as the command's
  // graph and tables rank it. setIdle writes a choice into params, left
  // out where it is the default.
  const idleDefault = data.idle_default === "hide" ? "hide" : "show";
  const idleOf = (params) => { const v = params.get("idle"); return v === "hide" || v === "show" ? v : idleDefault; };
  const setIdle = (params, idle) => { if (idle === idleDefault) params.delete("idle"); else params.set("idle", idle); };
  const choice = { thread: null, idle: "show", key: "", label: "", total: data.total_time };
  function applyChoice(params) {
    const tree = api.callTree;
    const c = tree ? tree.choice(params) : { thread: null, idle: "show" };
    const single = tree && data.flame.threads.length === 1;
    const asWritten = c.idle === "show" && (c.thread === null || single);
    const key = asWritten ? "" : `${c.thread} ${c.idle}`;
    Object.assign(choice, { thread: c.thread, idle: c.idle });
    if (key === choice.key) return;
    choice.key = key;
    if (asWritten) {
      for (const m of methods) { Object.assign(m, m.written); m.absent = false; }
      Object.assign(choice, { label: "", total: data.total_time });
      return;
    }
    const counted = tree.count(c.base, c.idle === "hide");
    for (const m of methods) {
      Object.assign(m, { calls: 0, total: 0, self: 0, allocations: null, selfAllocations: null, callers: [], callees: [], absent: true });
    }
    for (const r of counted.methods) {
      if (r.m < methods.length) Object.assign(methods[r.m], { calls: r.calls, total: r.total, self: r.self, absent: false });
    }
    let extra = data.edges.length;
    for (const r of counted.edges) {
      if (r.caller >= methods.length || r.callee >= methods.length) continue;
      const index = writtenEdge.get(r.caller * methods.length + r.callee);
      const e = { caller: methods[r.caller], callee: methods[r.callee], calls: r.calls, total: r.total, self: r.self,
        allocations: null, index: index === undefined ? extra++ : index };
      e.caller.callees.push(e);
      e.callee.callers.push(e);
    }
    const threadName = c.thread === null ? `all ${data.flame.threads.length} threads` : `the thread ${data.flame.threads[c.threadIndex].name}`;
    Object.assign(choice, { label: `${threadName}${c.idle === "hide" ? ", waiting hidden" : ""}`, total: counted.time });
  }
  // The choice as fragment parameters: "thread=ID&idle=hide", or "".
  function choiceQuery() {
    const params = new URLSearchParams();
    if (choice.thread !== null) params.set("thread", choice.thread);
    setIdle(params, choice.idle);
    return params.toString();
  }

  const methodHash = (m) => "#method=" + encodeURIComponent(m.key) + (choiceQuery() ? "&" + choiceQuery() : "");
  const methodLink = (m) => el("a", { href: methodHash(m), text: m.name, title: where(m) });

  // --- the page's frame ---
  // What was profiled, as Html.title names it (a program, a request).
  const title = data.title || (data.program ? `tracegraph: ${data.program}` : "tracegraph");
  const summary = `${data.clock} clock · total ${time(data.total_time)} · ${group(data.total_calls)} calls · ` +
    `${group(methods.length)} methods · ${data.threads.length} thread${data.threads.length === 1 ? "" : "s"}` +
    (allocations ? ` · ${group(data.total_allocations)} allocations` : "") + (data.complete ? "" : " · incomplete");
  const nav = el("nav", {},
    el("a", { href: "#graph", text: "Graph", id: "nav-graph" }),
    el("a", { href: "#table", text: "Table", id: "nav-table" }));
  const { search, box: searchDiv } = searchBox(
    (test) => methods.filter((m) => !m.absent && matchesMethod(test, m)).sort((a, b) => b.total - a.total),
    (m) => ({ href: methodHash(m), num: `${time(m.total)} · ${group(m.calls)} calls`, name: m.name, file: where(m) }),
    "see the table", () => routes.onSearch());
  const main = el("main", { id: "view" });
  // Which of the hook's paths recorded it, on which Ruby (docs/rubies.md).
  const recordedBy = data.recorded_by ? el("span", { class: "recorded-by", id: "recorded-by", text: `recorded with ${data.recorded_by}` }) : null;
  const header = el("header", {}, el("h1", { text: title }), el("span", { class: "summary", text: summary }), recordedBy, nav, searchDiv);
  document.body.append(header, main);
  document.title = title;

  // --- routing (page_kit.js's router): #graph, #table, #method=KEY&QUERY
  // and the views the later scripts add (addView: name -> show(params),
  // which draws into main and returns { onSearch } or nothing). Each
  // fragment's threads and waiting are applied first, and kept in the
  // nav's links; the page's title is the report's again (a method's page
  // puts its name first).
  const views = new Map([["graph", showGraph], ["table", showTable]]);
  // The graph options the report was written with (--focus X, --group-by
  // gem: Html.drawn_with), which drew the graph view; null for none.
  const drawnWith = data.drawn_with && data.drawn_with.length ? data.drawn_with.join(" ") : null;
  const groupedBy = (data.drawn_with || []).some((f) => f.startsWith("--group-by ")); // boxes are groups, not methods
  let firstView = null;   // the view an empty fragment opens (summary.js's), else the graph
  const routes = router({
    nav, main, views, method: showMethod, methodQuery: true,
    // (A report written with graph options opens on the graph they drew.)
    home: () => (drawnWith ? "graph" : firstView || (data.svg ? "graph" : "table")),
    before(state) {
      document.title = title;
      applyChoice(state.params);
      const query = choiceQuery();
      for (const a of nav.querySelectorAll("a")) a.setAttribute("href", `#${a.id.slice(4)}${query ? "?" + query : ""}`);
      showChoice();
    }
  });

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
    const inView = methods.filter((m) => !m.absent).length;
    function fill() {
      const test = matcher(filter.value);
      const rows = methods.filter((m) => !m.absent && (!test || matchesMethod(test, m)))
        .sort((a, b) => sortBy(b) - sortBy(a) || a.index - b.index);
      const fragment = document.createDocumentFragment();
      for (const m of rows) {
        const cells = [el("td", { class: "name" }, methodLink(m)), el("td", { class: "file", text: where(m) }),
          el("td", { text: group(m.calls) }), el("td", { text: time(m.self), title: `${group(m.self)} ns` }),
          el("td", { text: percent(m.self, choice.total) }), el("td", { text: time(m.total), title: `${group(m.total)} ns` }),
          el("td", { text: percent(m.total, choice.total) })];
        if (allocations) cells.push(el("td", { text: group(m.selfAllocations) }), el("td", { text: group(m.allocations) }));
        fragment.append(el("tr", { "data-method": String(m.index) }, ...cells));
      }
      body.replaceChildren(fragment);
      count.textContent = `${group(rows.length)} of ${group(inView)} methods${choice.label ? ` of ${choice.label}` : ""}, by ${COLUMNS.find((c) => c.key === sortKey).label.toLowerCase()}`;
    }
    let pending = null;
    filter.addEventListener("input", () => {
      clearTimeout(pending);
      pending = setTimeout(() => { history.replaceState(null, "", tableHash(sortKey, filter.value)); fill(); }, 150);
    });
    main.append(choiceNote(), el("div", { class: "graph-tools" }, filter, count), el("table", { id: "methods" }, el("thead", {}, head), body));
    fill();
  }
  const tableHash = (sort, q) => listHash("table", sort, q, { thread: choice.thread, idle: choice.idle === idleDefault ? "" : choice.idle });
  function setTableHash(sort, q) { location.hash = tableHash(sort, q); }

  // --- a method's page (page_kit.js's frame): its numbers, its graph,
  // its callers and callees ---
  function showMethod(key) {
    const m = byKey.get(key);
    if (!m) {
      main.append(noMethod("the profile", key));
      return;
    }
    if (m.absent) {
      main.append(el("p", { class: "note", id: "method-absent", text: `${m.name} has no calls in ${choice.label}: ` },
        el("a", { href: `#method=${encodeURIComponent(m.key)}${idleDefault === "hide" ? "&idle=show" : ""}`, text: "its page with every thread, waiting shown" })));
      return;
    }
    document.title = `${m.name} · ${title}`;
    main.append(choiceNote());
    main.append(methodSection(m, where(m), methodFacts(m), api.methodGraph ? api.methodGraph(m) : egoGraph(m),
      edgeTable(m, "caller"), edgeTable(m, "callee")));
  }

  function methodFacts(m) {
    const facts = el("table", { class: "facts" },
      el("tr", {}, el("td", { text: "calls" }), el("td", { text: group(m.calls), id: "method-calls" })),
      el("tr", {}, el("td", { text: "self" }), el("td", { text: `${time(m.self)} (${percent(m.self, choice.total)}), ${group(m.self)} ns`, id: "method-self" })),
      el("tr", {}, el("td", { text: "total" }), el("td", { text: `${time(m.total)} (${percent(m.total, choice.total)}), ${group(m.total)} ns`, id: "method-total" })));
    if (allocations) {
      facts.append(el("tr", {}, el("td", { text: "allocations (self / total)" }), el("td", { text: `${group(m.selfAllocations)} / ${group(m.allocations)}` })));
    }
    return facts;
  }

  const SIDES = {
    caller: { heading: "Callers", id: "callers", none: "No callers: a root.",
      legend: "Time: spent in this method when called from the caller · Share: of this method's total" },
    callee: { heading: "Callees", id: "callees", none: "No callees.",
      legend: "Time: spent in the callee when this method called it · Share: of this method's total" }
  };
  // m's callers (side "caller") or callees, the most time first: the
  // calls, the time of each (and its share of m's total), the self time
  // in the callee.
  function edgeTable(m, side) {
    const edges = side === "caller" ? m.callers : m.callees;
    return relatives({
      ...SIDES[side], labels: ["Calls", "Time", "Share", "Self in callee"].concat(allocations ? ["Alloc"] : []),
      links: edges.slice().sort((a, b) => b.total - a.total || b.calls - a.calls), other: (e) => e[side], link: methodLink,
      cells(e) {
        const share = m.total > 0 ? e.total / m.total : 0;
        const cells = [el("td", { text: group(e.calls) }), el("td", { text: time(e.total), title: `${group(e.total)} ns` }),
          el("td", {}, el("span", { class: "bar", style: `width:${Math.round(Math.min(share, 1) * 60)}px` }), percent(e.total, m.total)),
          el("td", { text: time(e.self), title: `${group(e.self)} ns` })];
        if (allocations) cells.push(el("td", { text: group(e.allocations) }));
        return cells;
      }
    });
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
  const graphElement = lazyGraph(data.svg, (lines) => { const m = groupedBy ? undefined : boxMethod(lines); return m && m.index; });

  // A box's tooltip: its name, then its file:line (after "(ruby) " for
  // Ruby's own files) or, for a box split per caller, "from CALLER".
  function boxMethod(lines) {
    const named = methods.filter((m) => m.name === lines[0]);
    if (named.length <= 1) return named[0];
    return named.find((m) => m.file && lines[1] && lines[1].endsWith(`${m.file}:${m.line}`)) || named[0];
  }

  // The graph by the grouping the advice recommends (#graph?by=gem),
  // laid out when the report was written: its boxes are groups, which
  // open no method page.
  const advice = data.advice;
  const groupedElement = lazyGraph(advice && advice.svg, () => undefined);
  // "methods | by gem": which graph, where the advice has a second one.
  function graphChoice(by) {
    if (!advice || !advice.group_by) return null;
    const query = choiceQuery();
    const link = (text, hash, current, id) => el("a", { href: hash + (query ? (hash.includes("?") ? "&" : "?") + query : ""),
      text, id, class: current ? "current" : "" });
    return el("div", { class: "graph-choice", id: "graph-choice" }, el("span", { text: "Boxes:" }),
      link("methods", "#graph", !by, "graph-methods"),
      link(`by ${advice.group_by}`, `#graph?by=${advice.group_by}`, Boolean(by), "graph-grouped"));
  }
  function showGroupedGraph() {
    const svg = groupedElement();
    main.append(graphChoice(advice.group_by));
    if (!svg) {
      main.append(el("p", { class: "note", id: "no-graph", text: `No graph by ${advice.group_by}: ${advice.svg_note || "the drawing could not be read"}.` }));
      return;
    }
    graphView(main, svg, `One box per ${advice.group_by}, as --group-by ${advice.group_by} draws it (its tooltip names its heaviest methods); drag to pan, wheel to zoom.`,
      () => {}, () => `#graph?by=${advice.group_by}`);
  }

  function showGraph(params) {
    if (advice && advice.group_by && params.get("by") === advice.group_by) return showGroupedGraph();
    const svg = graphElement();
    const which = graphChoice(null);
    if (which) main.append(which);
    if (choice.label) {
      main.append(el("p", { class: "note", id: "view-note", text: `The graph shows the report as written (${writtenLabel()}); ` +
        `the thread and waiting chosen (${choice.label}) apply to the table, the method pages, the focus graph and the flame graph.` }));
    }
    if (drawnWith) {
      main.append(el("p", { class: "note", id: "drawn-with", text: `Drawn with ${drawnWith}, as the report was written; ` +
        "the table, the method pages and the focus and flame views keep every method." }));
    }
    if (!svg) {
      main.append(el("p", { class: "note", id: "no-graph", text: `No graph view: ${data.graph_note || "the drawing could not be read"}. The table and every method's page work without it.` }));
      return;
    }
    const highlight = graphView(main, svg, groupedBy ? "Drag to pan, wheel to zoom; a box is a group, its tooltip names its heaviest methods." :
      "Drag to pan, wheel to zoom, click a box to open its method; the search box highlights boxes.",
      (index) => { location.hash = methodHash(methods[index]); },
      (q) => { const query = choiceQuery(); return q ? `#graph?${new URLSearchParams({ q })}${query ? "&" + query : ""}` : `#graph${query ? "?" + query : ""}`; });
    return graphSearch(highlight, methods, "the profile", search, params);
  }

  // The choice, in the header: a thread (or all) and waiting shown or
  // hidden, which every view's fragment keeps; without a call tree, why
  // there is none.
  const writtenLabel = () => (data.threads.length === 1 ? `the thread ${data.threads[0].name}` : `all ${data.threads.length} threads`) +
    (data.hidden_waiting ? ", waiting left out when recorded (--idle hide)" : ", waiting shown");
  const choiceBox = el("div", { class: "choice", id: "view-choice" });
  header.insertBefore(choiceBox, searchDiv);
  let threadSelect = null, idleSelect = null;
  function buildChoice() {
    if (!api.callTree) {
      choiceBox.append(el("span", { class: "note", id: "view-choice-note", text: `${writtenLabel()[0].toUpperCase()}${writtenLabel().slice(1)}, as written: ` +
        `this report has no call tree${data.no_call_tree ? ` (${data.no_call_tree})` : ""}, which choosing a thread or hiding waiting is counted from.` }));
      return;
    }
    const threads = data.flame.threads;
    threadSelect = el("select", { id: "view-thread", "aria-label": "Thread" });
    if (threads.length > 1) threadSelect.append(el("option", { value: "all", text: `all ${threads.length} threads` }));
    for (const t of threads) threadSelect.append(el("option", { value: String(t.id), text: t.name }));
    idleSelect = el("select", { id: "view-idle", "aria-label": "Waiting" },
      el("option", { value: "show", text: "waiting shown" }), el("option", { value: "hide", text: "waiting hidden" }));
    const change = () => {
      const thread = threadSelect.value === "all" ? null : threadSelect.value;
      location.hash = withChoice(location.hash, thread, idleSelect.value);
    };
    threadSelect.addEventListener("change", change);
    idleSelect.addEventListener("change", change);
    choiceBox.append(threadSelect, idleSelect);
  }
  function showChoice() {
    if (!threadSelect) return;
    threadSelect.value = choice.thread === null ? (data.flame.threads.length > 1 ? "all" : String(data.flame.threads[0].id)) : choice.thread;
    idleSelect.value = choice.idle;
  }
  // hash with thread and idle set (or taken out where they are the default).
  function withChoice(hash, thread, idle) {
    const method = hash.startsWith("#method=");
    const [head, query] = method ? hash.split(/&(.*)/s) : hash.split(/\?(.*)/s);
    const params = new URLSearchParams(query || "");
    if (thread === null) params.delete("thread"); else params.set("thread", thread);
    setIdle(params, idle);
    if (!method) params.delete("zoom");
    const rest = params.toString();
    return (head || "#") + (rest ? (method ? "&" : "?") + rest : "");
  }
  // What the table and the method pages say of a choice.
  const choiceNote = () => (choice.label ? el("p", { class: "note", id: "view-note",
    text: `Showing ${choice.label}: counted from the call tree as --thread and --idle hide count them` +
      (allocations ? " (allocations are not counted per thread here)" : "") + "." }) : "");

  // What the later scripts build on: the data, the helpers, addView(name,
  // label, show) for a view of their own at #name, and methodGraph(m),
  // which focus_graph.js sets to draw the method page's graph with
  // Graphviz (egoGraph, this file's own drawing, when it is not set).
  const api = window.tracegraphReport = {
    data, methods, byKey, nav, main, search, el, svgEl, group, time, percent, where, matcher, methodHash, methodLink,
    egoGraph, panZoom, methodGraph: null, callTree: null, choice, choiceQuery, idleOf, setIdle,
    // first: the view the report opens on, first in the nav.
    addView(name, label, show, { first = false } = {}) {
      views.set(name, show);
      const link = el("a", { href: `#${name}`, text: label, id: `nav-${name}` });
      if (first) { firstView = name; nav.prepend(link); } else nav.append(link);
    }
  };

  // The first view is drawn once every script has run (they add views).
  document.addEventListener("DOMContentLoaded", () => {
    buildChoice();
    routes.start();
    // When the first view is drawn, in ms since the page began to load (the
    // browser tests and the scale measurement read it).
    document.body.dataset.readyMs = String(Math.round(performance.now()));
  });
})();
