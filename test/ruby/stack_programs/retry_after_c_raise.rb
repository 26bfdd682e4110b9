# retry after Kernel#Integer raised: each attempt and each backoff belong
# to the retrying method.
module StackPrograms
  module RetryAfterCRaise
    def self.backoff(n) = n
    def self.input(n) = n < 3 ? "bad" : "7"
    def self.after = :after

    def self.parse_with_retry
      attempts = 0
      begin
        attempts += 1
        Integer(input(attempts))
      rescue ArgumentError
        backoff(attempts)
        retry
      end
    end

    def self.run
      parse_with_retry
      after
    end
  end
end
