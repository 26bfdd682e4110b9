# `rake torture`: the torture suite (test/torture) at ten times the
# iterations `rake test` uses. TORTURE_SCALE=n picks another multiplier.
require "rake/testtask"

Rake::TestTask.new(:torture_run) do |t|
  t.libs = %w[lib test/ruby]
  t.test_files = FileList["test/torture/test_*.rb"]
  t.warning = false
end
Rake::Task[:torture_run].clear_comments

desc "Torture tests at full size (TORTURE_SCALE, default 10): GC, stacks, threads, fork, hostile input"
task torture: :compile do
  ENV["TORTURE_SCALE"] ||= "10"
  Rake::Task[:torture_run].invoke
end
