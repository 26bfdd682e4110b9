// Checks a Firefox Profiler processed profile (version 47, as tracegraph
// writes it) against the format's invariants as the profiler's own source
// states them, and prints what the profiler's call tree would show, as JSON:
//   {"product", "threads": [{"name", "weightType", "total", "heaviest": [[func, total, self], ...]}]}
// with times in nanoseconds (each tracing-ms weight read back as ns).
// Exits 1 with one line per broken rule otherwise.
// Usage: node firefox_check.js FILE
//
// The profiler's own loader runs in the tests too (its npm package
// @firefox-devtools/profiler-cli, see test_firefox.rb); this checker adds
// reasons: it names each rule a broken file breaks. Sources, in
// github.com/firefox-devtools/profiler:
//  [types]     src/types/profile.ts @ 02f997110dabda8caa64aa732eaaacbcbef0bd6e
//              (RawThread, RawSamplesTable, WeightType, RawStackTable,
//              FrameTable, FuncTable, ProfileMeta)
//  [upgrade]   src/profile-logic/processed-profile-versioning.ts
//              @ 0d66fdef2dabd85b73b6bd8857cd540492fabfba
//              (attemptToUpgradeProcessedProfileThroughMutation and the
//              upgraders 48 onwards, which every version-47 file goes through)
//  [changelog] docs-developer/CHANGELOG-formats.md
//              @ 0172c7f6a6dc6ae8f844280332ca123905fb6ea3 (version 47: pid is a string)
"use strict";
const fs = require("fs");

const VERSION = 47;
const errors = [];
const fail = (where, what) => errors.push(`${where}: ${what}`);
const isInt = (v) => Number.isInteger(v);
const isIndex = (v, length) => isInt(v) && v >= 0 && v < length;

let profile;
try {
  profile = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
} catch (e) {
  console.error(`not JSON: ${e.message}`);
  process.exit(1);
}

// A table: an object whose `columns` are arrays of exactly `length` items.
function table(where, t, columns) {
  if (!t || typeof t !== "object") return fail(where, "missing"), false;
  if (!isInt(t.length) || t.length < 0) return fail(where, "length is not a count"), false;
  let ok = true;
  for (const c of columns) {
    if (!Array.isArray(t[c])) fail(where, `column ${c} is missing`), (ok = false);
    else if (t[c].length !== t.length) fail(where, `column ${c} has ${t[c].length} items, length is ${t.length}`), (ok = false);
  }
  return ok;
}

function checkMeta(meta) {
  // [upgrade] a processed profile has a meta object with a numeric
  // preprocessedProfileVersion; one newer than the profiler's is refused,
  // older ones are upgraded step by step. We write exactly VERSION.
  if (!meta || typeof meta !== "object") return fail("meta", "missing");
  if (meta.preprocessedProfileVersion !== VERSION) fail("meta.preprocessedProfileVersion", `is not ${VERSION}`);
  // [types] ProfileMeta's required fields.
  for (const f of ["interval", "startTime", "processType", "version"]) {
    if (typeof meta[f] !== "number") fail(`meta.${f}`, "is not a number");
  }
  if (typeof meta.product !== "string") fail("meta.product", "is not a string");
  if (meta.stackwalk !== 0 && meta.stackwalk !== 1) fail("meta.stackwalk", "is not 0 or 1");
  // [upgrade] upgraders 52, 55, 56 and 57 iterate meta.markerSchema.
  if (!Array.isArray(meta.markerSchema)) fail("meta.markerSchema", "is not an array");
  // [types] categories, if present, contain the default category, the
  // first whose color is grey; [upgrade] 54 reads each one's subcategories.
  if (meta.categories !== undefined) {
    if (!Array.isArray(meta.categories)) return fail("meta.categories", "is not an array");
    if (!meta.categories.some((c) => c && c.color === "grey")) fail("meta.categories", "has no grey default category");
    meta.categories.forEach((c, i) => {
      if (!c || typeof c.name !== "string" || typeof c.color !== "string") fail(`meta.categories[${i}]`, "needs a name and a color");
      else if (!Array.isArray(c.subcategories) || c.subcategories.length === 0) fail(`meta.categories[${i}]`, "needs subcategories");
    });
  }
}

