# `rake fuzz`: the libFuzzer targets in test/fuzz (clang, ASan + UBSan),
# each for FUZZ_SECONDS (20), then the JSON loader's mutation fuzzer.
# Binaries and corpora live under tmp/fuzz; crashes are written there too.
FUZZ_DIR = File.join(ROOT, "tmp/fuzz")
FUZZ_CC = ENV.fetch("FUZZ_CC") { system("command -v clang-14 > /dev/null") ? "clang-14" : "clang" }

def fuzz_target(name)
  exe = File.join(FUZZ_DIR, name)
  core = Dir[File.join(EXT_DIR, "core", "*.c")]
  sh FUZZ_CC, "-g", "-O1", "-std=c11", "-D_POSIX_C_SOURCE=200809L",
     "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all",
     "-I#{File.join(EXT_DIR, "core")}", File.join(ROOT, "test/fuzz/#{name}.c"), *core, "-lm", "-o", exe
  exe
end

desc "Fuzz the DOT escaper, the DOT emitter (FUZZ_SECONDS each, default 20) and the JSON loader"
task fuzz: :compile do
  seconds = Integer(ENV.fetch("FUZZ_SECONDS", "20"))
  %w[fuzz_escape fuzz_dot].each do |name|
    mkdir_p corpus = File.join(FUZZ_DIR, "corpus-#{name}")
    exe = fuzz_target(name)
    # Every 256th DOT input also goes through the real dot.
    env = name == "fuzz_dot" && system("command -v dot > /dev/null") ? {"FUZZ_DOT_COMMAND" => "dot -Tcanon"} : {}
    sh env, exe, "-max_total_time=#{seconds}", "-print_final_stats=1",
       "-artifact_prefix=#{FUZZ_DIR}/#{name}-", corpus
  end
  ruby "-Ilib", File.join(ROOT, "test/fuzz/fuzz_json.rb"), ENV.fetch("FUZZ_JSON_ITERATIONS", "20000"),
       ENV.fetch("FUZZ_SEED", "1")
end
