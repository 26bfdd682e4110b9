# The workloads of bench/accuracy.rb: each a program run again and again,
# and the methods whose share of it the bench measures (its targets).
#
# They are here, not in bench/workloads/, because every file there is a
# workload of `rake bench` (Workloads.names lists the directory).
#
# Most targets are Ruby methods called a few times per run, each call doing
# a lot: bench/accuracy_run.rb measures the truth by wrapping the target, and
# a wrapper costs time itself (about 70 ns per call inside its own timing
# here, more around it), which would swamp the time of a one-line method
# called 300,000 times (the profiler's error on such a method shows in its
# caller's share instead). Only the lexer's #advance in rubocop is called
# thousands of times; the wrapper's calibrated cost is subtracted there
# (see accuracy_run.rb). The programs added for issue #44 (coderay, rexml)
# each have one target called tens of thousands of times, whose truth is
# stackprof's (bench/accuracy_sampling.rb): beside it, the wrapper's shows
# what a wrapper's cost does to such a method.
#
# Sizes are for about 0.2 to 0.5 s a run unprofiled on the 2-core machine
# of bench/ACCURACY.md; QUICK=1 (a smoke run) makes them about 5x shorter.
module AccuracyWorkloads
  # name: as WORKLOADS= names it; summary: one line for the report;
  # targets: method names as tracegraph names them; setup: called once in
  # the child before anything else, returns what runs the workload once
  # (anything with #call), or a String saying why it cannot run here;
  # residuals: how many calls of its kind each call of a target makes, for
  # the report's reported ÷ true per target, not inverted, and what that
  # leaves per call (call_kinds; nil elsewhere); not_compared: {name =>
  # why}, names stackprof and tracegraph give different methods.
  Workload = Struct.new(:name, :summary, :targets, :setup, :residuals, :not_compared, keyword_init: true)

  def self.quick? = ENV["QUICK"] == "1" || ENV["BENCH_QUICK"] == "1"

  # A workload is rounds of the same calls: n of them, or a fifth as many
  # in a smoke run (QUICK=1), whose calls are then the same size as the
  # real run's, only fewer. (Not fewer still: a run much shorter than the
  # scheduler's 10 ms slices is mostly noise.)
  def self.rounds(n) = quick? ? (n / 5.0).ceil : n

  # 1. Many tiny Ruby calls beside the same kind of time spent in a few
  # bigger C calls: the profiler's cost per call lands on the first.
  module TinyCalls
    ROUNDS = AccuracyWorkloads.rounds(20)
    TEXT = ("The quick brown fox jumps over the lazy dog. " * 25).freeze # 1,125 bytes

    def self.tiny(x) = x + 1

    # calls tiny n times (300,000 at full size)
    def self.many_tiny(n)
      s = 0
      i = 0
      while i < n
        s = tiny(s)
        i += 1
      end
      s
    end

    # n calls of String#tr over a kilobyte: the work is in C, in few calls
    def self.few_big(n)
      i = 0
      while i < n
        TEXT.tr("a-y", "b-z")
        i += 1
      end
    end

    def self.run
      ROUNDS.times do
        many_tiny(300_000)
        few_big(600)
      end
    end
  end

  # 2. An arithmetic loop (its + and < are instructions Ruby inlines, until
  # a C-call hook makes each a method call) beside string work done in a
  # few big C calls.
  module ArithVsString
    ROUNDS = AccuracyWorkloads.rounds(10)
    TEXT = Array.new(40) { |i| "word#{i} alpha beta, gamma; delta" }.join(" ").freeze # 1,269 bytes

    def self.arith(n)
      s = 0
      i = 0
      while i < n
        s += i
        i += 1
      end
      s
    end

    # n calls in all, a third each of gsub, scan and split
    def self.string_c(n)
      i = 0
      while i < n
        case i % 3
        when 0 then TEXT.gsub(/[aeiou]/, "*")
        when 1 then TEXT.scan(/\w+/)
        else TEXT.split(" ")
        end
        i += 1
      end
    end

    def self.run
      ROUNDS.times do
        arith(2_000_000)
        string_c(400)
      end
    end
  end

  # 3. Many short C calls on strings beside tiny Ruby calls: each side pays
  # a profiler per call, but only one of them is there without C calls.
  module CStringVsTiny
    ROUNDS = AccuracyWorkloads.rounds(4)
    WORD = "Tracegraph".freeze

    def self.short_c(n)
      i = 0
      while i < n
        WORD.upcase
        WORD.start_with?("Tr")
        WORD.reverse
        WORD.include?("ace")
        i += 1
      end
    end

    def self.double(x) = x * 2
    def self.add(a, b) = a + b

    def self.tiny_ruby(n)
      s = 0
      i = 0
      while i < n
        s = add(double(i), s)
        i += 1
      end
      s
    end

    def self.run
      ROUNDS.times do
        short_c(250_000)
        tiny_ruby(1_200_000)
      end
    end
  end

  # 4. Small blocks run by each, map and times, beside a big sort in C.
  module Blocks
    ROUNDS = AccuracyWorkloads.rounds(15)
    NUMBERS = Array.new(100) { |i| (i * 7919) % 100 }.freeze
    FLOATS = Array.new(20_000) { |i| ((i * 7919) % 20_011) / 3.0 }.freeze

    def self.small_blocks(n)
      s = 0
      n.times do
        NUMBERS.each { |x| s += x }
        NUMBERS.map { |x| x * 2 }
        10.times { |j| s += j }
      end
      s
    end

    def self.sort_c(n)
      n.times { FLOATS.sort }
    end

    def self.run
      ROUNDS.times do
        small_blocks(2_000)
        sort_c(4)
      end
    end
  end

  # 5. A real program: rubocop (Debian's package) inspecting three of its
  # own source files in this process, with its result cache off and its
  # default configuration, from an empty directory so that no project's
  # .rubocop.yml or Gemfile is found.
  module Rubocop
    FILES = %w[style/conditional_assignment.rb style/block_delimiters.rb style/safe_navigation.rb]
            .first(AccuracyWorkloads.quick? ? 1 : 3).freeze

    def self.setup
      begin
        spec = Gem::Specification.find_by_name("rubocop")
      rescue Gem::MissingSpecError
        return "rubocop is not installed (apt-get install rubocop)"
      end
      require "rubocop"
      require "tmpdir"
      require "stringio"
      Dir.chdir(Dir.mktmpdir("tracegraph-accuracy"))
      files = FILES.map { |f| File.join(spec.gem_dir, "lib/rubocop/cop", f) }
      args = ["--cache", "false", "--force-default-config", "--format", "quiet", *files]
      lambda do
        out = $stdout
        # its report of the offenses it finds (not to a File: rubocop closes
        # a formatter's output when it is a File)
        $stdout = StringIO.new
        RuboCop::CLI.new.run(args.dup) # it takes the options out of the array it is given
      ensure
        $stdout = out
      end
    end
  end

  # 6. Another real program: jekyll (Debian's package) building a small
  # site of its own in-process, with a generator plugin that spends its
  # time in a `while i < n; i += 1; end` loop: the loop that read 67% of a
  # jekyll build whose 27% it took, when tracing made its operators calls.
  module Jekyll
    POSTS = AccuracyWorkloads.quick? ? 12 : 60
    LOOP = 4_000_000

    # The plugin's loop: a Ruby method called once a build.
    module BusyLoop
      def self.spin(n)
        i = 0
        i += 1 while i < n
        i
      end
    end

    def self.setup
      begin
        require "jekyll"
      rescue LoadError
        return "jekyll is not installed (apt-get install jekyll)"
      end
      require "tmpdir"
      source = Dir.mktmpdir("tracegraph-accuracy-jekyll")
      write_site(source)
      generator = Class.new(::Jekyll::Generator) do
        def generate(_site) = BusyLoop.spin(LOOP)
      end
      AccuracyWorkloads.const_set(:JekyllBusyGenerator, generator) unless AccuracyWorkloads.const_defined?(:JekyllBusyGenerator)
      config = ::Jekyll.configuration("source" => source, "destination" => File.join(source, "_site"),
                                      "quiet" => true, "incremental" => false, "disable_disk_cache" => true)
      lambda do
        # Each run a whole build, as the first: without this, later runs
        # took the posts' HTML from jekyll's cache (in memory and in
        # .jekyll-cache), and one run differed from the next.
        ::Jekyll::Cache.base_cache.each_value(&:clear)
        ::Jekyll::Site.new(config).process
      end
    end

    def self.write_site(source)
      Dir.mkdir(File.join(source, "_posts"))
      File.write(File.join(source, "index.md"), "---\nlayout: null\n---\n# Index\n\n{% for post in site.posts %}* {{ post.title }}\n{% endfor %}\n")
      POSTS.times do |i|
        body = (1..20).map { |p| "Paragraph #{p} of post #{i}, with *emphasis* and `code`.\n\n```ruby\ndef x#{p} = #{p} + 1\n```\n" }.join("\n")
        File.write(File.join(source, "_posts", format("2026-01-%02d-post-%d.md", (i % 28) + 1, i)),
                   "---\ntitle: Post #{i}\nlayout: null\n---\n#{body}")
      end
    end
  end

  # 7. A real program nothing here was tuned on: CodeRay (Debian's
  # ruby-coderay) highlighting the optparse library of Ruby (60 KB) as HTML, in
  # two steps: scanning it into tokens, then encoding them. Its
  # Encoders::HTML#text_token is called once a token (tens of thousands
  # of times a run): the wrapper's truth is off there, the sampled one not.
  module Coderay
    SOURCE_FILE = File.join(RbConfig::CONFIG["rubylibdir"], "optparse.rb")
    ROUNDS = AccuracyWorkloads.rounds(5)

    def self.setup
      begin
        require "coderay"
      rescue LoadError
        return "CodeRay is not installed (apt-get install ruby-coderay)"
      end
      return "#{SOURCE_FILE} is missing" unless File.exist?(SOURCE_FILE)

      source = File.read(SOURCE_FILE)
      lambda do
        ROUNDS.times do
          tokens = CodeRay::Scanners::Ruby.new(source).tokenize
          CodeRay::Encoders::HTML.new.encode_tokens(tokens)
        end
      end
    end
  end

  # 8. Another: REXML (a gem bundled with Debian's Ruby) parsing a
  # generated XML document (140 KB) into a tree and writing it out again.
  # Its pull parser's #pull_event is called once a node.
  module Rexml
    ITEMS = AccuracyWorkloads.quick? ? 100 : 500

    def self.setup
      begin
        require "rexml/document"
      rescue LoadError
        return "REXML is not installed (it comes with Ruby's bundled gems)"
      end
      xml = +"<?xml version='1.0'?>\n<catalog>\n"
      ITEMS.times do |i|
        xml << %(<item id="#{i}" kind="#{%w[book disc map][i % 3]}"><name>Item &amp; thing #{i}</name>) <<
          %(<price currency="EUR">#{i * 3 % 97}.50</price><tags>#{(1..4).map { |t| "<tag>t#{(i * t) % 13}</tag>" }.join}</tags>) <<
          %(<note><![CDATA[free text #{i} <not markup>]]></note></item>\n)
      end
      xml << "</catalog>\n"
      xml.freeze
      lambda do
        document = REXML::Document.new(xml)
        out = +""
        document.write(output: out)
        out
      end
    end
  end

  # 9. One loop per kind of call that Ruby runs differently (issue #44
  # suspects the calibration, which times a plain call, a yield and a C
  # call, charges them all alike): each loop method makes N calls of its
  # kind and nothing else, and is called once a round, so its wrapper's
  # truth holds; the profile's share of each over its true share is what
  # the correction leaves of that kind (the report's per-kind residuals).
  module CallKinds
    ROUNDS = AccuracyWorkloads.rounds(5)
    N = AccuracyWorkloads.quick? ? 40_000 : 200_000

    class Parent
      def step(x) = x
    end

    class Target < Parent
      attr_reader :value

      def initialize(value = 0)
        @value = value
        super()
      end

      def plain(x) = x
      # Sets $~, which moves the method entry in its frame into an svar.
      def matching(text) = /z/ =~ text
      define_method(:defined) { |x| x }
      def step(x) = super
      def method_missing(name, *args) = name == :ghost ? args.first : super
      def respond_to_missing?(name, all = false) = name == :ghost || super
    end

    OBJ = Target.new(1)
    ONE = [1].freeze

    def self.plain_calls = N.times { |i| OBJ.plain(i) }
    def self.define_method_calls = N.times { |i| OBJ.defined(i) }
    def self.send_calls = N.times { |i| OBJ.send(:plain, i) }
    def self.public_send_calls = N.times { |i| OBJ.public_send(:plain, i) }
    def self.method_missing_calls = N.times { |i| OBJ.ghost(i) }
    def self.super_calls = N.times { |i| OBJ.step(i) }
    def self.attr_reader_calls = N.times { OBJ.value }
    def self.c_yield_calls = N.times { ONE.each { |x| x } }
    def self.new_calls = N.times { |i| Target.new(i) }
    def self.last_match_calls = N.times { OBJ.matching("abc") }

    KINDS = %i[plain_calls define_method_calls send_calls public_send_calls method_missing_calls super_calls
               attr_reader_calls c_yield_calls new_calls last_match_calls].freeze

    def self.run
      ROUNDS.times { KINDS.each { |kind| send(kind) } }
    end
  end

  def self.plain(mod) = -> { mod.method(:run) }

  ALL = [
    Workload.new(name: "tiny_calls",
                 summary: "#{TinyCalls::ROUNDS} rounds of: a method calling a one-line method 300,000 times, " \
                          "then one calling String#tr on 1 KB 600 times",
                 targets: %w[AccuracyWorkloads::TinyCalls.many_tiny AccuracyWorkloads::TinyCalls.few_big],
                 setup: plain(TinyCalls)),
    Workload.new(name: "arith_vs_string",
                 summary: "#{ArithVsString::ROUNDS} rounds of: a while loop of 2,000,000 additions, " \
                          "then 400 gsub/scan/split calls on 1.3 KB",
                 targets: %w[AccuracyWorkloads::ArithVsString.arith AccuracyWorkloads::ArithVsString.string_c],
                 setup: plain(ArithVsString)),
    Workload.new(name: "c_string_vs_tiny",
                 summary: "#{CStringVsTiny::ROUNDS} rounds of: 1,000,000 short C calls on a 10-byte string, " \
                          "then 2,400,000 calls of one-line Ruby methods",
                 targets: %w[AccuracyWorkloads::CStringVsTiny.short_c AccuracyWorkloads::CStringVsTiny.tiny_ruby],
                 setup: plain(CStringVsTiny)),
    Workload.new(name: "blocks",
                 summary: "#{Blocks::ROUNDS} rounds of: 2,000 times each and map over 100 numbers " \
                          "and 10.times, with small blocks, then sorting 20,000 floats 4 times",
                 targets: %w[AccuracyWorkloads::Blocks.small_blocks AccuracyWorkloads::Blocks.sort_c],
                 setup: plain(Blocks)),
    Workload.new(name: "rubocop",
                 summary: "rubocop inspecting #{Rubocop::FILES.size} of its own files in-process " \
                          "(--cache false, its default config)",
                 targets: %w[Parser::Lexer#advance Parser::Base#parse RuboCop::Cop::Commissioner#investigate],
                 setup: -> { Rubocop.setup }),
    Workload.new(name: "jekyll",
                 summary: "jekyll building a site of #{Jekyll::POSTS} posts in-process, with a generator " \
                          "plugin's loop of #{Jekyll::LOOP} additions",
                 targets: %w[AccuracyWorkloads::Jekyll::BusyLoop.spin Jekyll::Site#render Jekyll::Site#read],
                 setup: -> { Jekyll.setup }),
    Workload.new(name: "coderay",
                 summary: "CodeRay (ruby-coderay) highlighting Ruby's optparse.rb (60 KB) as HTML, " \
                          "#{Coderay::ROUNDS} times: tokens, then HTML",
                 targets: %w[CodeRay::Scanners::Scanner#tokenize CodeRay::Encoders::Encoder#encode_tokens
                             CodeRay::Encoders::HTML#text_token],
                 setup: -> { Coderay.setup },
                 not_compared: {"Array#push" => "CodeRay::Tokens makes `text_token` an alias of Array#push; stackprof " \
                                                "names every call of it Array#push, tracegraph by the name called"}),
    Workload.new(name: "rexml",
                 summary: "REXML (bundled with Ruby) parsing a generated XML document of #{Rexml::ITEMS} items " \
                          "into a tree, then writing it to a string",
                 targets: %w[REXML::Parsers::TreeParser#parse REXML::Document#write
                             REXML::Parsers::BaseParser#pull_event],
                 setup: -> { Rexml.setup }),
    Workload.new(name: "call_kinds",
                 summary: "#{CallKinds::ROUNDS} rounds of: a loop of #{CallKinds::N} calls of each kind " \
                          "(a plain method, define_method, send, public_send, method_missing, super, attr_reader, " \
                          "a C method that yields, Class#new with initialize, a method that sets $~)",
                 targets: CallKinds::KINDS.map { |k| "AccuracyWorkloads::CallKinds.#{k}" },
                 setup: plain(CallKinds), residuals: CallKinds::N)
  ].freeze

  def self.names = ALL.map(&:name)

  def self.fetch(name)
    ALL.find { |w| w.name == name } or
      raise ArgumentError, "unknown workload #{name.inspect} (have: #{names.join(', ')})"
  end
end
