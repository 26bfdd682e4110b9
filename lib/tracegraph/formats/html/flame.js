// tracegraph's HTML report: the flame graph (an icicle, roots at the top)
// of the call tree, at #flame?thread=ID&idle=hide&zoom=PATH&q=REGEXP.
// thread: one thread's tree (by id), or "all" (each thread a frame under
// one root); idle=hide leaves waiting methods out with what they called,
// and takes their time off every caller, as --idle hide does; zoom: the
// frame drawn full width, as the method indexes of its path from the
// thread; q: the search, whose frames are highlighted. It is drawn on a
// canvas, and a frame narrower than a pixel is skipped with everything it
// called, so a tree at its cap (a million paths) draws in milliseconds.
// The tree arrives packed (formats/html_flame.rb) and is unpacked on
// first use. Names are drawn on the canvas or put into the page as text.
"use strict";
(function () {
  const R = window.tracegraphReport;
  const { data, methods, el, group, time, percent, where, matcher, methodHash, methodLink, main } = R;
  const flame = data.flame;
  const ROW = 18;

  // The tree (call_tree.js unpacks it): node 0 is every thread, 1..T
  // the threads, then the call paths depth first.
  let tree = null;
  const { layout } = R.callTree || {};

  const nameOf = (i) => {
    const m = tree.method[i];
    if (m === -1) return "all threads";
    if (m < -1) return `thread: ${flame.threads[-2 - m].name}`;
    return m < methods.length ? methods[m].name : flame.extra_methods[m - methods.length];
  };
  const methodOf = (i) => (tree.method[i] >= 0 && tree.method[i] < methods.length ? methods[tree.method[i]] : null);

  // The node a zoom path (method indexes from the base, "." between them)
  // leads to, as far as it goes.
  function follow(base, path, size) {
    let node = base;
    for (const part of path ? path.split(".") : []) {
      const m = Number(part);
      let found = -1;
      for (let c = node + 1; c < tree.end[node]; c = tree.end[c]) if (tree.method[c] === m && size[c] > 0) { found = c; break; }
      if (found < 0) break;
      node = found;
    }
    return node;
  }
  function pathOf(base, node) {
    const parts = [];
    for (let n = node; n !== base && n > 0; n = tree.parent[n]) parts.push(tree.method[n]);
    return parts.reverse().join(".");
  }

  function flameHash(state) {
    const params = new URLSearchParams();
    if (state.thread !== null) params.set("thread", state.thread);
    R.setIdle(params, state.idle);
    if (state.zoom) params.set("zoom", state.zoom);
    if (state.q) params.set("q", state.q);
    const query = params.toString();
    return "#flame" + (query ? "?" + query : "");
  }

  // Warm colours by class (the name up to # or .), grey for waiting.
  function colour(i, hits) {
    const m = tree.method[i];
    if (m < 0) return "#cfd6df";
    if (hits) return hits[m] ? "#e0457b" : "#f1e7dd";
    if (tree.waiting[m]) return "#bdbdbd";
    const name = nameOf(i);
    const owner = name.split(/[#.]/)[0];
    let h = 0;
    for (let k = 0; k < owner.length; k++) h = (h * 31 + owner.charCodeAt(k)) >>> 0;
    const hue = 8 + (h % 44), light = 58 + ((h >> 8) % 16);
    return `hsl(${hue}, 85%, ${light}%)`;
  }

  // The methods of the threads (and waiting) chosen, by self time.
  const TABLE_ROWS = 100;
  function methodTable(base, idle, size, shown) {
    const rows = R.callTree.count(base, idle === "hide").methods.slice().sort((a, b) => b.self - a.self || a.m - b.m);
    const body = el("tbody");
    for (const r of rows.slice(0, TABLE_ROWS)) {
      const method = r.m < methods.length ? methods[r.m] : null;
      body.append(el("tr", {}, el("td", { class: "name" }, method ? methodLink(method) : el("span", { text: flame.extra_methods[r.m - methods.length] })),
        el("td", { text: group(r.calls) }), el("td", { text: time(r.self), title: `${group(r.self)} ns` }),
        el("td", { text: percent(r.self, size[base]) }), el("td", { text: time(r.total), title: `${group(r.total)} ns` })));
    }
    const head = el("tr", {}, ...["Method", "Calls", "Self", "Self %", "Total"].map((label, i) => el("th", { class: i ? "" : "name", text: label })));
    const capped = flame.folded_calls > 0 ? " At the cap, a call folded into an ancestor counts as that ancestor's self time." : "";
    return el("section", { id: "flame-methods" },
      el("h3", { text: `Methods of ${shown}` }),
      el("p", { class: "note", text: `${group(rows.length)} methods, counted from the call tree as --thread and --idle count them; ` +
        `the ${group(Math.min(rows.length, TABLE_ROWS))} with the most self time.${capped}` }),
      el("table", {}, el("thead", {}, head), body));
  }

  function noTree() {
    // Why, where the profile says (data.no_call_tree); no advice else:
    // the page cannot tell which tool recorded it (docs/formats-and-viewers.md says how each records one).
    const why = data.no_call_tree ? ` (${data.no_call_tree})` : "";
    main.append(el("p", { class: "note", id: "no-flame" },
      `No flame graph: this profile has no call tree${why}, which keeps each call path apart; ` +
      "the graph, the table and every method's page work without it."));
    return { onSearch: null };
  }

  // The flame view drawn into main for a fragment's params; returns its
  // { onSearch }, which highlights the frames of the methods matched.
  function showFlame(params) {
    if (!flame) return noTree();
    if (!tree) tree = R.callTree.tree();
    const f = flameView(params);
    if (R.search.value !== f.state.q && f.state.q) R.search.value = f.state.q;
    const go = (changes) => { location.hash = flameHash(Object.assign({}, f.state, changes)); };
    main.append(tools(f, go), notes(f), zoomedFrame(f), canvasView(f), f.tip,
      methodTable(f.base, f.state.idle, f.size, `${f.shown}${f.state.idle === "hide" ? ", waiting hidden" : ""}`));
    listen(f, go);
    searchHits(f);
    draw(f);
    return {
      onSearch(query) {
        f.state.q = query.trim();
        history.replaceState(null, "", flameHash(f.state));
        searchHits(f);
        draw(f);
      }
    };
  }

  // What a fragment's params choose, and what that draws: the view's
  // record, which the functions below read. state: the thread (an id,
  // "all", or null with one thread), idle, zoom and q, as flameHash
  // writes them; base: the node of the threads shown (shown: them, in
  // words); size, x and hidden: the layout, with waiting hidden or not;
  // zoom: the node drawn full width; rows: how deep base's tree goes with
  // time in it. The rest is filled in as the view is built: hits (tools),
  // view, canvas, ctx, spacer and tip (canvasView), hitMethods
  // (searchHits), width and height (fitCanvas, at each draw).
  function flameView(params) {
    const threads = flame.threads;
    const threadParam = params.get("thread");
    const threadIndex = threads.findIndex((t) => String(t.id) === threadParam);
    // One thread: its tree; "all" or nothing (with several): every thread.
    const state = {
      thread: threadIndex >= 0 ? threadParam : (threads.length > 1 ? "all" : null),
      idle: R.idleOf(params), zoom: params.get("zoom") || "", q: params.get("q") || ""
    };
    const base = threadIndex >= 0 ? tree.threadNode[threadIndex] : (threads.length === 1 ? tree.threadNode[0] : 0);
    const { size, x, hidden } = layout(state.idle === "hide");
    const shown = base === 0 ? `all ${threads.length} threads` : `the thread ${threads[tree.threadNode.indexOf(base)].name}`;
    let maxDepth = tree.depth[base];
    for (let n = base; n < tree.end[base]; n++) if (size[n] > 0 && tree.depth[n] > maxDepth) maxDepth = tree.depth[n];
    return { state, base, shown, size, x, hidden, zoom: follow(base, state.zoom, size), rows: maxDepth - tree.depth[base] + 1 };
  }

  // The tools above the flame graph: the thread and the waiting shown
  // (each a new fragment, unzoomed), Zoom out, and f.hits, where the
  // search's hits are told.
  function tools(f, go) {
    const threads = flame.threads;
    const threadChoice = el("select", { id: "flame-thread", "aria-label": "Thread" });
    if (threads.length > 1) threadChoice.append(el("option", { value: "all", text: `all ${threads.length} threads` }));
    threads.forEach((t, k) => threadChoice.append(el("option", { value: String(t.id), text: `${t.name} (${time(tree.total[tree.threadNode[k]])})` })));
    threadChoice.value = f.state.thread === null ? String(threads[0].id) : f.state.thread;
    const idleChoice = el("select", { id: "flame-idle", "aria-label": "Waiting" },
      el("option", { value: "show", text: "waiting shown (grey)" }), el("option", { value: "hide", text: "waiting hidden" }));
    idleChoice.value = f.state.idle;
    threadChoice.addEventListener("change", () => go({ thread: threadChoice.value, zoom: "" }));
    idleChoice.addEventListener("change", () => go({ idle: idleChoice.value, zoom: "" }));
    const reset = el("button", { type: "button", text: "Zoom out", id: "flame-reset" });
    reset.disabled = f.zoom === f.base;
    reset.addEventListener("click", () => go({ zoom: "" }));
    f.hits = el("span", { id: "flame-hits" });
    return el("div", { class: "graph-tools" }, threadChoice, idleChoice, reset, f.hits);
  }

  // What is shown, and what is left out of it, in words.
  function notes(f) {
    const lines = [`Showing ${f.shown}${f.state.idle === "hide" ? ", waiting hidden" : ""}. The thread and waiting chosen here ` +
      "apply to the table, the method pages and the focus graph too (they stay in the page's address); the graph shows " +
      (data.threads.length === 1 ? `the thread ${data.threads[0].name}` : `all ${data.threads.length} threads`) +
      " as the report was written."];
    if (f.state.idle === "hide") {
      lines.push(`${time(f.hidden)} in waiting methods (sleep, join, select, reads...) and what they called is left out of every thread's tree.`);
    }
    if (flame.folded_calls > 0) {
      lines.push(`The call tree reached its cap (${group(flame.nodes)} paths kept): ${group(flame.folded_calls)} calls on new paths ` +
        "were folded into their nearest kept ancestor, whose self time holds theirs.");
    }
    return el("p", { class: "note", id: "flame-notes", text: lines.join(" ") });
  }

  // The zoomed frame, in words, with its method's page one click away.
  function zoomedFrame({ base, zoom, size }) {
    const m = methodOf(zoom);
    const calls = tree.calls[zoom];
    const zoomLine = `${group(calls)} call${calls === 1 ? "" : "s"} · total ${time(size[zoom])} (${percent(size[zoom], size[base])} of ${nameOf(base)})`;
    return el("div", { id: "flame-frame", class: "note" }, el("strong", { text: zoom === base ? "Whole tree: " : "Zoomed to: " }),
      m ? methodLink(m) : el("span", { text: nameOf(zoom) }), ` · ${m ? zoomLine : `total ${time(size[zoom])}`} · click a frame to zoom in, a frame above it to zoom out`);
  }

  // The view that scrolls through the rows: the canvas, which stays in
  // sight (CSS: sticky) and is only ever the view's size, and under it a
  // spacer as tall as the rows that do not fit; draw paints the rows in
  // sight. Also makes the tooltip, f.tip.
  function canvasView(f) {
    f.view = el("div", { id: "flame-view", "data-unpack-ms": tree.unpackMs.toFixed(1) });
    f.canvas = el("canvas", { id: "flame-canvas" });
    f.ctx = f.canvas.getContext("2d");
    f.spacer = el("div");
    f.tip = el("div", { id: "flame-tip", hidden: "" });
    f.view.append(f.canvas, f.spacer);
    return f.view;
  }

  // --- the search: which methods match, and how much time they hold ---

  // f.hitMethods: 1 for each method (by index) the query matches, or
  // null without a query; and in f.hits, their frames and their share of
  // the time shown.
  function searchHits(f) {
    const test = matcher(f.state.q);
    const { hits, size, base } = f;
    f.hitMethods = null;
    if (!test) { hits.textContent = ""; return; }
    const { hitMethods, count } = matchingMethods(test);
    f.hitMethods = hitMethods;
    const { held, frames } = heldByHits(f, hitMethods);
    hits.textContent = `${group(frames)} frame${frames === 1 ? "" : "s"} of ${group(count)} matching method${count === 1 ? "" : "s"} ` +
      `hold ${percent(held, size[base])} of ${nameOf(base)}'s time (${time(held)})`;
    hits.dataset.share = String(size[base] > 0 ? held / size[base] : 0);
    hits.dataset.frames = String(frames);
  }

  // The methods test matches, as flags by method index (the tree's extra
  // methods after the profile's), and how many.
  function matchingMethods(test) {
    const hitMethods = new Uint8Array(methods.length + flame.extra_methods.length);
    let count = 0;
    methods.forEach((method, k) => { if (test(method.name) || test(method.file)) { hitMethods[k] = 1; count++; } });
    flame.extra_methods.forEach((name, k) => { if (test(name)) { hitMethods[methods.length + k] = 1; count++; } });
    return { hitMethods, count };
  }

  // The time the hit methods' frames hold under base: that of the frames
  // with no hit frame above them (so each moment counts once); and how
  // many hit frames there are, nested ones too.
  function heldByHits({ base, size }, hitMethods) {
    let held = 0, frames = 0;
    for (let n = base; n < tree.end[base];) {
      if (size[n] > 0 && tree.method[n] >= 0 && hitMethods[tree.method[n]]) {
        held += size[n];
        for (let k = n; k < tree.end[n]; k++) if (size[k] > 0 && hitMethods[tree.method[k]]) frames++;
        n = tree.end[n];
      } else {
        n++;
      }
    }
    return { held, frames };
  }

  // --- drawing ---

  // Paints the rows in sight: the zoomed frame and its ancestors full
  // width, then what it called, to scale. The time it took and the
  // frames drawn go to the view's data-draw-ms and data-frames.
  function draw(f) {
    const started = performance.now();
    fitCanvas(f);
    const pen = penFor(f);
    const { base, zoom, size, x, width } = f;
    for (let a = zoom; ; a = tree.parent[a]) {
      const row = tree.depth[a] - tree.depth[base];
      if (row >= pen.firstRow && row <= pen.lastRow) frameBox(f, pen, a, 0, width);
      if (a === base) break;
    }
    const scale = size[zoom] > 0 ? width / size[zoom] : 0, left = x[zoom];
    for (let n = zoom + 1; n < tree.end[zoom];) {
      const w = size[n] * scale;
      const row = tree.depth[n] - tree.depth[base];
      if (w < 1 || row > pen.lastRow) { n = tree.end[n]; continue; }   // too narrow or below the view: with all it called
      if (row >= pen.firstRow) frameBox(f, pen, n, (x[n] - left) * scale, w);
      n++;
    }
    f.view.dataset.drawMs = (performance.now() - started).toFixed(1);
    f.view.dataset.frames = String(pen.drawn);
  }

  // Makes the canvas the view's size (f.width, f.height: CSS pixels;
  // its bitmap in device pixels, so it is sharp on a dense screen) and
  // clears it; the spacer is the height of the rows that do not fit.
  function fitCanvas(f) {
    const { view, canvas, ctx, spacer } = f;
    const dpr = window.devicePixelRatio || 1;
    f.width = view.clientWidth;
    f.height = view.clientHeight;
    spacer.style.height = `${Math.max(f.rows * ROW - f.height, 0)}px`;
    if (canvas.width !== Math.round(f.width * dpr) || canvas.height !== Math.round(f.height * dpr)) {
      canvas.width = Math.round(f.width * dpr);
      canvas.height = Math.round(f.height * dpr);
      canvas.style.width = `${f.width}px`;
      canvas.style.height = `${f.height}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, f.width, f.height);
  }

  // What frameBox draws with: the context with its font, the view's
  // scroll (top) and the rows it shows (counted from base's), a
  // character's width, and how many frames have been drawn.
  function penFor(f) {
    const { ctx, view } = f;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const charWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz").width / 26;
    const top = view.scrollTop;
    return { ctx, top, firstRow: Math.floor(top / ROW), lastRow: Math.ceil((top + f.height) / ROW), charWidth, drawn: 0 };
  }

  // Node n's frame, w pixels wide from px, in its row: its colour, and
  // its name where four characters fit (cut with "…" to what fits).
  function frameBox(f, pen, n, px, w) {
    const { ctx, charWidth } = pen;
    const py = (tree.depth[n] - tree.depth[f.base]) * ROW - pen.top;
    ctx.fillStyle = colour(n, f.hitMethods);
    ctx.fillRect(px, py, w > 2 ? w - 1 : w, ROW - 1);
    pen.drawn++;
    if (w > 4 * charWidth) {
      const name = nameOf(n), fits = Math.floor((w - 6) / charWidth);
      ctx.fillStyle = "#222";
      ctx.fillText(name.length > fits ? name.slice(0, fits - 1) + "…" : name, px + 3, py + ROW / 2);
    }
  }

  // --- the pointer: the frame under it, its tooltip, a click's zoom ---

  // The node under a point of the canvas (px, py in CSS pixels), or -1:
  // in a row above the zoomed frame, its ancestor there; below it, the
  // child that holds the point, row by row (none where draw skipped it,
  // narrower than a pixel).
  function nodeAt(f, px, py) {
    const { base, zoom, size, x } = f;
    const row = Math.floor((py + f.view.scrollTop) / ROW);
    const d = tree.depth[base] + row;
    if (d <= tree.depth[zoom]) {
      let a = zoom;
      while (tree.depth[a] > d) a = tree.parent[a];
      return a;
    }
    const scale = f.width / size[zoom], at = x[zoom] + px / scale;
    let node = zoom;
    while (tree.depth[node] < d) {
      let found = -1;
      for (let c = node + 1; c < tree.end[node]; c = tree.end[c]) {
        if (size[c] > 0 && x[c] <= at && at < x[c] + size[c]) { found = c; break; }
      }
      if (found < 0 || size[found] * scale < 1) return -1;
      node = found;
    }
    return node;
  }

  // The canvas's pointer (a tooltip, a click's zoom), and drawing again
  // when the view scrolls or the window is resized.
  function listen(f, go) {
    const { canvas, view, tip } = f;
    const nodeUnder = (event) => {
      const rect = canvas.getBoundingClientRect();
      return nodeAt(f, event.clientX - rect.left, event.clientY - rect.top);
    };
    canvas.addEventListener("mousemove", (event) => showTip(f, nodeUnder(event), event));
    canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
    canvas.addEventListener("click", (event) => {
      const n = nodeUnder(event);
      if (n < 0 || n === f.zoom && n === f.base) return;
      // A click on the zoomed frame zooms out one level; on an ancestor, out to it.
      const target = n === f.zoom ? tree.parent[n] : n;
      go({ zoom: tree.depth[target] <= tree.depth[f.base] ? "" : pathOf(f.base, target) });
    });
    view.addEventListener("scroll", () => { tip.hidden = true; draw(f); });
    // The window outlives the view: once another view has replaced it,
    // the listener takes itself off.
    const onResize = () => { if (view.isConnected) draw(f); else window.removeEventListener("resize", onResize); };
    window.addEventListener("resize", onResize);
  }

  // The tooltip of node n (none, n < 0) by the pointer of event.
  function showTip(f, n, event) {
    const { canvas, tip } = f;
    if (n < 0) { tip.hidden = true; canvas.style.cursor = ""; return; }
    canvas.style.cursor = "pointer";
    tip.replaceChildren(...tipLines(f, n));
    tip.dataset.path = pathOf(f.base, n);
    tip.hidden = false;
    const left = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = `${left + window.scrollX}px`;
    tip.style.top = `${event.clientY + 14 + window.scrollY}px`;
  }

  // What the tooltip says of node n: its name, and where it is, its calls,
  // total and self time for a method's frame; the total alone for a
  // thread's or every thread's.
  function tipLines({ base, size, state }, n) {
    const method = methodOf(n);
    const lines = [el("div", { class: "tip-name", id: "flame-tip-name", text: nameOf(n) })];
    if (method) lines.push(el("div", { class: "mfile", text: where(method) }));
    if (tree.method[n] >= 0) {
      lines.push(el("div", {}, "calls ", el("span", { id: "flame-tip-calls", text: group(tree.calls[n]) })));
      lines.push(el("div", {}, `total ${time(size[n])} (${percent(size[n], size[base])}), `,
        el("span", { id: "flame-tip-total", text: `${group(size[n])} ns` }), state.idle === "hide" && size[n] !== tree.total[n] ? " without waiting" : ""));
      lines.push(el("div", {}, `self ${time(tree.self[n])}, `, el("span", { id: "flame-tip-self", text: `${group(tree.self[n])} ns` })));
    } else {
      lines.push(el("div", {}, `total ${time(size[n])}, `, el("span", { id: "flame-tip-total", text: `${group(size[n])} ns` })));
    }
    return lines;
  }

  R.addView("flame", "Flame graph", showFlame);
})();
