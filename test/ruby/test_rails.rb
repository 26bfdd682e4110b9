require_relative "test_helper"
require "json"
require "open3"
require "rbconfig"
require "set"
require "tmpdir"
require_relative "browser_helper"

# Tracegraph::Railtie with real Rails (Debian's ruby-rails and
# ruby-sqlite3: Rails 6.1 on the host's Ruby 3.1, 7.2 in the chroots of
# rake test:rubies): test/fixtures/rails_app/app.rb, one model, one controller,
# an ERB view with a partial and a layout. Each test boots the app in a
# process of its own, in the app's directory, as `rails server` would,
# and calls it through Rack::MockRequest.
class TestRails < Minitest::Test
  include BrowserHelper
  LIB = File.expand_path("../../lib", __dir__)
  APP_DIR = File.expand_path("../fixtures/rails_app", __dir__)
  EXE = File.expand_path("../../exe/tracegraph", __dir__)

  # Why `require "rails"; require "sqlite3"` (or another feature) fails
  # in a Ruby of its own, or nil if it loads.
  def self.missing(features = %w[rails sqlite3])
    @missing ||= {}
    return @missing[features] if @missing.key?(features)

    _, err, status = Open3.capture3(RbConfig.ruby, "-e", features.map { |f| "require #{f.dump}" }.join("; "))
    @missing[features] = status.success? ? nil : err[/cannot load such file -- \S+/] || err.lines.first.to_s.strip
  end

  def setup
    skip "Rails or sqlite3 is not installed (apt-get install ruby-rails ruby-sqlite3): #{self.class.missing}" if self.class.missing
    @dir = Dir.mktmpdir("tracegraph-rails")
  end

  def teardown
    FileUtils.rm_rf([@dir, "#{@dir}.log"]) if @dir
  end

  # Boots the app in RAILS_ENV rails_env, runs code (with `app`, a
  # Rack::MockRequest on it, and `out`, a Hash printed as JSON at the
  # end), and returns `out`. formats: config.tracegraph.formats, by
  # default none but the JSON (the HTML report lays out its graph with
  # Graphviz, half a second a request); nil for the Railtie's default.
  def boot(code, rails_env: "development", env: {}, formats: [])
    env = env.merge("TRACEGRAPH_RAILS_FORMATS" => formats.join(",")) if formats
    script = <<~RUBY
      require "json"
      require #{File.join(APP_DIR, 'app').dump}
      app = Rack::MockRequest.new(Rails.application)
      out = {}
      #{code}
      puts JSON.generate(out)
    RUBY
    env = {"RAILS_ENV" => rails_env, "TRACEGRAPH_RAILS_DIR" => @dir, "TRACEGRAPH_TOKEN" => nil}.merge(env)
    stdout, stderr, status = Open3.capture3(env,
                                            RbConfig.ruby, "-I", LIB, "-e", script, chdir: APP_DIR)
    assert status.success?, "the app failed:\n#{stderr}"
    JSON.parse(stdout.lines.last)
  end

  # What differs between two processes running the same code: when the
  # garbage collector runs, and the collisions in Hash lookups (Ruby seeds
  # String#hash anew in every process, and a collision calls the key's
  # eql?, String#eql? or, where a class aliases it, its ==).
  PROCESS_NOISE = /\A\(garbage collection|#(?:eql\?|==)\z/
  # (The gate leaves the GC nodes out of its call counts by itself.)
  GATE_IGNORES = ["--exempt", "*#eql?", "--exempt", "*#=="].freeze

  def files = Dir[File.join(@dir, "*")].sort

  def names(path) = Tracegraph::Profile.load_json(path).methods.map(&:name)

  # The names a boot decides by itself: not PROCESS_NOISE, and not what is
  # called only from under it (a collision's Gem::Specification#eql? calls
  # same_attributes? and authors in one boot and not in the next).
  def steady_names(path)
    profile = Tracegraph::Profile.load_json(path)
    noise = profile.reached_only_through { |m| m.name.match?(PROCESS_NOISE) }
    profile.methods.reject { |m| noise[m] }.map(&:name)
  end

  # By default, the HTML report, named in the header, and its JSON beside it.
  def test_an_opted_in_request_writes_its_report_with_the_controller_the_templates_and_the_queries
    out = boot(<<~RUBY, formats: nil, env: {"TRACEGRAPH_RAILS_LOG" => "#{@dir}.log"})
      response = app.get("/posts?tracegraph=1")
      out["status"] = response.status
      out["report"] = response.headers["x-tracegraph-report"]
      out["body"] = response.body
    RUBY
    assert_equal 200, out["status"]
    assert_includes out["body"], %(<li id="post-3">Post 3 (2 comments)</li>)
    # Named by the time and the request: verb, path, status, controller
    # and action, and the app's time.
    assert_match %r{\A#{Regexp.escape(@dir)}/\d{8}-\d{6}\.\d{3}-GET-posts-200-PostsController-index-\d+ms\.html\z},
                 out["report"]
    json = out["report"].sub(/html\z/, "json")
    assert_equal [out["report"], json], files
    # And titled so: the page's title, the JSON's title, the DOT legend.
    title = Tracegraph::Profile.load_json(json).title
    assert_match(/\AGET \/posts 200 \u00b7 PostsController#index \u00b7 [\d.]+ ms\z/, title)
    # (the name's whole milliseconds, rounded from the time the title
    # rounds to 3 digits)
    assert_in_delta title[/([\d.]+) ms\z/, 1].to_f, out["report"][/-(\d+)ms\.html\z/, 1].to_i, 0.51
    assert_includes File.read(out["report"]), "<title>tracegraph: #{title}</title>"
    assert_includes Tracegraph::Profile.load_json(json).to_dot, "tracegraph: #{title}"
    # The log line: the title, and both files from the directory the
    # server runs in, alike.
    log = File.read("#{@dir}.log").lines.grep(/tracegraph:/)
    assert_equal ["tracegraph: profiled #{title}: #{json} #{out['report']}"], log.map { |line| line.chomp.sub(/\A.* -- : /, "") }
    # The report's data, as its script reads it: the partial by its path,
    # called once per post, and the graph laid out where Graphviz is.
    data = JSON.parse(File.read(out["report"])[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
    calls = data["methods"].to_h { |m| [m[0], m[3]] }
    assert_equal [1, 5], calls.values_at("PostsController#index", "app/views/posts/_post.html.erb")
    assert_match(/\A<\?xml.*<svg/m, data["svg"]) if ENV["PATH"].split(":").any? { |d| File.executable?("#{d}/dot") }
    # The call tree, recorded by default, is the report's flame graph.
    assert_operator data["flame"]["nodes"], :>, 100
    refute_nil Tracegraph::Profile.load_json(json).call_tree
    found = names(json)
    %w[PostsController#index SQLite3::Statement#step app/views/posts/index.html.erb app/views/posts/_post.html.erb
       app/views/layouts/application.html.erb].each { |name| assert_includes found, name }
    assert_empty found.grep(/_html_erb_/), "no template keeps Rails' method name"
    profile = Tracegraph::Profile.load_json(json)
    # Five posts, one partial render each (render @posts renders a
    # collection: one call per post).
    assert_equal 5, profile.methods.find { |m| m.name == "app/views/posts/_post.html.erb" }.calls
    # At its first line (Rails defines the method on line 0), and in the
    # graph, the path once: the box's name.
    partial = profile["app/views/posts/_post.html.erb"]
    assert_equal [File.join(APP_DIR, "app/views/posts/_post.html.erb"), 1], [partial.file, partial.line]
    box = profile.to_dot(node_fraction: 0, edge_fraction: 0, max_nodes: 0)[/^  N\d+ \[label="app\/views\/posts\/\\n_post\.html\.erb\\n[^"]*"/]
    refute_nil box
    assert_equal 1, box.scan("_post.html.erb").size, box
  end

  POSTS_QUERY = %((sql) SELECT "posts".* FROM "posts" ORDER BY "posts"."id" ASC)
  COUNT_QUERY = %((sql) SELECT COUNT(*) FROM "comments" WHERE "comments"."post_id" = ?)
  PARTIAL = "app/views/posts/_post.html.erb"

  # The N+1 of the index: one query for the posts, under the controller's
  # action, then one count a post, under the partial, as boxes with exact
  # counts in the JSON, the DOT (as Graphviz draws it) and the HTML report
  # (as chromium shows it). The schema's queries have no box.
  def test_the_queries_are_boxes_under_the_code_that_ran_them
    out = boot(<<~RUBY, formats: %w[html dot], env: {"TRACEGRAPH_RAILS_POSTS" => "7"})
      app.get("/posts") # (loads the schema: its queries are not the request's)
      report = app.get("/posts?tracegraph=1").headers["x-tracegraph-report"]
      out["report"] = report
    RUBY
    base = out["report"].delete_suffix(".html")
    profile = Tracegraph::Profile.load_json("#{base}.json")
    posts, count = profile[POSTS_QUERY], profile[COUNT_QUERY]
    assert_equal [1, 7], [posts.calls, count.calls]
    assert_equal [0, 0], [posts.self_time, count.self_time]
    assert_equal 1, profile.edge("PostsController#index", POSTS_QUERY).calls
    assert_equal 7, profile.edge(PARTIAL, COUNT_QUERY).calls
    assert_equal count.total_time, profile.edge(PARTIAL, COUNT_QUERY).total_time
    assert_operator count.total_time, :<, profile[PARTIAL].total_time
    sql = profile.methods.map(&:name).grep(/\A\(sql\)/)
    assert_equal [COUNT_QUERY, POSTS_QUERY].sort, sql.sort, "no other query ran, none twice"
    assert_equal profile.methods.sum(&:self_time), profile.total_time

    # The Railtie's DOT keeps the 80 heaviest boxes: on a loaded machine a
    # preempted millisecond in some method can push the 1-call posts query
    # out of them (the count query, 7 calls under the partial, stays). With
    # every box, drawn from the same profile, both are there.
    dot = File.read("#{base}.dot")
    assert_includes dot, %(tooltip="#{COUNT_QUERY.gsub('"', '\\"')}\\n)
    assert_match(/label=" ×7 \\n [^"]*", tooltip="#{Regexp.escape(PARTIAL)} → #{Regexp.escape(COUNT_QUERY.gsub('"', '\\"'))}/, dot)
    every_box = profile.to_dot(node_fraction: 0, max_nodes: 0)
    [posts, count].each { |query| assert_includes every_box, %(tooltip="#{query.name.gsub('"', '\\"')}\\n) }
    if ENV["PATH"].split(":").any? { |d| File.executable?("#{d}/dot") }
      svg, status = Open3.capture2("dot", "-Tsvg", "#{base}.dot")
      assert status.success?
      assert_includes svg, "(sql) SELECT COUNT(*) FROM"
    end

    result = check_in_chromium(out["report"], "--method", COUNT_QUERY, "--flame", "-")
    # The Railtie records the call tree: the report has its flame graph.
    assert_nil result["flame"]["shown"]["noFlame"]
    assert_includes result["flame"]["hover"]["name"], "#"
    page = result["method"]
    assert_equal COUNT_QUERY, page["name"]
    assert_match(/\A7\b/, page["calls"])
    assert_equal [PARTIAL], page["callers"].map(&:first)
  end

  # A request that asks while the profiler runs already (started outside
  # the middleware) is not profiled: its SQL subscriber, started just
  # before, goes too, and takes nothing of the requests after it; the
  # next profiled request has its queries as ever.
  def test_a_request_that_could_not_be_profiled_leaves_no_sql_subscriber
    out = boot(<<~RUBY)
      Tracegraph.start
      out["skipped"] = app.get("/posts?tracegraph=1").headers["x-tracegraph"]
      Tracegraph.stop
      app.get("/posts")
      out["left"] = [Tracegraph.instance_variable_get(:@sql_thread), Tracegraph.instance_variable_get(:@sql_queries)]
      out["report"] = app.get("/posts?tracegraph=1").headers["x-tracegraph-report"]
    RUBY
    assert_match(/\Askipped, the profiler is already running/, out["skipped"])
    assert_equal [nil, nil], out["left"]
    assert_equal 5, Tracegraph::Profile.load_json(out["report"]).edge(PARTIAL, COUNT_QUERY).calls
  end

  def test_plain_requests_and_assets_write_nothing
    out = boot(<<~RUBY)
      out["statuses"] = [app.get("/posts").status, app.get("/posts/2").status,
                         app.get("/assets/app.css?tracegraph=1").status]
      out["header"] = app.get("/posts").headers["x-tracegraph-report"]
    RUBY
    assert_equal [200, 200, 404], out["statuses"]
    assert_nil out["header"]
    assert_empty files
  end

  def test_the_header_opts_in_and_the_parameter_asks_for_allocations
    out = boot(<<~RUBY)
      out["header"] = app.get("/posts/2", "HTTP_X_TRACEGRAPH" => "1").headers["x-tracegraph-report"]
      out["allocations"] = app.get("/posts/3?tracegraph=allocations").headers["x-tracegraph-report"]
      out["nope"] = app.get("/nope?tracegraph=1").headers["x-tracegraph-report"]
    RUBY
    assert_match %r{/\d{8}-\d{6}\.\d{3}-GET-posts-2-200-PostsController-show-\d+ms\.json\z}, out["header"]
    assert_match %r{/\d{8}-\d{6}\.\d{3}-GET-posts-3-200-PostsController-show-\d+ms\.json\z}, out["allocations"]
    refute_equal out["header"], out["allocations"]
    refute Tracegraph::Profile.load_json(out["header"]).allocations?
    assert Tracegraph::Profile.load_json(out["allocations"]).allocations?
    # No route: the title has the status Rails answered, and no controller.
    assert_match(/\AGET \/nope 404 \u00b7 [\d.]+ ms\z/, Tracegraph::Profile.load_json(out["nope"]).title)
    assert_match %r{/\d{8}-\d{6}\.\d{3}-GET-nope-404-\d+ms\.json\z}, out["nope"]
  end

  # The files are written after the response: under a server with
  # rack.after_reply (puma), when the server runs those hooks. Until
  # then the JSON's name is claimed (an empty file) and the report is not
  # there.
  # ... and by the process's one writer thread, not the connection's:
  # the hook only queues the writing. The queue is drained at exit, so a
  # profile queued just before a clean exit is written all the same.
  def test_the_files_are_written_after_the_reply
    out = boot(<<~RUBY, formats: nil)
      after_reply = []
      response = app.get("/posts?tracegraph=1", "rack.after_reply" => after_reply)
      report = response.headers["x-tracegraph-report"]
      json = report.delete_suffix("html") + "json"
      out["before"] = [File.exist?(report), File.size(json)]
      out["hooks"] = after_reply.size
      after_reply.each(&:call)
      out["queued"] = [Tracegraph::BackgroundWriter.shared.pending, File.exist?(report)]
      Tracegraph::BackgroundWriter.shared.flush
      out["after"] = [File.size(report), File.size(json)]
      out["writer"] = Thread.list.map(&:name).include?("tracegraph writer")
      response = app.get("/posts/2?tracegraph=1", "rack.after_reply" => after_reply.clear)
      after_reply.each(&:call)
      out["last"] = response.headers["x-tracegraph-report"] # written at exit
    RUBY
    assert_equal [[false, 0], 1], [out["before"], out["hooks"]]
    assert_equal [1, false], out["queued"]
    assert_operator out["after"][0], :>, 10_000
    assert_operator out["after"][1], :>, 10_000
    assert out["writer"]
    assert_operator File.size(out["last"]), :>, 10_000
    assert_equal 1, Tracegraph::Profile.load_json(out["last"].sub(/html\z/, "json"))["PostsController#show"].calls
  end

  # With the writer's queue full, a profile is dropped at once, with one
  # log line, and its claimed name freed: the request does not wait.
  def test_a_full_queue_drops_the_profile_with_a_log_line
    out = boot(<<~RUBY, env: {"TRACEGRAPH_RAILS_LOG" => "#{@dir}.log"})
      writer = Tracegraph::BackgroundWriter.shared
      gate = Queue.new
      running = Queue.new
      out["filled"] = [writer.push(-> { running << 1; gate.pop })]
      running.pop # the one being written; then a full queue
      out["filled"] += Array.new(writer.capacity) { writer.push(-> { gate.pop }) }
      after_reply = []
      response = app.get("/posts?tracegraph=1", "rack.after_reply" => after_reply)
      out["report"] = response.headers["x-tracegraph-report"]
      after_reply.each(&:call)
      out["left"] = Dir.children(Rails.application.config.tracegraph.directory)
      (writer.capacity + 1).times { gate << 1 }
      writer.flush
    RUBY
    assert_equal [true] * 5, out["filled"]
    refute_nil out["report"]
    assert_empty out["left"]
    log = File.read("#{@dir}.log").lines.grep(/tracegraph:/).map { |line| line.chomp.sub(/\A.* -- : /, "") }
    assert_equal 1, log.size
    # The request's time as Tracegraph.human_time writes it: "1.02 s" when
    # a loaded machine (or the public-API path) makes it take a second.
    assert_match(/\Atracegraph: dropped the profile of GET \/posts 200 \u00b7 PostsController#index \u00b7 [\d.]+ (?:ms|s): 4 profiles are waiting to be written already\z/, log[0])
    assert_empty files
  end

  # A profiled request (c_calls on, the default) leaves Ruby's inlined
  # operators inline in the worker: a profile recorded after it sees no
  # Integer#+ calls in a loop of additions, as it would if the request's
  # hook had made Ruby rewrite them into calls, which c_calls: :all does
  # while it records (the profile "during_all", which shows the check can
  # fail). After that profile too, they are inline again: its stop puts
  # the instructions back (binding/iseq_untrace.c).
  def test_a_profiled_request_leaves_the_operators_inline
    out = boot(<<~RUBY)
      def additions = (i = 0; s = 0; (s += i; i += 1) while i < 1000; s)
      plus = -> { Tracegraph.profile { additions }["Integer#+"]&.calls.to_i }
      out["before"] = plus.()
      out["status"] = app.get("/posts?tracegraph=1").status
      Tracegraph::BackgroundWriter.shared.flush
      out["after"] = plus.()
      out["during_all"] = Tracegraph.profile(c_calls: :all) { additions }["Integer#+"]&.calls.to_i
      out["after_all"] = plus.()
    RUBY
    assert_equal [0, 200, 0, 2000, 0], out.values_at("before", "status", "after", "during_all", "after_all")
  end

  # 25 profiled requests leave the newest 20 requests' files (the
  # default keep); bin/rails tmp:clear, with the directory under tmp/,
  # removes them and leaves what tracegraph did not write.
  def test_files_do_not_pile_up_and_tmp_clear_removes_them
    out = boot(<<~RUBY)
      # (each written before the next, so that none is dropped on a busy machine)
      out["reports"] = Array.new(25) do |i|
        app.get("/posts/\#{i % 5 + 1}?tracegraph=1").headers["x-tracegraph-report"]
           .tap { Tracegraph::BackgroundWriter.shared.flush }
      end
      out["left"] = Dir.children(Rails.application.config.tracegraph.directory).sort
    RUBY
    assert_equal 25, out["reports"].uniq.size
    assert_equal out["reports"].last(20).map { |path| File.basename(path) }.sort, out["left"]

    dir = File.join(APP_DIR, "tmp", "tracegraph-test-#{Process.pid}")
    out = boot(<<~RUBY, env: {"TRACEGRAPH_RAILS_DIR" => "tmp/#{File.basename(dir)}"})
      File.write(File.join(#{dir.dump}, "notes.txt"), "mine")
      3.times { app.get("/posts?tracegraph=1") }
      Tracegraph::BackgroundWriter.shared.flush
      out["before"] = Dir.children(#{dir.dump}).size
      require "rake"
      Rails.application.load_tasks
      out["prerequisites"] = Rake::Task["tmp:clear"].prerequisites
      Rake::Task["tmp:clear"].invoke
      out["after"] = Dir.children(#{dir.dump})
    RUBY
    assert_equal 4, out["before"]
    assert_includes out["prerequisites"], "tmp:tracegraph:clear"
    assert_equal ["notes.txt"], out["after"]
  ensure
    if dir
      FileUtils.rm_rf(dir)
      FileUtils.rmdir(File.dirname(dir)) if Dir.empty?(File.dirname(dir)) # tmp/, made for it
    end
  end

  # Two boots compile the templates into methods with other numbers; the
  # profiles name everything alike, and the gate between them is quiet,
  # but for what the process decides (PROCESS_NOISE, and what a
  # collision's eql? or == calls, which the gate exempts with them).
  def test_two_boots_give_the_same_names_and_a_quiet_gate
    2.times { boot(%(app.get("/posts?tracegraph=1"))) }
    a, b = files
    refute_nil b
    a_names, b_names = [a, b].map { |path| steady_names(path) }
    assert_equal [[], []], [a_names - b_names, b_names - a_names]
    # (diff without -o writes no file: a directory of its own shows it)
    Dir.mktmpdir("tracegraph-rails-diff") do |cwd|
      _, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, EXE, "diff", a, b, "--fail-on-calls", "0", *GATE_IGNORES,
                                      chdir: cwd)
      assert status.success?, err
    end
  end

  def test_production_profiles_only_what_permit_allows
    code = <<~RUBY
      out["denied"] = app.get("/posts?tracegraph=1", "REMOTE_ADDR" => "10.0.0.9").headers["x-tracegraph-report"]
      out["allowed"] = app.get("/posts?tracegraph=1", "REMOTE_ADDR" => "10.0.0.1").headers["x-tracegraph-report"]
      out["first"] = Rails.application.middleware.first.inspect
    RUBY
    out = boot(code, rails_env: "production", env: {"TRACEGRAPH_RAILS_PERMIT" => "10.0.0.1"})
    assert_nil out["denied"]
    assert_equal files, [out["allowed"]]

    # Without permit or a token, production has no middleware at all.
    out = boot(code, rails_env: "production")
    assert_equal [nil, nil], [out["denied"], out["allowed"]]
    refute_equal "Tracegraph::RailsMiddleware", out["first"]
  end

  # The guide's setting, config.tracegraph.token = ENV["TRACEGRAPH_TOKEN"]
  # (the app's): in production, only the request that sends the token in
  # X-Tracegraph-Token is profiled; with the variable unset or empty,
  # none is, whatever it sends.
  def test_production_profiles_only_the_request_with_the_token
    code = <<~RUBY
      asks = {"none" => {}, "empty" => {"HTTP_X_TRACEGRAPH_TOKEN" => ""},
              "wrong" => {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cre7"}, "longer" => {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cret!"},
              "right" => {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cret"}}
      asks.each do |name, headers|
        response = app.get("/posts?tracegraph=1", headers)
        out[name] = [response.status, response.headers["x-tracegraph-report"]]
      end
      out["first"] = Rails.application.middleware.first.inspect
    RUBY
    out = boot(code, rails_env: "production", env: {"TRACEGRAPH_TOKEN" => "s3cret"})
    assert_equal "Tracegraph::RailsMiddleware", out["first"]
    assert_equal [[200, nil]] * 4, out.values_at("none", "empty", "wrong", "longer")
    assert_equal 200, out["right"][0]
    assert_match %r{\A#{Regexp.escape(@dir)}/.*\.json\z}, out["right"][1]
    assert_equal [out["right"][1]], files

    FileUtils.rm_rf(Dir[File.join(@dir, "*")])
    [nil, ""].each do |token|
      out = boot(code, rails_env: "production", env: {"TRACEGRAPH_TOKEN" => token})
      assert_equal [[200, nil]] * 5, out.values_at("none", "empty", "wrong", "longer", "right"), "token #{token.inspect}"
    end
    # Turned on, with no token: installed, and still no one gets in.
    out = boot(code, rails_env: "production", env: {"TRACEGRAPH_TOKEN" => "", "TRACEGRAPH_RAILS_ENABLED" => "1"})
    assert_equal "Tracegraph::RailsMiddleware", out["first"]
    assert_equal [[200, nil]] * 5, out.values_at("none", "empty", "wrong", "longer", "right")
    assert_empty files
  end

  # In development, no token: any request that asks; a token set: only
  # the requests that send it.
  def test_development_asks_for_the_token_once_one_is_set
    code = <<~RUBY
      out["none"] = app.get("/posts?tracegraph=1").headers["x-tracegraph-report"]
      out["right"] = app.get("/posts?tracegraph=1", "HTTP_X_TRACEGRAPH_TOKEN" => "s3cret").headers["x-tracegraph-report"]
    RUBY
    out = boot(code)
    refute_nil out["none"]
    refute_nil out["right"]
    FileUtils.rm_rf(Dir[File.join(@dir, "*")])
    out = boot(code, env: {"TRACEGRAPH_TOKEN" => "s3cret"})
    assert_nil out["none"]
    assert_equal [out["right"]], files
  end

  # The Railtie hands the middleware each recording option it takes
  # (RecordingOptions' rows with railtie: true), from its settings.
  def test_development_puts_the_middleware_first_and_test_leaves_it_out
    code = %(out["first"] = Rails.application.middleware.first.inspect
             given = Rails.application.middleware.first.args.last
             out["recording"] = given.is_a?(Hash) ? given.keys.map(&:to_s) : []
             out["report"] = app.get("/posts?tracegraph=1").headers["x-tracegraph-report"])
    out = boot(code)
    assert_equal "Tracegraph::RailsMiddleware", out["first"]
    Tracegraph::RecordingOptions.railtie_names.each { |name| assert_includes out["recording"], name.to_s }
    FileUtils.rm_rf(Dir[File.join(@dir, "*")])
    out = boot(code, rails_env: "test")
    assert_equal [false, nil], [out["first"] == "Tracegraph::RailsMiddleware", out["report"]]
    assert_empty files
    assert_equal "Tracegraph::RailsMiddleware", boot(code, rails_env: "test", env: {"TRACEGRAPH_RAILS_ENABLED" => "1"})["first"]
  end

  # Under puma with four threads: plain requests for /posts/N run beside
  # the profiled /posts, and the profile holds the profiled request's
  # thread only; the file is written after puma has answered
  # (rack.after_reply).
  def test_under_puma_the_profile_holds_its_own_request_only
    # (Debian builds puma's extension for the suite's default Ruby only.)
    skip "puma does not load here (apt-get install puma): #{self.class.missing(%w[puma])}" if self.class.missing(%w[puma])
    out = boot(<<~RUBY)
      require "puma"
      require "puma/server"
      require "net/http"
      server = if defined?(Puma::LogWriter) # puma 6
                 Puma::Server.new(Rails.application, Puma::Events.new, log_writer: Puma::LogWriter.strings,
                                                                       min_threads: 4, max_threads: 4)
               else
                 Puma::Server.new(Rails.application, Puma::Events.strings, min_threads: 4, max_threads: 4)
               end
      server.add_tcp_listener("127.0.0.1", 0)
      port = server.connected_ports.first
      server.run
      get = ->(path) { Net::HTTP.start("127.0.0.1", port) { |http| http.get(path) } }
      done = false
      plain = Array.new(3) { |i| Thread.new { n = 0; (get.("/posts/\#{i + 1}"); n += 1) until done && n > 2; n } }
      sleep 0.05
      profiled = get.("/posts?tracegraph=1")
      done = true
      out["plain"] = plain.sum(&:value)
      out["status"] = profiled.code
      out["report"] = profiled["x-tracegraph-report"]
      sleep 0.01 until File.size(out["report"]).positive? || (out["waited"] = (out["waited"] || 0) + 1) > 1000
      server.stop(true)
    RUBY
    assert_equal "200", out["status"]
    assert_operator out["plain"], :>=, 9
    assert_equal [out["report"]], files
    profile = Tracegraph::Profile.load_json(out["report"])
    assert_equal 1, profile.threads.size
    assert_equal 1, profile["PostsController#index"].calls
    assert_nil profile["PostsController#show"], "a plain request's work is not in the profile"
    assert_empty profile.methods.map(&:name).grep(/\APuma|Net::HTTP|TCPServer/)
  end

  # `tracegraph bin/rails runner 'nil'`, with the app's file for bin/rails:
  # the command loads tracegraph before Rails too, and the Railtie is
  # installed all the same, its watch over once the app's class opened.
  def test_the_command_profiles_the_boot_with_the_railtie
    Dir.mktmpdir("tracegraph-rails-command") do |dir|
      runner = File.join(dir, "runner.rb")
      File.write(runner, <<~RUBY)
        require #{File.join(APP_DIR, 'app').dump}
        p [Rails.application.config.tracegraph.directory, Tracegraph.watching_for_rails_app?]
      RUBY
      out, err, status = Open3.capture3({"TRACEGRAPH_RAILS_DIR" => @dir}, RbConfig.ruby, "-I", LIB, EXE,
                                        "-o", File.join(dir, "boot.json"), runner, chdir: APP_DIR)
      assert status.success?, err
      assert_equal [@dir, false].inspect, out.lines.last.chomp
      found = names(File.join(dir, "boot.json"))
      %w[Rails::Application#initialize! Tracegraph::Railtie.enabled?].each do |name|
        assert found.include?(name), "#{name} is in the boot's profile"
      end
    end
  end

  # Comparing boots as docs/rails.md says: `tracegraph --runs 5` on each
  # side, then the gate on calls. Two unchanged boots of the test app (a
  # script that requires it, as `bin/rails runner nil` loads an app) pass:
  # the counts that differ between processes (hash collisions, the
  # collector) are compared within their variation between runs, where
  # single runs fail on them.
  def test_two_unchanged_boots_compared_with_runs_pass_the_gate
    Dir.mktmpdir("tracegraph-rails-boots") do |dir|
      runner = File.join(dir, "runner.rb")
      File.write(runner, "require #{File.join(APP_DIR, 'app').dump}\n")
      %w[base head].each do |side|
        _, err, status = Open3.capture3({"TRACEGRAPH_RAILS_DIR" => @dir}, RbConfig.ruby, "-I", LIB, EXE, "--runs", "5",
                                        "-o", File.join(dir, "#{side}.json"), runner, chdir: APP_DIR)
        assert status.success?, err
      end
      _, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, EXE, "diff", "--fail-on-calls", "0", "base.json",
                                      "head.json", chdir: dir)
      assert status.success?, err
      assert_match(/ 0 failed \(5 and 5 runs\)/, err)
      assert_empty err.lines.grep(/FAILED/)
    end
  end

  # The boot profiled as the guide says (RUBYOPT=-rtracegraph/autorun):
  # tracegraph is loaded before Rails, yet config.tracegraph works (the
  # app sets it), and two boots give the same names, every one of them.
  def test_two_profiled_boots_give_the_same_names
    paths = %w[boot1 boot2].map do |name|
      path = File.join(Dir.tmpdir, "#{name}-#{Process.pid}-#{object_id}.json")
      out = boot(%(out["status"] = app.get("/posts").status
                   out["watching"] = [Tracegraph.running?, Tracegraph.watching_for_rails_app?]),
                 env: {"RUBYOPT" => "-I#{LIB} -rtracegraph/autorun", "TRACEGRAPH_OUTPUT" => path})
      assert_equal 200, out["status"]
      # The watch that installed the Railtie ended when the app's class
      # opened, while the profile goes on.
      assert_equal [true, false], out["watching"]
      path
    end
    a, b = paths.map { |path| steady_names(path) }
    assert_operator a.size, :>, 3000
    assert_equal [[], []], [a - b, b - a]
    assert_includes a, "Tracegraph::Railtie.enabled?"
    assert_includes a, "app/views/posts/_post.html.erb"
    assert_empty a.grep(/_html_erb_|0x\h{6,}/)
  ensure
    paths&.each { |path| FileUtils.rm_f(path) }
  end
end
