# Waiting: methods that block the calling thread until something outside
# it happens (a timer, another thread, a lock, a child process, the
# network). Their time is real, but it is not work: on a server, the idle
# threads' sleep, join and select would otherwise be the biggest boxes.
# The graph draws them grey and the legend reports waiting apart from
# working; idle: :hide (tracegraph --idle hide) leaves them out.
module Tracegraph
  WAITING_METHODS = %w[
    Kernel#sleep Kernel#select Kernel#gets Kernel#readline Kernel#system Kernel#`
    Thread#join Thread#value
    Thread::Queue#pop Thread::Queue#shift Thread::Queue#deq
    Thread::SizedQueue#pop Thread::SizedQueue#shift Thread::SizedQueue#deq
    Thread::SizedQueue#push Thread::SizedQueue#enq Thread::SizedQueue#<<
    Thread::Mutex#lock Thread::Mutex#sleep Thread::ConditionVariable#wait
    Monitor#enter Monitor#wait_for_cond MonitorMixin::ConditionVariable#wait
    IO.select IO#read IO#readpartial IO#sysread IO#gets IO#readline IO#getc IO#getbyte IO#readchar IO#readbyte
    IO#wait IO#wait_readable IO#wait_writable IO#wait_priority
    BasicSocket#recv Socket#recvfrom UDPSocket#recvfrom Socket#accept TCPServer#accept UNIXServer#accept
    Process.wait Process.wait2 Process.waitpid Process.waitpid2 Process.waitall Process::Status.wait
    NIO::Selector#select
  ].to_h { |name| [name, true] }.freeze

  # The thread choice and idle handling every output takes, as keywords:
  #   threads: :all (default), a thread's name (a glob such as
  #            "puma srv tp *" matches several) or id, or an Array of them
  #   idle:    :show (default) draws waiting grey; :hide leaves it out of
  #            the picture and the percentages
  VIEW_OPTIONS = %i[threads idle].freeze
  IDLE_CHOICES = %i[show hide].freeze

  MethodStats.class_eval do
    # True if the method blocks its thread (see WAITING_METHODS).
    def waiting? = WAITING_METHODS.key?(name)
  end

  class Profile
    # Self time of the waiting methods: time blocked, summed over threads.
    def waiting_time = methods.sum { |m| m.waiting? ? m.self_time : 0 }

    # Where the waiting is, for the one line that reports it: "in 3
    # threads, Thread::Queue#pop, Kernel#sleep" (the threads that waited,
    # when a view that hid it counted them; the waiting methods, most
    # time first, at most three named), or "" when none is known.
    def waiting_where
      names = hidden_waiting.positive? ? (@hidden_waiting_names || []) : waiting_names
      threads = hidden_waiting.positive? ? @hidden_waiting_threads : nil
      parts = []
      parts << "#{threads} thread#{'s' unless threads == 1}" if threads&.positive?
      parts.concat(names.first(3))
      parts << "#{names.size - 3} more" if names.size > 3
      parts.empty? ? "" : "in #{parts.join(', ')}"
    end

    private

    # The waiting methods' names, most self time first.
    def waiting_names
      methods.select { |m| m.waiting? && m.self_time.positive? }.sort_by { |m| [-m.self_time, m.name] }.map(&:name)
    end
  end
end
