# `rake vendor:graphviz VERSION=x.y.z`: replaces the Graphviz the HTML
# report lays out focused graphs with (lib/tracegraph/formats/html/vendor/)
# by that version of @viz-js/viz from the npm registry: its one classic
# script with the WebAssembly inlined (dist/viz-global.js), which the
# report inlines under its Content-Security-Policy. Nothing is fetched
# when a report is written or opened; only this task uses the network.
require "json"
require "tmpdir"

namespace :vendor do
  desc "Vendor @viz-js/viz (Graphviz in WebAssembly) for the HTML report: VERSION=x.y.z (npm)"
  task :graphviz do
    version = ENV.fetch("VERSION") { abort "rake vendor:graphviz VERSION=x.y.z (see npm view @viz-js/viz versions)" }
    abort "VERSION=#{version}: not an exact version" unless version.match?(/\A\d+\.\d+\.\d+\z/)
    vendor = File.expand_path("../lib/tracegraph/formats/html/vendor", __dir__)
    Dir.mktmpdir("tracegraph-vendor") do |dir|
      sh "npm", "pack", "--silent", "--pack-destination", dir, "@viz-js/viz@#{version}", out: File::NULL
      tarball = Dir[File.join(dir, "*.tgz")].first or abort "npm pack wrote no tarball"
      sh "tar", "-xzf", tarball, "-C", dir
      package = JSON.parse(File.read(File.join(dir, "package/package.json")))
      abort "unexpected package #{package['name']}@#{package['version']}" unless package["version"] == version
      script = File.read(File.join(dir, "package/dist/viz-global.js"), encoding: "UTF-8")
      abort "viz-global.js holds \"</script\" or \"<!--\": it could not be inlined" if script.match?(%r{</script|<!--}i)
      graphviz = File.read(File.join(dir, "package/lib/metadata.js"))[/graphvizVersion = "([^"]+)"/, 1]
      File.write(File.join(vendor, "viz-global.js"), script)
      File.write(File.join(vendor, "VERSIONS"), "@viz-js/viz #{version} (dist/viz-global.js)\nGraphviz #{graphviz}\n")
      puts "vendored @viz-js/viz #{version} (Graphviz #{graphviz}); check vendor/LICENSE-* still hold"
    end
  end
end
