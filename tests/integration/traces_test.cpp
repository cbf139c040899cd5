// The gc and exception traces on real JVMs, with known truth: a program that forces a known
// number of collections, one that throws a known number of exceptions of known classes at
// known sites; and with the traces off, none of their records and no exception capability.
#include "harness.h"

namespace it {
namespace {

class Traces : public RecordingTest {
 protected:
  // `stackscope record -e EVENTS -o path -- java … main_class args`, with `jvm_options`.
  static ProcessResult recordEvents(const std::string& events, const std::string& path, const std::string& main_class,
                                    const std::vector<std::string>& args, const std::vector<std::string>& jvm_options = {}) {
    std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-e", events, "-o", path, "--"};
    for (const std::string& arg : javaCommand(main_class, args, jvm_options)) argv.push_back(arg);
    return run(argv);
  }
  static uint64_t records(const json& info, const std::string& type) { return info.at("records").value(type, uint64_t{0}); }
  // The self count of the methods view's row `method`, 0 when absent.
  static uint64_t self(const json& methods, const std::string& method) {
    const json* row = find(methods, "methods", "method", method);
    return row ? row->at("self").get<uint64_t>() : 0;
  }
};

// Serial's System.gc() with -XX:-ExplicitGCInvokesConcurrent is one full collection each, and
// the 64 MB heap never needs another: the count is exact, and so is the cause. The gc trace
// alone records no samples.
TEST_F(Traces, ForcedCollectionsAreCountedExactlyWithTheirCause) {
  const std::string path = file("gc.ssr");
  constexpr int kCollections = 25;
  ProcessResult rec = recordEvents("gc", path, "ForcedGcs", {std::to_string(kCollections)},
                                   {"-Xmx64m", "-XX:-ExplicitGCInvokesConcurrent"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(truth(rec.out).at("gcs"), kCollections) << rec.out;

  const json info = query({"info", path});
  EXPECT_EQ(info.at("recording").at("mode"), "gc");
  EXPECT_EQ(info.at("samples"), 0u);
  EXPECT_EQ(records(info, "gc"), uint64_t{kCollections});

  const json gc = report(path, {"--view", "gc"});
  EXPECT_EQ(gc.at("collections"), kCollections) << gc.dump(1);
  uint64_t by_collector = 0;
  int64_t time_ns = 0;
  for (const json& c : gc.at("collectors")) {
    by_collector += c.at("count").get<uint64_t>();
    time_ns += c.at("time_ns").get<int64_t>();
    EXPECT_NE(c.at("collector"), "") << gc.dump(1);  // HotSpot's PerfData names it
    EXPECT_LE(c.at("longest_ns").get<int64_t>(), c.at("time_ns").get<int64_t>());
    EXPECT_LE(c.at("first_ns").get<int64_t>(), c.at("last_ns").get<int64_t>());
    ASSERT_EQ(c.at("causes").size(), 1u) << gc.dump(1);
    EXPECT_EQ(c.at("causes")[0].at("cause"), "System.gc()");
  }
  EXPECT_EQ(by_collector, uint64_t{kCollections});
  EXPECT_GT(time_ns, 0);
  EXPECT_EQ(gc.at("time_ns"), time_ns);

  // The gc view is a view of gc events like any other: filters, resource names and time
  // narrow it. Every cause is System.gc(); no collector is named NoSuch; the window from
  // the last collection's start holds that one alone (collections do not overlap).
  EXPECT_EQ(report(path, {"--view", "gc", "--where", "cause=System.gc()"}).at("collections"), kCollections);
  EXPECT_EQ(report(path, {"--view", "gc", "--where", "cause!=System.gc()"}).at("collections"), 0);
  EXPECT_EQ(report(path, {"--view", "gc[NoSuch*]"}).at("collections"), 0);
  int64_t last_ns = 0;
  for (const json& c : gc.at("collectors")) {
    const std::string name = c.at("collector");
    EXPECT_EQ(report(path, {"--view", "gc[\"" + name + "\"]"}).at("collections"), c.at("count")) << name;
    last_ns = std::max(last_ns, c.at("last_ns").get<int64_t>());
  }
  EXPECT_EQ(report(path, {"--view", "gc", "--from", std::to_string(last_ns) + "ns"}).at("collections"), 1);

  // The same collections as events of kind gc, in every view, and on the status timeline.
  const json threads = report(path, {"--event", "gc", "--metric", "time", "--view", "threads"});
  EXPECT_EQ(threads.at("total"), time_ns) << threads.dump(1);
  const json status = report(path, {"--view", "status"});
  uint64_t on_timeline = 0;
  for (const json& r : status.at("reports")) on_timeline += r.at("gc_pauses").at("count").get<uint64_t>();
  EXPECT_EQ(on_timeline, uint64_t{kCollections}) << status.dump(1);
  // Navigation narrows the pauses on the timeline, as it narrows every view's events.
  uint64_t none_on_timeline = 0;
  for (const json& r : report(path, {"--view", "gc[NoSuch*]/status"}).at("reports"))
    none_on_timeline += r.at("gc_pauses").at("count").get<uint64_t>();
  EXPECT_EQ(none_on_timeline, 0u);
  // The JVMTI events the status reports count (every run has them) agree.
  EXPECT_EQ(status.at("reports").back().at("gc_count"), kCollections);
}

// ZGC collects concurrently; what the gc trace sees are its cycles' short pauses, each named
// by HotSpot's counter of ZGC pauses, which is not the first one (JDK 17 numbers it 2; JDK 25
// has minor and major ones). Truth: each forced cycle stops the world at least twice (mark
// start and end, relocate start), with System.gc() as the cause.
TEST_F(Traces, ZgcPausesAreNamedByTheirCollector) {
  const std::string path = file("zgc.ssr");
  constexpr int kCollections = 10;
  ProcessResult rec = recordEvents("gc", path, "ForcedGcs", {std::to_string(kCollections)}, {"-Xmx64m", "-XX:-UseSerialGC", "-XX:+UseZGC"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(truth(rec.out).at("gcs"), kCollections) << rec.out;
  const json gc = report(path, {"--view", "gc"});
  EXPECT_GE(gc.at("collections").get<int>(), 2 * kCollections) << gc.dump(1);
  uint64_t forced = 0;
  for (const json& c : gc.at("collectors")) {
    EXPECT_NE(c.at("collector").get<std::string>().find("Z"), std::string::npos) << gc.dump(1);
    for (const json& cause : c.at("causes"))
      if (cause.at("cause") == "System.gc()") forced += cause.at("count").get<uint64_t>();
  }
  EXPECT_GE(forced, uint64_t{2 * kCollections}) << gc.dump(1);
}

// Throws: 1000 IllegalStateExceptions thrown in throwState, 500 IllegalArgumentExceptions in
// throwArgument (called by passArgument), 3 UnsupportedOperationExceptions in throwUncaught
// that nothing catches; each created where it is thrown (`throw new E()`). Each class's count
// is exact, and so is each site's, whichever source the trace has (`record --exceptions`):
// created places an exception where it was created, without its constructor frames; thrown
// also tells the uncaught ones (named "E (uncaught)").
void checkThrowsCountedExactly(const std::string& path, const std::string& source) {
  const auto self = [](const json& methods, const std::string& method) -> uint64_t {
    const json* row = find(methods, "methods", "method", method);
    return row ? row->at("self").get<uint64_t>() : 0;
  };
  ProcessResult rec = record({"-e", "cpu,exception", "--exceptions", source}, path, "Throws", {"1000", "3"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  ASSERT_EQ(t.at("state"), 1000) << rec.out;
  ASSERT_EQ(t.at("argument"), 500) << rec.out;
  ASSERT_EQ(t.at("uncaught"), 3) << rec.out;
  EXPECT_EQ(query({"info", path}).at("recording").at("mode"), "cpu,exception");
  const std::string uncaught_name =
      "java.lang.UnsupportedOperationException" + std::string(source == "thrown" ? " (uncaught)" : "");

  const json methods = report(path, {"--event", "exception", "--top", "0"});
  EXPECT_EQ(methods.at("event"), "exception");
  EXPECT_EQ(methods.at("unit"), "count");
  EXPECT_EQ(self(methods, "java.lang.IllegalStateException"), 1000u) << methods.dump(1);
  EXPECT_EQ(self(methods, "java.lang.IllegalArgumentException"), 500u);
  EXPECT_EQ(self(methods, uncaught_name), 3u);
  // None of them counted twice, as caught and not.
  EXPECT_EQ(self(methods, "java.lang.IllegalStateException (uncaught)"), 0u);
  if (source == "thrown") {
    EXPECT_EQ(self(methods, "java.lang.UnsupportedOperationException"), 0u);
  }

  // Each site throws exactly its class, that many times; no constructor frame is left on top.
  const auto atSite = [&](const std::string& site) {
    return report(path, {"--event", "exception", "--view", "methods[" + kWorkloads + "Throws." + site + "]"});
  };
  const json state = atSite("throwState");
  EXPECT_EQ(state.at("samples"), 1000u) << state.dump(1);
  EXPECT_EQ(self(state, "java.lang.IllegalStateException"), 1000u);
  EXPECT_EQ(self(state, kWorkloads + "Throws.throwState"), 0u) << state.dump(1);
  const json argument = atSite("throwArgument");
  EXPECT_EQ(argument.at("samples"), 500u) << argument.dump(1);
  EXPECT_EQ(self(argument, "java.lang.IllegalArgumentException"), 500u);
  const json* caller = find(argument, "methods", "method", kWorkloads + "Throws.passArgument");
  ASSERT_NE(caller, nullptr) << argument.dump(1);
  EXPECT_EQ(caller->at("total"), 500u);
  const json uncaught = atSite("throwUncaught");
  EXPECT_EQ(uncaught.at("samples"), 3u) << uncaught.dump(1);
  EXPECT_EQ(self(uncaught, uncaught_name), 3u);
  for (const json& row : uncaught.at("methods"))
    EXPECT_EQ(row.at("method").get<std::string>().find(".<init>"), std::string::npos) << uncaught.dump(1);

  // The exceptions view counts by class, caught or not; exceptions[C] narrows to a class
  // (and picks the exception events without --event), and so does --where exception=.
  const json classes = report(path, {"--view", "exceptions"});
  EXPECT_EQ(classes.at("event"), "exception") << classes.dump(1);
  const std::string metric = classes.at("metric");
  const auto counted = [&](const std::string& cls) -> uint64_t {
    const json* group = find(classes, "exceptions", "value", cls);
    return group ? group->at(metric).get<uint64_t>() : 0;
  };
  EXPECT_EQ(counted("java.lang.IllegalStateException"), 1000u) << classes.dump(1);
  EXPECT_EQ(counted("java.lang.IllegalArgumentException"), 500u);
  EXPECT_EQ(counted("java.lang.UnsupportedOperationException"), 3u);
  const json argument_sites = report(path, {"--view", "exceptions[java.lang.IllegalArgumentException]/methods"});
  EXPECT_EQ(argument_sites.at("samples"), 500u) << argument_sites.dump(1);
  const json* thrower = find(argument_sites, "methods", "method", kWorkloads + "Throws.throwArgument");
  ASSERT_NE(thrower, nullptr) << argument_sites.dump(1);
  EXPECT_EQ(thrower->at("total"), 500u);
  EXPECT_EQ(find(argument_sites, "methods", "method", kWorkloads + "Throws.throwState"), nullptr);
  const json unsupported = report(path, {"--event", "exception", "--where", "exception=java.lang.Unsupported*"});
  EXPECT_EQ(unsupported.at("samples"), 3u) << unsupported.dump(1);
  // An exception's class is the class it threw, as an allocation's is its object's: the
  // classes view, classes[C] and --where class= say the same as the exception forms.
  const json by_class = report(path, {"--event", "exception", "--view", "classes"});
  const json* state_class = find(by_class, "classes", "value", "java.lang.IllegalStateException");
  ASSERT_NE(state_class, nullptr) << by_class.dump(1);
  EXPECT_EQ(state_class->at(metric), 1000u) << by_class.dump(1);
  EXPECT_EQ(report(path, {"--event", "exception", "--view", "classes[java.lang.IllegalArgumentException]/methods"}).at("samples"), 500u);
  EXPECT_EQ(report(path, {"--event", "exception", "--where", "class=java.lang.Unsupported*"}).at("samples"), 3u);
}

TEST_F(Traces, ExceptionsAreCountedExactlyByClassAndSite) {
  checkThrowsCountedExactly(file("created.ssr"), "created");
}

TEST_F(Traces, ThrownExceptionsAreCountedExactlyByClassAndSiteAndCaught) {
  checkThrowsCountedExactly(file("thrown.ssr"), "thrown");
}

// ExceptionSources: one exception created once and thrown 100 times, 50 thrown without a
// stack trace (writableStackTrace false), 20 created and never thrown, each of its own class
// and site. Created counts creations that fill in a stack trace (1, 0, 20); thrown counts
// throws (100, 50, 0).
TEST_F(Traces, CreatedAndThrownExceptionsDifferAsDocumented) {
  struct Expected {
    std::string site, cls;
    uint64_t created, thrown;
  };
  const std::vector<Expected> expected{{"makeReused", "java.util.NoSuchElementException", 1, 0},
                                       {"throwReused", "java.util.NoSuchElementException", 0, 100},
                                       {"throwStackless", kWorkloads + "ExceptionSources$Stackless", 0, 50},
                                       {"createUnthrown", "java.lang.IllegalStateException", 20, 0}};
  for (const std::string source : {"created", "thrown"}) {
    const std::string path = file(source + "-sources.ssr");
    ProcessResult rec = record({"-e", "exception", "--exceptions", source}, path, "ExceptionSources", {"100", "50", "20"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const auto t = truth(rec.out);
    ASSERT_EQ(t.at("reused_throws"), 100) << rec.out;
    ASSERT_EQ(t.at("stackless"), 50) << rec.out;
    ASSERT_EQ(t.at("unthrown"), 20) << rec.out;
    for (const Expected& e : expected) {
      const json site = report(path, {"--view", "exceptions[" + e.cls + "]/methods[" + kWorkloads +
                                                    "ExceptionSources." + e.site + "]"});
      EXPECT_EQ(site.at("samples"), source == "created" ? e.created : e.thrown)
          << source << " " << e.site << "\n" << site.dump(1);
    }
  }
}

// With every trace off, a program that collects and throws leaves no record of either, and
// the agent holds no exception capability (the recording's mode names what the VM granted).
TEST_F(Traces, TracesOffRecordNothingOfThem) {
  const std::string path = file("off.ssr");
  ProcessResult rec = recordEvents("cpu", path, "Throws", {"1000", "3"}, {"-Xmx64m"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json info = query({"info", path});
  EXPECT_EQ(info.at("recording").at("mode"), "cpu");
  EXPECT_EQ(records(info, "gc"), 0u) << info.at("records").dump();
  EXPECT_EQ(records(info, "exception"), 0u) << info.at("records").dump();
  const ProcessResult gc = run({STACKSCOPE_BIN, "report", path, "--event", "exception"});
  EXPECT_EQ(gc.exit_code, 1) << gc.out;
}

}  // namespace
}  // namespace it
