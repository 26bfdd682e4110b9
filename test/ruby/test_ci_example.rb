require_relative "test_helper"
require_relative "cli_helper"
require "yaml"

# The CI example runs locally: its script profiles the demo and renders the
# artifacts the workflow uploads.
class TestCiExample < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-ci")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_profile_script_writes_the_artifacts
    bin = File.join(@dir, "bin")
    Dir.mkdir(bin)
    File.write(File.join(bin, "tracegraph"), "#!/bin/sh\nexec #{RbConfig.ruby} -I#{CliHelper::LIB} #{CliHelper::EXE} \"$@\"\n")
    File.chmod(0o755, File.join(bin, "tracegraph"))
    out_dir = File.join(@dir, "graphs")
    env = {"PATH" => "#{bin}:#{ENV['PATH']}"}
    _, err, status = Open3.capture3(env, "bash", "examples/ci/profile.sh", "examples/demo.rb", out_dir,
                                    chdir: CliHelper::ROOT)
    assert status.success?, err
    %w[call_graph.json call_graph.dot call_graph.pdf call_graph.svg].each do |file|
      assert File.size?(File.join(out_dir, file)), "#{file} missing"
    end
    assert_equal 15_000, Tracegraph::Profile.load_json(File.join(out_dir, "call_graph.json"))["Math.sqrt"].calls
  end

  def test_workflow_runs_that_script_and_uploads_its_directory
    workflow = YAML.safe_load(File.read(File.join(CliHelper::ROOT, "examples/ci/call-graphs.yml")))
    steps = workflow.fetch("jobs").fetch("profile").fetch("steps")
    assert(steps.any? { |s| s["run"].to_s.include?("examples/ci/profile.sh examples/demo.rb graphs") })
    upload = steps.find { |s| s["uses"].to_s.start_with?("actions/upload-artifact") }
    assert_equal "graphs/", upload.dig("with", "path")
  end
end
