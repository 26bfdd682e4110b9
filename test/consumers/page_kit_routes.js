// Runs the router of the HTML pages (formats/html/page_kit.js) outside a
// browser, configured as a page configures it, on each fragment given in
// turn, and prints as JSON what each opened: the view, or a method's
// page and its name; the view's parameters; what before() was shown;
// the nav link marked current; whether main was emptied and the page
// scrolled to its top; and whether the search box then reaches the view.
// The page knows the views "graph" and "table", and opens "graph" where a
// fragment names none. "method-query" routes as the report does (a
// method's key, then its parameters after "&"), "method-only" as the
// diff report does (a method's name alone).
//   node page_kit_routes.js path/to/page_kit.js method-query '#table?sort=self' '#method=A%23b&thread=1'
"use strict";
const fs = require("fs");
const vm = require("vm");

const [file, mode, ...hashes] = process.argv.slice(2);
const listeners = new Map();
let scrolled = null, emptied = false, opened = null, before = null;
const context = {
  URLSearchParams,
  location: { hash: "" },
  window: {
    addEventListener: (type, listener) => listeners.set(type, listener),
    scrollTo: (x, y) => { scrolled = [x, y]; }
  }
};
vm.runInNewContext(fs.readFileSync(file, "utf8"), context, { filename: file });
const { router } = context.window.tracegraphPageKit;

const links = ["graph", "table"].map((name) => {
  const link = { id: `nav-${name}`, current: false };
  link.classList = { toggle: (name, on) => { link.current = on; } };
  return link;
});
const nav = { querySelectorAll: () => links };
const main = { replaceChildren: () => { emptied = true; } };
// A view that says it was opened, and takes the search's text (the graph).
const view = (name) => (params) => {
  opened = { view: name, params: [...params] };
  return name === "graph" ? { onSearch: () => {} } : undefined;
};
const routes = router({
  nav, main, views: new Map([["graph", view("graph")], ["table", view("table")]]), home: () => "graph",
  method: (name, params) => { opened = { view: "method", name, params: [...params] }; },
  methodQuery: mode === "method-query",
  before: (state) => { before = { view: state.view, name: state.name === undefined ? null : state.name }; }
});

const results = hashes.map((hash, i) => {
  scrolled = null; emptied = false; opened = null; before = null;
  context.location.hash = hash;
  if (i === 0) routes.start(); else listeners.get("hashchange")();
  const current = links.filter((l) => l.current).map((l) => l.id);
  return { hash, ...opened, before, current, emptied, scrolled, searched: typeof routes.onSearch() === "function" };
});
process.stdout.write(JSON.stringify(results));
