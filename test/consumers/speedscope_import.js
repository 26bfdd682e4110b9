// Reads a file with speedscope's own importer (the npm package's release
// bundle, run in a Node vm with just enough of a browser around it) and
// prints what speedscope made of it, as JSON:
//   {"profiles": [{"name", "unit", "total", "heaviest": [[frame, total, self], ...],
//                  "frames": [[frame, total, self], ...]}]}
// Usage: node speedscope_import.js FILE
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const release = path.join(__dirname, "node_modules/speedscope/dist/release");
const bundleName = fs.readdirSync(release).find((f) => /^speedscope-.*\.js$/.test(f));
let bundle = fs.readFileSync(path.join(release, bundleName), "utf8");

// The bundle is one closure; its speedscope-JSON importer is the function
// the format dispatch calls after "Importing as speedscope json file".
const m = bundle.match(/Importing as speedscope json file"\),([\w$]+)\(/);
if (!m) throw new Error("speedscope's bundle changed: cannot find its speedscope-JSON importer");
bundle = bundle.replace('"use strict";(()=>{', `"use strict";(()=>{globalThis.__importSpeedscope=(x)=>${m[1]}(x);`);

const stub = () => new Proxy(function () {}, {get: (t, k) => (k === Symbol.toPrimitive ? () => "" : stub()), apply: () => stub(), construct: () => stub()});
const sandbox = {console: {log() {}, warn() {}, error() {}, info() {}}, setTimeout, clearTimeout, URL, TextDecoder, TextEncoder};
sandbox.window = sandbox;
sandbox.self = sandbox;
sandbox.document = stub();
sandbox.navigator = {userAgent: "node", platform: "node"};
sandbox.location = {hash: "", search: "", href: "http://localhost/"};
sandbox.addEventListener = () => {};
sandbox.requestAnimationFrame = () => 0;
vm.createContext(sandbox);
try {
  vm.runInContext(bundle, sandbox);
} catch (e) {
  // The app's start-up needs a real DOM; the importer is defined by then.
}
if (!sandbox.__importSpeedscope) throw new Error("speedscope's importer did not load");

const file = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const group = sandbox.__importSpeedscope(file);
const out = {name: group.name, profiles: []};
for (const profile of group.profiles) {
  const heaviest = [];
  let node = profile.getGroupedCalltreeRoot();
  for (;;) {
    const children = node.children;
    if (!children || children.length === 0) break;
    node = children.reduce((a, b) => (b.getTotalWeight() > a.getTotalWeight() ? b : a));
    heaviest.push([node.frame.name, node.getTotalWeight(), node.getSelfWeight()]);
  }
  const frames = [];
  profile.forEachFrame((frame) => frames.push([frame.name, frame.getTotalWeight(), frame.getSelfWeight()]));
  out.profiles.push({name: profile.getName(), unit: profile.getWeightUnit(), total: profile.getTotalWeight(), heaviest, frames});
}
process.stdout.write(JSON.stringify(out) + "\n");
