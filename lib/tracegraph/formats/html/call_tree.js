// tracegraph's HTML report: the call tree (formats/html_flame.rb packs
// it), unpacked on first use, and what the page's thread and waiting
// choice is counted from. window.tracegraphReport.callTree holds:
//   tree(): the nodes (node 0 is every thread, 1..T the threads, then the
//     call paths depth first, each subtree [i, end[i]));
//   layout(hide): each node's time as drawn and its left edge (flame.js);
//   count(base, hide, focus): the methods and edges of base's subtree as
//     Profile#view counts them (ext/tracegraph/core/tg_tree_stats.h),
//     and with focus flags only the paths through a match, as
//     Profile#focus_paths counts them (the same file's focus rules);
//   choice(params): the thread (by id) and waiting a fragment chooses.
// Without a call tree in the report, callTree is null.
"use strict";
(function () {
  const R = window.tracegraphReport;
  const flame = R.data.flame;
  if (!flame) { R.callTree = null; return; }
  const methods = R.methods;

  let tree = null;
  function unpack() {
    const started = performance.now();
    const bytes = atob(flame.tree);
    const T = flame.threads.length, N = 1 + T + flame.nodes;
    const t = {
      N, depth: new Int32Array(N), method: new Int32Array(N), parent: new Int32Array(N), end: new Int32Array(N),
      calls: new Float64Array(N), self: new Float64Array(N), total: new Float64Array(N), threadNode: []
    };
    let pos = 0;
    const read = () => {
      let v = 0, b;
      do { b = bytes.charCodeAt(pos++); v = v * 128 + (b & 127); } while (b & 128);
      return v;
    };
    t.method[0] = -1;
    t.parent[0] = -1;
    let i = 1;
    const path = [];
    let previous = -1;
    flame.threads.forEach((thread, k) => {
      const ti = i++;
      t.threadNode.push(ti);
      t.depth[ti] = 1;
      t.method[ti] = -2 - k;
      t.parent[ti] = 0;
      path[0] = ti;
      for (let n = 0; n < thread.nodes; n++) {
        const d = previous + 1 - read();
        const node = i++;
        t.method[node] = read();
        t.calls[node] = read();
        t.self[node] = read();
        const z = read();
        t.total[node] = t.self[node] + (z % 2 ? -(z + 1) / 2 : z / 2);   // the children's totals are added below
        t.depth[node] = d + 2;
        t.parent[node] = path[d];
        path[d + 1] = node;
        previous = d;
      }
    });
    for (let n = 0; n < N; n++) t.end[n] = n + 1;
    for (let n = N - 1; n > 0; n--) {
      const p = t.parent[n];
      t.total[p] += t.total[n];
      if (t.end[n] > t.end[p]) t.end[p] = t.end[n];
    }
    t.waiting = new Uint8Array(methods.length + flame.extra_methods.length);
    for (const m of flame.waiting) t.waiting[m] = 1;
    t.unpackMs = performance.now() - started;
    t.layouts = new Map();
    t.counts = new Map();
    return t;
  }
  const getTree = () => tree || (tree = unpack());

  // Each node's time as drawn (its total, less the waiting beneath it when
  // waiting is hidden; 0 for a node left out) and its left edge, in ns.
  function layout(hide) {
    getTree();
    const key = hide ? "hide" : "show";
    if (tree.layouts.has(key)) return tree.layouts.get(key);
    const { N, parent, method, total, waiting } = tree;
    const state = new Uint8Array(N);   // 0 drawn, 1 a waiting method's frame, 2 beneath one
    if (hide) {
      for (let n = 1; n < N; n++) {
        state[n] = state[parent[n]] ? 2 : (method[n] >= 0 && waiting[method[n]] ? 1 : 0);
      }
    }
    const cut = new Float64Array(N);
    let hidden = 0;
    for (let n = N - 1; n > 0; n--) {
      if (state[n] === 2) continue;
      if (state[n] === 1) hidden += total[n];
      cut[parent[n]] += state[n] === 1 ? total[n] : cut[n];
    }
    const size = new Float64Array(N), x = new Float64Array(N), next = new Float64Array(N);
    for (let n = 0; n < N; n++) size[n] = state[n] ? 0 : Math.max(total[n] - cut[n], 0);
    for (let n = 1; n < N; n++) {
      x[n] = next[parent[n]];
      next[parent[n]] += size[n];
      next[n] = x[n];
    }
    const result = { size, x, hidden, state };
    tree.layouts.set(key, result);
    return result;
  }

  // The methods and edges of base's subtree, with waiting hidden or not,
  // as tracegraph's views count them (tg_tree_stats.h): calls and self add
  // up over the nodes counted; a method's total adds the effective totals
  // of its nodes with no ancestor of the same method, an edge's those of
  // its callee nodes with no ancestor activation of the same edge; a node
  // under a thread's node has no edge. With focus (a Uint8Array, 1 for
  // each matching method index, the tree's extra methods too), only the
  // paths through a match count, as tg_tree_stats.c counts them with
  // focus flags: a match and every node under it count whole; a node
  // above a match counts its calls, no self time, and as its total the
  // effective totals of the outermost matches beneath it; every other
  // node is left out with its subtree. { methods: [{ m, calls, self,
  // total }], edges: [{ caller, callee, calls, self, total }] (method
  // indexes, in the order a depth first walk meets them), time: the self
  // times counted }. Counts without a focus are kept for the next call.
  function count(base, hide, focus = null) {
    const { size, state } = layout(hide);
    const key = `${base} ${hide}`;
    if (!focus && tree.counts.has(key)) return tree.counts.get(key);
    const M = methods.length + flame.extra_methods.length;
    const { N, parent, method, end } = tree;
    // With focus: per node, whether a match is at or beneath it, and the
    // effective totals of the outermost matches beneath it, bottom up as
    // tg_tree_stats.c's settle_focus passes them; a waiting node hidden
    // passes nothing.
    let reaches = null, above = null, under = null;
    if (focus) {
      reaches = new Uint8Array(N);
      above = new Float64Array(N);
      under = new Uint8Array(N);
      for (let n = N - 1; n > 0; n--) {
        if (state[n]) continue;
        const match = method[n] >= 0 && focus[method[n]] === 1;
        if (!match && !reaches[n]) continue;
        reaches[parent[n]] = 1;
        above[parent[n]] += match ? size[n] : above[n];
      }
    }
    const calls = new Float64Array(M), self = new Float64Array(M), total = new Float64Array(M);
    const open = new Int32Array(M), openEdge = new Map(), edgeAt = new Map(), edges = [], stack = [];
    let time = 0;
    const edgeKey = (n) => (method[parent[n]] >= 0 ? method[parent[n]] * M + method[n] : -1);
    const close = (top) => {
      if (method[top] < 0) return;
      open[method[top]]--;
      const k = edgeKey(top);
      if (k >= 0) openEdge.set(k, openEdge.get(k) - 1);
    };
    for (let n = base; n < end[base];) {
      if (state[n]) { n = end[n]; continue; }
      const m = method[n];
      if (focus) {
        under[n] = (n !== base && under[parent[n]]) || (m >= 0 && focus[m] === 1) ? 1 : 0;
        if (!under[n] && !reaches[n]) { n = end[n]; continue; }
      }
      while (stack.length && end[stack[stack.length - 1]] <= n) close(stack.pop());
      if (m >= 0) {
        const isAbove = focus !== null && !under[n];
        const nodeSelf = isAbove ? 0 : tree.self[n], nodeTotal = isAbove ? above[n] : size[n];
        calls[m] += tree.calls[n];
        self[m] += nodeSelf;
        time += nodeSelf;
        if (!open[m]) total[m] += nodeTotal;
        open[m]++;
        const k = edgeKey(n);
        if (k >= 0) {
          let e = edgeAt.get(k);
          if (!e) {
            e = { caller: method[parent[n]], callee: m, calls: 0, self: 0, total: 0 };
            edgeAt.set(k, e);
            edges.push(e);
          }
          e.calls += tree.calls[n];
          e.self += nodeSelf;
          const active = openEdge.get(k) || 0;
          if (!active) e.total += nodeTotal;
          openEdge.set(k, active + 1);
        }
      }
      stack.push(n);
      n++;
    }
    const rows = [];
    for (let m = 0; m < M; m++) if (calls[m] > 0) rows.push({ m, calls: calls[m], self: self[m], total: total[m] });
    const result = { methods: rows, edges, time };
    if (!focus) tree.counts.set(key, result);
    return result;
  }

  // The thread and waiting that params (a fragment's) choose: thread, the
  // id of one of the tree's threads or null (every thread); idle, "hide"
  // or "show"; base, the node whose subtree that is.
  function choice(params) {
    getTree();
    const threads = flame.threads;
    const wanted = params.get("thread");
    const index = threads.findIndex((t) => String(t.id) === wanted);
    return {
      thread: index >= 0 ? wanted : null, threadIndex: index, idle: R.idleOf(params),
      base: index >= 0 ? tree.threadNode[index] : (threads.length === 1 ? tree.threadNode[0] : 0)
    };
  }

  R.callTree = { tree: getTree, layout, count, choice, extraMethods: flame.extra_methods };
})();