function checkThread(thread, index, categories) {
  const at = `threads[${index}]`;
  if (!thread || typeof thread !== "object") return fail(at, "is not an object"), null;
  // [types] RawThread's required fields; [changelog] 47: pid is a string.
  if (typeof thread.name !== "string") fail(`${at}.name`, "is not a string");
  if (typeof thread.processType !== "string") fail(`${at}.processType`, "is not a string");
  if (typeof thread.processStartupTime !== "number") fail(`${at}.processStartupTime`, "is not a number");
  if (typeof thread.registerTime !== "number") fail(`${at}.registerTime`, "is not a number");
  for (const f of ["processShutdownTime", "unregisterTime"]) {
    if (!(f in thread) || (thread[f] !== null && typeof thread[f] !== "number")) fail(`${at}.${f}`, "is not a number or null");
  }
  if (!Array.isArray(thread.pausedRanges)) fail(`${at}.pausedRanges`, "is not an array");
  if (typeof thread.isMainThread !== "boolean") fail(`${at}.isMainThread`, "is not a boolean");
  if (typeof thread.pid !== "string") fail(`${at}.pid`, "is not a string");
  if (typeof thread.tid !== "number" && typeof thread.tid !== "string") fail(`${at}.tid`, "is not a number or a string");
  // [upgrade] the profiler tells a processed profile from a Gecko one by
  // the first thread's stringArray; 56 moves every thread's into one.
  const strings = thread.stringArray;
  if (!Array.isArray(strings) || strings.some((s) => typeof s !== "string")) fail(`${at}.stringArray`, "is not an array of strings");
  const nStrings = Array.isArray(strings) ? strings.length : 0;

  // [types] RawMarkerTable; [upgrade] 52, 56 and 59 walk the markers.
  table(`${at}.markers`, thread.markers, ["data", "name", "startTime", "endTime", "phase", "category"]);
  // [upgrade] 56 and 60 read these tables' columns.
  table(`${at}.resourceTable`, thread.resourceTable, ["lib", "name", "host", "type"]);
  table(`${at}.nativeSymbols`, thread.nativeSymbols, ["libIndex", "address", "name", "functionSize"]);

  // [types] FuncTable (at 47 with fileName, which [upgrade] 56 and 58 read:
  // null or a string index); name is a string index.
  const funcs = thread.funcTable;
  const funcsOk = table(`${at}.funcTable`, funcs, ["name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber"]);
  if (funcsOk) {
    for (let i = 0; i < funcs.length; i++) {
      if (!isIndex(funcs.name[i], nStrings)) fail(`${at}.funcTable.name[${i}]`, "is not a string index");
      if (funcs.fileName[i] !== null && !isIndex(funcs.fileName[i], nStrings)) fail(`${at}.funcTable.fileName[${i}]`, "is not null or a string index");
      if (typeof funcs.isJS[i] !== "boolean" || typeof funcs.relevantForJS[i] !== "boolean") fail(`${at}.funcTable[${i}]`, "isJS and relevantForJS must be booleans");
      if (funcs.resource[i] !== -1) fail(`${at}.funcTable.resource[${i}]`, "is not -1 (there are no resources)");
      if (funcs.lineNumber[i] !== null && !isInt(funcs.lineNumber[i])) fail(`${at}.funcTable.lineNumber[${i}]`, "is not null or a line");
    }
  }

  // [types] FrameTable: func indexes the funcTable; a frame with a
  // category has a subcategory of it; [upgrade] 53 needs category and
  // subcategory, 59 innerWindowID, 60 the rest.
  const frames = thread.frameTable;
  const framesOk = table(`${at}.frameTable`, frames, ["address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol", "innerWindowID", "line", "column"]);
  const nFuncs = funcsOk ? funcs.length : 0;
  if (framesOk) {
    for (let i = 0; i < frames.length; i++) {
      if (!isIndex(frames.func[i], nFuncs)) fail(`${at}.frameTable.func[${i}]`, "is not a func index");
      const c = frames.category[i];
      if (c !== null) {
        if (!isIndex(c, categories.length)) fail(`${at}.frameTable.category[${i}]`, "is not a category index");
        else if (!isIndex(frames.subcategory[i], categories[c].subcategories.length)) fail(`${at}.frameTable.subcategory[${i}]`, "is not a subcategory of its category");
      }
      if (frames.nativeSymbol[i] !== null) fail(`${at}.frameTable.nativeSymbol[${i}]`, "is not null (there are no native symbols)");
    }
  }

  // [types] RawStackTable: a root's prefix is null, every other stack's
  // prefix is its caller's stack index; frame indexes the frameTable. We
  // also require the caller to come first (prefix < index), which our
  // writer always does and which makes the prefix column a tree.
  const stacks = thread.stackTable;
  const stacksOk = table(`${at}.stackTable`, stacks, ["frame", "prefix"]);
  const nFrames = framesOk ? frames.length : 0;
  if (stacksOk) {
    for (let i = 0; i < stacks.length; i++) {
      if (!isIndex(stacks.frame[i], nFrames)) fail(`${at}.stackTable.frame[${i}]`, "is not a frame index");
      const p = stacks.prefix[i];
      if (p !== null && !(isInt(p) && p >= 0 && p < i)) fail(`${at}.stackTable.prefix[${i}]`, "is not null or an earlier stack");
    }
  }

  // [types] RawSamplesTable: stack (null or a stack index), time (since
  // there is no timeDeltas at 47), weight, weightType one of WeightType.
  const samples = thread.samples;
  const samplesOk = table(`${at}.samples`, samples, ["stack", "time", "weight"]);
  if (!samples || !["samples", "tracing-ms", "bytes"].includes(samples.weightType)) fail(`${at}.samples.weightType`, "is not a WeightType");
  else if (samples.weightType !== "tracing-ms") fail(`${at}.samples.weightType`, "is not tracing-ms (a traced profile's self times)");
  if (!samplesOk || !stacksOk || !framesOk || !funcsOk || errors.length) return null;
  let last = -Infinity;
  for (let i = 0; i < samples.length; i++) {
    const s = samples.stack[i];
    if (s !== null && !isIndex(s, stacks.length)) fail(`${at}.samples.stack[${i}]`, "is not null or a stack index");
    const t = samples.time[i];
    if (typeof t !== "number" || t < last) fail(`${at}.samples.time[${i}]`, "is not a number in order");
    last = t;
    const w = samples.weight[i];
    if (typeof w !== "number" || !(w > 0)) fail(`${at}.samples.weight[${i}]`, "is not a positive number of milliseconds");
  }
  if (errors.length) return null;
  return summarize(thread);
}

