# The "runs" member of the JSON: each run's numbers, kept by a median
# profile (Profile.median, model/run_stats.rb) for the diff's gate, written
# with the profile and read back, checked, with it. See the top of
# model/run_stats.rb for its form.
module Tracegraph
  # Reads the "runs" member back (Formats::Json.to_h writes it).
  module RunSamplesLoader
    def profile
      profile = super
      profile.runs = run_samples(@data["runs"], profile.methods) if @data.key?("runs")
      profile
    end

    private

    def run_samples(runs, methods)
      object!(runs, "runs")
      count = runs["count"]
      fail!("runs.count must be a positive integer, not #{count.inspect[0, 40]}") unless count.is_a?(Integer) && count.positive?
      totals = samples!(runs["total_time"], count, "runs.total_time")
      rows = %w[self_time calls].map do |key|
        list = runs[key]
        unless list.is_a?(Array) && list.size == methods.size
          fail!("runs.#{key} must be an array of one row per method (#{methods.size}), not #{json_type(list)}")
        end
        list.each_with_index.map { |row, i| samples!(row, count, "runs.#{key}[#{i}]") }
      end
      by_name = {}
      methods.each_with_index { |m, i| by_name[m.name] ||= [rows[0][i], rows[1][i]] }
      others(runs, count).each { |name, samples| by_name[name] ||= samples }
      RunSamples.new(count: count, total_times: totals, by_name: by_name)
    end

    # The samples of methods left out of the median: name => [self_times, calls].
    def others(runs, count)
      return [] unless runs.key?("others")

      list = runs["others"]
      fail!("runs.others must be an array, not #{json_type(list)}") unless list.is_a?(Array)
      list.each_with_index.map do |other, i|
        where = "runs.others[#{i}]"
        object!(other, where)
        [Profile.clean_name(string!(other, "name", where)),
         %w[self_time calls].map { |key| samples!(other[key], count, "#{where}.#{key}") }]
      end
    end

    def samples!(list, count, where)
      unless list.is_a?(Array) && list.size == count && list.all? { |v| v.is_a?(Integer) && v >= 0 && v < 2**64 }
        fail!("#{where} must be an array of #{count} non-negative integers")
      end
      list
    end
  end
  JsonLoader.prepend(RunSamplesLoader)
end
