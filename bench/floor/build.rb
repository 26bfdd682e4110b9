require_relative "../extension_build"

# The floor (floor.c: an empty C hook that reads the TSC), built into
# `dir` by this Ruby, for a child process to load with -I dir.
module FloorBuild
  def self.into(dir) = ExtensionBuild.into(dir, File.join(__dir__, "extconf.rb"))
end
