# Tracegraph in a Rails app: `gem "tracegraph"` in the Gemfile (or
# `require "tracegraph/rails"`) installs Tracegraph::Railtie, and then
#
#   GET /posts?tracegraph=1      (or the header X-Tracegraph: 1)
#
# profiles that request alone and answers it as usual, with the header
# X-Tracegraph-Report: tmp/tracegraph/posts-index-20261126-142233.html,
# the HTML report (its JSON beside it, for diff, merge and the gate). The
# files are written after the response has gone out. Other requests run
# unprofiled.
#
# Where: in development, a middleware first in the stack; in production
# (and any other environment but test) only if config.tracegraph.permit
# is set, and then only for the requests it allows; in test, off unless
# config.tracegraph.enabled = true. Settings (config/application.rb or
# config/environments/*.rb):
#
#   config.tracegraph.enabled     true/false: on or off in any environment (default: as above)
#   config.tracegraph.permit      ->(env) { ... }: which opted-in requests may be profiled
#   config.tracegraph.directory   where files go, from Rails.root (default "tmp/tracegraph")
#   config.tracegraph.formats     besides the JSON (default %w[html]; as Tracegraph::Rack's formats:)
#   config.tracegraph.clock       :wall (default), :cpu or :thread_cpu
#   config.tracegraph.c_calls     trace methods written in C (default true)
#   config.tracegraph.allocations count allocations (default false)
#   config.tracegraph.call_tree   record the call tree, for the HTML report's flame graph (default true)
#   config.tracegraph.skip_paths  paths never profiled: Regexps or String prefixes
#                                 (default: /assets/ and /packs/)
#
# A request may ask for more in its parameter, comma-separated:
# ?tracegraph=allocations, ?tracegraph=cpu, ?tracegraph=allocations,no_c_calls.
require "tracegraph/rack"
require "tracegraph/rails_sql"

module Tracegraph
  # Tracegraph::Rack for opted-in requests only, with Rails' names and
  # timing: files named by controller and action, the report's path (the
  # HTML's, or the JSON's when formats: has no html) in the response's
  # X-Tracegraph-Report header, and the writing deferred to
  # after the response (rack.after_reply where the server has it, as
  # puma does, else the body's close).
  class RailsMiddleware < Rack
    REPORT_HEADER = "x-tracegraph-report"
    DEFAULT_SKIP_PATHS = [%r{\A/assets/}, %r{\A/packs/}].freeze
    # What ?tracegraph= may ask for besides 1, true or yes.
    REQUEST_OPTIONS = {
      "allocations" => {allocations: true}, "no_c_calls" => {c_calls: false},
      "wall" => {clock: :wall}, "cpu" => {clock: :cpu}, "thread_cpu" => {clock: :thread_cpu}
    }.freeze

    #   permit:     nil (any opted-in request) or a callable taking the Rack
    #               env, true for the requests that may be profiled
    #   skip_paths: Regexps or String prefixes of paths never profiled
    #   app_root:   the application's directory: its queries become boxes
    #               under its methods (rails_sql.rb); nil for none
    #   call_tree:  record the call tree (default true): the HTML report's
    #               flame graph, and the stack formats' data
    # and Tracegraph::Rack's dir:, formats:, clock:, c_calls:, gc:,
    # blocks:, allocations:, logger:.
    def initialize(app, permit: nil, skip_paths: DEFAULT_SKIP_PATHS, app_root: nil, call_tree: true, **options)
      raise ArgumentError, "permit must respond to call, not #{permit.inspect}" unless permit.nil? || permit.respond_to?(:call)

      @permit = permit
      @sql = app_root && RailsSql.new(root: app_root)
      @call_tree = OptionChecks.boolean!(:call_tree, call_tree)
      @skip_paths = Array(skip_paths).map { |pattern| path_matcher(pattern) }
      super(app, **options, opt_in: true)
    end

    # "opt-in" for a request that asks and may be profiled, else nil.
    def choose(env)
      return nil unless requested_options(env)
      return nil if @skip_paths.any? { |matches| matches.call(env["PATH_INFO"].to_s) }
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
    # is written later (respond), or now if the app raised ($! in the
    # middleware's ensure), since then there is no response to wait for.
    def save(profile, env, started, _reason)
      profile = @sql ? @sql.finish(profile) : profile
      return log(env, :error, "tracegraph: #{describe(env)}: the app stopped the profiler") unless profile

      pending = [@files.reserve("#{request_name(env)}-#{started.utc.strftime('%Y%m%d-%H%M%S')}"), profile]
      write_pending(env, pending) if $!
      pending
    rescue StandardError => e
      log(env, :error, "tracegraph: could not write the profile of #{describe(env)}: #{e.message}")
      nil
    end

    def respond(env, response, pending)
      status, headers, body = response
      return [status, with_header(headers, "profiled, but its files could not be written"), body] unless pending

      headers = with_header(headers, "#{Tracegraph.short_path(pending[0])}.#{report_extension}", REPORT_HEADER)
      headers = with_header(headers, "profiled")
      write = -> { write_pending(env, pending) }
      if env["rack.after_reply"].is_a?(Array)
        env["rack.after_reply"] << write
        [status, headers, body]
      else
        [status, headers, ::Rack::BodyProxy.new(body, &write)]
      end
    end

    # The file the header names: what a developer opens.
    def report_extension = @files.formats.include?("html") ? "html" : "json"

    def write_pending(env, (base, profile))
      written = @files.write_reserved(profile, base)
      log(env, :info, "tracegraph: profiled #{describe(env)}: #{written.join(' ')}")
    rescue StandardError => e
      log(env, :error, "tracegraph: could not write the profile of #{describe(env)}: #{e.message}")
    end

    # "posts-index" from the route Rails chose ("admin/posts" gives
    # "admin-posts-index"), or the path where no route matched.
    def request_name(env)
      params = env["action_dispatch.request.path_parameters"] || {}
      route = [params[:controller], params[:action]].compact.join("-")
      RequestFiles.path_part(route.empty? ? env["PATH_INFO"] : route)
    end
  end

  # Installs RailsMiddleware as the app boots; see the top of this file.
  class Railtie < ::Rails::Railtie
    config.tracegraph = ActiveSupport::OrderedOptions.new
    config.tracegraph.enabled = nil
    config.tracegraph.permit = nil
    config.tracegraph.directory = "tmp/tracegraph"
    config.tracegraph.formats = %w[html]
    config.tracegraph.clock = :wall
    config.tracegraph.c_calls = true
    config.tracegraph.allocations = false
    config.tracegraph.call_tree = true
    config.tracegraph.skip_paths = RailsMiddleware::DEFAULT_SKIP_PATHS

    # Whether the middleware goes in, by the settings and the environment.
    def self.enabled?(settings, environment)
      return settings.enabled unless settings.enabled.nil?
      return false if environment.test?

      environment.development? || !settings.permit.nil?
    end

    initializer "tracegraph.middleware" do |app|
      settings = app.config.tracegraph
      next unless Railtie.enabled?(settings, ::Rails.env)

      app.config.middleware.insert_before(
        0, RailsMiddleware,
        permit: settings.permit, skip_paths: settings.skip_paths,
        dir: File.expand_path(settings.directory.to_s, app.root.to_s), formats: settings.formats,
        clock: settings.clock, c_calls: settings.c_calls, allocations: settings.allocations,
        logger: ::Rails.logger, app_root: app.root.to_s, call_tree: settings.call_tree
      )
    end
  end
end
