# Everyday library code: templates, CSV, sets and JSON. Many C methods and
# short Ruby methods of varied depth, closer to an application than fib.
require "csv"
require "erb"
require "json"
require "set"

module Workloads
  module StdlibMix
    ROWS = Array.new(40) { |i| {"id" => i, "name" => "item #{i}", "price" => (i * 1.25).round(2), "tags" => %w[a b c].rotate(i)} }
    TEMPLATE = ERB.new(<<~HTML, trim_mode: "-")
      <ul>
      <%- rows.each do |row| -%>
        <li id="<%= row["id"] %>"><%= ERB::Util.h(row["name"]) %>: <%= format("%.2f", row["price"]) %></li>
      <%- end -%>
      </ul>
    HTML

    def self.round
      rows = ROWS
      html = TEMPLATE.result(binding)
      csv = CSV.generate { |out| rows.each { |r| out << [r["id"], r["name"], r["price"], r["tags"].join(";")] } }
      parsed = CSV.parse(csv, converters: :numeric)
      json = JSON.generate(rows)
      tags = JSON.parse(json).flat_map { |r| r["tags"] }.to_set
      [html.size, parsed.size, (tags & Set["a", "z"]).size]
    end
  end

  rounds = quick? ? 2 : 50
  register("stdlib_mix") { rounds.times { StdlibMix.round } }
end
