require_relative "test_helper"

# lib/tracegraph/ is in layers whose dependencies run one way, lowest
# first (the top of lib/tracegraph.rb lists them). A file may require, and
# name the constants and Tracegraph methods of, its own layer and those
# below it, never one above: the model cannot know of a format, a format
# of the command line. (The extension's methods, defined in C, are
# anyone's.)
class TestLayers < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)

  LAYERS = %w[model formats comparison api output cli entry].freeze

  # The recorder's API (lib/tracegraph.rb) sits above comparison, so
  # `require "tracegraph"` gives the whole library, and below output,
  # which writes its profiles. The public entry points other than
  # "tracegraph" sit on top. VERSION is anyone's, and so is HeapRoom,
  # which the API and the command load before anything else.
  ROOT_FILES = {
    "tracegraph.rb" => "api", "tracegraph/version.rb" => "model", "tracegraph/heap_room.rb" => "model",
    "tracegraph/frame_probe.rb" => "api",
    "tracegraph/calibration.rb" => "api", "tracegraph/recording_options.rb" => "api",
    "tracegraph/tracegraph" => "api", # the compiled extension
    "tracegraph/autorun.rb" => "entry", "tracegraph/rack.rb" => "entry", "tracegraph/rake_task.rb" => "entry",
    "tracegraph/rails.rb" => "entry", "tracegraph/rails_sql.rb" => "entry"
  }.freeze

  # The one require that goes up, and only when Rails is loaded:
  # `gem "tracegraph"` in a Rails app's Gemfile installs the Railtie.
  UPWARD_REQUIRES = [["tracegraph.rb", "tracegraph/rails"]].freeze

  def self.layer_of(relative)
    relative = relative.sub(/\.(rb|so|bundle)\z/, "")
    ROOT_FILES.each { |file, layer| return layer if file.delete_suffix(".rb") == relative }
    folder = relative[%r{\Atracegraph/(\w+)/}, 1]
    folder if LAYERS.include?(folder)
  end

  def self.sources
    Dir[File.join(LIB, "**/*.rb")].sort.to_h { |path| [path.delete_prefix("#{LIB}/"), File.read(path)] }
  end

  # What a file requires, as paths relative to lib/ (without .rb); only
  # tracegraph's own files.
  def self.requires(relative, text)
    text.scan(/^\s*require(_relative)?\s*\(?\s*["']([^"']+)["']/).filter_map do |relative_form, name|
      name = File.expand_path(name, File.dirname(File.join(LIB, relative))).delete_prefix("#{LIB}/") if relative_form
      name if name == "tracegraph" || name.start_with?("tracegraph/")
    end
  end

  # Code without its comments and the text of its strings (a message may
  # name anything); what a string interpolates stays.
  def self.code(text)
    text.lines.map { |line| line.sub(/(\A|\s)#(?!\{).*/, "") }.join
        .gsub(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/m) { |string| string.scan(/#\{([^}]*)\}/).join(" ") }
  end

  # Constant name => the layers defining it (class, module or assignment).
  def self.constant_layers(sources)
    found = Hash.new { |h, k| h[k] = [] }
    sources.each do |relative, text|
      code(text).scan(/^\s*(?:class|module)\s+(?:\w+::)*([A-Z]\w*)|^\s*([A-Z]\w*)\s*=[^=~]/) do |a, b|
        found[a || b] << layer_of(relative)
      end
    end
    found
  end

  # Singleton methods of Tracegraph written in Ruby (def self.x directly in
  # module Tracegraph, or in its class << self) => the layers defining them.
  def self.tracegraph_method_layers(sources)
    found = Hash.new { |h, k| h[k] = [] }
    sources.each do |relative, text|
      code(text).scan(/^  def self\.(\w+[?!]?)/) { |(name)| found[name] << layer_of(relative) }
      code(text).scan(/^  class << self\n(.*?)^  end/m) do |(body)|
        body.scan(/^    def (\w+[?!]?)/) { |(name)| found[name] << layer_of(relative) }
      end
    end
    found
  end

  def rank(layer) = LAYERS.index(layer)

  def test_every_file_is_in_a_layer
    unplaced = self.class.sources.keys.reject { |relative| self.class.layer_of(relative) }
    assert_empty unplaced, "put these files in a layer's folder (#{LAYERS.join(', ')})"
  end

  def test_no_layer_requires_a_higher_one
    wrong = self.class.sources.flat_map do |relative, text|
      layer = self.class.layer_of(relative)
      self.class.requires(relative, text).filter_map do |required|
        target = self.class.layer_of(required) or next "#{relative} requires #{required}, which is in no layer"
        next if UPWARD_REQUIRES.include?([relative, required])
        "#{relative} (#{layer}) requires #{required} (#{target})" if rank(target) > rank(layer)
      end
    end
    assert_empty wrong
  end

  def test_no_layer_names_a_constant_of_a_higher_one
    sources = self.class.sources
    defined = self.class.constant_layers(sources)
    wrong = sources.flat_map do |relative, text|
      layer = self.class.layer_of(relative)
      self.class.code(text).scan(/(?<![\w:.@$])(?:Tracegraph::)?([A-Z]\w*)/).flatten.uniq.filter_map do |name|
        lowest = defined.fetch(name, []).min_by { |l| rank(l) } or next
        "#{relative} (#{layer}) names #{name} (#{lowest})" if rank(lowest) > rank(layer)
      end
    end
    assert_empty wrong
  end

  # A derived profile is built (Profile.new's viewed_from:, grouped_from:),
  # never finished by reaching into it with send: formats/json.rb once
  # finished its views so, and model/view.rb its waiting's whereabouts.
  # The model's own builders too (GroupSums) make what they make in
  # their constructor.
  def test_no_layer_reaches_into_an_object_with_send
    wrong = self.class.sources.filter_map do |relative, text|
      "#{relative} calls send(:...)" if self.class.code(text).match?(/\.(?:__)?send\(:/)
    end
    assert_empty wrong
  end

  def test_no_layer_calls_a_tracegraph_method_of_a_higher_one
    sources = self.class.sources
    defined = self.class.tracegraph_method_layers(sources)
    wrong = sources.flat_map do |relative, text|
      layer = self.class.layer_of(relative)
      self.class.code(text).scan(/\bTracegraph\.(\w+[?!]?)/).flatten.uniq.filter_map do |name|
        lowest = defined.fetch(name, []).min_by { |l| rank(l) } or next
        "#{relative} (#{layer}) calls Tracegraph.#{name} (#{lowest})" if rank(lowest) > rank(layer)
      end
    end
    assert_empty wrong
  end
end
