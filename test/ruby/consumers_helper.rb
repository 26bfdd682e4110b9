require "json"
require "open3"

# The real consumers the format tests hand our files to, and the one way
# each test skips when its consumer is absent: Node, and the npm packages
# that bin/setup installs with `npm ci` in test/consumers.
module ConsumersHelper
  CONSUMERS = File.expand_path("../consumers", __dir__)
  SPEEDSCOPE_IMPORTER = File.join(CONSUMERS, "speedscope_import.js")
  # Under `rake test:asan` the ASan runtime is preloaded into this Ruby.
  # Node and what it starts must not inherit it: a browser never starts,
  # and the Firefox Profiler's daemon misses its 500 ms to get ready.
  NODE_ENV = {"LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil}.freeze

  def require_node!
    skip "node is not installed (apt-get install nodejs npm)" unless system("command -v node > /dev/null 2>&1")
  end

  # Skips unless test/consumers/node_modules/<path> exists; `what` names
  # the package in the message.
  def require_npm_package!(path, what)
    require_node!
    return if File.exist?(File.join(CONSUMERS, "node_modules", path))

    skip "#{what} is not installed (bin/setup runs npm ci in test/consumers)"
  end

  # Open3.capture3 of `node *args`, without the ASan runtime; env is
  # added to the environment.
  def capture_node(*args, env: {}, **options)
    Open3.capture3(NODE_ENV.merge(env), "node", *args, **options)
  end

  # speedscope's own importer on path: its profiles as JSON (name, unit,
  # total, heaviest stack per thread).
  def speedscope_import(path)
    require_npm_package!("speedscope", "speedscope's npm package")
    out, err, status = capture_node(SPEEDSCOPE_IMPORTER, path)
    assert status.success?, "speedscope could not import #{path}: #{err}"
    JSON.parse(out)
  end
end
