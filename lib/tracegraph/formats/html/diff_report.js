// tracegraph's HTML diff report. Reads the diff from #profile-data (JSON,
// written by comparison/diff_html.rb) and draws three views, chosen by
// the URL's fragment so a view can be shared: #graph?q=REGEXP,
// #changes?sort=self&q=TEXT, #method=NAME. Every name reaches the page
// through textContent or an attribute's value, never as markup.
"use strict";
(function () {
  const { group, time, where, el, matcher, matchesMethod, listHash, searchBox, router, lazyGraph, graphView, graphSearch,
    noMethod, methodSection, relatives } = window.tracegraphPageKit;
  const data = JSON.parse(document.getElementById("profile-data").textContent);
  const allocations = data.allocations;

  // One row per name in either run, in the order of ProfileDiff#rows.
  const rows = data.rows.map((r, index) => ({
    index, name: r[0], file: r[1], line: r[2], c: r[3], status: r[4],
    calls: [r[5], r[6]], self: [r[7], r[8]], total: [r[9], r[10]], allocations: [r[11], r[12]],
    callers: new Map(), callees: new Map()
  }));
  const byName = new Map(rows.map((m) => [m.name, m]));
  // Each call between two names, on both sides: {calls: [base, head], total: [base, head]}.
  [data.base_edges, data.head_edges].forEach((edges, side) => {
    for (const [caller, callee, calls, total] of edges) {
      const from = rows[caller], to = rows[callee];
      let link = from.callees.get(to);
      if (!link) {
        link = { caller: from, callee: to, calls: [0, 0], total: [0, 0] };
        from.callees.set(to, link);
        to.callers.set(from, link);
      }
      link.calls[side] = calls;
      link.total[side] = total;
    }
  });
  const failedNames = new Set(data.gate ? data.gate.failed_names : []);

  // --- formatting ---
  const signed = (text, n) => (n > 0 ? "+" : "") + text;
  // The change from base to head as a percentage of base: "+49.0%",
  // "new" from nothing, "" when both are nothing.
  function change(pair) {
    const [base, head] = pair;
    if (base === 0) return head === 0 ? "" : "new";
    const pct = 100 * (head - base) / base;
    return `${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%`;
  }
  const delta = (pair) => pair[1] - pair[0];
  const STATUS = { changed: "in both", new: "new in head", gone: "gone from base" };

  const methodHash = (m) => "#method=" + encodeURIComponent(m.name);
  const methodLink = (m) => el("a", { href: methodHash(m), text: m.name, title: where(m) });

  // --- the page's frame ---
  const title = document.title;
  const side = (s) => `${time(s.total_time)}, ${group(s.total_calls)} calls` +
    (allocations ? `, ${group(s.total_allocations)} allocations` : "") + (s.runs > 1 ? ` (median of ${s.runs} runs)` : "");
  const clocks = data.base.clock === data.head.clock ? `${data.head.clock} clock` : `${data.base.clock} → ${data.head.clock} clock (different clocks!)`;
  const totalChange = data.total_change_percent === null ? "" : ` (${data.total_change_percent >= 0 ? "+" : ""}${data.total_change_percent.toFixed(1)}%)`;
  const summary = `${clocks} · base ${side(data.base)} → head ${side(data.head)}${totalChange}` +
    (data.normalized ? ` · base times normalized to head's total (×${data.normalize_factor.toFixed(3)})` : "") +
    (data.group_by !== "method" ? ` · grouped by ${data.group_by}` : "") +
    (data.size_by === "allocations" ? " · graph by allocations" : "");
  const nav = el("nav", {},
    el("a", { href: "#graph", text: "Graph", id: "nav-graph" }),
    el("a", { href: "#changes", text: "Changes", id: "nav-changes" }));
  const { search, box: searchDiv } = searchBox(
    (test) => rows.filter((m) => matchesMethod(test, m))
      .sort((a, b) => Math.abs(delta(b.self)) - Math.abs(delta(a.self)) || a.index - b.index),
    (m) => ({ href: methodHash(m), num: `self ${signed(time(delta(m.self)), delta(m.self))} · calls ${group(m.calls[0])} → ${group(m.calls[1])}`,
      name: m.name, file: where(m) }),
    "see the changes", () => routes.onSearch());
  const main = el("main", { id: "view" });
  document.body.append(el("header", {}, el("h1", { text: title }), el("span", { class: "summary", text: summary }), nav,
    searchDiv));
  if (data.gate) {
    const g = data.gate;
    const verdict = g.failed ? `Gate FAILED: ${g.failures} of ${g.checks} check${g.checks === 1 ? "" : "s"} failed`
      : g.undecided ? `Gate cannot tell: ${g.undecided} of ${g.checks} check${g.checks === 1 ? "" : "s"} could not tell, the noise between runs wider than the limit`
      : `Gate passed: ${g.checks} check${g.checks === 1 ? "" : "s"}, none failed`;
    document.body.append(el("section", { id: "gate", class: g.failed ? "failed" : g.undecided ? "undecided" : "passed" },
      el("strong", { id: "gate-verdict", text: verdict }),
      el("ul", {}, ...g.lines.map((line) => el("li", { text: line })))));
  }
  document.body.append(main);

  // --- routing (page_kit.js's router): #graph, #changes, #method=NAME;
  // an empty or unknown fragment opens the graph, or the changes where
  // there is no graph. A method's page names itself in the title, which
  // every other view gives back.
  const routes = router({
    nav, main, views: new Map([["graph", showGraph], ["changes", showChanges]]), method: showMethod,
    home: () => (data.svg ? "graph" : "changes"),
    before() { document.title = title; }
  });

  // --- the table of changes: both sides, the change and its percent, for
  // each measure; sorted by the size of the change in one of them ---
  const MEASURES = [
    { key: "self", label: "Self", format: time },
    { key: "total", label: "Total", format: time },
    { key: "calls", label: "Calls", format: group }
  ].concat(allocations ? [{ key: "allocations", label: "Own allocations", format: group }] : []);

  // Rows drawn at first: the biggest changes; "Show all" draws the rest
  // (thousands of rows of 18 cells take seconds on a slow machine).
  const FIRST_ROWS = 500;

  function showChanges(params) {
    let limit = FIRST_ROWS;
    const measure = MEASURES.find((x) => x.key === params.get("sort")) || MEASURES[0];
    const filter = el("input", { type: "search", id: "changes-filter", placeholder: "Filter by name or file", value: params.get("q") || "" });
    const count = el("span", { class: "note", id: "changes-count" });
    const body = el("tbody");
    function fill() {
      const test = matcher(filter.value);
      const shown = rows.filter((m) => !test || matchesMethod(test, m))
        .sort((a, b) => Math.abs(delta(b[measure.key])) - Math.abs(delta(a[measure.key])) || a.index - b.index);
      const fragment = document.createDocumentFragment();
      for (const m of shown.slice(0, limit)) fragment.append(changeRow(m));
      body.replaceChildren(fragment);
      count.textContent = `${group(shown.length)} of ${group(rows.length)} methods, by the size of the change in ${measure.label.toLowerCase()}` +
        (shown.length > limit ? `; the first ${group(limit)} shown` : "");
      more.hidden = shown.length <= limit;
    }
    const more = el("button", { type: "button", id: "changes-all", text: "Show all", hidden: "" });
    more.addEventListener("click", () => { limit = Infinity; fill(); });
    // A click anywhere on a row opens its method.
    body.addEventListener("click", (event) => {
      const tr = event.target.closest("tr[data-method]");
      if (tr && !event.target.closest("a")) location.hash = methodHash(rows[Number(tr.dataset.method)]);
    });
    let pending = null;
    filter.addEventListener("input", () => {
      clearTimeout(pending);
      pending = setTimeout(() => { history.replaceState(null, "", changesHash(measure.key, filter.value)); fill(); }, 150);
    });
    main.append(el("div", { class: "graph-tools" }, filter, count, more),
      el("table", { id: "changes" }, changesHead(measure, filter), body));
    fill();
  }
  const changesHash = (sort, q) => listHash("changes", sort, q);

  // The table's head: Method, Status, then each measure over its four
  // columns; a click on a measure sorts by it (the filter's text kept).
  function changesHead(measure, filter) {
    const groups = el("tr", {}, el("th", { class: "name", rowspan: "2", text: "Method" }), el("th", { rowspan: "2", class: "status", text: "Status" }));
    const head = el("tr");
    for (const x of MEASURES) {
      const th = el("th", { class: `group sortable${x === measure ? " sorted" : ""}`, colspan: "4", text: x.label, "data-key": x.key,
        title: `Sort by the size of the change in ${x.label.toLowerCase()}` });
      th.addEventListener("click", () => { location.hash = changesHash(x.key, filter.value); });
      groups.append(th);
      head.append(el("th", { class: "first", text: "base" }), el("th", { text: "head" }), el("th", { text: "change" }), el("th", { text: "%" }));
    }
    return el("thead", {}, groups, head);
  }

  // A method's row: its link, its status (and whether the gate failed
  // it), then for each measure base, head, the change and its percent
  // (a time's exact nanoseconds in its title).
  function changeRow(m) {
    const failed = failedNames.has(m.name);
    const cells = [el("td", { class: "name" }, methodLink(m)),
      el("td", { class: "status", text: STATUS[m.status] + (failed ? " · gate failed" : "") })];
    for (const x of MEASURES) {
      const pair = m[x.key], d = delta(pair);
      const exact = x.format === time ? (n) => ({ title: `${group(n)} ns` }) : () => ({});
      cells.push(el("td", { class: "first", text: x.format(pair[0]), ...exact(pair[0]) }),
        el("td", { text: x.format(pair[1]), ...exact(pair[1]) }),
        el("td", { class: d > 0 ? "up" : (d < 0 ? "down" : ""), text: signed(x.format(d), d), "data-delta": String(d), ...exact(d) }),
        el("td", { class: d > 0 ? "up" : (d < 0 ? "down" : ""), text: change(pair) }));
    }
    return el("tr", { "data-method": String(m.index), class: failed ? "gate-failed" : "" }, ...cells);
  }

  // --- a method's two sides (page_kit.js's frame): its numbers, callers
  // and callees in base and in head ---
  function showMethod(name) {
    const m = byName.get(name);
    if (!m) {
      main.append(noMethod("either profile", name));
      return;
    }
    document.title = `${m.name} · ${title}`;
    const about = `${where(m)}${where(m) ? " · " : ""}${STATUS[m.status]}${failedNames.has(m.name) ? " · the gate failed it" : ""}`;
    main.append(methodSection(m, about, twoSides(m), linkTable(m, "caller"), linkTable(m, "callee")));
  }

  function twoSides(m) {
    const facts = el("table", { class: "two-sided", id: "method-facts" },
      el("tr", {}, ...["", "base", "head", "change", "%"].map((t) => el("th", { text: t }))));
    for (const x of MEASURES) {
      const pair = m[x.key], d = delta(pair);
      facts.append(el("tr", { "data-key": x.key }, el("td", { text: x.key === "allocations" ? "own allocations" : x.key }),
        el("td", { text: x.format(pair[0]) }), el("td", { text: x.format(pair[1]) }),
        el("td", { class: d > 0 ? "up" : (d < 0 ? "down" : ""), text: signed(x.format(d), d) }),
        el("td", { class: d > 0 ? "up" : (d < 0 ? "down" : ""), text: change(pair) })));
    }
    return facts;
  }

  const SIDES = {
    caller: { heading: "Callers", id: "callers", none: "No callers in either run: a root.",
      legend: "Calls from each caller, and the time spent in this method when it called, in each run" },
    callee: { heading: "Callees", id: "callees", none: "No callees in either run.",
      legend: "Calls to each callee, and the time spent in it when this method called, in each run" }
  };
  // m's callers (side "caller") or callees, each with its calls and time
  // in base and in head, and the change.
  function linkTable(m, side) {
    const links = [...(side === "caller" ? m.callers : m.callees).values()];
    // Biggest change in time first, then the most calls in head.
    const sorted = links.sort((a, b) => Math.abs(delta(b.total)) - Math.abs(delta(a.total)) ||
      b.calls[1] - a.calls[1] || a[side].index - b[side].index);
    return relatives({
      ...SIDES[side], labels: ["calls base", "calls head", "change", "time base", "time head", "change", "%"],
      links: sorted, other: (link) => link[side], link: methodLink,
      cells(link) {
        const dc = delta(link.calls), dt = delta(link.total);
        return [el("td", { text: group(link.calls[0]) }), el("td", { text: group(link.calls[1]) }),
          el("td", { class: dc > 0 ? "up" : (dc < 0 ? "down" : ""), text: signed(group(dc), dc) }),
          el("td", { text: time(link.total[0]), title: `${group(link.total[0])} ns` }),
          el("td", { text: time(link.total[1]), title: `${group(link.total[1])} ns` }),
          el("td", { class: dt > 0 ? "up" : (dt < 0 ? "down" : ""), text: signed(time(dt), dt), title: `${group(dt)} ns` }),
          el("td", { text: change(link.total) })];
      }
    });
  }

  // --- the diff graph, as ProfileDiff#to_dot draws it, laid out by
  // Graphviz when the report was written ---
  const graphElement = lazyGraph(data.svg, (lines) => { const m = byName.get(lines[0]); return m && m.index; });

  function showGraph(params) {
    const svg = graphElement();
    if (!svg) {
      main.append(el("p", { class: "note", id: "no-graph", text: `No graph view: ${data.graph_note || "the drawing could not be read"}. The changes and every method's two sides work without it.` }));
      return;
    }
    const highlight = graphView(main, svg, "Red: grew, blue: shrank, dashed: gone. Drag to pan, wheel to zoom, click a box for its two sides; the search box highlights boxes.",
      (index) => { location.hash = methodHash(rows[index]); });
    return graphSearch(highlight, rows, "the diff", search, params);
  }

  routes.start();
  // When the first view is drawn, in ms since the page began to load.
  document.body.dataset.readyMs = String(Math.round(performance.now()));
})();
