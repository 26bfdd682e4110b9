require_relative "test_helper"
require_relative "rack_helper"
require "net/http"

# Tracegraph::Rack under a real threaded server: puma, in this process,
# with concurrent requests from several client threads.
class TestRackPuma < TracegraphTest
  THREADS = 4

  def setup
    begin
      require "puma"
      require "puma/server"
      require "rack"
    rescue LoadError, StandardError => e
      skip "puma and ruby-rack are needed (apt-get install puma ruby-rack): #{e.class}: #{e.message}"
    end
    @dir = Dir.mktmpdir("tracegraph-puma")
    @log = StringIO.new
    @entered = Queue.new
    @released = false
    # (keep: 0: every profile is read back, more than the newest 20)
    @server = start_puma(Tracegraph::Rack.new(method(:app), dir: @dir, logger: Logger.new(@log), keep: 0))
  end

  def teardown
    @released = true
    @server&.stop(true)
    FileUtils.rm_rf(@dir) if @dir
    super
  end

  # /hold tells the test it is inside, then waits until released (with
  # sleep: a Queue#pop here would look like the server's idle threads);
  # the rest is RackTestApp.
  def app(env)
    if env["PATH_INFO"] == "/hold"
      @entered << true
      sleep 0.005 until @released
    end
    RackTestApp.call(env)
  end

  def start_puma(app)
    server = if defined?(Puma::LogWriter) # puma 6
               Puma::Server.new(app, Puma::Events.new, log_writer: Puma::LogWriter.strings,
                                                       min_threads: THREADS, max_threads: THREADS)
             else
               Puma::Server.new(app, Puma::Events.strings, min_threads: THREADS, max_threads: THREADS)
             end
    server.add_tcp_listener("127.0.0.1", 0)
    @port = server.connected_ports.first
    server.run
    server
  rescue StandardError => e
    skip "puma could not start here: #{e.class}: #{e.message}"
  end

  def get(path)
    Net::HTTP.start("127.0.0.1", @port, read_timeout: 30) { |http| http.get(path) }
  end

  # Every profile a profiled response names holds that request only: its
  # route's method with its exact count, nothing of the server's own loop
  # nor of other threads.
  def assert_profile_of_its_request(path, response)
    files = RackTestApp.files_in_header(response["x-tracegraph"], @dir)
    json = files.find { |f| f.end_with?(".json") } || flunk("no JSON named in #{response['x-tracegraph'].inspect}")
    # (-2, -3... when two requests for the same path end in the same millisecond)
    assert_match(/\A\d{8}-\d{6}\.\d{3}-GET-#{path.delete_prefix('/').tr('/', '-')}(-\d+)?\.json\z/, File.basename(json))
    profile = Tracegraph::Profile.load_json(json)
    steps, other_steps = path.match?(%r{\A/work/\d+\z}) ? [path.split("/").last.to_i, 0] : [0, 1]
    assert_equal steps, profile["RackTestApp::Work.step"]&.calls.to_i, "#{path}: #{json}"
    assert_equal other_steps, profile["RackTestApp::Work.other_step"]&.calls.to_i, "#{path}: #{json}"
    server_methods = profile.methods.map(&:name).grep(/\APuma|IO\.select|IO#wait|Thread::Queue#pop|ConditionVariable|NIO|TCPServer|Tracegraph/)
    assert_empty server_methods, json
    assert_equal 1, profile.threads.size, json
    assert File.exist?(json.sub(/json\z/, "dot")), "the graph beside #{json}"
    assert_consistent profile
  end

  def test_concurrent_requests_are_profiled_one_at_a_time_and_the_others_say_they_were_skipped
    # /hold is profiled and stays inside the app; meanwhile the other
    # requests, served by the other puma threads, are skipped.
    holder = Thread.new { get("/hold") }
    @entered.pop
    skipped = Array.new(THREADS - 1) { |i| Thread.new { get("/work/#{i + 1}") } }.map(&:value)
    skipped.each_with_index do |response, i|
      assert_equal ["200", "ok /work/#{i + 1}"], [response.code, response.body]
      assert_equal "skipped, another request is being profiled", response["x-tracegraph"]
    end
    @released = true
    held = holder.value
    assert_equal "200", held.code
    assert_profile_of_its_request("/hold", held)
    assert_equal THREADS - 1, @log.string.scan("not profiling GET /work/").size

    # Now many clients at once: none fails, and whatever was profiled is
    # exactly its own request.
    paths = Array.new(24) { |i| "/work/#{i % 6 + 1}" }
    responses = paths.each_slice(3).map { |slice| Thread.new { slice.map { |path| [path, get(path)] } } }
                     .flat_map(&:value)
    assert_equal ["200"], responses.map { |_, r| r.code }.uniq
    states = responses.map { |_, r| r["x-tracegraph"].to_s[/\A\w+/] }
    assert_equal [], states - %w[profiled skipped]
    assert_includes states, "profiled"
    responses.each do |path, response|
      assert_equal "ok #{path}", response.body
      assert_profile_of_its_request(path, response) if response["x-tracegraph"].start_with?("profiled")
    end
    refute Tracegraph.running?
  end
end
