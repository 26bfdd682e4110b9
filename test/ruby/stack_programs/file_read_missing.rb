# File.read and File.open on a missing file raise Errno::ENOENT from C.
module StackPrograms
  module FileReadMissing
    PATH = "/nonexistent-tracegraph-stack-programs/missing.txt"

    def self.not_found(path) = path.size
    def self.after = :after

    def self.slurp(path)
      File.read(path)
    rescue Errno::ENOENT
      not_found(path)
    end

    def self.open_it(path)
      File.open(path) { |f| f.read }
    rescue SystemCallError
      not_found(path)
      after
    end

    def self.run
      slurp(PATH)
      after
      open_it(PATH)
      after
    end
  end
end
