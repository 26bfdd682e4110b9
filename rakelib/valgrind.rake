# `rake test:valgrind`: the C core's Check tests under valgrind's memcheck.
# A separate, unsanitized build (valgrind and ASan do not mix); CK_FORK=no
# keeps each test in the process valgrind watches.
namespace :test do
  desc "C core tests under valgrind --leak-check=full"
  task :valgrind do
    dir = File.join(ROOT, "tmp/cmake-valgrind")
    sh "cmake -S #{ROOT} -B #{dir} -DCMAKE_BUILD_TYPE=Debug -DTG_SANITIZE=OFF > /dev/null"
    sh "cmake --build #{dir} #{JOBS}"
    tests = Dir[File.join(ROOT, "test/c/test_*.c")].map { |src| File.join(dir, File.basename(src, ".c")) }
    tests.each do |exe|
      sh({"CK_FORK" => "no"}, "valgrind", "-q", "--leak-check=full", "--error-exitcode=1", exe)
    end
  end
end
