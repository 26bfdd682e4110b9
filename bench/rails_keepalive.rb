# Does profiling one Rails request delay the next request on the same
# keep-alive connection (issue #37)? The test app (test/fixtures/rails_app)
# under puma (2 threads, in development, the Railtie's default formats:
# the HTML report and the JSON), and a client in another process that
# sends, on one connection, requests back to back: a profiled
# GET /posts?tracegraph=1 then two plain GET /posts, or three plain ones.
# It times the second, the request that follows, from sending
# it to reading its body, and the one after it. Puma runs rack.after_reply on the connection's
# thread before it reads the next request, so if the files are written
# there, the next request waits for them. PAIRS pairs of each kind,
# alternating, after 5 of each to warm up, with a pause between pairs for
# the files to be written.
#   ruby -Ilib bench/rails_keepalive.rb [PAIRS]
# Prints the median and the fastest of each kind. Needs puma.
require "json"
require "net/http"
require "rbconfig"
require "tmpdir"

ROOT = File.expand_path("..", __dir__)
APP_DIR = File.join(ROOT, "test/fixtures/rails_app")
PAIRS = Integer(ARGV[0] || "15")
LIB = $LOAD_PATH.find { |dir| File.exist?(File.join(dir, "tracegraph.rb")) } || File.join(ROOT, "lib")

SERVER = <<~'RUBY'
  require "./app"
  require "puma"
  require "puma/server"
  server = if defined?(Puma::LogWriter) # puma 6
             Puma::Server.new(Rails.application, Puma::Events.new, log_writer: Puma::LogWriter.strings,
                                                                   min_threads: 2, max_threads: 2)
           else
             Puma::Server.new(Rails.application, Puma::Events.strings, min_threads: 2, max_threads: 2)
           end
  server.add_tcp_listener("127.0.0.1", 0)
  $stdout.puts server.connected_ports.first
  $stdout.flush
  server.run.join
RUBY

def median(values) = values.sort[values.size / 2]

Dir.mktmpdir("tracegraph-bench-keepalive") do |dir|
  env = {"RAILS_ENV" => "development", "TRACEGRAPH_RAILS_DIR" => dir}
  server = IO.popen(env, [RbConfig.ruby, "-I#{LIB}", "-e", SERVER], chdir: APP_DIR, err: File::NULL)
  begin
    port = Integer(server.gets || abort("bench: the server did not start"))
    clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
    after = {"profiled" => [], "plain" => []}
    third = {"profiled" => [], "plain" => []}
    Net::HTTP.start("127.0.0.1", port) do |http|
      get = lambda do |path|
        response = http.get(path)
        raise "GET #{path}: #{response.code}" unless response.code == "200"

        response
      end
      (5 + PAIRS).times do |round|
        %w[profiled plain].each do |kind|
          get.(kind == "profiled" ? "/posts?tracegraph=1" : "/posts")
          started = clock.()
          get.("/posts")
          after[kind] << clock.() - started if round >= 5
          started = clock.()
          get.("/posts")
          third[kind] << clock.() - started if round >= 5
          sleep 0.8 # the files written, whichever thread writes them
        end
      end
    end
    ms = ->(seconds) { format("%.1f ms", seconds * 1000) }
    puts "lib: #{LIB}"
    puts "| on the connection, after | the next request, median | fastest | the one after it, median | fastest |"
    puts "| --- | --- | --- | --- | --- |"
    after.each do |kind, times|
      puts "| a #{kind} request | #{ms.(median(times))} | #{ms.(times.min)} | #{ms.(median(third[kind]))} | " \
           "#{ms.(third[kind].min)} |"
    end
    puts "files written: #{Dir.children(dir).size}"
  ensure
    Process.kill("TERM", server.pid)
    server.close
  end
end
