// The gc trace's bookkeeping on a PerfData block laid out as HotSpot lays it out: which
// collector ran (its invocations counter moved), which cause (the cause counter, or the last
// cause once HotSpot restored it, none for a concurrent cycle's pause), and what is dropped.
#include "agent/gc_trace.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace stackscope::agent {
namespace {

// Entries of type 'J' (a long) or 'B' (a byte vector of `size` bytes holding text).
class PerfBlock {
 public:
  void addLong(const std::string& name) { entries_.push_back({name, 'J', 8}); }
  void addString(const std::string& name, size_t size = 64) { entries_.push_back({name, 'B', size}); }

  PerfMemoryBlock build() {
    std::vector<char> bytes(32, 0);
    for (Entry& e : entries_) {
      const size_t start = bytes.size();
      const int32_t name_offset = 24;
      const int32_t data_offset = static_cast<int32_t>((name_offset + e.name.size() + 1 + 7) / 8 * 8);
      const int32_t length = static_cast<int32_t>((data_offset + e.size + 7) / 8 * 8);
      bytes.resize(start + static_cast<size_t>(length), 0);
      const int32_t header[3] = {length, name_offset, e.type == 'B' ? static_cast<int32_t>(e.size) : 0};
      std::memcpy(&bytes[start], header, sizeof header);
      bytes[start + 12] = e.type;
      std::memcpy(&bytes[start + 16], &data_offset, 4);
      std::memcpy(&bytes[start + static_cast<size_t>(name_offset)], e.name.c_str(), e.name.size() + 1);
      e.data_at = start + static_cast<size_t>(data_offset);
    }
    const int32_t prologue[8] = {static_cast<int32_t>(0xc0c0feca), 0x01000201, static_cast<int32_t>(bytes.size()), 0, 0, 0,
                                 32, static_cast<int32_t>(entries_.size())};
    std::memcpy(bytes.data(), prologue, sizeof prologue);
    block_.assign((bytes.size() + 7) / 8, 0);
    std::memcpy(block_.data(), bytes.data(), bytes.size());
    return {reinterpret_cast<const char*>(block_.data()), bytes.size()};
  }
  // As the VM changes them.
  void setLong(const std::string& name, int64_t value) { std::memcpy(at(name), &value, 8); }
  void setString(const std::string& name, const std::string& text) { std::memcpy(at(name), text.c_str(), text.size() + 1); }

 private:
  struct Entry {
    std::string name;
    char type;
    size_t size;
    size_t data_at = 0;
  };
  char* at(const std::string& name) {
    for (const Entry& e : entries_)
      if (e.name == name) return reinterpret_cast<char*>(block_.data()) + e.data_at;
    throw std::runtime_error(name);
  }
  std::vector<Entry> entries_;
  std::vector<int64_t> block_;
};

PerfBlock hotspotLike() {
  PerfBlock perf;
  for (const char* n : {"0", "1", "2"}) {
    perf.addString(std::string("sun.gc.collector.") + n + ".name");
    perf.addLong(std::string("sun.gc.collector.") + n + ".invocations");
  }
  perf.addString("sun.gc.cause");
  perf.addString("sun.gc.lastCause");
  return perf;
}

std::vector<GcCollection> drained(GcTrace& trace) {
  std::vector<GcCollection> out;
  trace.drain([&](const GcCollection& c) { out.push_back(c); });
  return out;
}

TEST(GcTrace, NamesTheCollectorWhoseCounterMovedAndItsCause) {
  PerfBlock perf = hotspotLike();
  const PerfMemoryBlock block = perf.build();
  perf.setString("sun.gc.collector.0.name", "young");
  perf.setString("sun.gc.collector.1.name", "full");
  perf.setString("sun.gc.collector.2.name", "G1 concurrent cycle pauses");
  perf.setString("sun.gc.cause", "No GC");
  GcTrace trace(1000);
  trace.bind(block);

  // Cause still set at the finish (G1's young collections).
  trace.onStart(1100);
  perf.setLong("sun.gc.collector.0.invocations", 1);
  perf.setString("sun.gc.cause", "G1 Evacuation Pause");
  trace.onFinish(1300);
  perf.setString("sun.gc.cause", "No GC");
  perf.setString("sun.gc.lastCause", "G1 Evacuation Pause");
  // Cause restored before the finish (Serial): the last cause is this collection's.
  trace.onStart(2000);
  perf.setLong("sun.gc.collector.1.invocations", 1);
  perf.setString("sun.gc.lastCause", "System.gc()");
  trace.onFinish(2500);
  // A concurrent cycle's pause: no cause of its own, the last one is not its.
  trace.onStart(3000);
  perf.setLong("sun.gc.collector.2.invocations", 1);
  trace.onFinish(3010);
  // One pause that ran two collectors (a young collection turned full).
  trace.onStart(4000);
  perf.setLong("sun.gc.collector.0.invocations", 2);
  perf.setLong("sun.gc.collector.1.invocations", 2);
  trace.onFinish(4100);

  const std::vector<GcCollection> gcs = drained(trace);
  ASSERT_EQ(gcs.size(), 4u);
  EXPECT_EQ(gcs[0].start_ns, 100);
  EXPECT_EQ(gcs[0].end_ns, 300);
  EXPECT_EQ(trace.collectorNames(gcs[0].collectors), "young");
  EXPECT_STREQ(gcs[0].cause, "G1 Evacuation Pause");
  EXPECT_EQ(trace.collectorNames(gcs[1].collectors), "full");
  EXPECT_STREQ(gcs[1].cause, "System.gc()");
  EXPECT_EQ(trace.collectorNames(gcs[2].collectors), "G1 concurrent cycle pauses");
  EXPECT_STREQ(gcs[2].cause, "");
  EXPECT_EQ(trace.collectorNames(gcs[3].collectors), "young + full");
  EXPECT_EQ(trace.dropped(), 0u);
}

TEST(GcTrace, WithoutCountersCollectionsHaveTimesOnly) {
  GcTrace trace(0);
  trace.bind({});  // -XX:-UsePerfData: no block
  trace.onStart(10);
  trace.onFinish(25);
  const std::vector<GcCollection> gcs = drained(trace);
  ASSERT_EQ(gcs.size(), 1u);
  EXPECT_EQ(gcs[0].end_ns - gcs[0].start_ns, 15);
  EXPECT_EQ(gcs[0].collectors, 0u);
  EXPECT_EQ(trace.collectorNames(gcs[0].collectors), "");
  EXPECT_STREQ(gcs[0].cause, "");
}

TEST(GcTrace, CollectionsBeyondTheRingAreCountedNotKept) {
  GcTrace trace(0);
  uint64_t finished = 0;
  for (; finished < 5000; ++finished) {
    trace.onStart(static_cast<int64_t>(finished) * 10);
    trace.onFinish(static_cast<int64_t>(finished) * 10 + 5);
  }
  const size_t kept = drained(trace).size();
  EXPECT_GT(kept, 0u);
  EXPECT_EQ(kept + trace.dropped(), finished);
  EXPECT_GT(trace.dropped(), 0u);
}

}  // namespace
}  // namespace stackscope::agent
