# Tracegraph::Rack: a Rack middleware that profiles some requests, each
# on its own, and writes one call graph and one JSON per request.
#
#   # config.ru
#   require "tracegraph/rack"
#   use Tracegraph::Rack, every: 100, path: %r{\A/api}, formats: %w[svg]
#
#   # Rails: config/environments/development.rb (or an initializer)
#   config.middleware.use Tracegraph::Rack, opt_in: true
#
# Which requests: with opt_in: true, any request with ?tracegraph=1 or an
# X-Tracegraph: 1 header (with token:, only those that also send the
# token in an X-Tracegraph-Token header); and every Nth request (every:, default 1, but
# none with opt_in: true and no path:) among those whose path matches
# path: (default: any). Each is recorded on the thread that serves it
# (threads: :current), for the app's #call (not the streaming of its body).
#
# The profiler has one session per process, so while one request is being
# profiled, another one that was chosen runs unprofiled and says so in its
# X-Tracegraph response header and a log line. The check and the start are
# one atomic step (Mutex#try_lock), so concurrent requests never raise.
require "openssl"
require "tracegraph"
require "tracegraph/output/request_files"

module Tracegraph
  class Rack
    # The recording options among them are RecordingOptions' rows with
    # rack: true (test_recording_options.rb checks the two agree).
    OPTIONS = %i[every path opt_in token dir keep formats save_every per_request clock c_calls gc blocks
                 allocations logger].freeze
    HEADER = "x-tracegraph" # lower case: what Rack 3 requires, and fine for Rack 2
    # Where the request's X-Tracegraph-Token header is in the Rack env.
    TOKEN_ENV = "HTTP_X_TRACEGRAPH_TOKEN"
    # The path the request asked for, kept before the app runs: Rails'
    # ShowExceptions rewrites PATH_INFO to "/404" on its way out.
    PATH_ENV = "tracegraph.path_info"
    OPT_IN_VALUES = %w[1 true yes].freeze

    # One profiler, so one lock for every instance of the middleware.
    SESSION = Mutex.new

    # Options (see docs/web-apps.md):
    #   every:       profile every Nth matching request (Integer >= 1)
    #   path:        only requests whose path matches (Regexp, or a String prefix)
    #   opt_in:      also profile requests that ask with ?tracegraph=1 or X-Tracegraph: 1 (default false)
    #   token:       a String: only requests that send it in X-Tracegraph-Token may opt in; nil or ""
    #                lets none opt in (default: no token asked for)
    #   dir:         where files go (default "tmp/tracegraph", created)
    #   keep:        how many requests' files to keep there, the newest (default 20; 0 keeps all)
    #   formats:     graph formats besides the JSON (default %w[dot]; dot svg pdf png txt folded pb.gz speedscope.json firefox.json callgrind)
    #   save_every:  also write one profile summed over every N profiled requests
    #   per_request: write each request's own files (default true)
    #   clock:, c_calls:, gc:, blocks:, allocations:  as for Tracegraph.start
    #   logger:      where messages go (default env["rack.logger"], else $stderr)
    def initialize(app, **options)
      OptionChecks.known!(options, OPTIONS)
      @app = app
      @opt_in = OptionChecks.boolean!(:opt_in, options.fetch(:opt_in, false))
      @token_required = options.key?(:token)
      @token_digest = token_digest(options[:token])
      # opt_in: true alone profiles only the requests that ask.
      @every = positive_integer(:every, options.fetch(:every, @opt_in && !options[:path] ? nil : 1))
      @path = path_matcher(options[:path])
      @save_every = positive_integer(:save_every, options[:save_every])
      @per_request = OptionChecks.boolean!(:per_request, options.fetch(:per_request, true))
      raise ArgumentError, "per_request: false needs save_every: N, or nothing is written" unless @per_request || @save_every

      @logger = options[:logger]
      @files = RequestFiles.new(dir: options.fetch(:dir, "tmp/tracegraph"), formats: options.fetch(:formats, %w[dot]),
                                keep: options.fetch(:keep, RequestFiles::KEEP))
      @start_options = start_options(options)
      @counter = Mutex.new
      @matching = 0
      @merge_lock = Mutex.new
      @merged = nil
      @merged_count = 0
    end

    # Between start and stop nothing of ours is called, so the request's
    # graph starts at the app. The profile is written even if the app
    # raised, and the exception then goes on.
    def call(env)
      reason = choose(env)
      return @app.call(env) unless reason
      return skipped(env, "another request is being profiled") unless SESSION.try_lock

      started = Time.now
      env[PATH_ENV] = env["PATH_INFO"]
      begin
        Tracegraph.start(**start_options_for(env))
      rescue Tracegraph::Error
        SESSION.unlock
        return skipped(env, "the profiler is already running (started outside Tracegraph::Rack)")
      end
      begin
        status, headers, body = @app.call(env)
      ensure
        profile = begin
          Tracegraph.stop
        rescue Tracegraph::Error # the app stopped the profiler itself
          nil
        ensure
          SESSION.unlock
        end
        status = nil if $!
        profile &&= profile.titled(request_title(env, status, profile.wall_time))
        written = save(profile, env, started, reason, status)
      end
      respond(env, [status, headers, body], written)
    end

    # Why env's request is to be profiled ("opt-in", "every", ...), or nil.
    def choose(env)
      return "opt-in" if @opt_in && opted_in?(env) && token_given?(env)
      return nil unless @every && @path.call(env["PATH_INFO"].to_s)

      @counter.synchronize { (@matching += 1) % @every == 0 } ? "every #{@every}" : nil
    end

    private

    # The request in words, as the profile's title: verb, path, status
    # (or the exception the app raised) and how long the app took (the
    # profile's wall time: from start to stop, the app's call and no more),
    # e.g. "GET /posts 200 · 412 ms".
    def request_title(env, status, duration)
      outcome = status ? status.to_s : "raised #{$!&.class || 'an exception'}"
      parts = ["#{env['REQUEST_METHOD']} #{request_path(env)} #{outcome}", *request_handler(env),
               duration && Tracegraph.human_time(duration)].compact
      Tracegraph.printable(parts.join(" \u00b7 "))
    end

    def request_path(env) = env.fetch(PATH_ENV) { env["PATH_INFO"] }

    # What handled the request, for its title ([] here; Rails names the
    # controller and action).
    def request_handler(_env) = []

    # Whether the request may opt in as far as the token goes: always
    # without token:, never with a nil or empty one, else when its
    # X-Tracegraph-Token header is the token. The two are compared as
    # SHA-256 digests, in a time that depends on neither.
    def token_given?(env)
      return true unless @token_required
      return false unless @token_digest

      given = env[TOKEN_ENV]
      return false unless given.is_a?(String) && !given.empty?

      OpenSSL.fixed_length_secure_compare(OpenSSL::Digest::SHA256.digest(given), @token_digest)
    end

    def token_digest(token)
      raise ArgumentError, "token must be a String or nil, not #{token.class}" unless token.nil? || token.is_a?(String)

      token.nil? || token.empty? ? nil : OpenSSL::Digest::SHA256.digest(token)
    end

    # The options Tracegraph.start gets for env's request.
    def start_options_for(_env) = @start_options

    # The response of a profiled request, given what save returned.
    def respond(_env, response, written)
      status, headers, body = response
      [status, with_header(headers, written ? listing(written) : "profiled, but its files could not be written"), body]
    end

    # Writes the request's files and the merged ones when due. Returns the
    # paths written, or nil after logging why it could not. status: the
    # app's, nil if it raised.
    def save(profile, env, started, reason, _status)
      return log(env, :error, "tracegraph: #{describe(env)}: the app stopped the profiler") unless profile

      written = []
      if @per_request
        written = @files.write_request(profile, time: started, verb: env["REQUEST_METHOD"], path: request_path(env))
        log(env, :info, "tracegraph: profiled #{profile.title} (#{reason}): #{Tracegraph.short_paths(written).join(' ')}")
      end
      written + save_merged(env, profile)
    rescue StandardError => e
      log(env, :error, "tracegraph: could not write the profile of #{describe(env)}: #{e.message}")
      nil
    end

    # Adds the profile to the running sum; every save_every profiles,
    # writes the sum and starts a new one. Memory stays that of one profile.
    def save_merged(env, profile)
      return [] unless @save_every

      due = @merge_lock.synchronize do
        @merged = @merged ? Profile.merge([@merged, profile]) : profile
        @merged_count += 1
        next nil if @merged_count < @save_every

        sum = @merged
        @merged = nil
        @merged_count = 0
        sum
      end
      return [] unless due

      written = @files.write_merged(due, time: Time.now, count: @save_every)
      log(env, :info, "tracegraph: #{@save_every} profiled requests summed: #{written.join(' ')}")
      written
    end

    def skipped(env, why)
      log(env, :warn, "tracegraph: not profiling #{describe(env)}: #{why}")
      status, headers, body = @app.call(env)
      [status, with_header(headers, "skipped, #{why}"), body]
    end

    def with_header(headers, value, name = HEADER)
      headers = headers.dup if headers.frozen?
      headers[name] = value
      headers
    end

    def opted_in?(env)
      return true if OPT_IN_VALUES.include?(env["HTTP_X_TRACEGRAPH"].to_s.strip.downcase)

      env["QUERY_STRING"].to_s.split(/[&;]/).any? do |pair|
        name, value = pair.split("=", 2)
        name == "tracegraph" && OPT_IN_VALUES.include?(value.to_s.downcase)
      end
    end

    # The header names the files, without their directory: the client may
    # be anyone, and the server's paths are none of its business (the log
    # has them). Header values must be printable ASCII.
    def listing(paths)
      return "profiled, to be summed into the next merged profile" if paths.empty?

      names = paths.map { |path| File.basename(path) }
      Tracegraph.printable("profiled, wrote #{names.join(' ')}").gsub(/[^\x20-\x7e]/, "?")
    end

    def describe(env)
      Tracegraph.printable("#{env['REQUEST_METHOD']} #{request_path(env)}")
    end

    def log(env, level, message)
      logger = @logger || env["rack.logger"]
      logger.respond_to?(level) ? logger.public_send(level, message) : $stderr.puts(message)
      nil
    end

    # The recording options this middleware takes (RecordingOptions'
    # rows with rack: true), checked as Tracegraph.start checks them, with
    # the call tree where a format needs it, on the request's thread.
    def start_options(options)
      names = RecordingOptions.rack_names
      RecordingOptions.checked(options.slice(*names)).slice(*names)
                      .merge(call_tree: @files.call_tree?, threads: :current)
    end

    def positive_integer(key, value)
      return nil if value.nil?
      raise ArgumentError, "#{key} must be a positive integer, not #{value.inspect}" unless value.is_a?(Integer) && value.positive?

      value
    end

    def path_matcher(pattern)
      case pattern
      when nil then ->(_) { true }
      when Regexp then ->(path) { pattern.match?(path) }
      when String then ->(path) { path.start_with?(pattern) }
      else raise ArgumentError, "path must be a Regexp or a String prefix, not #{pattern.class}"
      end
    end
  end
end
