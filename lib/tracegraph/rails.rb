# Tracegraph in a Rails app: `gem "tracegraph"` in the Gemfile (or
# `require "tracegraph/rails"`) installs Tracegraph::Railtie, and then
#
#   GET /posts?tracegraph=1      (or the header X-Tracegraph: 1)
#
# profiles that request alone and answers it as usual, with the header
# X-Tracegraph-Report: tmp/tracegraph/20261126-142233.412-GET-posts-200-PostsController-index-412ms.html,
# the HTML report (its JSON beside it, for diff, merge and the gate). The
# files are written after the response has gone out, by one background
# thread (output/background_writer.rb). Other requests run unprofiled.
#
# Where: in development, a middleware first in the stack, for any request
# that asks (and, if config.tracegraph.token is set, sends it in the
# X-Tracegraph-Token header); in production (and any other environment
# but test) only if config.tracegraph.token or permit is set, and then
# only for requests that send the token, and that permit allows: an
# unset or empty token lets nobody in, unless permit is set alone (your
# own rule). In test, off unless config.tracegraph.enabled = true.
# Settings (config/application.rb or config/environments/*.rb):
#
#   config.tracegraph.enabled     true/false: on or off in any environment (default: as above)
#   config.tracegraph.token       a secret, e.g. ENV["TRACEGRAPH_TOKEN"]: sent as X-Tracegraph-Token
#   config.tracegraph.permit      ->(env) { ... }: which opted-in requests may be profiled
#   config.tracegraph.directory   where files go, from Rails.root (default "tmp/tracegraph";
#                                 under tmp/, bin/rails tmp:clear removes them)
#   config.tracegraph.keep        how many requests' files to keep, the newest (default 20; 0: all)
#   config.tracegraph.formats     besides the JSON (default %w[html]; as Tracegraph::Rack's formats:)
#   config.tracegraph.clock       :wall (default), :cpu or :thread_cpu
#   config.tracegraph.c_calls     trace methods written in C (default true; :all, false as for Tracegraph.start)
#   config.tracegraph.allocations count allocations (default false)
#   config.tracegraph.call_tree   record the call tree, for the HTML report's flame graph (default true)
#   config.tracegraph.skip_paths  paths never profiled: Regexps or String prefixes
#                                 (default: /assets/ and /packs/)
#
# A request may ask for more in its parameter, comma-separated:
# ?tracegraph=allocations, ?tracegraph=cpu, ?tracegraph=allocations,no_c_calls.
require "tracegraph/rack"
require "tracegraph/output/background_writer"
require "tracegraph/rails_sql"

