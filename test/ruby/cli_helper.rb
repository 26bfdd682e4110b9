require "open3"
require "rbconfig"
require "json"
require "tmpdir"

# Runs tracegraph's executables in a subprocess, as a user would.
module CliHelper
  ROOT = File.expand_path("../..", __dir__)
  EXE = File.join(ROOT, "exe/tracegraph")
  LIB = File.join(ROOT, "lib")

  def tracegraph(*args, chdir: @dir, env: {})
    Open3.capture3(env, RbConfig.ruby, "-I#{LIB}", EXE, *args, chdir: chdir)
  end

  def ruby(*args, chdir: @dir, env: {})
    Open3.capture3(env, RbConfig.ruby, "-I#{LIB}", *args, chdir: chdir)
  end

  def write_script(name, code)
    path = File.join(@dir, name)
    File.write(path, code)
    path
  end

  # A copy of the profile at `path` with every time divided by `factor`:
  # a base that head is sure to be slower than, however busy the machine.
  def write_faster_copy(path, copy, factor)
    data = JSON.parse(File.read(path))
    shrink = ->(h) { %w[total_time self_time].each { |k| h[k] /= factor if h.key?(k) } }
    data["total_time"] /= factor
    (data["threads"] + data["methods"] + data["edges"]).each(&shrink)
    if (runs = data["runs"]) # the per-run numbers of tracegraph --runs, too
      runs["total_time"].map! { |t| t / factor }
      runs["self_time"].each { |row| row.map! { |t| t / factor } }
    end
    File.write(copy, JSON.generate(data))
    copy
  end

  # Profiles as tracegraph --runs keeps them (medians of 5 runs, cpu
  # clock) of Object#main calling Object#work, whose runs took each of
  # work_ms (its milliseconds in each run), and Object#other (100 ms);
  # written to name in @dir, whose path it returns. Two of them whose
  # runs spread wider than a --fail-on-time limit make a gate that
  # cannot tell.
  def write_runs_profile(name, work_ms)
    ms = 1_000_000
    run = lambda do |work|
      main = Tracegraph::MethodStats.new(name: "Object#main", file: "app.rb", line: 1, calls: 1,
                                         total_time: (work + 101) * ms, self_time: ms, c_method: false)
      w = Tracegraph::MethodStats.new(name: "Object#work", file: "app.rb", line: 5, calls: 100,
                                      total_time: work * ms, self_time: work * ms, c_method: false)
      o = Tracegraph::MethodStats.new(name: "Object#other", file: "app.rb", line: 9, calls: 10,
                                      total_time: 100 * ms, self_time: 100 * ms, c_method: false)
      edges = [w, o].map { |m| Tracegraph::EdgeStats.new(caller: main, callee: m, calls: m.calls, total_time: m.total_time, self_time: m.self_time) }
      Tracegraph::Profile.new(clock: :cpu, methods: [main, w, o], edges: edges,
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
    end
    path = File.join(@dir, name)
    Tracegraph::Profile.median(work_ms.map(&run)).write_json(path)
    path
  end

  # A PATH where `dot` cannot be found, but ruby still can.
  def path_without_dot
    bin = File.join(@dir, "bin-no-dot")
    Dir.mkdir(bin) unless File.directory?(bin)
    File.symlink(RbConfig.ruby, File.join(bin, "ruby")) unless File.exist?(File.join(bin, "ruby"))
    bin
  end
end
