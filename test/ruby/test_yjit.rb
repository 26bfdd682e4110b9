require_relative "test_helper"
require "stringio"

# A profile says whether YJIT was on while it was recorded: traced code
# runs in the interpreter, so its times are the interpreter's
# (docs/accuracy.md#yjit). rake test:rubies runs the whole suite under
# Ruby 3.4 with YJIT on too (the 3.4-yjit chroot).
class TestYjit < TracegraphTest
  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

  def yjit_on? = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? true : false

  def test_a_profile_says_whether_yjit_was_on
    profile = Tracegraph.profile { fib(12) }
    assert_equal yjit_on?, profile.yjit?
    assert_equal 465, method_named(profile, "TestYjit#fib").calls, "counts stay exact with YJIT #{yjit_on? ? 'on' : 'off'}"
  end

  def test_rake_test_rubies_yjit_ruby_has_yjit_on
    skip "not the 3.4-yjit chroot" unless ENV["RUBY_YJIT_ENABLE"] == "1"
    assert yjit_on?, "RUBY_YJIT_ENABLE=1 but YJIT is off: #{RUBY_DESCRIPTION}"
  end

  def yjit_profile
    profile = Tracegraph.profile { fib(8) }
    Tracegraph::Profile.new(clock: profile.clock, threads: profile.threads, methods: profile.methods,
                            edges: profile.edges, program: "app.rb", wall_time: profile.wall_time,
                            tracing_cost: profile.tracing_cost, yjit: true)
  end

  def test_every_report_says_the_times_are_the_interpreters
    profile = yjit_profile
    assert_includes profile.to_dot, Tracegraph::Profile::YJIT_NOTE
    flat = StringIO.new
    profile.print_flat(flat)
    assert_match(/^YJIT was on: these are the interpreter's times: traced code is not compiled/, flat.string)
    assert_match(/"yjit":true/, profile.to_html)
    refute_includes Tracegraph.profile { fib(3) }.tap { |p| skip "YJIT is on" if p.yjit? }.to_dot,
                    Tracegraph::Profile::YJIT_NOTE
  end

  def test_the_mark_survives_json_views_merges_and_medians
    profile = yjit_profile
    loaded = Tracegraph::Profile.parse_json(profile.to_json)
    assert loaded.yjit?
    assert_includes profile.to_json, %("yjit":true)
    assert profile.view(idle: :hide).yjit?
    assert profile.group_by(:class).yjit?
    assert Tracegraph::Profile.merge([profile, Tracegraph.profile { fib(2) }]).yjit?
    assert Tracegraph::Profile.median([profile, profile]).yjit?
    plain = Tracegraph::Profile.parse_json(Tracegraph.profile { fib(2) }.to_json)
    assert_equal yjit_on?, plain.yjit?
  end
end
