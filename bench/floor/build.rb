require "fileutils"
require "rbconfig"

# The floor (floor.c: an empty C hook that reads the TSC), built into
# `dir` by this Ruby, for a child process to load with -I dir.
module FloorBuild
  def self.into(dir)
    FileUtils.mkdir_p(dir)
    Dir.chdir(dir) do
      system(RbConfig.ruby, File.join(__dir__, "extconf.rb"), out: File::NULL, exception: true)
      system("make", "V=0", out: File::NULL, exception: true)
    end
  end
end
