require_relative "test_helper"
require_relative "rack_helper"

# Tracegraph::Rack with plain Rack envs: which requests it profiles, the
# files it writes, and what happens when it cannot profile or write.
class TestRack < TracegraphTest
  def setup
    @dir = Dir.mktmpdir("tracegraph-rack")
    @log = StringIO.new
  end

  def teardown
    super
    FileUtils.rm_rf(@dir)
  end

  def middleware(app = RackTestApp, **options)
    Tracegraph::Rack.new(app, dir: @dir, logger: Logger.new(@log), **options)
  end

  def env_for(path, method: "GET", query: "", headers: {})
    {"REQUEST_METHOD" => method, "PATH_INFO" => path, "QUERY_STRING" => query}.merge(headers)
  end

  # The X-Tracegraph header of each request, nil where there is none.
  def headers_of(mw, paths, **env_options)
    paths.map { |path| mw.call(env_for(path, **env_options))[1]["x-tracegraph"] }
  end

  def json_files = Dir[File.join(@dir, "*.json")].sort

  def test_every_nth_request
    mw = middleware(every: 3)
    headers = headers_of(mw, Array.new(9) { "/work/1" })
    assert_equal [false, false, true] * 3, headers.map { |h| h.to_s.start_with?("profiled") }
    assert_equal 3, json_files.size
  end

  def test_every_request_by_default
    headers = headers_of(middleware, %w[/a /b])
    assert headers.all? { |h| h.start_with?("profiled, wrote ") }, headers.inspect
  end

  def test_path_pattern_and_prefix
    mw = middleware(path: %r{\A/api})
    assert_equal [true, false, true], headers_of(mw, %w[/api/users /home /api]).map { |h| !h.nil? }
    mw = middleware(path: "/admin")
    assert_equal [true, false], headers_of(mw, %w[/admin/x /public/admin]).map { |h| !h.nil? }
  end

  def test_every_counts_only_the_requests_whose_path_matches
    mw = middleware(path: %r{\A/api}, every: 2)
    profiled = headers_of(mw, %w[/api/1 /home /home /api/2 /api/3 /home /api/4]).map { |h| !h.nil? }
    assert_equal [false, false, false, true, false, false, true], profiled
  end

  def test_opt_in_is_off_by_default
    mw = middleware(every: 1000)
    assert_nil mw.call(env_for("/x", query: "tracegraph=1"))[1]["x-tracegraph"]
    assert_nil mw.call(env_for("/x", headers: {"HTTP_X_TRACEGRAPH" => "1"}))[1]["x-tracegraph"]
    assert_empty json_files
  end

  def test_opt_in_by_query_parameter_or_header
    mw = middleware(opt_in: true)
    profiled = [
      env_for("/x"),
      env_for("/x", query: "tracegraph=1"),
      env_for("/x", query: "a=2&tracegraph=true"),
      env_for("/x", query: "tracegraph=0"),
      env_for("/x", query: "nottracegraph=1"),
      env_for("/x", headers: {"HTTP_X_TRACEGRAPH" => "1"}),
      env_for("/x", headers: {"HTTP_X_TRACEGRAPH" => "0"})
    ].map { |env| !mw.call(env)[1]["x-tracegraph"].nil? }
    assert_equal [false, true, true, false, false, true, false], profiled
  end

  # token: a request that opts in must also send it in X-Tracegraph-Token;
  # a nil or empty token lets none opt in. Sampling (every:) is not asked
  # for by the client, so the token does not apply to it.
  def test_a_token_lets_in_only_the_requests_that_send_it
    asks = [{}, {"HTTP_X_TRACEGRAPH_TOKEN" => ""}, {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cre7"},
            {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cret!"}, {"HTTP_X_TRACEGRAPH_TOKEN" => "s3cret"}]
    profiled = lambda do |mw|
      asks.map { |headers| !mw.call(env_for("/x", query: "tracegraph=1", headers: headers))[1]["x-tracegraph"].nil? }
    end
    assert_equal [false, false, false, false, true], profiled.call(middleware(opt_in: true, token: "s3cret"))
    assert_equal [false] * 5, profiled.call(middleware(opt_in: true, token: nil))
    assert_equal [false] * 5, profiled.call(middleware(opt_in: true, token: ""))
    assert_equal [true] * 5, profiled.call(middleware(opt_in: true))
    assert_equal 6, json_files.size
    mw = middleware(opt_in: true, token: "s3cret", path: "/api")
    assert_equal [true, false], [env_for("/api/a"), env_for("/x", query: "tracegraph=1")].map { |env| !mw.call(env)[1]["x-tracegraph"].nil? }
    error = assert_raises(ArgumentError) { middleware(opt_in: true, token: 42) }
    assert_equal "token must be a String or nil, not Integer", error.message
  end

  def test_opt_in_with_a_path_also_profiles_every_matching_request
    mw = middleware(opt_in: true, path: "/api")
    envs = [env_for("/api/a"), env_for("/home"), env_for("/home", query: "tracegraph=1")]
    assert_equal [true, false, true], envs.map { |env| !mw.call(env)[1]["x-tracegraph"].nil? }
  end

  def test_opt_in_with_every_profiles_both
    mw = middleware(opt_in: true, every: 2)
    envs = [env_for("/a"), env_for("/a", query: "tracegraph=1"), env_for("/a")]
    assert_equal [false, true, true], envs.map { |env| !mw.call(env)[1]["x-tracegraph"].nil? }
  end

  def test_the_request_json_holds_that_request_and_nothing_of_ours
    status, headers, body = middleware.call(env_for("/work/7", method: "POST"))
    assert_equal [200, ["ok /work/7"]], [status, body]
    files = RackTestApp.files_in_header(headers["x-tracegraph"], @dir)
    json, dot = files
    assert_match(%r{\A#{Regexp.escape(@dir)}/\d{8}-\d{6}\.\d{3}-POST-work-7\.json\z}, json)
    assert_equal json.sub(/json\z/, "dot"), dot
    assert_equal files.sort, Dir[File.join(@dir, "*")].sort
    profile = Tracegraph::Profile.load_json(json)
    assert_equal 7, method_named(profile, "RackTestApp::Work.step").calls
    assert_equal 1, method_named(profile, "RackTestApp.call").calls
    assert_nil profile["RackTestApp::Work.other_step"]
    assert_empty profile.methods.select { |m| m.name.start_with?("Tracegraph") }, "the middleware's own methods"
    assert_equal 1, profile.threads.size
    assert_includes File.read(dot), "RackTestApp::Work.step"
    # The title says the request: verb, path, status and the app's time.
    assert_match(%r{\APOST /work/7 200 \u00b7 [\d.]+ (ns|µs|ms)\z}, profile.title)
    assert_includes @log.string, "profiled #{profile.title} (every 1): #{json} #{dot}"
  end

  def test_blocks_and_gc_can_be_turned_off_as_for_start
    profile = lambda do |mw, path|
      json = RackTestApp.files_in_header(mw.call(env_for(path))[1]["x-tracegraph"], @dir).first
      Tracegraph::Profile.load_json(json)
    end
    block_name = "block in RackTestApp.call"
    assert_equal 3, method_named(profile[middleware, "/work/3"], block_name).calls
    plain = profile[middleware(blocks: false), "/work/3"]
    assert_nil plain[block_name]
    assert_equal 3, method_named(plain, "RackTestApp::Work.step").calls

    collecting = ->(_env) { GC.start || [200, {}, ["collected"]] }
    assert profile[middleware(collecting), "/gc"][Tracegraph::Profile::GC_NODE]
    assert_nil profile[middleware(collecting, gc: false), "/gc"][Tracegraph::Profile::GC_NODE]
  end

  def test_allocations_are_counted_when_asked_for
    building = ->(_env) { [200, {}, [Array.new(2) { "x" * 2 }.join]] }
    json = ->(mw) { RackTestApp.files_in_header(mw.call(env_for("/a"))[1]["x-tracegraph"], @dir).first }
    refute_predicate Tracegraph::Profile.load_json(json[middleware(building)]), :allocations?
    profile = Tracegraph::Profile.load_json(json[middleware(building, allocations: true)])
    assert_predicate profile, :allocations?
    assert_equal [2, 2], [method_named(profile, "String#*").calls, method_named(profile, "String#*").allocations]
  end

  def test_file_names_are_safe_and_never_overwritten
    files = Tracegraph::RequestFiles.new(dir: @dir, formats: %w[dot])
    time = Time.utc(2026, 11, 23, 15, 15, 2, 123_456)
    profile = Tracegraph.profile { RackTestApp::Work.step(1) }
    first = files.write_request(profile, time: time, verb: "GET", path: "/api/users")
    second = files.write_request(profile, time: time, verb: "GET", path: "/api/users")
    assert_equal %w[20261123-151502.123-GET-api-users.json 20261123-151502.123-GET-api-users.dot],
                 first.map { |f| File.basename(f) }
    assert_equal %w[20261123-151502.123-GET-api-users-2.json 20261123-151502.123-GET-api-users-2.dot],
                 second.map { |f| File.basename(f) }
    {"/../../etc/passwd" => "etc-passwd", "/" => "root", "" => "root", "/a b/ü/\n/x.json" => "a-b-x-json",
     "/#{'x' * 300}" => "x" * 80}.each do |path, part|
      assert_equal part, Tracegraph::RequestFiles.path_part(path), path.inspect
    end
    assert_equal "REQUEST", Tracegraph::RequestFiles.verb_part("../")
    assert_equal "PATCH", Tracegraph::RequestFiles.verb_part("PATCH")
  end

  def test_formats_are_written_and_checked_up_front
    status, headers, = middleware(formats: %w[svg json]).call(env_for("/work/2"))
    assert_equal 200, status
    written = RackTestApp.files_in_header(headers["x-tracegraph"], @dir).map { |f| File.extname(f) }
    assert_equal %w[.json .dot .svg], written
    error = assert_raises(ArgumentError) { middleware(formats: %w[svg gif]) }
    assert_equal "unknown format gif (allowed: dot, json, txt, folded, callgrind, pb.gz, speedscope.json, firefox.json, html, pdf, svg, png)", error.message
    error = assert_raises(ArgumentError) { middleware(formats: "svg") }
    assert_match(/formats must be an Array/, error.message)
  end

  def test_stack_formats_turn_the_call_tree_on
    _, headers, = middleware(formats: %w[folded pb.gz speedscope.json]).call(env_for("/work/3"))
    files = RackTestApp.files_in_header(headers["x-tracegraph"], @dir)
    folded = files.find { |f| f.end_with?(".folded") }
    assert_match(/RackTestApp::Work.step \d+$/, File.read(folded))
    assert_equal %w[.folded .gz .json .json], files.map { |f| File.extname(f) }.sort
    assert File.size(files.find { |f| f.end_with?(".pb.gz") }).positive?
    assert_includes File.read(files.find { |f| f.end_with?(".speedscope.json") }), "RackTestApp::Work.step"
  end

  def test_bad_options_say_what_is_wrong
    {
      {evry: 2} => /unknown option :evry \(allowed: :every, :path, :opt_in, :token, :dir, :keep, :formats, :save_every, :per_request, :clock, :c_calls, :gc, :blocks, :allocations, :logger\)/,
      {every: 0} => /every must be a positive integer, not 0/,
      {save_every: "2"} => /save_every must be a positive integer/,
      {path: 42} => /path must be a Regexp or a String prefix, not Integer/,
      {opt_in: "yes"} => /opt_in must be true or false/,
      {clock: :gpu} => /unknown clock :gpu/,
      {blocks: "no"} => /blocks must be true or false/,
      {per_request: false} => /per_request: false needs save_every/,
      {keep: -1} => /keep must be an Integer >= 0 \(0 keeps all\), not -1/
    }.each do |options, message|
      error = assert_raises(ArgumentError, options.inspect) { middleware(**options) }
      assert_match message, error.message
    end
    file = File.join(@dir, "a-file")
    File.write(file, "")
    error = assert_raises(Tracegraph::Error) { Tracegraph::Rack.new(RackTestApp, dir: File.join(file, "sub")) }
    assert_match(/cannot use .*a-file\/sub for profiles/, error.message)
  end

  def test_an_exception_in_the_app_still_writes_the_profile_and_goes_on
    mw = middleware
    error = assert_raises(ArgumentError) { mw.call(env_for("/boom")) }
    assert_equal "boom", error.message
    refute Tracegraph.running?
    json = json_files.grep(/GET-boom\.json\z/).first
    assert json, Dir[File.join(@dir, "*")].inspect
    profile = Tracegraph::Profile.load_json(json)
    assert_equal 1, method_named(profile, "RackTestApp::Work.step").calls
    assert_match(%r{\AGET /boom raised ArgumentError \u00b7 [\d.]+ (ns|µs|ms)\z}, profile.title)
    # The session is free again.
    assert_match(/\Aprofiled/, mw.call(env_for("/work/1"))[1]["x-tracegraph"])
  end

  def test_a_profile_that_cannot_be_written_is_logged_and_the_response_is_unharmed
    mw = middleware
    FileUtils.rm_rf(@dir)
    status, headers, body = mw.call(env_for("/work/1"))
    assert_equal [200, ["ok /work/1"]], [status, body]
    assert_equal "profiled, but its files could not be written", headers["x-tracegraph"]
    assert_match(/ERROR -- : tracegraph: could not write the profile of GET \/work\/1: cannot write .*No such file or directory/, @log.string)
    refute Tracegraph.running?
  end

  def test_a_request_that_arrives_while_another_is_profiled_is_skipped_and_says_so
    inner = nil
    outer_app = lambda do |env|
      if env["PATH_INFO"] == "/outer"
        inner = Thread.new { @mw.call(env_for("/work/2")) }.value
        [200, {}, ["outer"]]
      else
        RackTestApp.call(env)
      end
    end
    @mw = middleware(outer_app)
    _, outer_headers, = @mw.call(env_for("/outer"))
    assert_match(/\Aprofiled, wrote /, outer_headers["x-tracegraph"])
    status, headers, body = inner
    assert_equal [200, ["ok /work/2"]], [status, body]
    assert_equal "skipped, another request is being profiled", headers["x-tracegraph"]
    assert_match(/WARN -- : tracegraph: not profiling GET \/work\/2: another request is being profiled/, @log.string)
    assert_equal 1, json_files.size
  end

  def test_a_profiler_started_elsewhere_is_left_alone
    Tracegraph.start
    _, headers, = middleware.call(env_for("/work/1"))
    assert_equal "skipped, the profiler is already running (started outside Tracegraph::Rack)", headers["x-tracegraph"]
    assert Tracegraph.running?
    assert_equal 1, method_named(Tracegraph.stop, "RackTestApp::Work.step").calls
    assert_match(/\Aprofiled/, middleware.call(env_for("/work/1"))[1]["x-tracegraph"])
  end

  def test_save_every_writes_the_sum_of_n_profiled_requests_besides_each_one
    mw = middleware(save_every: 3)
    headers = headers_of(mw, %w[/work/1 /work/2 /work/3 /work/4 /work/5 /work/6 /work/7])
    merged = Dir[File.join(@dir, "*-merged-3-requests.json")].sort
    assert_equal 2, merged.size
    assert_equal [1 + 2 + 3, 4 + 5 + 6],
                 merged.map { |f| Tracegraph::Profile.load_json(f)["RackTestApp::Work.step"].calls }
    assert_equal 7 + 2, json_files.size
    assert_includes headers[2], "-merged-3-requests.json"
    merged_profile = Tracegraph::Profile.load_json(merged.first)
    assert_equal 3, merged_profile["RackTestApp.call"].calls
    assert_consistent merged_profile
  end

  def test_per_request_false_writes_only_the_sums
    mw = middleware(save_every: 2, per_request: false)
    headers = headers_of(mw, %w[/work/1 /work/2 /work/3])
    assert_equal ["profiled, to be summed into the next merged profile"], [headers[0]]
    assert_equal 1, json_files.size
    assert_equal 3, Tracegraph::Profile.load_json(json_files.first)["RackTestApp::Work.step"].calls
  end

  def test_frozen_headers_and_the_rack_logger
    app = ->(_env) { [204, {}.freeze, []] }
    mw = Tracegraph::Rack.new(app, dir: @dir)
    log = StringIO.new
    status, headers, = mw.call(env_for("/x").merge("rack.logger" => Logger.new(log)))
    assert_equal 204, status
    assert_match(/\Aprofiled/, headers["x-tracegraph"])
    assert_match(/INFO -- : tracegraph: profiled GET \/x/, log.string)
  end

  def test_in_a_rack_builder_with_mock_request
    begin
      require "rack"
      require "rack/mock"
    rescue LoadError => e
      skip "ruby-rack is not installed (#{e.message})"
    end
    dir = @dir
    log = Logger.new(@log)
    app = ::Rack::Builder.new do
      use Tracegraph::Rack, path: %r{\A/work}, every: 2, dir: dir, logger: log
      run RackTestApp
    end.to_app
    request = ::Rack::MockRequest.new(app)
    responses = %w[/work/1 /other /work/2 /work/3 /work/4].map { |path| request.get(path) }
    assert_equal [200] * 5, responses.map(&:status)
    assert_equal [false, false, true, false, true], responses.map { |r| !r.headers["x-tracegraph"].nil? }
    opted = ::Rack::MockRequest.new(::Rack::Builder.new do
      use Tracegraph::Rack, opt_in: true, dir: dir, logger: log
      run RackTestApp
    end.to_app)
    assert_nil opted.get("/work/5").headers["x-tracegraph"]
    assert_match(/\Aprofiled/, opted.get("/work/5?tracegraph=1").headers["x-tracegraph"])
    assert_match(/\Aprofiled/, opted.get("/work/5", "HTTP_X_TRACEGRAPH" => "1").headers["x-tracegraph"])
  end
end
