# The SQL of a profiled Rails request, for the graph (model/sql_queries.rb):
# which queries ran, how long each took, and which of the application's
# methods ran it. Tracegraph::RailsMiddleware records them around each
# profiled request:
#
#   sql = RailsSql.new(root: Rails.root)
#   sql.start            # before Tracegraph.start: subscribes to sql.active_record
#   ...the request, profiled...
#   profile = sql.finish(Tracegraph.stop)   # unsubscribes; the queries as boxes
#
# The queries come from ActiveSupport's sql.active_record notifications,
# outside the event hook, through a subscriber that exists only while a
# request is profiled and takes only the profiled thread's queries. It
# skips SCHEMA queries (Rails reading its tables' columns) and cached ones
# (ActiveRecord's query cache answered them without the database: they
# stay in the graph as the query cache's methods, and get no box).
#
# Which method ran a query: the innermost frame of the application's own
# code, read from the profiler's own shadow stack at the notification
# (Tracegraph._stack_methods, the recording's method indexes): exact, as
# it is the very frame the profile shows, blocks and templates included,
# and cheap, one Array of Integers a query; resolving the indexes to
# files waits for the stop. caller_locations would cost a Location per
# Ruby frame (a Rails stack has some 150) and leave file:line to be
# matched back to a method, which a block defined in the middle of a
# method makes ambiguous. The application's code is the files under its
# root (app/, lib/, config/, the templates), but not vendor/, installed
# gems or tracegraph itself. A query no frame of the application ran (a
# gem's, at boot) goes under the innermost frame.
#
# The query's text goes only into the profile (and so its files), never
# into a log line.
require "tracegraph"

module Tracegraph
  # The subscriber's callback: a singleton method of Tracegraph, whose
  # methods the profiler leaves out of the profile, so that recording a
  # query adds nothing of ours to it but the few C methods called here.
  # Only the thread being profiled records (ivars: no method call).
  def self._sql_event(_name, started, finished, _id, payload)
    return unless @sql_thread.equal?(Thread.current)
    return if payload[:cached] || RailsSql::SKIPPED_NAMES.include?(payload[:name])

    # (to_f: Time#- is ActiveSupport's minus_with_coercion, a Ruby method
    # that would show in the profile; Rails 7 may hand Floats)
    @sql_queries << [_stack_methods, payload[:sql], finished.to_f - started.to_f]
  end

  class RailsSql
    EVENT = "sql.active_record"
    # Queries left out by their payload's name: Rails reading its schema,
    # and (with :cached unset, in older Rails) the query cache's answers.
    SKIPPED_NAMES = %w[SCHEMA CACHE].freeze

    # root: the application's directory (Rails.root).
    def initialize(root:)
      root = File.expand_path(root.to_s)
      @root = File.join(root, "")
      @excluded = [File.join(root, "vendor", ""), File.join(File.expand_path("..", __dir__), ""),
                   *Gem.path.map { |dir| File.join(File.expand_path(dir), "") }]
      @subscriber = nil
    end

    # Subscribes for the calling thread's queries, dropping those of a
    # start whose finish never came.
    def start
      stop_listening
      Tracegraph.instance_variable_set(:@sql_queries, [])
      Tracegraph.instance_variable_set(:@sql_thread, Thread.current)
      @subscriber = ActiveSupport::Notifications.subscribe(EVENT, Tracegraph.method(:_sql_event))
      nil
    end

    # Unsubscribes, and returns profile (nil: nil) with the queries recorded
    # since start as boxes under the methods that ran them.
    def finish(profile)
      queries = Tracegraph.instance_variable_get(:@sql_queries) || []
      stop_listening
      return profile unless profile&.recorded_methods

      profile.with_queries(resolve(profile.recorded_methods, queries))
    end

    # Unsubscribes if the calling thread's recording is still on: its
    # request was not profiled after all (Tracegraph.start failed), so no
    # finish came. Another thread's recording is left alone.
    def drop_if_left
      stop_listening if @subscriber && Tracegraph.instance_variable_get(:@sql_thread).equal?(Thread.current)
    end

    private

    def stop_listening
      ActiveSupport::Notifications.unsubscribe(@subscriber) if @subscriber
      @subscriber = nil
      Tracegraph.instance_variable_set(:@sql_thread, nil)
      Tracegraph.instance_variable_set(:@sql_queries, nil)
    end

    # Query structs, each under its innermost application frame. A query
    # recorded with no stack (the profiler paused) has no caller: dropped.
    def resolve(methods, queries)
      app = {}
      queries.filter_map do |stack, sql, seconds|
        frames = stack.filter_map { |index| methods[index] }
        caller = frames.reverse_each.find { |method| app.fetch(method.object_id) { app[method.object_id] = app?(method) } }
        caller ||= frames.last
        Query.new(caller: caller, sql: sql, time: (seconds * NANOS_PER_SECOND).round) if caller
      end
    end

    def app?(method)
      file = method.file
      return false unless file&.start_with?(@root)

      @excluded.none? { |dir| file.start_with?(dir) }
    end
  end
end
