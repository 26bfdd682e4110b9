# `rake test:rubies`: the whole test suite (each prerequisite of `rake test`)
# under Ruby 3.3 (Debian trixie), Ruby 3.4 (sid + experimental), and Ruby 3.4
# with YJIT on (3.4-yjit: Debian's ruby3.4 built again with YJIT, every Ruby
# started with RUBY_YJIT_ENABLE=1), each in a cached Debian chroot that
# bin/ruby-chroot builds and enters (as root). Every Ruby runs, then one
# summary line each; fails if any did. RUBIES="3.3" picks.
# `rake "rubies:sh[3.4,rake test:ruby]"` runs one command under a Ruby from
# the checkout copied to /work (commas split rake arguments: for a command
# with one, call bin/ruby-chroot VERSION COMMAND... directly).
RUBY_CHROOT = File.join(ROOT, "bin/ruby-chroot")
RUBIES_LOGS = File.join(ROOT, "tmp/rubies")

# Runs in the chroot, under its Ruby: proves which Ruby it is, runs each task
# given (all of them, even after a failure), then says whether the peers load.
RUBIES_SUITE = <<~'RUBY'
  yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? " +YJIT" : ""
  puts "== ruby #{RUBY_VERSION}#{yjit} (#{RbConfig.ruby})"
  ok = ARGV.map { |task| system(RbConfig.ruby, "-S", "rake", task) }.all?
  peers = {"ruby-prof" => "RubyProf", "stackprof" => "StackProf"}.map do |lib, mod|
    require lib
    "#{lib} #{Object.const_get(mod)::VERSION}"
  rescue LoadError
    "#{lib} does not load"
  end
  puts "== peers: #{peers.join(', ')}"
  exit ok
RUBY

# "ruby 3.3.8: 140 runs, 0 failures, 0 errors, 2 skips; C tests: 9/9 passed; ..."
def rubies_summary(version, output)
  ruby = output[/^== ruby (\S+(?: \+YJIT)?)/, 1] || version
  minitest = output.scan(/^(\d+ runs), \d+ assertions, (\d+ failures, \d+ errors, \d+ skips)/).last
  ctest = output.scan(/tests passed, (\d+) tests? failed out of (\d+)/).last
  parts = [minitest ? minitest.join(", ") : "Ruby tests: no result",
           ctest ? "C tests: #{ctest[1].to_i - ctest[0].to_i}/#{ctest[1]} passed" : "C tests: no result"]
  parts << output[/^== peers: (.*)/, 1] if output.include?("== peers: ")
  "ruby #{ruby}: #{parts.join('; ')}"
end

namespace :test do
  desc "Run every test under Ruby 3.3, 3.4 and 3.4 with YJIT in cached Debian chroots (RUBIES=\"3.3 3.4 3.4-yjit\"; root)"
  task :rubies do
    mkdir_p RUBIES_LOGS, verbose: false
    $stdout.sync = true # keep up with the chroot's output when it goes to a pipe
    results = ENV.fetch("RUBIES", "3.3 3.4 3.4-yjit").split(/[\s,]+/).map do |version|
      log = File.join(RUBIES_LOGS, "#{version}.log")
      puts "== Ruby #{version} (output also in #{log})"
      output = +""
      cmd = [RUBY_CHROOT, version, "ruby", "-e", RUBIES_SUITE, *Rake::Task[:test].prerequisites]
      IO.popen(cmd, err: %i[child out]) do |io|
        io.each_line { |line| $stdout.print line; output << line }
      end
      File.write(log, output)
      [rubies_summary(version, output), $?.success?]
    end
    puts "", *results.map(&:first)
    failed = results.count { |_, ok| !ok }
    fail "test:rubies: #{failed} of #{results.size} Rubies failed" if failed > 0
  end
end

namespace :rubies do
  desc "Run CMD (default: a shell) under Ruby VERSION in its chroot, in the checkout copied to /work"
  task :sh, [:version, :cmd] do |_, args|
    abort "usage: rake \"rubies:sh[3.3,ruby -v]\"" unless args[:version]
    sh RUBY_CHROOT, args[:version], *(args[:cmd] ? ["sh", "-c", args[:cmd]] : [])
  end
end
