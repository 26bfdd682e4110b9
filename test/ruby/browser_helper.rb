require "json"
require "open3"

# Opens an HTML report in Debian's chromium through puppeteer-core
# (test/consumers/html_report_check.js) and returns what a user sees, as
# JSON, after checking that nothing went wrong: no page error, no
# request, no dialog. Skips where chromium, node or the npm package is
# absent. For test_html.rb and test_html_flame.rb.
module BrowserHelper
  CONSUMERS = File.expand_path("../consumers", __dir__)
  CHECKER = File.join(CONSUMERS, "html_report_check.js")

  def check_in_chromium(path, *args)
    skip "chromium is not installed (apt-get install chromium)" unless File.executable?("/usr/bin/chromium")
    skip "node is not installed (apt-get install nodejs npm)" unless system("command -v node > /dev/null 2>&1")
    unless File.directory?(File.join(CONSUMERS, "node_modules/puppeteer-core"))
      skip "puppeteer-core is not installed (bin/setup runs npm ci in test/consumers)"
    end
    # Under `rake test:asan` the ASan runtime is preloaded into this Ruby;
    # Chromium, which node starts, must not inherit it (it never starts).
    browser_env = {"LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil}
    out, err, status = Open3.capture3(browser_env, "node", CHECKER, path, *args)
    assert status.success?, "the report could not be checked in chromium: #{err}"
    result = JSON.parse(out)
    assert_empty result["errors"], "no page errors, no policy violations"
    assert_empty result["requests"], "no request leaves the file"
    assert_empty result["dialogs"], "no script of the profile's ran"
    result
  end
end
