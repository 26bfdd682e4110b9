// What both of tracegraph's HTML pages (the report, report.js, and the
// diff report, diff_report.js) are built from, inlined before them and
// exposed as window.tracegraphPageKit: text-only DOM helpers, number and
// time formatting, the search's matcher, the search box with its list of
// matches, the router (the URL's fragment chooses the view), the graph
// view (a Graphviz SVG read from the data once, with pan, zoom and the
// search's highlighting), and the frame of a method's page (its heading,
// its callers' and callees' tables). Every name reaches the page through
// textContent or an attribute's value, never as markup.
"use strict";
(function () {
  const SVG_NS = "http://www.w3.org/2000/svg";

  // --- formatting ---
  const group = (n) => (n === null || n === undefined) ? "" : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  // A duration as the graph writes it (tg_format.c's rule, step by step;
  // the cases are test/fixtures/durations.txt): 3 significant digits in
  // the largest unit that keeps it at least 1, rounded half up before the
  // precision is chosen, so 999,999 ns is "1.00 ms"; seconds never switch.
  const TIME_UNITS = [[1e3, "µs"], [1e6, "ms"], [1e9, "s"]];
  function time(nanoseconds) {
    const ns = Math.round(nanoseconds);
    if (ns < 0) return `-${time(-ns)}`;
    if (ns < 1000) return `${ns} ns`;
    for (let u = 0; u < TIME_UNITS.length; u++) {
      const [size, unit] = TIME_UNITS[u];
      for (let decimals = 2; decimals >= 0; decimals--) {
        const scale = 10 ** decimals, step = size / scale;
        const q = Math.floor(ns / step), r = ns - q * step;
        const v = r >= step - r ? q + 1 : q;
        if (v < 1000 || (u === TIME_UNITS.length - 1 && decimals === 0)) {
          const text = decimals ? `${Math.floor(v / scale)}.${String(v % scale).padStart(decimals, "0")}` : `${v}`;
          return `${text} ${unit}`;
        }
      }
    }
  }
  const percent = (part, whole) => whole > 0 ? `${(100 * part / whole).toFixed(2)}%` : "";
  const where = (m) => m.file ? `${m.file}:${m.line}` : (m.c ? "(C method)" : "");

  // --- DOM helpers: text only ---
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  function svgEl(tag, attrs) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }

  // A search: /re/ or text with regexp characters is a regexp if it
  // compiles, else a substring; case-insensitive.
  function matcher(query) {
    const q = (query || "").trim();
    if (!q) return null;
    const slashed = /^\/(.*)\/$/.exec(q);
    try {
      const re = new RegExp(slashed ? slashed[1] : q, "i");
      return (s) => s !== null && re.test(s);
    } catch (_) {
      const lower = q.toLowerCase();
      return (s) => s !== null && s.toLowerCase().includes(lower);
    }
  }
  // A search matches a method (or a diff's row) by its name or its file.
  const matchesMethod = (test, m) => test(m.name) || test(m.file);
  function decode(s) {
    try { return decodeURIComponent(s); } catch (_) { return s; }
  }
  // A sorted, filtered list's fragment: #VIEW?sort=KEY&q=TEXT, and extra
  // parameters (name -> value, left out when empty) after them.
  function listHash(view, sort, q, extra) {
    const params = new URLSearchParams({ sort });
    if (q) params.set("q", q);
    for (const [key, value] of Object.entries(extra || {})) if (value) params.set(key, value);
    return `#${view}?` + params.toString();
  }

  // The header's search box and the list of matches under it, biggest
  // first as found(test) orders them; describe(item) gives each entry's
  // { href, num, name, file }; more names where the rest are; onSearch()
  // (the view's, or null) is told the text as it is typed.
  function searchBox(found, describe, more, onSearch) {
    const search = el("input", { type: "search", id: "search", placeholder: "Search methods (name, file or /regexp/)",
      autocomplete: "off", "aria-label": "Search methods" });
    const matches = el("ul", { class: "matches", id: "matches", hidden: "" });
    function update() {
      const test = matcher(search.value);
      matches.replaceChildren();
      if (!test) { matches.hidden = true; return; }
      const items = found(test);
      for (const item of items.slice(0, 30)) {
        const d = describe(item);
        matches.append(el("li", {}, el("a", { href: d.href }, el("span", { class: "num", text: d.num }),
          el("span", { class: "mname", text: d.name }), el("span", { class: "mfile", text: d.file }))));
      }
      if (items.length > 30) matches.append(el("li", { class: "note", text: `… ${group(items.length - 30)} more: ${more}` }));
      if (!items.length) matches.append(el("li", { class: "note", text: "no method matches" }));
      matches.hidden = false;
      const view = onSearch();
      if (view) view(search.value);
    }
    search.addEventListener("input", update);
    search.addEventListener("focus", update);
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        const first = matches.querySelector("a");
        if (first) location.hash = first.getAttribute("href");
      } else if (event.key === "Escape") {
        matches.hidden = true;
      }
    });
    document.addEventListener("click", (event) => { if (!event.target.closest(".search")) matches.hidden = true; });
    matches.addEventListener("click", (event) => { if (event.target.closest("a")) matches.hidden = true; });
    return { search, box: el("div", { class: "search" }, search, matches) };
  }

  // --- routing: the URL's fragment chooses the view, so a view can be
  // shared and Back works ---

  // What a fragment asks for: "#method=KEY" a method's page (view
  // "method", KEY decoded as name), or with methodQuery "#method=KEY&QUERY";
  // "#VIEW?QUERY" the view VIEW where known(VIEW), else home()'s; params,
  // QUERY's parameters.
  function parseHash(hash, known, home, methodQuery) {
    if (hash.startsWith("#method=")) {
      const [key, query] = methodQuery ? hash.slice(8).split(/&(.*)/s) : [hash.slice(8), ""];
      return { view: "method", name: decode(key), params: new URLSearchParams(query || "") };
    }
    const [view, query] = hash.slice(1).split("?");
    return { view: known(view) ? view : home(), params: new URLSearchParams(query || "") };
  }

  // A page's router. At start() and at each change of the fragment, it
  // reads the fragment (parseHash; methodQuery: whether a method's key
  // may be followed by "&" and parameters; without, an "&" typed
  // unencoded in a name stays in it), shows the page's before(state), if
  // any, what was asked, marks the view's nav link (#nav-VIEW) current,
  // empties main and draws the view into it, views.get(VIEW)(params) or
  // for a method's page method(name, params), and scrolls to the top.
  // views is a Map the page may add to until start(). A view returns
  // { onSearch } or nothing; the router's onSearch() gives the shown
  // view's onSearch (or null), as searchBox's last argument asks.
  function router({ nav, main, views, home, method, methodQuery = false, before }) {
    let current = null;
    function route() {
      const state = parseHash(location.hash, (name) => views.has(name), home, methodQuery);
      if (before) before(state);
      for (const a of nav.querySelectorAll("a")) a.classList.toggle("current", a.id === `nav-${state.view}`);
      main.replaceChildren();
      const shown = state.view === "method" ? method(state.name, state.params) : views.get(state.view)(state.params);
      current = shown || { onSearch: null };
      window.scrollTo(0, 0);
    }
    return {
      start() {
        window.addEventListener("hashchange", route);
        route();
      },
      onSearch: () => current && current.onSearch
    };
  }

  // --- the graph view: an SVG laid out by Graphviz when the page was
  // written ---

  // The SVG of text, or null if it cannot be read; each box whose
  // tooltip's lines name an item (methodOf(lines) gives its index, or
  // undefined) carries it as data-method. Its whole is dataset.full.
  function readGraphSvg(text, methodOf) {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    if (doc.querySelector("parsererror")) return null;
    const svg = document.importNode(doc.documentElement, true);
    for (const node of svg.querySelectorAll("g.node")) {
      const a = node.querySelector("a");
      const tip = a && (a.getAttributeNS("http://www.w3.org/1999/xlink", "title") || a.getAttribute("xlink:title"));
      const index = tip ? methodOf(tip.split("\n")) : undefined;
      if (index !== undefined) node.dataset.method = String(index);
    }
    const box = svg.viewBox.baseVal;
    svg.dataset.full = `${box.x} ${box.y} ${box.width} ${box.height}`;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    return svg;
  }

  // The SVG of text (readGraphSvg's) as a function that reads it when
  // first called and gives the same element after, so that a page opens
  // without parsing a big drawing, and a view drawn again does not parse
  // it again; null where there is no text or it cannot be read.
  function lazyGraph(text, methodOf) {
    let svg = null;
    return () => {
      if (!svg && text) svg = readGraphSvg(text, methodOf);
      return svg;
    };
  }

  // Pan (drag) and zoom (wheel) of an SVG drawing in view, whose whole is
  // svg.dataset.full ("x y w h"), opened at svg.dataset.start if set (a
  // part of it), else whole; reset (a button, or null) fits it again;
  // a click that did not drag calls onNode(box, event) on the box under it.
  function panZoom(view, svg, reset, onNode) {
    let [x, y, w, h] = (svg.dataset.start || svg.dataset.full).split(" ").map(Number);
    const apply = () => svg.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
    const fit = () => { [x, y, w, h] = svg.dataset.full.split(" ").map(Number); apply(); };
    apply();
    if (reset) reset.addEventListener("click", fit);
    view.addEventListener("wheel", (event) => {
      event.preventDefault();
      const rect = view.getBoundingClientRect();
      const scale = Math.max(w / rect.width, h / rect.height);
      // The point under the pointer stays put (the SVG is centred, as
      // preserveAspectRatio's default xMidYMid meet places it).
      const px = x + (event.clientX - rect.left - (rect.width - w / scale) / 2) * scale;
      const py = y + (event.clientY - rect.top - (rect.height - h / scale) / 2) * scale;
      const factor = Math.exp(event.deltaY * 0.0015);
      x = px - (px - x) * factor; y = py - (py - y) * factor; w *= factor; h *= factor;
      apply();
    }, { passive: false });
    let drag = null;
    view.addEventListener("pointerdown", (event) => {
      drag = { sx: event.clientX, sy: event.clientY, x, y, moved: false };
      view.setPointerCapture(event.pointerId);
    });
    view.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const rect = view.getBoundingClientRect();
      const scale = Math.max(w / rect.width, h / rect.height);
      const dx = event.clientX - drag.sx, dy = event.clientY - drag.sy;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; view.classList.add("dragging"); }
      x = drag.x - dx * scale; y = drag.y - dy * scale;
      apply();
    });
    view.addEventListener("pointerup", (event) => {
      const moved = drag && drag.moved;
      drag = null;
      view.classList.remove("dragging");
      if (moved) return;
      const hit = document.elementsFromPoint(event.clientX, event.clientY).map((n) => n.closest && n.closest("g.node")).find((n) => n);
      if (hit) onNode(hit, event);
    });
  }

  // A drawing that Fit shows at under FIT_READS of its size (its 9 pt
  // labels under 2.3 pt) is a poster whose labels cannot be read (a
  // query engine's 80 boxes: 1,635 × 6,861 pt): note says so, and what
  // draws a graph that reads. (The demo's 10 boxes, 736 × 1,148 pt, are
  // at 44% in a laptop's window, and read.)
  const FIT_READS = 0.25;
  function sayFit(view, svg, note) {
    const [, , w, h] = svg.dataset.full.split(" ").map(Number);
    const rect = view.getBoundingClientRect();
    if (!(w > 0 && h > 0 && rect.width > 0 && rect.height > 0)) return;
    const scale = Math.min(rect.width / w, rect.height / h) * 0.75; // the drawing's pt at 96 px to the inch
    if (scale >= FIT_READS) return;
    note.textContent = `At Fit, this graph (${group(Math.round(w))} × ${group(Math.round(h))} pt) is drawn at ` +
      `${Math.max(1, Math.round(100 * scale))}% of its size, too small to read: zoom in with the wheel, or draw fewer ` +
      "boxes (--max-nodes 40) or one box per class, file or gem (--group-by).";
  }

  // The graph view drawn into main: its tools (legend, a Fit button, the
  // count of hits) and svg, with pan and zoom; a click on a box that
  // names an item opens it (open(index)). Returns highlight(query, isHit,
  // allCount, what), which marks the boxes whose item isHit(test, index),
  // says how many match here and among allCount(test) of what, and puts
  // the query in the fragment (graphHash(query), by default #graph?q=).
  const searchHash = (q) => (q ? "#graph?" + new URLSearchParams({ q }).toString() : "#graph");
  function graphView(main, svg, legend, open, graphHash = searchHash) {
    const view = el("div", { id: "graph-view" });
    const hits = el("span", { id: "graph-hits" });
    const reset = el("button", { type: "button", text: "Fit" });
    const fitNote = el("p", { class: "note", id: "graph-fit-note" });
    main.append(el("div", { class: "graph-tools" }, el("span", { text: legend }), reset, hits), fitNote, view);
    view.append(svg);
    panZoom(view, svg, reset, (node) => { if (node.dataset.method) open(Number(node.dataset.method)); });
    sayFit(view, svg, fitNote);
    return function highlight(query, isHit, allCount, what) {
      const test = matcher(query);
      let count = 0;
      for (const node of svg.querySelectorAll("g.node")) {
        const hit = Boolean(test && node.dataset.method && isHit(test, Number(node.dataset.method)));
        node.classList.toggle("hit", hit);
        if (hit) count++;
      }
      view.classList.toggle("searching", Boolean(test));
      const all = test ? allCount(test) : 0;
      hits.textContent = test ? `${count} box${count === 1 ? "" : "es"} match; ${all} method${all === 1 ? "" : "s"} in ${what} (the list under the search box opens any of them)` : "";
      history.replaceState(null, "", graphHash(test ? query : ""));
    };
  }

  // The search of a graph view whose boxes name items (a page's methods,
  // or a diff's rows, by index): highlight, graphView's, marks the boxes
  // whose item the query matches and counts the matches among all the
  // items, in what ("the profile"). It starts from the fragment's q
  // (params), which goes into the header's search box, or else from
  // what the box holds. Returns the view's { onSearch }.
  function graphSearch(highlight, items, what, search, params) {
    const onSearch = (query) => highlight(query, (test, index) => matchesMethod(test, items[index]),
      (test) => items.filter((item) => matchesMethod(test, item)).length, what);
    const q = params.get("q");
    if (q) search.value = q;
    onSearch(search.value);
    return { onSearch };
  }

  // --- a method's page: on both pages, the method's name, where it is,
  // its numbers, then its callers and its callees, each counted and in a
  // table; what the numbers and the tables' cells say is each page's ---

  // What a page says for a fragment's key that names no method of the
  // profile (what: "the profile", "either profile").
  const noMethod = (what, key) => el("p", { class: "note", text: `No method of this name in ${what}: ` }, el("code", { text: key }));

  // The page's section (#method, m's index as data-method): m's name, a
  // line about it (where it is, and what else the page says), then parts
  // (its numbers, a graph, its relatives, each an element or a list), in
  // that order.
  function methodSection(m, about, ...parts) {
    return el("section", { class: "method", id: "method", "data-method": String(m.index) },
      el("h2", { text: m.name, id: "method-name" }), el("div", { class: "where", text: about }), ...parts.flat());
  }

  // A method's callers or its callees: a heading with how many
  // ("Callers (3)"), then the note none where there are none, else the
  // table (id) under its legend: a row per link, in the order given,
  // whose first cell is the other method's link(other(row)) and the rest
  // cells(row), under labels. A row's data-method is the other method's
  // index.
  function relatives({ heading, none, id, legend, labels, links, other, link, cells }) {
    const title = el("h3", { text: `${heading} (${group(links.length)})` });
    if (!links.length) return [title, el("p", { class: "note", text: none })];
    const head = el("tr", {}, el("th", { class: "name", text: "Method" }), ...labels.map((label) => el("th", { text: label })));
    const body = el("tbody");
    for (const row of links) {
      const method = other(row);
      body.append(el("tr", { "data-method": String(method.index) }, el("td", { class: "name" }, link(method)), ...cells(row)));
    }
    return [title, el("div", {}, el("p", { class: "note", text: legend }), el("table", { id }, el("thead", {}, head), body))];
  }

  window.tracegraphPageKit = {
    group, time, percent, where, el, svgEl, matcher, matchesMethod, decode, listHash, searchBox, router,
    readGraphSvg, lazyGraph, panZoom, graphView, graphSearch, noMethod, methodSection, relatives
  };
})();
