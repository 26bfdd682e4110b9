require "fileutils"
require "rbconfig"

# Builds one of the bench's small C extensions (its extconf.rb) into
# `dir` with this Ruby, for a child process to load with -I dir.
module ExtensionBuild
  def self.into(dir, extconf)
    FileUtils.mkdir_p(dir)
    Dir.chdir(dir) do
      system(RbConfig.ruby, extconf, out: File::NULL, exception: true)
      system("make", "V=0", out: File::NULL, exception: true)
    end
  end
end