// What the profiler's call tree shows: call nodes are func paths (stacks
// with the same funcs from the root are one node); a sample's weight is its
// leaf node's self and every ancestor's total. Weights go back to
// nanoseconds (our writer gives each as an exact decimal of ns / 1e6).
function summarize(thread) {
  const {stackTable: stacks, frameTable: frames, funcTable: funcs, samples, stringArray: strings} = thread;
  const nodeOfStack = new Array(stacks.length);
  const nodes = [{children: new Map(), total: 0, self: 0}];
  for (let i = 0; i < stacks.length; i++) {
    const parent = stacks.prefix[i] === null ? nodes[0] : nodes[nodeOfStack[stacks.prefix[i]]];
    const func = frames.func[stacks.frame[i]];
    let child = parent.children.get(func);
    if (child === undefined) {
      child = nodes.length;
      nodes.push({func, parent: parent, children: new Map(), total: 0, self: 0});
      parent.children.set(func, child);
    }
    nodeOfStack[i] = child;
  }
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    if (samples.stack[i] === null) continue;
    const ns = Math.round(samples.weight[i] * 1e6);
    total += ns;
    let node = nodes[nodeOfStack[samples.stack[i]]];
    node.self += ns;
    for (; node; node = node.parent) node.total += ns;
  }
  const heaviest = [];
  for (let node = nodes[0]; node.children.size;) {
    node = [...node.children.values()].map((i) => nodes[i]).reduce((a, b) => (b.total > a.total ? b : a));
    heaviest.push([strings[funcs.name[node.func]], node.total, node.self]);
  }
  return {name: thread.name, weightType: samples.weightType, samples: samples.length, total, heaviest};
}

checkMeta(profile.meta);
// [types] Profile: libs and threads; [upgrade] every upgrader walks threads.
if (!Array.isArray(profile.libs)) fail("libs", "is not an array");
const out = {product: profile.meta && profile.meta.product, threads: []};
if (!Array.isArray(profile.threads) || profile.threads.length === 0) fail("threads", "is not a non-empty array");
else if (!errors.length) {
  const categories = profile.meta.categories || [];
  profile.threads.forEach((t, i) => out.threads.push(checkThread(t, i, categories)));
}
if (errors.length) {
  console.error(errors.slice(0, 20).join("\n"));
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + "\n");
