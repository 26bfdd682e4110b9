# One GET /posts of the test app (test/fixtures/rails_app) recorded with
# the call tree, as bench/grouped_truth.rb needs it: run in the app's
# directory; writes the profile to ARGV[0]. Five warm-up requests first,
# so the profile is a request's, not the first request's loading.
require "./app"
require "tracegraph"

request = lambda do
  status, _, body = Rails.application.call(Rack::MockRequest.env_for("/posts"))
  body.each { |_| nil }
  body.close if body.respond_to?(:close)
  raise "GET /posts: #{status}" unless status == 200
end
5.times { request.() }
Tracegraph.start(call_tree: true, clock: :cpu)
request.()
Tracegraph.stop.write_json(ARGV.fetch(0))