module Tracegraph
  # Tracegraph::Rack for opted-in requests only, with Rails' names and
  # timing: the profile titled and its files named by the request
  # (verb, path, status, controller and action, time), the report's path (the
  # HTML's, or the JSON's when formats: has no html) in the response's
  # X-Tracegraph-Report header, and the writing deferred to
  # after the response (rack.after_reply where the server has it, as
  # puma does, else the body's close).
  class RailsMiddleware < Rack
    REPORT_HEADER = "x-tracegraph-report"
    DEFAULT_SKIP_PATHS = [%r{\A/assets/}, %r{\A/packs/}].freeze
    # What ?tracegraph= may ask for besides 1, true or yes; every clock by
    # its name.
    REQUEST_OPTIONS = {"allocations" => {allocations: true}, "no_c_calls" => {c_calls: false}}
                      .merge(CLOCKS.to_h { |clock| [clock.to_s, {clock: clock}] }).freeze

    #   permit:     nil (any opted-in request) or a callable taking the Rack
    #               env, true for the requests that may be profiled
    #   skip_paths: Regexps or String prefixes of paths never profiled
    #   app_root:   the application's directory: its queries become boxes
    #               under its methods (rails_sql.rb); nil for none
    #   call_tree:  record the call tree (default true): the HTML report's
    #               flame graph, and the stack formats' data
    # and Tracegraph::Rack's token:, dir:, formats:, clock:, c_calls:, gc:,
    # blocks:, allocations:, logger:. A request is profiled if it asks,
    # its path is not skipped, it sends the token (when token: is given)
    # and permit allows it (when given).
    def initialize(app, permit: nil, skip_paths: DEFAULT_SKIP_PATHS, app_root: nil, call_tree: true, **options)
      raise ArgumentError, "permit must respond to call, not #{permit.inspect}" unless permit.nil? || permit.respond_to?(:call)

      @permit = permit
      @sql = app_root && RailsSql.new(root: app_root)
      @call_tree = OptionChecks.boolean!(:call_tree, call_tree)
      @skip_paths = Array(skip_paths).map { |pattern| path_matcher(pattern) }
      super(app, **options, opt_in: true)
    end

    # Every request, profiled or not, is counted in flight while the app
    # runs, so that the writer writes while none is (BackgroundWriter).
    def call(env)
      writer = BackgroundWriter.shared
      writer.request_started
      begin
        super
      ensure
        writer.request_finished
        @sql&.drop_if_left # (a start that failed after the subscriber's)
      end
    end

    # "opt-in" for a request that asks and may be profiled, else nil.
    def choose(env)
      return nil unless requested_options(env)
      return nil if @skip_paths.any? { |matches| matches.call(env["PATH_INFO"].to_s) }
      return nil unless token_given?(env)
      return nil if @permit && !@permit.call(env)

      "opt-in"
    end

    private

    # The start options a request's ?tracegraph= or X-Tracegraph: asks
    # for, or nil if it does not ask.
    def requested_options(env)
      values = [env["HTTP_X_TRACEGRAPH"].to_s]
      values += env["QUERY_STRING"].to_s.split(/[&;]/).filter_map do |pair|
        name, value = pair.split("=", 2)
        value.to_s if name == "tracegraph"
      end
      words = values.flat_map { |value| ::Rack::Utils.unescape(value).downcase.split(/[,\s]+/) }
      return nil unless words.any? { |word| OPT_IN_VALUES.include?(word) || REQUEST_OPTIONS.key?(word) }

      words.each_with_object({}) { |word, options| options.merge!(REQUEST_OPTIONS.fetch(word, {})) }
    end

    # (Called just before the start: the SQL subscriber starts outside the profile.)
    def start_options_for(env)
      @sql&.start
      options = @start_options.merge(requested_options(env) || {})
      @call_tree ? options.merge(call_tree: true) : options
    end

    # Claims the file's name now, to name it in the response; the profile
    # is written later (respond), or queued now if the app raised ($! in
    # the middleware's ensure), since then there is no response to wait for.
    def save(profile, env, started, _reason, status)
      profile = @sql ? @sql.finish(profile) : profile
      return log(env, :error, "tracegraph: #{describe(env)}: the app stopped the profiler") unless profile

      pending = [@files.reserve(file_stem(env, profile, started, status)), profile]
      queue_write(env, pending) if $!
      pending
    rescue StandardError => e
      log(env, :error, "tracegraph: could not write the profile of #{describe(env)}: #{e.message}")
      nil
    end

    # The files' name: the time (UTC, to the millisecond), then the
    # request as its title says it, in letters, digits, - and _:
    # "20261126-142233.412-GET-posts-200-PostsController-index-412ms".
    def file_stem(env, profile, started, status)
      status = status ? RequestFiles.path_part(status.to_s, max: 3) : "raised"
      handler = request_handler(env).first
      time = profile.wall_time && "#{(profile.wall_time / 1_000_000.0).round}ms"
      [RequestFiles.stamp(started), RequestFiles.verb_part(env["REQUEST_METHOD"]),
       RequestFiles.path_part(request_path(env)), status, handler && RequestFiles.path_part(handler, max: 60),
       time].compact.join("-")
    end

    def respond(env, response, pending)
      status, headers, body = response
      return [status, with_header(headers, "profiled, but its files could not be written"), body] unless pending

      headers = with_header(headers, "#{Tracegraph.short_path(pending[0])}.#{report_extension}", REPORT_HEADER)
      headers = with_header(headers, "profiled")
      write = -> { queue_write(env, pending) }
      if env["rack.after_reply"].is_a?(Array)
        env["rack.after_reply"] << write
        [status, headers, body]
      else
        [status, headers, ::Rack::BodyProxy.new(body, &write)]
      end
    end

    # The file the header names: what a developer opens.
    def report_extension = @files.formats.include?("html") ? "html" : "json"

    # Hands the writing to the process's one writer thread, so that it
    # does not hold up the next request on this connection (puma runs
    # rack.after_reply on the connection's thread before it reads the
    # next request). With its queue full, the profile is dropped, its
    # claimed name freed, and one log line says so.
    def queue_write(env, pending)
      writer = BackgroundWriter.shared
      return if writer.push(-> { write_pending(env, pending) })

      base, profile = pending
      free_name(base)
      log(env, :warn, "tracegraph: dropped the profile of #{profile.title}: #{writer.capacity} profiles are " \
                      "waiting to be written already")
    end

    # Removes the empty JSON that reserve made to claim base.
    def free_name(base)
      File.delete("#{base}.json") if File.zero?("#{base}.json")
    rescue SystemCallError
      nil
    end

    # The log line names the profile by its title, and every file by
    # the same rule as the header (Tracegraph.short_path: from the
    # directory the server runs in).
    def write_pending(env, (base, profile))
      written = @files.write_reserved(profile, base)
      log(env, :info, "tracegraph: profiled #{profile.title}: #{Tracegraph.short_paths(written).join(' ')}")
    rescue StandardError => e
      log(env, :error, "tracegraph: could not write the profile of #{profile.title || describe(env)}: #{e.message}")
    end

    # The controller and action that answered, "PostsController#index",
    # from the controller Rails ran, else the route it chose; nothing
    # where no route matched.
    def request_handler(env)
      controller = env["action_controller.instance"]
      if controller.respond_to?(:action_name) && controller.class.name
        return ["#{controller.class.name}##{controller.action_name}"]
      end

      params = env["action_dispatch.request.path_parameters"] || {}
      return [] unless params[:controller] && params[:action]

      ["#{params[:controller].to_s.camelize}Controller##{params[:action]}"]
    end
  end

  # Installs RailsMiddleware as the app boots; see the top of this file.
  class Railtie < ::Rails::Railtie
    config.tracegraph = ActiveSupport::OrderedOptions.new
    config.tracegraph.enabled = nil
    config.tracegraph.token = nil
    config.tracegraph.permit = nil
    config.tracegraph.directory = "tmp/tracegraph"
    config.tracegraph.keep = RequestFiles::KEEP
    config.tracegraph.formats = %w[html]
    # The recording options it takes (RecordingOptions' rows with railtie:
    # true), by default as Tracegraph.start's, but for the call tree,
    # which the HTML report's flame graph draws.
    RECORDING_DEFAULTS = RecordingOptions.railtie_names.to_h { |name| [name, RecordingOptions[name].default] }
                                         .merge(call_tree: true).freeze
    RECORDING_DEFAULTS.each { |name, default| config.tracegraph[name] = default }
    config.tracegraph.skip_paths = RailsMiddleware::DEFAULT_SKIP_PATHS

    # Whether the middleware goes in, by the settings and the environment.
    def self.enabled?(settings, environment)
      return settings.enabled unless settings.enabled.nil?
      return false if environment.test?

      environment.development? || token?(settings) || !settings.permit.nil?
    end

    def self.token?(settings) = !settings.token.to_s.empty?

    # The token the middleware asks for: {token: the setting} where a
    # request must send it, {} where it need not. In development, only
    # when one is set; elsewhere always, unless permit is the only rule
    # (a permit of your own, with no token). So outside development an
    # unset or empty token lets nobody in.
    def self.token_options(settings, environment)
      return {token: settings.token} if token?(settings)
      return {} if environment.development? || !settings.permit.nil?

      {token: nil}
    end

    # Where the files go, in full.
    def self.directory(app) = File.expand_path(app.config.tracegraph.directory.to_s, app.root.to_s)

    # bin/rails tmp:clear also removes the profiles when they are under
    # tmp/ (and only the files tracegraph names as it writes them);
    # bin/rails tmp:tracegraph:clear removes them wherever they are.
    rake_tasks do |app|
      app ||= ::Rails.application
      namespace :tmp do
        namespace :tracegraph do
          desc "Clears the profiles tracegraph wrote (config.tracegraph.directory)"
          task :clear do
            dir = Railtie.directory(app)
            next unless File.directory?(dir)

            RequestFiles.new(dir: dir, formats: [], keep: 0).clear
          end
        end
        tmp = File.join(app.root.to_s, "tmp", "")
        task clear: "tmp:tracegraph:clear" if File.join(Railtie.directory(app), "").start_with?(tmp)
      end
    end

    initializer "tracegraph.middleware" do |app|
      settings = app.config.tracegraph
      next unless Railtie.enabled?(settings, ::Rails.env)

      token = Railtie.token_options(settings, ::Rails.env)
      if token.key?(:token) && token[:token].to_s.empty?
        ::Rails.logger&.warn("tracegraph: config.tracegraph.token is not set (or empty): no request will be profiled")
      end
      app.config.middleware.insert_before(
        0, RailsMiddleware,
        permit: settings.permit, skip_paths: settings.skip_paths, **token,
        dir: Railtie.directory(app), keep: settings.keep, formats: settings.formats,
        **RECORDING_DEFAULTS.to_h { |name, _| [name, settings[name]] },
        logger: ::Rails.logger, app_root: app.root.to_s
      )
    end
  end
end
