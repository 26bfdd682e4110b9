# Real library code that raises and rescues inside itself, the way the
# wrong edges were first found: CSV's numeric converters (which try
# Integer() and Float() and rescue), JSON and Date on bad input,
# OptionParser on an unknown option, URI on a bad address, and Time.parse.
# Each library is loaded before the run, so only the parsing is traced.
require "csv"
require "json"
require "date"
require "time"
require "optparse"
require "uri"

module StackPrograms
  module StdlibParsersWithBadInput
    def self.failed(what) = what
    def self.after = :after

    def self.csv = CSV.parse("1,x,2.5\n3,,4e2\n", converters: :numeric)

    def self.json
      JSON.parse('{"a": [1, 2,')
    rescue JSON::ParserError
      failed(:json)
    end

    def self.date
      Date.parse("not a date")
    rescue Date::Error
      failed(:date)
    end

    def self.options
      OptionParser.new { |o| o.on("-v") }.parse(%w[--nope])
    rescue OptionParser::InvalidOption
      failed(:options)
    end

    def self.uri
      URI.parse("http://exa mple.com")
    rescue URI::InvalidURIError
      failed(:uri)
    end

    def self.run
      csv
      json
      date
      options
      uri
      Time.parse("2026-11-23 12:00:00 UTC")
      after
    end
  end
end
