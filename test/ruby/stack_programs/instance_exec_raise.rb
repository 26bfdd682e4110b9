# instance_exec, instance_eval and class_exec blocks that raise.
module StackPrograms
  module InstanceExecRaise
    class Box
      def helper(x) = x
      def after = :after
    end

    def self.recover = :recovered

    def self.run
      box = Box.new
      begin
        box.instance_exec(1) do |x|
          helper(x)
          raise "in instance_exec"
        end
      rescue RuntimeError
        recover
      end
      box.after
      begin
        box.instance_eval { helper(Integer("q")) }
      rescue ArgumentError
        recover
      end
      box.after
      begin
        Box.class_exec { raise NameError, "in class_exec" }
      rescue NameError
        recover
      end
      box.after
    end
  end
end
