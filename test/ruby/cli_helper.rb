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

  # A PATH where `dot` cannot be found, but ruby still can.
  def path_without_dot
    bin = File.join(@dir, "bin-no-dot")
    Dir.mkdir(bin) unless File.directory?(bin)
    File.symlink(RbConfig.ruby, File.join(bin, "ruby")) unless File.exist?(File.join(bin, "ruby"))
    bin
  end
end
