// The alloc and live traces on real JVMs, with known truth: a program allocating known numbers
// of objects of known classes in known methods (the estimates of objects and bytes within
// 15 %), one keeping half its objects and dropping the other half (the live view tells them
// apart), the collection-time class filter, and the traces off.
#include "harness.h"

namespace it {
namespace {

// Within 15 % of the truth, the tolerance issue 9 states for sampled estimates.
constexpr double kTolerance = 0.15;

class AllocTrace : public RecordingTest {
 protected:
  // The value of `cls` in a classes view, in the view's metric; 0 when absent.
  static double byClass(const json& view, const std::string& cls) {
    const json* row = find(view, "classes", "value", cls);
    return row ? row->at(view.at("metric").get<std::string>()).get<double>() : 0.0;
  }
  static double methodSelf(const json& methods, const std::string& method) {
    const json* row = find(methods, "methods", "method", method);
    return row ? row->at("self").get<double>() : 0.0;
  }
};

// Allocations: 200000 byte[1024] (1040 bytes each) in allocateBuffers, 3000000 Pair (32 bytes)
// in allocatePairs. At alloc=64k that is about 3200 and 1500 samples: the estimates' spread is
// 2-3 %, the tolerance 15 %.
TEST_F(AllocTrace, EstimatesObjectsAndBytesByClassAndMethod) {
  const std::string path = file("alloc.ssr");
  ProcessResult rec = record({"-e", "cpu,alloc", "--alloc-interval", "64k"}, path, "Allocations", {});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  const double buffers = t.at("buffers"), pairs = t.at("pairs");
  const double buffer_bytes = buffers * t.at("buffer_bytes"), pair_bytes = pairs * t.at("pair_bytes");
  const std::string pair = kWorkloads + "Allocations$Pair";
  EXPECT_EQ(query({"info", path}).at("recording").at("mode"), "cpu,alloc");

  // The workload's own allocation sites: the JVM allocates small objects too (class loading,
  // lambdas), and a sampled small byte[] stands for thousands of objects.
  const std::string sites = "methods[" + kWorkloads + "Allocations.allocate*]/allocations/classes";
  const json objects = report(path, {"--view", sites, "--metric", "objects"});
  EXPECT_EQ(objects.at("event"), "alloc") << objects.dump(1);  // allocations picks the alloc events
  EXPECT_EQ(objects.at("unit"), "count");
  EXPECT_NEAR(byClass(objects, "byte[]") / buffers, 1.0, kTolerance) << objects.dump(1);
  EXPECT_NEAR(byClass(objects, pair) / pairs, 1.0, kTolerance) << objects.dump(1);
  const json bytes = report(path, {"--view", sites, "--metric", "bytes"});
  EXPECT_EQ(bytes.at("unit"), "bytes");
  EXPECT_EQ(bytes.at("scaling").at("sampling_interval_bytes"), json::array({64 * 1024})) << bytes.dump(1);
  EXPECT_NEAR(byClass(bytes, "byte[]") / buffer_bytes, 1.0, kTolerance) << bytes.dump(1);
  EXPECT_NEAR(byClass(bytes, pair) / pair_bytes, 1.0, kTolerance) << bytes.dump(1);

  // The methods view in bytes: each allocating method's self, as the contract's JSON.
  const json methods = report(path, {"--event", "alloc", "--metric", "bytes"});
  EXPECT_EQ(methods.at("event"), "alloc");
  EXPECT_EQ(methods.at("metric"), "bytes");
  EXPECT_EQ(methods.at("unit"), "bytes");
  EXPECT_NEAR(methodSelf(methods, kWorkloads + "Allocations.allocateBuffers") / buffer_bytes, 1.0, kTolerance)
      << methods.dump(1);
  EXPECT_NEAR(methodSelf(methods, kWorkloads + "Allocations.allocatePairs") / pair_bytes, 1.0, kTolerance);

  // Navigation: the classes a method allocated, the threads that allocated a class.
  // The first `new Pair` loads the class, whose loader builds strings (byte[]) under
  // allocatePairs: a sample may land there (one of 513 objects, a CI run), so the loader's
  // allocations are left out of the check that allocatePairs made no byte[] of its own.
  const json made = report(path, {"--view", "methods[" + kWorkloads + "Allocations.allocatePairs]/allocations/classes",
                                  "--metric", "objects", "--where", "not path~java.lang.ClassLoader.loadClass"});
  EXPECT_NEAR(byClass(made, pair) / pairs, 1.0, kTolerance) << made.dump(1);
  EXPECT_EQ(byClass(made, "byte[]"), 0.0) << made.dump(1);
  const json threads = report(path, {"--view", "classes[byte[]]/threads", "--metric", "bytes"});
  // The main thread allocated them (it ends as DestroyJavaVM, and keeps both names).
  ASSERT_FALSE(threads.at("threads").empty()) << threads.dump(1);
  const json& top = threads.at("threads")[0];
  EXPECT_NE(std::find(top.at("names").begin(), top.at("names").end(), "main"), top.at("names").end()) << threads.dump(1);
  EXPECT_NEAR(top.at("bytes").get<double>() / buffer_bytes, 1.0, kTolerance) << threads.dump(1);
  const json where = report(path, {"--event", "alloc", "--metric", "objects", "--where",
                                   "class=byte[] and path~" + kWorkloads + "Allocations.allocate*"});
  EXPECT_NEAR(where.at("total").get<double>() / buffers, 1.0, kTolerance) << where.dump(1);
}

// classes= keeps only the objects of matching classes: no Pair sampled at all.
TEST_F(AllocTrace, ClassFilterKeepsOnlyMatchingClasses) {
  const std::string path = file("filtered.ssr");
  ProcessResult rec =
      record({"-e", "alloc", "--alloc-interval", "64k", "--classes", "byte[]"}, path, "Allocations", {});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json classes = report(path, {"--view", "classes", "--metric", "objects"});
  ASSERT_EQ(classes.at("classes").size(), 1u) << classes.dump(1);
  EXPECT_EQ(classes.at("classes")[0].at("value"), "byte[]");
  const json buffers =
      report(path, {"--view", "methods[" + kWorkloads + "Allocations.allocateBuffers]/allocations", "--metric", "objects"});
  EXPECT_NEAR(byClass(buffers, "byte[]") / truth(rec.out).at("buffers"), 1.0, kTolerance) << buffers.dump(1);
}

// LiveObjects: 10000 long[512] kept to the end, 10000 int[1024] dropped and collected before
// the end (4112 bytes each; about 2500 samples each at 16k). Both were allocated as often; only
// the kept ones are live, at their allocation site.
TEST_F(AllocTrace, LiveViewTellsKeptFromDroppedObjects) {
  const std::string path = file("live.ssr");
  ProcessResult rec = record({"-e", "cpu,live", "--alloc-interval", "16k"}, path, "LiveObjects", {});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  const double kept = t.at("kept"), dropped = t.at("dropped");
  EXPECT_EQ(query({"info", path}).at("recording").at("mode"), "cpu,alloc,live");

  // The workload's two sites (the JVM allocates small int[] too, each sample of them worth
  // hundreds of objects).
  const std::string sites = "methods[" + kWorkloads + "LiveObjects.keep," + kWorkloads + "LiveObjects.drop]";
  const json allocated = report(path, {"--view", sites + "/allocations/classes", "--metric", "objects"});
  EXPECT_NEAR(byClass(allocated, "long[]") / kept, 1.0, kTolerance) << allocated.dump(1);
  EXPECT_NEAR(byClass(allocated, "int[]") / dropped, 1.0, kTolerance) << allocated.dump(1);
  const json live = report(path, {"--event", "live", "--view", sites + "/classes", "--metric", "objects"});
  EXPECT_EQ(live.at("event"), "live");
  EXPECT_NEAR(byClass(live, "long[]") / kept, 1.0, kTolerance) << live.dump(1);
  EXPECT_LT(byClass(live, "int[]") / dropped, kTolerance) << live.dump(1);
  const json methods = report(path, {"--event", "live", "--metric", "objects"});
  EXPECT_NEAR(methodSelf(methods, kWorkloads + "LiveObjects.keep") / kept, 1.0, kTolerance) << methods.dump(1);
  EXPECT_LT(methodSelf(methods, kWorkloads + "LiveObjects.drop") / dropped, kTolerance) << methods.dump(1);
  // The ages view counts the live objects by how long before the end they were allocated.
  const json ages = report(path, {"--view", sites + "/ages", "--metric", "objects"});
  EXPECT_EQ(ages.at("event"), "live") << ages.dump(1);
  EXPECT_EQ(ages.at("total"), live.at("total")) << ages.dump(1);
  // The whole classes view without a site: the classes filter's view picks alloc events.
  EXPECT_EQ(report(path, {"--view", "classes"}).at("event"), "alloc");
}

// With the traces off no allocation is recorded and the alloc event kind is absent.
TEST_F(AllocTrace, TraceOffRecordsNoAllocations) {
  const std::string path = file("off.ssr");
  ProcessResult rec = record({"-e", "cpu"}, path, "Allocations", {"20000", "100000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json info = query({"info", path});
  EXPECT_EQ(info.at("recording").at("mode"), "cpu");
  EXPECT_EQ(info.at("records").value("alloc", uint64_t{0}), 0u) << info.at("records").dump();
  EXPECT_EQ(info.at("records").value("object_free", uint64_t{0}), 0u);
  const ProcessResult alloc = run({STACKSCOPE_BIN, "report", path, "--event", "alloc"});
  EXPECT_EQ(alloc.exit_code, 1) << alloc.out;
  const ProcessResult live = run({STACKSCOPE_BIN, "report", path, "--event", "live"});
  EXPECT_EQ(live.exit_code, 1) << live.out;
}

}  // namespace
}  // namespace it
