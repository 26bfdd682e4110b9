require_relative "lib/tracegraph/version"

Gem::Specification.new do |s|
  s.name = "tracegraph"
  s.version = Tracegraph::VERSION
  s.summary = "A tracing profiler for Ruby that draws where the time went as a call graph"
  s.description = "tracegraph records every method call and return with a C event hook, keeps exact " \
                  "per-method and per-edge counts and times, and writes Graphviz call graphs and JSON."
  s.authors = ["tracegraph developers"]
  s.license = "MIT"
  s.homepage = "https://github.com/tracegraph/tracegraph"
  s.metadata = {
    "source_code_uri" => "https://github.com/tracegraph/tracegraph",
    "changelog_uri" => "https://github.com/tracegraph/tracegraph/blob/main/CHANGELOG.md",
    "bug_tracker_uri" => "https://github.com/tracegraph/tracegraph/issues",
    "rubygems_mfa_required" => "true"
  }
  s.required_ruby_version = ">= 3.1"
  s.files = Dir["lib/**/*.{rb,js,css}", "lib/tracegraph/formats/html/vendor/*", "ext/tracegraph/**/*.{c,h,rb}", "exe/*", "examples/**/*", "README.md", "LICENSE", "CHANGELOG.md",
                 "docs/**/*.md", "CMakeLists.txt"]
  s.bindir = "exe"
  s.executables = ["tracegraph"]
  s.extensions = ["ext/tracegraph/extconf.rb"]
  s.require_paths = ["lib"]
end
