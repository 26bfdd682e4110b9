require "json"
require "logger"
require "stringio"
require "tmpdir"
require "tracegraph/rack"

# A tiny Rack app whose routes call methods no other route calls, so a
# request's profile can be told apart by its counts.
module RackTestApp
  module Work
    def self.step(i) = i * 2
    def self.other_step(i) = i + 1
  end

  # GET /work/N calls Work.step N times; anything else calls
  # Work.other_step once. /boom raises after Work.step once.
  def self.call(env)
    path = env["PATH_INFO"]
    if (n = path[%r{\A/work/(\d+)\z}, 1])
      n.to_i.times { |i| Work.step(i) }
    elsif path == "/boom"
      Work.step(0)
      raise ArgumentError, "boom"
    else
      Work.other_step(0)
    end
    [200, {"content-type" => "text/plain"}, ["ok #{path}"]]
  end

  # The paths of the files a response's X-Tracegraph header names (by
  # their names alone) in dir.
  def self.files_in_header(header, dir)
    header.to_s[/\Aprofiled, wrote (.*)\z/, 1].to_s.split.map { |name| File.join(dir, name) }
  end
end
