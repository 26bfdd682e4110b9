require "json"
require "open3"
require_relative "consumers_helper"

# Opens an HTML report from file:// in a real browser through
# puppeteer-core (test/consumers/html_report_check.js): Debian's chromium,
# or firefox-esr over WebDriver BiDi. Returns what a user sees, as JSON,
# after checking that nothing went wrong: no page error, no request, no
# dialog. Skips where the browser, node or the npm package is absent. For
# test_html.rb, test_html_flame.rb and the diff report's tests.
module BrowserHelper
  include ConsumersHelper

  CHECKER = File.join(ConsumersHelper::CONSUMERS, "html_report_check.js")
  SERVER = File.join(ConsumersHelper::CONSUMERS, "browser_server.js")
  CHROMIUM = "/usr/bin/chromium"
  FIREFOX = "/usr/bin/firefox-esr"
  # The DevTools endpoint of the Chromium that this process's checks share
  # (browser_server.js), each in a fresh context of it: started at the
  # first check, closed after the last test. A browser of its own for each
  # check took about 0.5 s more.
  def self.shared_chromium
    @shared_chromium ||= begin
      server = IO.popen(ConsumersHelper::NODE_ENV, ["node", SERVER], "r+")
      Minitest.after_run { server.close } # its stdin closed, it closes the browser
      endpoint = server.gets.to_s.chomp
      raise "Chromium did not start for the checks: #{endpoint.inspect}" unless endpoint.start_with?("ws://")

      endpoint
    end
  end

  # expected_errors: console errors the check means to cause (the
  # WebAssembly runtime's own, when it is taken away).
  def check_in_chromium(path, *args, expected_errors: nil)
    need_chromium
    check_in_browser(path, *args, expected_errors: expected_errors)
  end

  # Before a test's own slow work, where it is only for the browser.
  def need_chromium
    skip "chromium is not installed (apt-get install chromium)" unless File.executable?(CHROMIUM)
  end

  def check_in_firefox(path, *args)
    skip "firefox-esr is not installed (apt-get install firefox-esr)" unless File.executable?(FIREFOX)
    check_in_browser(path, "--browser", "firefox", *args, shared: false)
  end

  # The heaviest paths as the report's summary (html/summary.js) follows
  # them in profile (a view for a thread or waiting chosen): from each of
  # the 3 heaviest roots (after the first, those holding 5% or more), the
  # heaviest child while it holds more than half of the root's time;
  # [[names], [shares of all the roots' time]] each.
  def heaviest_paths(profile)
    nodes = profile.call_tree.nodes
    children = nodes.each_with_object({}.compare_by_identity) { |n, h| (h[n.parent || :root] ||= []) << n }
    heaviest = ->(parent) { (children[parent] || []).select { |n| n.total_time.positive? }.each_with_index.sort_by { |n, i| [-n.total_time, i] }.map(&:first) }
    roots = heaviest.call(:root)
    whole = roots.sum(&:total_time)
    roots = roots.first(3).each_with_index.take_while { |r, i| i.zero? || r.total_time >= 0.05 * whole }.map(&:first)
    roots.map do |root|
      steps = [root]
      while (child = heaviest.call(steps.last).first) && child.total_time > 0.5 * root.total_time
        steps << child
      end
      [steps.map { |n| n.method.name }, steps.map { |n| format("%.2f%%", 100.0 * n.total_time / whole) }]
    end
  end

  # shared: in the process's Chromium (false: a browser of its own).
  def check_in_browser(path, *args, expected_errors: nil, checker: CHECKER, shared: true)
    require_npm_package!("puppeteer-core", "puppeteer-core")
    env = shared ? {"TRACEGRAPH_CHROMIUM" => BrowserHelper.shared_chromium} : {}
    out, err, status = capture_node(checker, path, *args, env: env)
    assert status.success?, "the report could not be checked in the browser: #{err}"
    result = JSON.parse(out)
    errors = expected_errors ? result["errors"].grep_v(expected_errors) : result["errors"]
    assert_empty errors, "no page errors, no policy violations"
    assert_empty result["requests"], "no request leaves the file"
    assert_empty result["dialogs"], "no script of the profile's ran"
    result
  end
end
