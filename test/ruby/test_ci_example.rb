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

  # A directory with a `tracegraph` that runs this checkout's.
  def fake_path_bin
    bin = File.join(@dir, "bin")
    return bin if File.directory?(bin)

    Dir.mkdir(bin)
    File.write(File.join(bin, "tracegraph"), "#!/bin/sh\nexec #{RbConfig.ruby} -I#{CliHelper::LIB} #{CliHelper::EXE} \"$@\"\n")
    File.chmod(0o755, File.join(bin, "tracegraph"))
    bin
  end

  def test_profile_script_writes_the_artifacts
    bin = fake_path_bin
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

  def test_with_a_base_profile_it_diffs_and_can_gate
    bin = fake_path_bin
    out_dir = File.join(@dir, "graphs")
    env = {"PATH" => "#{bin}:#{ENV['PATH']}"}
    recorded = File.join(@dir, "recorded.json")
    _, err, status = Open3.capture3(env, File.join(bin, "tracegraph"), "-o", recorded, "examples/demo.rb",
                                    chdir: CliHelper::ROOT)
    assert status.success?, err
    base = write_faster_copy(recorded, File.join(@dir, "base.json"), 10)

    out, err, status = Open3.capture3(env.merge("FAIL_ABOVE" => "50"), "bash", "examples/ci/profile.sh",
                                      "examples/demo.rb", out_dir, base, chdir: CliHelper::ROOT)
    assert_equal 3, status.exitstatus, "a head ten times slower fails the gate: #{err}"
    assert_match(/Regressions \(self time grew\)/, out)
    assert_match(/Integer#times/, out)
    assert File.size?(File.join(out_dir, "diff.svg"))

    _, err, status = Open3.capture3(env, "bash", "examples/ci/profile.sh", "examples/demo.rb", out_dir, base,
                                    chdir: CliHelper::ROOT)
    assert status.success?, "without FAIL_ABOVE the diff only reports: #{err}"
    _, err, status = Open3.capture3(env, "bash", "examples/ci/profile.sh", "examples/demo.rb", out_dir,
                                    File.join(@dir, "missing.json"), chdir: CliHelper::ROOT)
    assert status.success?, "no base yet is not an error: #{err}"
  end

  def test_workflow_runs_that_script_and_uploads_its_directory
    workflow = YAML.safe_load(File.read(File.join(CliHelper::ROOT, "examples/ci/call-graphs.yml")))
    steps = workflow.fetch("jobs").fetch("profile").fetch("steps")
    assert(steps.any? { |s| s["run"].to_s.include?("examples/ci/profile.sh examples/demo.rb graphs previous/call_graph.json") })
    fetch = steps.find { |s| s["uses"].to_s.include?("download-artifact") }
    assert_equal "previous", fetch.dig("with", "path")
    upload = steps.find { |s| s["uses"].to_s.start_with?("actions/upload-artifact") }
    assert_equal "graphs/", upload.dig("with", "path")
  end
end
