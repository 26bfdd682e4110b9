// tracegraph's HTML report: the summary it opens on (#summary), which says
// where the time went at a size that reads on a laptop's screen without
// zooming (issue 36): what was profiled (Html.title: the program, or a
// request), its time, clock and threads; the heaviest methods by self
// time; the heaviest paths of the call tree (from each of the heaviest
// roots, the heaviest child for as long as it holds most of the root's
// time, and where the time then splits); the command's grouping
// advice, with the grouped graph a click away; and the full graph, the
// table and the flame graph a click away. Numbers are the thread and
// waiting chosen (as the table's). Names reach the page as text only.
"use strict";
(function () {
  const R = window.tracegraphReport;
  const { data, methods, el, group, time, percent, methodLink, choice, choiceQuery } = R;
  // (The summary's order: what was profiled, the links to the other views,
  // the advice, the methods, the paths: what is short comes first.)
  const TOP = 10;          // the heaviest methods listed
  const ROOTS = 3;         // the heaviest roots whose paths are followed
  const MOST = 0.5;        // a path goes on while its heaviest child holds more than this of its root's time
  const FIRST_STEPS = 2;   // a longer path shows its first FIRST_STEPS steps and its last LAST_STEPS
  const LAST_STEPS = 8;
  const SPLIT = 3;         // where a path splits, its biggest children named

  const withChoice = (hash) => { const q = choiceQuery(); return q ? `${hash}${hash.includes("?") ? "&" : "?"}${q}` : hash; };

  function show(params) {
    const main = R.main;
    const total = choice.total;
    const section = el("section", { class: "summary-view", id: "summary" });
    section.append(el("h2", { id: "summary-title", text: data.title || data.program || "tracegraph" }), what(), tracing());
    if (data.yjit) {
      section.append(el("p", { class: "note", id: "summary-yjit", text: "YJIT was on, but code runs in the " +
        "interpreter while it is traced: these are the interpreter's times. Shares carry over to YJIT only roughly; " +
        "a sampling profiler (stackprof, vernier) gives YJIT's own (docs/accuracy.md)." }));
    }
    if (choice.label) {
      section.append(el("p", { class: "note", id: "view-note", text: `Showing ${choice.label}, counted from the call tree.` }));
    }
    section.append(links(), adviceBox(),
      el("div", { class: "summary-columns" }, heaviestMethods(total), heaviestPaths(params, total)));
    main.append(section);
    return { onSearch: null };
  }

  // "crawler: 3.00 s of wall time. 3 threads (main, thread 2, thread 3):
  // 1.20 s of wall clock time working, waiting hidden (3.56 s in 3
  // threads, Thread::Queue#pop, Kernel#sleep); 1,234,567 calls of 5,830
  // methods." The run's wall time apart from the threads' time (their
  // times added up), which follows the waiting chosen.
  function what() {
    const threads = data.threads;
    const names = threads.length && threads.length <= 4 ? ` (${threads.map((t) => t.name).join(", ")})` : "";
    const subject = data.program || "The profile";
    const wall = data.wall_time ? `${time(data.wall_time)} of wall time. ` : "";
    const where = data.waiting_where ? ` ${data.waiting_where}` : "";
    let waiting = "";
    if (data.hidden_waiting) waiting = ` working, waiting left out when recorded (--idle hide: ${time(data.hidden_waiting)}${where})`;
    else if (choice.idle === "hide" && data.waiting_time) waiting = ` working, waiting hidden (${time(data.waiting_hidden_time || data.waiting_time)}${where})`;
    else if (data.waiting_time) waiting = `, waiting shown (${time(data.waiting_time)} of it${where})`;
    return el("p", { class: "summary-what", id: "summary-what",
      text: `${subject}: ${wall}${group(threads.length)} thread${threads.length === 1 ? "" : "s"}${names}: ` +
        `${time(choice.total)} of ${data.clock} clock time${waiting}; ${group(data.total_calls)} calls of ` +
        `${group(methods.length)} methods` + (data.complete ? "." : " (incomplete: the recording was cut short).") });
  }

  // Whether the times hold tracing's own cost, and how sure what was
  // taken out is (the ±: the calibration's spread over the run's events,
  // docs/accuracy.md), as the graph's legend and the table say it.
  function tracing() {
    const text = data.tracing_cost ? `Tracing's own cost taken out of these times: ${data.tracing_cost}.`
      : "Raw times: tracing's own cost is in them (raw_times: true).";
    return el("p", { class: "note", id: "summary-tracing", text });
  }

  function heaviestMethods(total) {
    const top = methods.filter((m) => !m.absent && m.self > 0).sort((a, b) => b.self - a.self || a.index - b.index).slice(0, TOP);
    const box = el("div", { class: "summary-block" }, el("h3", { text: "Heaviest methods, by self time" }));
    if (!top.length) {
      box.append(el("p", { class: "note", text: "No method has time of its own here." }));
      return box;
    }
    const held = top.reduce((sum, m) => sum + m.self, 0);
    box.append(el("p", { id: "summary-methods-words", text: `${top[0].name} spends ${percent(top[0].self, total)} of the time ` +
      `in its own code; these ${top.length} methods spend ${percent(held, total)}.` }));
    const head = el("tr", {}, ...["Method", "Calls", "Self", "Self %", "Total", "Total %"]
      .map((label, i) => el("th", { class: i === 0 ? "name" : "", text: label })));
    const body = el("tbody");
    for (const m of top) {
      body.append(el("tr", { "data-method": String(m.index) }, el("td", { class: "name" }, methodLink(m)),
        el("td", { text: group(m.calls) }), el("td", { text: time(m.self), title: `${group(m.self)} ns` }),
        el("td", { text: percent(m.self, total) }), el("td", { text: time(m.total), title: `${group(m.total)} ns` }),
        el("td", { text: percent(m.total, total) })));
    }
    box.append(el("table", { id: "summary-methods" }, el("thead", {}, head), body));
    return box;
  }

  // The heaviest paths, from the call tree: the chosen thread's (or every
  // thread's) roots, heaviest first; from each, the heaviest child while
  // it holds more than MOST of the root's time. (Of its caller's time
  // would follow a recursion down: rubocop's AST traversal took a path 50
  // calls deep, from 98% of the time to 3%.)
  function heaviestPaths(params, total) {
    const box = el("div", { class: "summary-block" }, el("h3", { text: "Heaviest paths" }));
    const callTree = R.callTree;
    if (!callTree) {
      box.append(el("p", { class: "note", id: "summary-no-paths", text: "This report has no call tree, so no paths: the " +
        `heaviest methods above and the graph are what it has${data.no_call_tree ? ` (${data.no_call_tree})` : ""}.` }));
      return box;
    }
    const tree = callTree.tree();
    const picked = callTree.choice(params);
    const { size } = callTree.layout(picked.idle === "hide");
    const children = (n) => {
      const list = [];
      for (let c = n + 1; c < tree.end[n]; c = tree.end[c]) if (size[c] > 0) list.push(c);
      return list.sort((a, b) => size[b] - size[a] || a - b);
    };
    const starts = picked.base === 0 ? tree.threadNode : [picked.base];
    const roots = starts.flatMap(children).sort((a, b) => size[b] - size[a] || a - b);
    const whole = roots.reduce((sum, n) => sum + size[n], 0) || total;
    const list = el("ol", { class: "summary-paths", id: "summary-paths" });
    for (const root of roots.slice(0, ROOTS)) {
      if (list.children.length && size[root] < 0.05 * whole) break;
      const steps = [root];
      for (let n = root; ;) {
        const next = children(n)[0];
        if (next === undefined || size[next] <= MOST * size[root]) break;
        steps.push(next);
        n = next;
      }
      list.append(pathItem(tree, size, steps, children(steps[steps.length - 1]), whole));
    }
    box.append(el("p", { text: `From each of the heaviest roots, the calls that hold most of its time, down to where ` +
      `it splits (shares of ${time(whole)}):` }), list);
    return box;
  }

  // A method of the tree: a link to its page, or the name of one the
  // profile left out.
  function nodeName(tree, n) {
    const index = tree.method[n];
    if (index >= 0 && index < methods.length) return methodLink(methods[index]);
    return el("span", { text: index >= 0 ? data.flame.extra_methods[index - methods.length] : "(thread)" });
  }

  function pathItem(tree, size, steps, split, whole) {
    const share = (n) => percent(size[n], whole);
    const step = (n) => el("li", { "data-node": String(n) }, nodeName(tree, n), el("span", { class: "num", text: ` ${share(n)} · ${time(size[n])}` }));
    const list = el("ol", { class: "path-steps" });
    const elided = steps.length > FIRST_STEPS + LAST_STEPS + 1;
    steps.forEach((n, i) => {
      if (elided && i >= FIRST_STEPS && i < steps.length - LAST_STEPS) {
        if (i === FIRST_STEPS) {
          const hidden = steps.length - FIRST_STEPS - LAST_STEPS;
          list.append(el("li", { class: "note elided", text: `… ${group(hidden)} calls, each holding most of the time above, ` +
            `from ${share(steps[i])} to ${share(steps[steps.length - LAST_STEPS - 1])}` }));
        }
        return;
      }
      list.append(step(n));
    });
    const last = steps[steps.length - 1];
    const ending = split.length
      ? el("p", { class: "path-end" }, `There ${share(last)} splits: `, ...split.slice(0, SPLIT).flatMap((c, i) =>
        [i ? ", " : "", nodeName(tree, c), ` ${share(c)}`]), split.length > SPLIT ? `, and ${group(split.length - SPLIT)} more.` : ".")
      : el("p", { class: "path-end", text: `There ${share(last)} is the method's own time: it calls nothing that takes time.` });
    return el("li", { class: "summary-path", "data-share": String(size[steps[0]] / whole) },
      el("span", { class: "path-head", text: `${share(steps[0])} of the time, ${group(steps.length)} call${steps.length === 1 ? "" : "s"} deep:` }),
      list, ending);
  }

  // The command's grouping advice, where it gives one, and the graph it
  // recommends a click away.
  function adviceBox() {
    const advice = data.advice;
    if (!advice) return "";
    const box = el("div", { class: "summary-block summary-advice", id: "summary-advice" }, el("h3", { text: "Grouping" }),
      el("p", { id: "summary-advice-text", text: `The full graph's ${advice.text.replace(/^the graph's /, "")}.` }));
    if (advice.group_by && advice.svg) {
      box.append(el("p", {}, el("a", { href: `#graph?by=${advice.group_by}`, id: "summary-grouped",
        text: `See the graph by ${advice.group_by}` }), ` (as tracegraph --group-by ${advice.group_by} draws it).`));
    } else if (advice.group_by) {
      box.append(el("p", { class: "note", text: `The graph by ${advice.group_by} is not in this report: ${advice.svg_note}.` }));
    }
    return box;
  }

  function links() {
    const items = [el("a", { href: withChoice("#graph"), id: "summary-graph-link", text: "The full call graph" }),
      el("a", { href: withChoice("#table?sort=self"), id: "summary-table-link", text: `Every method (${group(methods.length)}), in a table` })];
    if (data.flame) items.push(el("a", { href: withChoice("#flame"), id: "summary-flame-link", text: "The flame graph" }));
    return el("p", { class: "summary-links" }, ...items.flatMap((a, i) => (i ? [" · ", a] : [a])));
  }

  R.addView("summary", "Summary", show, { first: true });
})();
