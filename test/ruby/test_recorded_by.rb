require_relative "test_helper"
require "json"

# Every profile says which of the hook's two paths recorded it, on which
# Ruby and why (issue #45): the VM reads the probe checked, or Ruby's
# public API alone (docs/rubies.md). The JSON keeps it, the DOT legend's
# last line and the HTML report's header (test_html.rb) show it, and
# `tracegraph --version` says it of this Ruby (test_cli.rb).
class TestRecordedBy < TracegraphTest
  def test_the_three_verdicts_in_words
    probe = Tracegraph::FrameProbe
    assert_equal "VM reads checked on 3.4.5", probe.verdict(:checked, "3.4.5")
    assert_equal "public API only: TRACEGRAPH_NO_VM_READS is set (Ruby 3.4.5)", probe.verdict(:turned_off, "3.4.5")
    assert_equal "public API only: Ruby 4.1.0's frame layout was not recognised", probe.verdict(:not_recognised, "4.1.0")
    assert_nil probe.verdict(nil, "3.4.5"), "nothing before the first start has probed"
  end

  def test_a_recorded_profile_says_which_path_recorded_it
    profile = Tracegraph.profile { 2.times { 1.to_s } }
    assert_equal expected_probe_verdict, Tracegraph._vm_probe_verdict
    assert_equal expected_probe_verdict == :checked, Tracegraph._vm_reads?
    assert_equal Tracegraph::FrameProbe.verdict(expected_probe_verdict, RUBY_VERSION), profile.recorded_by
    assert_equal profile.recorded_by, profile.view(threads: "main").recorded_by, "a view keeps it"
  end

  def test_the_json_keeps_it_and_a_file_without_it_loads
    profile = Tracegraph.profile { 1.to_s }
    data = JSON.parse(profile.to_json)
    assert_equal profile.recorded_by, data["recorded_by"]
    path = File.join(Dir.mktmpdir, "p.json")
    File.write(path, JSON.generate(data))
    assert_equal profile.recorded_by, Tracegraph::Profile.load_json(path).recorded_by
    data.delete("recorded_by")
    File.write(path, JSON.generate(data))
    assert_nil Tracegraph::Profile.load_json(path).recorded_by
    data["recorded_by"] = 3
    File.write(path, JSON.generate(data))
    assert_raises(Tracegraph::Error) { Tracegraph::Profile.load_json(path) }
  end

  def test_the_legends_last_line
    profile = Tracegraph.profile { 1.to_s }
    [profile, profile.group_by(:class), profile.view(threads: "main")].each do |p|
      assert_equal "Recorded with #{profile.recorded_by}", legend_lines(p.to_dot).last
    end
    empty = Tracegraph::Profile.new(clock: :wall, threads: [], methods: [], edges: [], recorded_by: "VM reads checked on 3.4.5")
    assert_equal "Recorded with VM reads checked on 3.4.5", legend_lines(empty.to_dot).last
    refute_match(/Recorded with/, Tracegraph::Profile.new(clock: :wall, threads: [], methods: [], edges: []).to_dot)
  end

  def test_a_merge_keeps_the_path_its_profiles_share
    a = Tracegraph.profile { 1.to_s }
    assert_equal a.recorded_by, Tracegraph::Profile.merge([a, a]).recorded_by
    other = Tracegraph::Profile.new(clock: a.clock, threads: a.threads, methods: a.methods, edges: a.edges,
                                    tracing_cost: a.tracing_cost,
                                    recorded_by: "public API only: Ruby 4.1.0's frame layout was not recognised")
    assert_nil Tracegraph::Profile.merge([a, other]).recorded_by, "two paths: neither says it alone"
  end

  # Ruby 4.0 inlines Class#new (opt_new): the legend of a profile it
  # recorded says so among its notes; earlier Rubies' do not.
  def test_the_legend_says_class_new_is_inlined_on_ruby_4
    a = Tracegraph.profile { Struct.new(:x).new(1) }
    on = ->(ruby) { Tracegraph::Profile.new(clock: a.clock, threads: a.threads, methods: a.methods, edges: a.edges, recorded_by: ruby) }
    lines = legend_lines(on["VM reads checked on 4.0.1"].to_dot)
    assert_includes lines, "Class#new is inlined on Ruby 4.0.1 (no box of its own)"
    assert_equal "Recorded with VM reads checked on 4.0.1", lines.last
    lines = legend_lines(on["public API only: Ruby 4.1.0's frame layout was not recognised"].to_dot)
    assert_includes lines, "Class#new is inlined on Ruby 4.1.0 (no box of its own)"
    refute_match(/Class#new is inlined/, on["VM reads checked on 3.4.5"].to_dot)
    refute_match(/Class#new is inlined/, on[nil].to_dot)
  end

  private

  # The legend's lines, each unwrapped (tg_dot wraps at 60 characters).
  def legend_lines(dot)
    label = dot[/legend \[[^\n]*label="(.*?)"\]/, 1]
    label.gsub("\\l    ", " ").split("\\l").reject(&:empty?)
  end
end
