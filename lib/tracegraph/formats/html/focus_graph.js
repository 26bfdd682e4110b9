// tracegraph's HTML report: the call graph around any method, laid out in
// the page by Graphviz compiled to WebAssembly (vendor/viz-global.js,
// which defines Viz). Two places draw it:
//   - the focus view, #focus?m=KEY&focus=REGEXP&ignore=REGEXP&hide=KEY&n=40:
//     the focused methods (one method, or those a regexp matches), what
//     leads to them and what they lead to, as --focus and --ignore choose,
//     minus hidden boxes, up to n boxes; each change is a new fragment,
//     so Back (or Undo) undoes it and a link shares it;
//   - a method's page: the method, its callers and its callees.
// Boxes and arrows look as the DOT writer draws them (tg_dot.c): size by
// self time, colour by total, and calls, time and share on every arrow.
// Every name reaches Graphviz as an escaped DOT string and the page as
// Graphviz's SVG text, never as markup. If Graphviz cannot start, the
// method page falls back to report.js's own two-column drawing, and says so.
"use strict";
(function () {
  const R = window.tracegraphReport;
  if (!R) return;
  const { data, methods, byKey, el, group, time, percent, where, matcher, methodHash } = R;
  const LARGE = 40, DEFAULT_BOXES = 40, BOX_CHOICES = [20, 40, 80], METHOD_PAGE_SIDE = 12;

  // Graphviz, started once; a rejected promise says why it could not start.
  const graphviz = (typeof Viz !== "undefined" && Viz.instance)
    ? Viz.instance() : Promise.reject(new Error("its script did not load"));
  let graphvizError = null;
  graphviz.catch((error) => { graphvizError = error; });

  // --- which boxes: the selection, as tg_graph.c makes it for --focus ---

  // The methods drawn around `focus` (methods), without `excluded` ones
  // (neither drawn nor walked through): the focus, then level by level
  // its callers' callers upwards and its callees' callees downwards, each
  // level heaviest call first, until `boxes` are drawn. depth limits the
  // levels (the method page: 1); perSide limits each focus's callers and
  // callees at the first level. When many methods are focused, the
  // heaviest fill at most half the boxes, so what joins them is drawn too.
  // Returns the boxes and what was left out.
  function select({ focus, excluded, boxes, depth = Infinity, perSide = Infinity }) {
    const kept = new Map(); // method index -> level
    const order = [];
    const add = (m, level) => { kept.set(m.index, level); order.push(m); };
    const roots = focus.filter((m) => !excluded(m)).sort((a, b) => b.total - a.total || a.index - b.index);
    for (const m of roots.slice(0, roots.length > 1 ? Math.ceil(boxes / 2) : boxes)) add(m, 0);
    // Each box is walked through upwards and downwards at most once: a
    // box reached downwards may still lead further up (a cycle).
    const went = { up: new Set(order.map((m) => m.index)), down: new Set(order.map((m) => m.index)) };
    let up = order.slice(), down = order.slice();
    for (let level = 1; level <= depth && (up.length || down.length) && order.length < boxes; level++) {
      const found = new Map(); // index -> {m, weight, up, down}
      const next = { up: [], down: [] };
      const consider = (m, weight, dir) => {
        if (excluded(m)) return;
        if (kept.has(m.index)) {
          if (!went[dir].has(m.index)) { went[dir].add(m.index); next[dir].push(m); }
          return;
        }
        const c = found.get(m.index) || { m, weight: 0, up: false, down: false };
        c.weight = Math.max(c.weight, weight);
        c[dir] = true;
        found.set(m.index, c);
      };
      const side = (edges, pick, dir) => edges.slice().sort((a, b) => b.total - a.total).slice(0, level === 1 ? perSide : Infinity)
        .forEach((e) => consider(pick(e), e.total, dir));
      for (const m of up) side(m.callers, (e) => e.caller, "up");
      for (const m of down) side(m.callees, (e) => e.callee, "down");
      for (const c of [...found.values()].sort((a, b) => b.weight - a.weight || a.m.index - b.m.index)) {
        if (order.length >= boxes) break;
        add(c.m, level);
        for (const dir of ["up", "down"]) if (c[dir]) { went[dir].add(c.m.index); next[dir].push(c.m); }
      }
      up = next.up; down = next.down;
    }
    // What else leads to or from the focus, past the budget or the depth:
    // its ancestors and its descendants, each walked on its own (a method
    // in a cycle is both, and what lies past it is reached either way).
    const walk = (next) => {
      const seen = new Set(roots.map((m) => m.index));
      const stack = roots.slice();
      while (stack.length) {
        for (const other of next(stack.pop())) {
          if (seen.has(other.index) || excluded(other)) continue;
          seen.add(other.index);
          stack.push(other);
        }
      }
      return seen;
    };
    const related = new Set(roots.map((m) => m.index));
    if (depth === Infinity) {
      for (const i of walk((m) => m.callers.map((e) => e.caller))) related.add(i);
      for (const i of walk((m) => m.callees.map((e) => e.callee))) related.add(i);
    }
    const edges = [];
    for (const m of order) for (const e of m.callees) if (kept.has(e.callee.index)) edges.push(e);
    return { boxes: order, level: kept, edges, roots, related: related.size };
  }

  // --- the DOT text, in the DOT writer's look ---

  // Text inside a DOT quoted string, shown as it reads (tg_escape.h): a
  // backslash or quote escaped, a line break or control character visible.
  function dotText(s, limit = 4096) {
    const text = s.length > limit ? s.slice(0, limit - 1) + "…" : s;
    return text.replace(/[\\"\u0000-\u001f\u007f-\u009f]/g, (c) => {
      if (c === "\\") return "\\\\";
      if (c === "\"") return "\\\"";
      if (c === "\n") return "\\\\n";
      if (c === "\r") return "\\\\r";
      if (c === "\t") return "\\\\t";
      const code = c.charCodeAt(0);
      return code < 0x80 ? `\\\\x${code.toString(16).padStart(2, "0")}` : `\\\\u${code.toString(16).padStart(4, "0")}`;
    });
  }
  const lines = (...parts) => "\"" + parts.map((p) => dotText(p)).join("\\n") + "\"";
  const short = (name) => name.length > 60 ? name.slice(0, 59) + "…" : name;

  // The heat scale (pale grey, peach, orange, red, deep red) on a sqrt
  // scale, and the darker shade for borders and arrows (tg_dot_style.c).
  const STOPS = [[242, 242, 242], [254, 232, 200], [253, 187, 132], [239, 101, 72], [179, 0, 0]];
  function heat(f) {
    const t = Math.sqrt(Math.min(Math.max(f, 0), 1)) * 4, i = t >= 4 ? 3 : Math.floor(t), u = t - i;
    return STOPS[i].map((a, k) => Math.floor(a + (STOPS[i + 1][k] - a) * u + 0.5));
  }
  const hex = (rgb) => "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");
  const shade = (rgb) => rgb.map((v) => Math.floor(v * 6 / 10));
  const fraction = (part, whole) => whole > 0 ? Math.min(Math.max(part / whole, 0), 1) : 0;

  function dot(selection) {
    const whole = R.choice.total;
    const maxSelf = Math.max(0, ...selection.boxes.map((m) => m.self));
    // Past LARGE boxes, dot's network-simplex and crossing passes are
    // capped, as the DOT writer caps them (tg_dot_style.c): a wide rank of
    // a hundred callers takes seconds otherwise.
    const large = selection.boxes.length > LARGE ? ", nslimit=2, nslimit1=2, mclimit=0.05, searchsize=20, remincross=false" : "";
    const out = ["digraph focus {",
      `  graph [rankdir=TB, fontname="Helvetica", bgcolor="white", nodesep=0.3, ranksep=0.5, pad=0.3, outputorder=edgesfirst${large}];`,
      "  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", penwidth=1.2, margin=\"0.12,0.06\"];",
      "  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];"];
    for (const m of selection.boxes) {
      const fill = heat(fraction(m.total, whole));
      const focused = selection.level.get(m.index) === 0;
      const label = lines(short(m.name), where(m), `self ${time(m.self)} (${percent(m.self, whole)})`,
        `total ${time(m.total)} (${percent(m.total, whole)})`, `${group(m.calls)} call${m.calls === 1 ? "" : "s"}`);
      const tooltip = lines(m.name, where(m), `self: ${time(m.self)} (${percent(m.self, whole)}), ${group(m.self)} ns`,
        `total: ${time(m.total)} (${percent(m.total, whole)}), ${group(m.total)} ns`, `calls: ${group(m.calls)}`);
      const attrs = [`id="tgm${m.index}"`, `label=${label}`, `tooltip=${tooltip}`,
        `fontsize=${(9 + 15 * Math.sqrt(fraction(m.self, maxSelf))).toFixed(1)}`, `fillcolor="${hex(fill)}"`,
        focused ? "color=\"#0645ad\", penwidth=3.5" : `color="${hex(shade(fill))}"`];
      if (fill[0] * 299 + fill[1] * 587 + fill[2] * 114 < 150 * 1000) attrs.push("fontcolor=\"#ffffff\"");
      if (m.c) attrs.push("style=\"filled,rounded,dashed\"");
      out.push(`  m${m.index} [${attrs.join(", ")}];`);
    }
    for (const e of selection.edges) {
      const f = fraction(e.total, whole);
      const text = `×${group(e.calls)} · ${time(e.total)} · ${percent(e.total, whole)}`;
      const tooltip = lines(`${e.caller.name} → ${e.callee.name}`, `${group(e.calls)} call${e.calls === 1 ? "" : "s"}`,
        `total: ${time(e.total)} (${percent(e.total, whole)}), ${group(e.total)} ns`, `self in callee: ${time(e.self)}`);
      out.push(`  m${e.caller.index} -> m${e.callee.index} [id="tge${e.index}", label=" ${dotText(text)} ", tooltip=${tooltip}, ` +
        `penwidth=${(0.8 + 5.2 * Math.sqrt(f)).toFixed(1)}, color="${hex(shade(heat(f)))}", weight=${1 + Math.floor(f * 100)}];`);
    }
    out.push("}");
    return out.join("\n");
  }

  // Graphviz's drawing of the selection, ready for panZoom: each box knows
  // its method, each arrow its edge.
  function draw(viz, selection) {
    const svg = viz.renderSVGElement(dot(selection));
    for (const node of svg.querySelectorAll("g.node")) node.dataset.method = node.id.replace(/^tgm/, "");
    for (const edge of svg.querySelectorAll("g.edge")) edge.dataset.edge = edge.id.replace(/^tge/, "");
    const box = svg.viewBox.baseVal;
    svg.dataset.full = `${box.x} ${box.y} ${box.width} ${box.height}`;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    return svg;
  }

  // Each edge's place in data.edges, which the drawing's ids name (a
  // method's callees are in data.edges' order).
  {
    const next = new Map();
    data.edges.forEach((r, i) => {
      const k = next.get(r[0]) || 0;
      methods[r[0]].callees[k].index = i;
      next.set(r[0], k + 1);
    });
  }

  const graphvizNote = (error) => (error === graphvizError
    ? `Graphviz (WebAssembly) did not start in this browser (${error.message}), `
    : `Graphviz could not lay this graph out (${error.message}), `) +
    "so this is the page's own two-column drawing of the method, its callers and its callees.";

  // --- the method page's graph ---
  R.methodGraph = function (m) {
    const holder = el("div", { id: "method-graph", class: "method-graph" },
      el("p", { class: "note", text: "Laying the graph out…" }));
    const link = el("a", { href: focusHash({ m: m.key }), id: "method-focus", text: "Focus, ignore and hide around it in the graph →" });
    graphviz.then((viz) => {
      const selection = select({ focus: [m], excluded: () => false, boxes: 1 + 2 * METHOD_PAGE_SIDE, depth: 1, perSide: METHOD_PAGE_SIDE });
      const svg = draw(viz, selection);
      const view = el("div", { class: "graph-box" }, svg);
      const more = [];
      if (m.callers.length > METHOD_PAGE_SIDE) more.push(`${group(m.callers.length - METHOD_PAGE_SIDE)} more callers`);
      if (m.callees.length > METHOD_PAGE_SIDE) more.push(`${group(m.callees.length - METHOD_PAGE_SIDE)} more callees`);
      // As tall as Graphviz drew it (points to pixels), within 26em.
      view.style.height = `${Math.min(Math.ceil(svg.viewBox.baseVal.height * 4 / 3) + 4, 420)}px`;
      holder.replaceChildren(view);
      if (more.length) holder.append(el("p", { class: "note", text: `Not drawn: ${more.join(", ")} (in the tables below).` }));
      R.panZoom(view, svg, null, (node) => {
        const other = methods[Number(node.dataset.method)];
        if (other && other !== m) location.hash = methodHash(other);
      });
      holder.dataset.drawn = "graphviz";
    }).catch((error) => {
      holder.replaceChildren(el("p", { class: "note", id: "graphviz-fallback", text: graphvizNote(error) }), R.egoGraph(m));
      holder.dataset.drawn = "fallback";
    });
    return el("div", {}, link, holder);
  };

  // --- the focus view ---
  function focusHash({ m, focus, ignore, hide, n }) {
    const params = new URLSearchParams();
    if (m) params.set("m", m);
    if (focus) params.set("focus", focus);
    if (ignore) params.set("ignore", ignore);
    for (const key of hide || []) params.append("hide", key);
    if (n && n !== DEFAULT_BOXES) params.set("n", String(n));
    for (const [key, value] of new URLSearchParams(R.choiceQuery())) params.set(key, value);
    const query = params.toString();
    return "#focus" + (query ? "?" + query : "");
  }

  // The view's state from its fragment; the method with the most self
  // time when nothing is focused.
  function stateOf(params) {
    const n = Number(params.get("n"));
    const state = { m: params.get("m") || "", focus: params.get("focus") || "", ignore: params.get("ignore") || "",
      hide: params.getAll("hide"), n: BOX_CHOICES.includes(n) ? n : DEFAULT_BOXES };
    const one = state.m ? byKey.get(state.m) : null;
    const test = matcher(state.focus);
    // (A method the threads and waiting chosen have no call of is left out.)
    state.methods = [].concat(one && !one.absent ? [one] : [],
      test ? methods.filter((m) => m !== one && !m.absent && (test(m.name) || test(m.file))) : []);
    state.defaulted = !state.m && !state.focus;
    if (state.defaulted && methods.length) state.methods = [methods.reduce((a, b) => (b.self > a.self ? b : a))];
    const ignored = matcher(state.ignore);
    const hidden = new Set(state.hide.map((k) => byKey.get(k)).filter(Boolean).map((m) => m.index));
    state.excluded = (m) => m.absent || hidden.has(m.index) || Boolean(ignored && (ignored(m.name) || ignored(m.file)));
    state.ignoredCount = ignored ? methods.filter((m) => ignored(m.name) || ignored(m.file)).length : 0;
    return state;
  }

  function showFocus(params) {
    const state = stateOf(params);
    const go = (change) => { location.hash = focusHash(Object.assign({}, state, change)); };
    const input = (id, value, placeholder) => el("input", { type: "search", id, value, placeholder, autocomplete: "off" });
    const focusInput = input("focus-regexp", state.focus, "focus: regexp");
    const ignoreInput = input("ignore-regexp", state.ignore, "ignore: regexp");
    const size = el("select", { id: "focus-boxes", "aria-label": "Boxes at most" },
      ...BOX_CHOICES.map((n) => { const o = el("option", { value: String(n), text: `${n} boxes` }); o.selected = n === state.n; return o; }));
    const apply = () => go({ m: focusInput.value.trim() ? "" : state.m, focus: focusInput.value.trim(), ignore: ignoreInput.value.trim(), n: Number(size.value) });
    for (const field of [focusInput, ignoreInput]) field.addEventListener("keydown", (e) => { if (e.key === "Enter") apply(); });
    size.addEventListener("change", apply);
    const button = (id, text, action) => { const b = el("button", { type: "button", id, text }); b.addEventListener("click", action); return b; };
    const fit = el("button", { type: "button", id: "focus-fit", text: "Fit" });
    const tools = el("div", { class: "graph-tools focus-tools" }, focusInput, ignoreInput, size,
      button("focus-apply", "Apply", apply), button("focus-undo", "Undo", () => history.back()),
      button("focus-reset", "Reset", () => go({ focus: state.m ? "" : state.focus, ignore: "", hide: [], n: DEFAULT_BOXES })), fit);
    const selected = el("div", { class: "focus-selected", id: "focus-selected" },
      el("span", { class: "note", text: "Click a box to focus on it, hide it or open its page; drag to pan, wheel to zoom. Back undoes." }));
    const legend = el("p", { class: "note", id: "focus-legend", text: "Laying the graph out…" });
    const hidden = el("div", { class: "focus-hidden", id: "focus-hidden" });
    for (const key of state.hide) {
      hidden.append(el("span", { class: "chip" }, el("span", { text: `hidden: ${key}` }),
        button("", "show", () => go({ hide: state.hide.filter((k) => k !== key) }))));
    }
    const view = el("div", { id: "graph-view", class: "focus-view" });
    R.main.append(tools, selected, hidden, legend, view);

    function selectBox(m) {
      selected.replaceChildren(el("span", { class: "mname", id: "focus-selected-name", text: m.name }),
        el("span", { class: "note", text: ` ${where(m)} · self ${time(m.self)} · total ${time(m.total)} · ${group(m.calls)} calls ` }),
        button("focus-on", "Focus on it", () => go({ m: m.key, focus: "" })),
        button("focus-hide", "Hide it", () => go({ hide: state.hide.concat([m.key]) })),
        el("a", { href: methodHash(m), id: "focus-open", text: "Open its page" }));
    }

    const started = performance.now();
    const hash = location.hash;
    graphviz.then((viz) => {
      if (location.hash !== hash) return;
      if (!state.methods.length) {
        legend.textContent = `No method matches the focus ${state.m ? `“${state.m}”` : `/${state.focus}/`}.`;
        return;
      }
      const selection = select({ focus: state.methods, excluded: state.excluded, boxes: state.n });
      if (!selection.boxes.length) {
        legend.textContent = "Every focused method is ignored or hidden: nothing to draw.";
        return;
      }
      let svg;
      try {
        svg = draw(viz, selection);
      } catch (error) {
        legend.textContent = `Graphviz could not lay this graph out: ${error.message}`;
        return;
      }
      view.append(svg);
      R.panZoom(view, svg, fit, (node) => { const m = methods[Number(node.dataset.method)]; if (m) selectBox(m); });
      const focusedDrawn = selection.boxes.filter((m) => selection.level.get(m.index) === 0).length;
      const parts = [state.defaulted ? `Focused on the method with the most self time, ${selection.roots[0].name}` :
        `Focused on ${group(selection.roots.length)} method${selection.roots.length === 1 ? "" : "s"}` +
        (focusedDrawn < selection.roots.length ? ` (the ${group(focusedDrawn)} heaviest drawn)` : ""),
      `${group(selection.boxes.length)} boxes drawn of the ${group(selection.related)} methods that lead to or from ${selection.roots.length === 1 ? "it" : "them"}` +
        (selection.boxes.length < selection.related ? ` (the ${state.n}-box budget keeps the nearest, heaviest calls first)` : "")];
      if (state.ignore) parts.push(`ignored: ${group(state.ignoredCount)} method${state.ignoredCount === 1 ? "" : "s"} matching /${state.ignore}/`);
      if (state.hide.length) parts.push(`hidden: ${group(state.hide.length)}`);
      parts.push("arrows: calls · time · share of the whole profile's time");
      legend.textContent = parts.join(" · ") + ".";
      view.dataset.drawnMs = String(Math.round(performance.now() - started));
      view.dataset.drawn = hash;
    }, (error) => {
      const m = state.methods[0];
      legend.textContent = graphvizNote(error);
      legend.id = "graphviz-fallback";
      if (m) view.replaceWith(R.egoGraph(m));
    });
    return { onSearch: null };
  }

  R.addView("focus", "Focus", showFocus);
})();
