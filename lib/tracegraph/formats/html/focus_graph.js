// tracegraph's HTML report: the call graph around any method, laid out in
// the page by Graphviz compiled to WebAssembly (vendor/viz-global.js,
// which defines Viz). Two places draw it:
//   - the focus view, #focus?m=KEY&focus=REGEXP&ignore=REGEXP&hide=KEY&n=40:
//     the focused methods (one method, or those a regexp matches) and the
//     call paths through them, by the rule --focus follows: with a call
//     tree, only the paths through a match, counted as
//     Profile#focus_paths counts them (call_tree.js's count with focus);
//     without one, the walk tg_graph.c makes, which never goes on through
//     a hub that a match does not reach; minus ignored and hidden boxes,
//     up to n boxes; each change is a new fragment, so Back (or Undo)
//     undoes it and a link shares it;
//   - a method's page: the method, its callers and its callees.
// Boxes and arrows look as the DOT writer draws them (tg_dot.c): size by
// self time, colour by total, calls, time and share on every arrow, and
// a box's many children in rows of 4 (tg_graph.c's stagger_children),
// here also its many callers that have none drawn, in rows above it.
// Every name reaches Graphviz as an escaped DOT string and the page as
// Graphviz's SVG text, never as markup. If Graphviz cannot start, the
// method page falls back to report.js's own two-column drawing, and says so.
"use strict";
(function () {
  const R = window.tracegraphReport;
  if (!R) return;
  const { data, methods, byKey, el, group, time, percent, where, methodHash } = R;
  const LARGE = 40, DEFAULT_BOXES = 40, BOX_CHOICES = [20, 40, 80], METHOD_PAGE_SIDE = 12, ROW_CHILDREN = 4;
  // The focus view opens at no fewer pixels per point than READABLE (the
  // smallest box text, 9 pt, at 7.2 px), nor more than NATURAL (1 pt at
  // 96 dpi).
  const READABLE = 0.8, NATURAL = 4 / 3;

  // Graphviz, started once; a rejected promise says why it could not start.
  const graphviz = (typeof Viz !== "undefined" && Viz.instance)
    ? Viz.instance() : Promise.reject(new Error("its script did not load"));
  let graphvizError = null;
  graphviz.catch((error) => { graphvizError = error; });

  // --- which boxes: the selection, as tg_graph.c makes it for --focus ---

  // The focus and ignore fields match as --focus and --ignore do: a
  // regexp on methods' names, case-sensitive (the search box, which
  // highlights, is looser: any case, and files too). Not a regexp: the
  // text itself, as a part of a name. "" matches nothing (null).
  function nameMatcher(query) {
    const q = (query || "").trim();
    if (!q) return null;
    try {
      const re = new RegExp(q);
      return (name) => re.test(name);
    } catch (_) {
      return (name) => name.includes(q);
    }
  }

  // The methods drawn around `focus` (methods), without `excluded` ones
  // (neither drawn nor walked through): the focus, then level by level
  // its callers' callers upwards and its callees' callees downwards, each
  // level heaviest call first, until `boxes` are drawn. depth limits the
  // levels (the method page: 1); perSide limits each focus's callers and
  // callees at the first level. When many methods are focused, the
  // heaviest fill at most half the boxes, so what joins them is drawn too.
  // Returns the boxes, each one's level, the edges between them and the
  // focused methods walked from (roots).
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
    const edges = [];
    for (const m of order) for (const e of m.callees) if (kept.has(e.callee.index)) edges.push(e);
    return { boxes: order, level: kept, edges, roots };
  }

  // --- which methods a focus may draw: the call paths through it ---

  // Each edge's place in data.edges, by caller and callee (the drawing's
  // ids name it, as they name the report's edges).
  const edgePlace = new Map();
  data.edges.forEach((r, i) => edgePlace.set(r[0] * methods.length + r[1], i));

  // With a call tree: the paths through the matches (focus), counted in
  // the tree as Profile#focus_paths counts them (tg_tree_stats.c with
  // focus flags), for the thread and waiting chosen (params). A graph of
  // their own: each method a box object with the focus's numbers, and its
  // callers and callees, as select walks them. Methods the tree names that
  // the report left out are counted in the numbers but not drawn.
  function pathsGraph(focus, test, params) {
    const tree = R.callTree, c = tree.choice(params);
    const extra = tree.extraMethods;
    const flags = new Uint8Array(methods.length + extra.length);
    for (const m of focus) flags[m.index] = 1;
    if (test) extra.forEach((name, i) => { if (test(name)) flags[methods.length + i] = 1; });
    const counted = tree.count(c.base, c.idle === "hide", flags);
    const boxes = new Map();
    for (const r of counted.methods) {
      if (r.m >= methods.length) continue;
      const m = methods[r.m];
      boxes.set(r.m, { index: m.index, name: m.name, file: m.file, line: m.line, c: m.c, key: m.key, real: m,
        calls: r.calls, self: r.self, total: r.total, callers: [], callees: [] });
    }
    let extraEdge = data.edges.length;
    for (const r of counted.edges) {
      const caller = boxes.get(r.caller), callee = boxes.get(r.callee);
      if (!caller || !callee) continue;
      const place = edgePlace.get(r.caller * methods.length + r.callee);
      const e = { caller, callee, calls: r.calls, total: r.total, self: r.self, index: place === undefined ? extraEdge++ : place };
      caller.callees.push(e);
      callee.callers.push(e);
    }
    return { boxes, whole: counted.time, paths: true, leftOut: methods.filter((m) => !m.absent && !boxes.has(m.index)) };
  }

  // What a block belongs to, as tg_graph.c's block_owner reads a name:
  // "Foo#bar" for "block in Foo#bar", "block in Foo#bar" for "block (2
  // levels) in Foo#bar"; null for a name that is not a block's.
  // A block named by its column or order on a shared line ("... (column
  // 17)", "... (2nd on line 7)") owes that part to itself, not its owner.
  const OWN_PLACE = / \((?:column \d+|\d+(?:st|nd|rd|th) on line \d+)\)$/;
  function blockOwner(name) {
    if (name.startsWith("block in ")) return name.slice(9).replace(OWN_PLACE, "");
    const levels = /^block \((\d+) levels\) in ([^]*)$/.exec(name);
    if (!levels || Number(levels[1]) < 2) return null;
    const rest = levels[2].replace(OWN_PLACE, "");
    return Number(levels[1]) === 2 ? `block in ${rest}` : `block (${Number(levels[1]) - 1} levels) in ${rest}`;
  }

  // Without a call tree: the methods --focus keeps by methods, as
  // tg_graph.c's mark_ancestors and mark_descendants walk them. Up: a
  // match's callers' chains, except that a block's caller that is a hub
  // (Array#each) leads on only to the block's owner when the owner calls
  // the hub itself. Down: what the matches call, but an ancestor reached
  // going down (a hub the matches' callers also call) is not walked
  // through: from it only other ancestors, and the blocks of methods
  // reached going down, until nothing more is reached. The numbers stay
  // each method's whole. Returns the set of method indexes kept.
  function methodPaths(focus) {
    const n = methods.length, up = new Uint8Array(n), down = new Uint8Array(n), matched = new Uint8Array(n);
    const byName = new Map();
    for (const m of methods) byName.set(m.name, (byName.get(m.name) || []).concat([m]));
    const callerNamed = (hub, owner) => { const e = hub.callers.find((x) => x.caller.name === owner); return e ? e.caller : null; };
    const queue = [];
    for (const m of focus) { matched[m.index] = 1; up[m.index] = 1; queue.push(m); }
    const expanded = new Uint8Array(n);
    for (const m of focus) expanded[m.index] = 1;
    for (let head = 0; head < queue.length; head++) {
      const m = queue[head], owner = blockOwner(m.name);
      for (const e of m.callers) {
        const hub = e.caller;
        let next = hub;
        const byOwner = owner !== null && hub !== m ? callerNamed(hub, owner) : null;
        if (byOwner && byOwner !== hub) { up[hub.index] = 1; next = byOwner; }
        if (!expanded[next.index]) { up[next.index] = expanded[next.index] = 1; queue.push(next); }
      }
    }
    const reached = [];
    const reach = (m) => { if (!down[m.index]) { down[m.index] = 1; reached.push(m); } };
    const ownerReached = (m) => {
      const owner = blockOwner(m.name);
      return owner !== null && (byName.get(owner) || []).some((o) => down[o.index]);
    };
    for (const m of focus) reach(m);
    const stopped = [];
    for (let head = 0; ;) {
      while (head < reached.length) {
        const m = reached[head++];
        const through = !up[m.index] || matched[m.index];
        if (!through) stopped.push(m);
        for (const e of m.callees) if (through || up[e.callee.index]) reach(e.callee);
      }
      const before = reached.length;
      for (const h of stopped) for (const e of h.callees) if (!down[e.callee.index] && ownerReached(e.callee)) reach(e.callee);
      if (reached.length === before) break;
    }
    const kept = new Set();
    for (let i = 0; i < n; i++) if (up[i] || down[i]) kept.add(i);
    return kept;
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

  // A box's name and file in lines of about LINE_CHARS, as the DOT writer
  // wraps them (tg_dot_style.c's put_wrapped): boxes are what makes a
  // drawing wide. A line ends at the last good place before it grows past
  // the width (a space, after "::" or "/"), else after the "#" or "." of
  // a name, else after its last "_", else at the width. A name is cut
  // at NAME_CHARS, a path keeps its last PATH_CHARS.
  const LINE_CHARS = 28, NAME_CHARS = 160, PATH_CHARS = 100;
  function breakAfter(s, i, kind) {
    const c = s[i];
    if (c === " ") return i > 0 && s[i - 1] === "·" ? 0 : 3;
    if (c === "/") return 3;
    if (kind === "path") return 0;
    if (c === ":") return i > 0 && s[i - 1] === ":" && (i + 1 === s.length || s[i + 1] !== ":") ? 3 : 0;
    if (c === "#") return i > 0 ? 2 : 0;
    if (c === ".") return i > 0 && i + 2 < s.length && !(s[i + 1] === "r" && s[i + 2] === "b") ? 2 : 0;
    if (c === "_") return i > 0 && i + 1 < s.length && s[i + 1] !== "_" ? 1 : 0;
    return 0;
  }
  function wrap(text, kind) {
    const s = Array.from(text), out = [], last = [0, 0, 0, 0];
    const line = (from, to) => s.slice(from, to).join("").replace(/ +$/, "");
    let start = 0, col = 0;
    for (let i = 0; i < s.length; i++) {
      if (col >= LINE_CHARS && i > start) {
        let end = i;
        for (let q = 3; q >= 1 && end === i; q--) if (last[q] > start) end = last[q];
        out.push(line(start, end));
        start = end;
        while (start < s.length && s[start] === " ") start++;
        col = Math.max(i - start, 0);
        if (start > i) { i = start - 1; continue; }
      }
      col++;
      const q = breakAfter(s, i, kind);
      if (q) last[q] = i + 1;
    }
    if (start < s.length) out.push(line(start, s.length));
    return out;
  }
  function title(m) {
    const name = Array.from(m.name), path = m.file ? Array.from(m.file) : null;
    const lines = wrap(name.length > NAME_CHARS ? name.slice(0, NAME_CHARS - 1).join("") + "…" : m.name, "name");
    if (!path) return m.c ? lines.concat(["(C method)"]) : lines;
    const file = wrap(path.length > PATH_CHARS ? "…" + path.slice(path.length - PATH_CHARS).join("") : m.file, "path");
    if (m.line > 0) file[file.length - 1] += `:${m.line}`;
    return lines.concat(file);
  }

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

  // tg_graph.c's stagger_children: the edges in drawing order (heaviest
  // first, then by the boxes' order), each box's parent the caller of its
  // first edge in; a parent of more than ROW_CHILDREN children gets them
  // in rows of that many, the heaviest nearest, by each edge's minlen, so
  // a hub with twenty callees makes the drawing taller, not wider. Dot
  // alone slides each row sideways (a staircase as wide as one row of
  // all), so here the rows are also held in columns: the k-th child
  // shares a group (a column dot keeps straight) with the children
  // ROW_CHILDREN before and after it, and an invisible edge joins each to
  // the next in its column. Returns the edges in drawing order, minlen by
  // edge, each staggered box's column, and the invisible edges (none with
  // selection.rows false).
  function rows(selection) {
    const place = new Map(selection.boxes.map((m, i) => [m.index, i]));
    const order = selection.edges.slice().sort((a, b) => b.total - a.total ||
      place.get(a.caller.index) - place.get(b.caller.index) || place.get(a.callee.index) - place.get(b.callee.index));
    const parentEdge = new Map(), children = new Map(), placed = new Map();
    const minlen = new Map(), column = new Map(), chains = [];
    if (selection.rows === false) return { order, minlen, column, chains };
    for (const e of order) {
      if (e.caller.index === e.callee.index || parentEdge.has(e.callee.index)) continue;
      parentEdge.set(e.callee.index, e);
      children.set(e.caller.index, (children.get(e.caller.index) || []).concat([e.callee.index]));
    }
    for (const e of order) {
      const siblings = children.get(e.caller.index);
      if (parentEdge.get(e.callee.index) !== e || siblings.length <= ROW_CHILDREN) continue;
      const k = placed.get(e.caller.index) || 0;
      placed.set(e.caller.index, k + 1);
      if (k >= ROW_CHILDREN) {
        minlen.set(e, 1 + Math.floor(k / ROW_CHILDREN));
        chains.push([siblings[k - ROW_CHILDREN], e.callee.index]);
      }
      column.set(e.callee.index, `r${e.caller.index}c${k % ROW_CHILDREN}`);
    }
    // The same upwards: a box drawn without callers (the walk up stopped
    // at the budget) is an upper child of the callee of its first edge
    // out, and a box of more than ROW_CHILDREN upper children has them in
    // rows above it, the heaviest nearest: the 30 templates' blocks that
    // call one RDoc method, each with its callers past the budget, were
    // one row 4,000 points wide.
    const called = new Set(order.filter((e) => e.caller.index !== e.callee.index).map((e) => e.callee.index));
    const upperEdge = new Map(), uppers = new Map(), placedUp = new Map();
    for (const e of order) {
      const u = e.caller.index;
      if (u === e.callee.index || called.has(u) || upperEdge.has(u)) continue;
      upperEdge.set(u, e);
      uppers.set(e.callee.index, (uppers.get(e.callee.index) || []).concat([u]));
    }
    for (const e of order) {
      const list = uppers.get(e.callee.index);
      if (upperEdge.get(e.caller.index) !== e || list.length <= ROW_CHILDREN || minlen.has(e)) continue;
      const k = placedUp.get(e.callee.index) || 0;
      placedUp.set(e.callee.index, k + 1);
      if (k >= ROW_CHILDREN) {
        minlen.set(e, 1 + Math.floor(k / ROW_CHILDREN));
        chains.push([e.caller.index, list[k - ROW_CHILDREN]]);
      }
      column.set(e.caller.index, `u${e.callee.index}c${k % ROW_CHILDREN}`);
    }
    return { order, minlen, column, chains };
  }

  function dot(selection) {
    const whole = selection.whole;
    const maxSelf = Math.max(0, ...selection.boxes.map((m) => m.self));
    // Past LARGE boxes, dot's network-simplex and crossing passes are
    // capped, as the DOT writer caps them (tg_dot_style.c): a wide rank of
    // a hundred callers takes seconds otherwise.
    const large = selection.boxes.length > LARGE ? ", nslimit=2, nslimit1=2, mclimit=0.05, searchsize=20, remincross=false" : "";
    // With rows, an arrow's numbers are an xlabel, placed once the boxes
    // are: a label is laid out as a box of its own on the arrow's middle
    // rank, so twenty arrows to the lower rows would put twenty labels
    // side by side and undo the rows; arrows that share a way are merged
    // (concentrate), as the DOT writer merges them.
    const { order, minlen, column, chains } = rows(selection);
    const staggered = minlen.size > 0;
    const out = ["digraph focus {",
      `  graph [rankdir=TB, fontname="Helvetica", bgcolor="white", nodesep=0.15, ranksep=0.5, pad=0.3, outputorder=edgesfirst` +
        `${staggered ? ", concentrate=true" : ""}${large}];`,
      "  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", penwidth=1.2, margin=\"0.12,0.06\"];",
      "  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];"];
    for (const m of selection.boxes) {
      const fill = heat(fraction(m.total, whole));
      const focused = selection.level.get(m.index) === 0;
      const label = lines(...title(m), `self ${time(m.self)} (${percent(m.self, whole)})`,
        `total ${time(m.total)} (${percent(m.total, whole)})`, `${group(m.calls)} call${m.calls === 1 ? "" : "s"}`);
      const tooltip = lines(m.name, where(m), `self: ${time(m.self)} (${percent(m.self, whole)}), ${group(m.self)} ns`,
        `total: ${time(m.total)} (${percent(m.total, whole)}), ${group(m.total)} ns`, `calls: ${group(m.calls)}`);
      const attrs = [`id="tgm${m.index}"`, `label=${label}`, `tooltip=${tooltip}`,
        `fontsize=${(9 + 15 * Math.sqrt(fraction(m.self, maxSelf))).toFixed(1)}`, `fillcolor="${hex(fill)}"`,
        focused ? "color=\"#0645ad\", penwidth=3.5" : `color="${hex(shade(fill))}"`];
      if (fill[0] * 299 + fill[1] * 587 + fill[2] * 114 < 150 * 1000) attrs.push("fontcolor=\"#ffffff\"");
      if (m.c) attrs.push("style=\"filled,rounded,dashed\"");
      if (column.has(m.index)) attrs.push(`group="${column.get(m.index)}"`);
      out.push(`  m${m.index} [${attrs.join(", ")}];`);
    }
    for (const e of order) {
      const f = fraction(e.total, whole);
      const text = `×${group(e.calls)} · ${time(e.total)} · ${percent(e.total, whole)}`;
      const tooltip = lines(`${e.caller.name} → ${e.callee.name}`, `${group(e.calls)} call${e.calls === 1 ? "" : "s"}`,
        `total: ${time(e.total)} (${percent(e.total, whole)}), ${group(e.total)} ns`, `self in callee: ${time(e.self)}`);
      out.push(`  m${e.caller.index} -> m${e.callee.index} [id="tge${e.index}", ${staggered ? "xlabel" : "label"}=" ${dotText(text)} ", tooltip=${tooltip}, ` +
        `penwidth=${(0.8 + 5.2 * Math.sqrt(f)).toFixed(1)}, color="${hex(shade(heat(f)))}", weight=${1 + Math.floor(f * 100)}` +
        (minlen.has(e) ? `, minlen=${minlen.get(e)}` : "") + "];");
    }
    for (const [from, to] of chains) out.push(`  m${from} -> m${to} [style=invis, weight=10];`);
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
      // (No rows: the page's box is wide and short, 420 px at most.)
      Object.assign(selection, { whole: R.choice.total, rows: false });
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
    const test = nameMatcher(state.focus);
    // (A method the threads and waiting chosen have no call of is left out.)
    state.methods = [].concat(one && !one.absent ? [one] : [],
      test ? methods.filter((m) => m !== one && !m.absent && test(m.name)) : []);
    state.defaulted = !state.m && !state.focus;
    if (state.defaulted && methods.length) state.methods = [methods.reduce((a, b) => (b.self > a.self ? b : a))];
    const ignored = nameMatcher(state.ignore);
    const hidden = new Set(state.hide.map((k) => byKey.get(k)).filter(Boolean).map((m) => m.index));
    state.excluded = (m) => m.absent || hidden.has(m.index) || Boolean(ignored && ignored(m.name));
    state.ignoredCount = ignored ? methods.filter((m) => ignored(m.name)).length : 0;
    return state;
  }

  // The focus view's selection for state (stateOf) and params: the call
  // paths through the focused methods (pathsGraph with a call tree, else
  // methodPaths), of which select keeps up to state.n boxes. Adds whole
  // (the time the shares are of), paths (counted from the tree) and
  // leftOut (the methods no path through the focus has, as the report's
  // method objects).
  function focusSelection(state, params) {
    const test = nameMatcher(state.focus);
    if (R.callTree) {
      const graph = pathsGraph(state.methods, state.m ? null : test, params);
      const focus = state.methods.map((m) => graph.boxes.get(m.index)).filter(Boolean);
      const selection = select({ focus, excluded: (b) => state.excluded(b.real), boxes: state.n });
      selection.related = [...graph.boxes.values()].filter((b) => !state.excluded(b.real)).length;
      return Object.assign(selection, { whole: graph.whole, paths: true, leftOut: graph.leftOut });
    }
    const kept = methodPaths(state.methods);
    const selection = select({ focus: state.methods, excluded: (m) => state.excluded(m) || !kept.has(m.index), boxes: state.n });
    selection.related = methods.filter((m) => kept.has(m.index) && !state.excluded(m)).length;
    return Object.assign(selection, { whole: R.choice.total, paths: false, leftOut: methods.filter((m) => !kept.has(m.index)) });
  }

  // "2,254 methods left out (the heaviest: A, B, C and 2,251 more)".
  function leftOutText(left) {
    if (!left.length) return "no method left out";
    const named = left.slice().sort((a, b) => b.total - a.total || a.index - b.index).slice(0, 3).map((m) => m.name);
    const rest = left.length - named.length;
    return `${group(left.length)} method${left.length === 1 ? "" : "s"} left out (${left.length === 1 ? "" : "the heaviest: "}` +
      `${named.join(", ")}${rest ? ` and ${group(rest)} more` : ""})`;
  }

  // Where the focus view opens (svg.dataset.start, a viewBox): the whole
  // drawing if it fits the view at READABLE pixels per point or more;
  // else its whole width at up to NATURAL size (READABLE at least, then
  // panned sideways), as tall as the view lets, around the heaviest
  // focused box. Fit shows the whole drawing.
  function openAt(view, svg, selection) {
    const [x, y, w, h] = svg.dataset.full.split(" ").map(Number);
    const rect = view.getBoundingClientRect();
    if (!rect.width || !rect.height || Math.min(rect.width / w, rect.height / h) >= READABLE) return;
    const scale = Math.max(READABLE, Math.min(rect.width / w, NATURAL));
    const vw = rect.width / scale, vh = rect.height / scale;
    const focused = svg.querySelector(`#tgm${selection.roots[0].index}`);
    let cy = y + h / 2;
    if (focused) {
      const box = focused.getBBox(), graph = svg.querySelector("g.graph");
      const m = graph && graph.transform.baseVal.consolidate();
      const matrix = m ? m.matrix : { d: 1, f: 0 };
      cy = (box.y + box.height / 2) * matrix.d + matrix.f;
    }
    const top = Math.min(Math.max(cy - vh / 2, y), y + Math.max(h - vh, 0));
    const left = vw >= w ? x + (w - vw) / 2 : x;
    svg.dataset.start = `${left} ${top} ${vw} ${vh}`;
  }

  function showFocus(params) {
    const state = stateOf(params);
    const go = (change) => { location.hash = focusHash(Object.assign({}, state, change)); };
    const input = (id, value, placeholder, title) => el("input", { type: "search", id, value, placeholder, title, autocomplete: "off" });
    const focusInput = input("focus-regexp", state.focus, "focus: regexp",
      "The methods whose names this regexp matches, case-sensitive, as --focus");
    const ignoreInput = input("ignore-regexp", state.ignore, "ignore: regexp",
      "Leave out the methods whose names this regexp matches, case-sensitive, as --ignore");
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
      // (Nothing to draw is this state's drawing: view.dataset.drawn says it is shown.)
      if (!state.methods.length) {
        legend.textContent = `No method matches the focus ${state.m ? `“${state.m}”` : `/${state.focus}/`}` +
          `${state.m ? "" : " (a regexp on methods' names, case-sensitive, as --focus)"}.`;
        view.dataset.drawn = hash;
        return;
      }
      const selection = focusSelection(state, params);
      if (!selection.boxes.length) {
        legend.textContent = "Every focused method is ignored or hidden: nothing to draw.";
        view.dataset.drawn = hash;
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
      openAt(view, svg, selection);
      R.panZoom(view, svg, fit, (node) => { const m = methods[Number(node.dataset.method)]; if (m) selectBox(m); });
      const focusedDrawn = selection.boxes.filter((m) => selection.level.get(m.index) === 0).length;
      const them = selection.roots.length === 1 ? "it" : "them";
      const parts = [state.defaulted ? `Focused on the method with the most self time, ${selection.roots[0].name}` :
        `Focused on ${group(selection.roots.length)} method${selection.roots.length === 1 ? "" : "s"}` +
        (focusedDrawn < selection.roots.length ? ` (the ${group(focusedDrawn)} heaviest drawn)` : ""),
      `${group(selection.boxes.length)} boxes drawn of the ${group(selection.related)} methods on the call paths through ${them}` +
        (selection.boxes.length < selection.related ? ` (the ${state.n}-box budget keeps the nearest, heaviest calls first)` : "")];
      const left = leftOutText(selection.leftOut);
      if (selection.paths) {
        parts.push(`counted from the call tree, as --focus counts: only the paths through ${them}, ` +
          `${time(selection.whole)} of ${time(R.choice.total)} (${percent(selection.whole, R.choice.total)}); ` +
          `a caller counts its calls and the focused time beneath it, no self time; ${left}`);
      } else {
        parts.push(`by methods, not paths, as --focus draws without a call tree (this report has none): ` +
          `what leads to ${them} and what ${them === "it" ? "it calls" : "they call"}, never on through a hub ` +
          `that ${them === "it" ? "it does" : "they do"} not reach; each box's numbers are the whole method's; ${left}`);
      }
      if (state.ignore) parts.push(`ignored: ${group(state.ignoredCount)} method${state.ignoredCount === 1 ? "" : "s"} matching /${state.ignore}/`);
      if (state.hide.length) parts.push(`hidden: ${group(state.hide.length)}`);
      parts.push(`arrows: calls · time · share of ${selection.paths ? "the paths' time" : "the whole profile's time"}`);
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

  // The rules this file shares with the C writer, for the test that holds
  // them to it (test/ruby/formats/test_graph_rules_js.rb): a box's fill and
  // border at a share of the whole, an arrow's colour, and the rows.
  R.graphRules = { fill: (f) => hex(heat(f)), border: (f) => hex(shade(heat(f))), rows };
  R.addView("focus", "Focus", showFocus);
})();
