// Runs the graph rules of the HTML report's focus view (formats/html/
// focus_graph.js: the heat scale and tg_graph.c's rows) outside a browser,
// as the page loads them, on what stdin gives as JSON:
//   {"fractions": [f, ...], "boxes": [index, ...],
//    "edges": [[caller index, callee index, total], ...]}
// and prints {"fills": [hex, ...], "borders": [hex, ...] (each fraction's),
// "minlen": [[edge's place in edges, minlen], ...]} for the edges the rows
// lengthen.
//   node graph_rules.js path/to/focus_graph.js < input.json
"use strict";
const fs = require("fs");
const vm = require("vm");

const [file] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const report = { data: { edges: [] }, methods: [], byKey: new Map(), addView: () => {} };
vm.runInNewContext(fs.readFileSync(file, "utf8"), { window: { tracegraphReport: report }, Promise }, { filename: file });
const rules = report.graphRules;
const boxes = input.boxes.map((index) => ({ index }));
const byIndex = new Map(boxes.map((b) => [b.index, b]));
const edges = input.edges.map(([from, to, total], place) => ({ caller: byIndex.get(from), callee: byIndex.get(to), total, place }));
const { minlen } = rules.rows({ boxes, edges });
process.stdout.write(JSON.stringify({
  fills: input.fractions.map(rules.fill),
  borders: input.fractions.map(rules.border),
  minlen: [...minlen.entries()].map(([e, n]) => [e.place, n]).sort((a, b) => a[0] - b[0])
}));
