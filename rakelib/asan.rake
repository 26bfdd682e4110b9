# `rake test:asan`: the extension built with AddressSanitizer (extconf.rb
# honours TRACEGRAPH_ASAN) and a Ruby test pass against it. Ruby itself is
# not sanitized, so the ASan runtime is preloaded; leak checks are off
# because Ruby never frees its heap at exit, and ASan must not own the
# alternate signal stack (Ruby's threads set their own; ASan then fails to
# unmap it at thread exit: "unable to unmap"). The extension has no stack
# redzones (see extconf.rb: Ruby longjmps past them). A small quarantine keeps the
# RSS checks meaningful: ASan otherwise holds 256 MB of freed memory back. The .so goes to tmp/asan-lib,
# first on the load path, so lib/tracegraph/tracegraph.so is untouched.
namespace :test do
  ASAN_BUILD = File.join(ROOT, "tmp/ext-asan")
  ASAN_LIB = File.join(ROOT, "tmp/asan-lib")

  desc "Ruby tests against an AddressSanitizer build of the extension (TEST=FILE for one)"
  task :asan do
    build_extension(ASAN_BUILD, "TRACEGRAPH_ASAN" => "1")
    so = "tracegraph.#{RbConfig::CONFIG['DLEXT']}"
    mkdir_p File.join(ASAN_LIB, "tracegraph")
    install_library(File.join(ASAN_BUILD, so), File.join(ASAN_LIB, "tracegraph", so))

    libasan = `gcc -print-file-name=libasan.so`.strip
    env = {"LD_PRELOAD" => libasan, "ASAN_OPTIONS" => "detect_leaks=0:abort_on_error=1:use_sigaltstack=0:quarantine_size_mb=4",
           "TORTURE_SCALE" => "1"}
    # Check first that the ASan build, not lib/'s, is the one loaded.
    sh env, RbConfig.ruby, "-I#{ASAN_LIB}", "-Ilib", "-e",
       "require 'tracegraph'; so = $LOADED_FEATURES.grep(/tracegraph\\.so/).first; " \
       "abort \"loaded \#{so}\" unless so.start_with?(#{ASAN_LIB.dump})"
    # A process per file, as test:ruby runs them: one process for all took
    # 31 minutes of CI's 90 alone.
    files = ENV["TEST"] ? FileList[ENV["TEST"]] : RUBY_TEST_FILES
    jobs = Integer(ENV.fetch("TEST_JOBS", Etc.nprocessors))
    runner = TestRunner.new(files, serial: SERIAL_TEST_FILES.keys, jobs: jobs, env: env, load_path: [ASAN_LIB],
                                   test_opts: Shellwords.split(ENV["TESTOPTS"].to_s))
    runner.run or fail "test:asan failed"
  end
end
