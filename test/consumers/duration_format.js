// Prints, as JSON, how the HTML pages' formatting (formats/html/page_kit.js)
// writes each duration in nanoseconds given on the command line: page_kit.js
// is run as the page runs it, in a context whose `window` is a plain object
// (it touches the document only when a view is drawn).
//   node duration_format.js path/to/page_kit.js 0 999999 -4105
"use strict";
const fs = require("fs");
const vm = require("vm");

const [file, ...values] = process.argv.slice(2);
const context = { window: {} };
vm.runInNewContext(fs.readFileSync(file, "utf8"), context, { filename: file });
const kit = context.window.tracegraphPageKit;
process.stdout.write(JSON.stringify(values.map((v) => kit.time(Number(v)))));
