# The lines every bench report opens with: when, on what load, which Ruby
# and which commit, and the command that wrote it.
module ReportHeader
  module_function

  # The load average's three figures, or "unknown" where /proc has none.
  def load_average
    File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(" ") : "unknown"
  end

  # The CPU's model name, as /proc/cpuinfo gives it.
  def cpu_model
    File.exist?("/proc/cpuinfo") && File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] || "unknown"
  end

  # The checkout's commit, -dirty with changes; the chroots of rake
  # test:rubies have no git.
  def revision(root)
    IO.popen(["git", "-C", root, "describe", "--always", "--dirty"], err: File::NULL, &:read).strip
  rescue Errno::ENOENT
    "unknown (no git here)"
  end

  # The list that follows a report's title.
  def lines(root, command)
    <<~MD
      - Date: #{Time.now.utc.strftime('%Y-%m-%d %H:%M UTC')}; load average at the end: #{load_average}
      - Ruby: #{RUBY_DESCRIPTION}
      - tracegraph: git #{revision(root)}
      - Command: #{command}
    MD
  end
end
