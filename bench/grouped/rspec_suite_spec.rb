# The rspec suite bench/grouped_truth.rb records: 300 examples in nested
# groups with let, before hooks, shared examples and the common matchers,
# as a gem's spec directory holds them.
RSpec.shared_examples "a sorted collection" do
  it("is sorted") { expect(subject).to eq(subject.sort) }
  it("has no nil") { expect(subject).not_to include(nil) }
end

RSpec.describe "a small library" do
  30.times do |i|
    describe "case #{i}" do
      let(:words) { Array.new(40) { |k| "word#{(k * 7919 + i) % 97}" } }
      before { @counts = words.tally }

      subject { words.sort }

      it_behaves_like "a sorted collection"
      it("counts words") { expect(@counts.values.sum).to eq(40) }
      it("matches a pattern") { expect(words.first).to match(/\Aword\d+\z/) }
      it("finds a word") { expect(words).to include(words.sample(random: Random.new(i))) }
      it("raises on a bad index") { expect { words.fetch(1000) }.to raise_error(IndexError) }
      it("builds a hash") { expect(words.group_by(&:size)).to be_a(Hash) }
      it("changes a count") { expect { @counts[words.first] += 1 }.to change { @counts.values.sum }.by(1) }
      it("has a structure") { expect({words: words.first(2)}).to match(words: [a_kind_of(String), a_kind_of(String)]) }
      it("is within bounds") { expect(words.size).to be_between(1, 100) }
    end
  end
end
