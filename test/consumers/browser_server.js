// Starts the Chromium that one test process's HTML checks share
// (test/ruby/browser_helper.rb): prints its DevTools endpoint, which the
// checkers connect to through TRACEGRAPH_CHROMIUM (browser_page.js), and
// when its stdin closes (the test process ended), closes the browser and
// removes its profile.
// Usage: node browser_server.js
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { launch } = require("./browser_page");

async function main() {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "tracegraph-chromium-"));
  const browser = await launch(profileDir);
  process.stdout.write(browser.wsEndpoint() + "\n");
  process.stdin.on("data", () => {});
  process.stdin.on("end", async () => {
    await browser.close();
    // Firefox's helpers may still be writing its profile as it closes
    // (ENOTEMPTY): retry, and a leftover temporary folder fails no check.
    try { fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch (_) { /* kept */ }
    process.exit(0);
  });
}

main().catch((error) => { console.error(error.stack || String(error)); process.exit(1); });
