#include "agent/options.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

TEST(AgentOptions, DefaultsWhenEmpty) {
  const ParseResult r = parseOptions("", 1234);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::Cpu);
  EXPECT_EQ(r.options.interval_ns, 10'000'000);
  EXPECT_EQ(r.options.status_interval_ns, 1'000'000'000);
  EXPECT_EQ(r.options.file, "stackscope-1234.ssr");
  EXPECT_FALSE(r.options.strict);
  EXPECT_FALSE(r.strict);
}

TEST(AgentOptions, EveryOption) {
  const ParseResult r = parseOptions("event=wall,interval=250us,file=/tmp/out.ssr,status=2s,strict", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::Wall);
  EXPECT_EQ(r.options.interval_ns, 250'000);
  EXPECT_EQ(r.options.file, "/tmp/out.ssr");
  EXPECT_EQ(r.options.status_interval_ns, 2'000'000'000);
  EXPECT_TRUE(r.options.strict);
  EXPECT_TRUE(r.strict);
}

TEST(AgentOptions, CpuEventAndCompoundDurations) {
  const ParseResult r = parseOptions("event=cpu,interval=1s500ms,status=1h", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::Cpu);
  EXPECT_EQ(r.options.interval_ns, 1'500'000'000);
  EXPECT_EQ(r.options.status_interval_ns, 3'600'000'000'000);
}

TEST(AgentOptions, IntervalBoundsAreInclusive) {
  EXPECT_TRUE(parseOptions("interval=100us", 1).ok);
  EXPECT_TRUE(parseOptions("interval=10s", 1).ok);
  EXPECT_TRUE(parseOptions("status=10ms", 1).ok);
  EXPECT_TRUE(parseOptions("status=1h", 1).ok);
}

TEST(AgentOptions, BadDurationNamesTheItem) {
  const ParseResult r = parseOptions("event=cpu,interval=abc", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.strict);
  EXPECT_EQ(r.error, "stackscope: bad agent option 'interval=abc': expected a duration such as 10ms");
}

TEST(AgentOptions, BareNumberIsNotADuration) {
  const ParseResult r = parseOptions("interval=10", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "stackscope: bad agent option 'interval=10': expected a duration such as 10ms");
}

TEST(AgentOptions, OutOfRangeDurations) {
  EXPECT_EQ(parseOptions("interval=99us", 1).error,
            "stackscope: bad agent option 'interval=99us': must be between 100us and 10s");
  EXPECT_EQ(parseOptions("interval=11s", 1).error,
            "stackscope: bad agent option 'interval=11s': must be between 100us and 10s");
  EXPECT_EQ(parseOptions("status=9ms", 1).error,
            "stackscope: bad agent option 'status=9ms': must be between 10ms and 1h");
  EXPECT_EQ(parseOptions("status=1h1s", 1).error,
            "stackscope: bad agent option 'status=1h1s': must be between 10ms and 1h");
  EXPECT_FALSE(parseOptions("interval=0ms", 1).ok);
}

TEST(AgentOptions, BadEvent) {
  const ParseResult r = parseOptions("event=heap", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "stackscope: bad agent option 'event=heap': expected a comma list of cpu or wall and traces (gc, exception, alloc, live, lock)");
}

TEST(AgentOptions, EventTakesACommaListOfOneModeAndTraces) {
  const ParseResult r = parseOptions("event=wall,exception,gc,interval=20ms", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::Wall);
  EXPECT_EQ(r.options.traces, kTraceGc | kTraceException);
  EXPECT_EQ(r.options.interval_ns, 20'000'000);
  EXPECT_EQ(eventList(r.options), "wall,gc,exception");
  // The mode may come anywhere in the list.
  const ParseResult later = parseOptions("event=gc,cpu", 1);
  ASSERT_TRUE(later.ok) << later.error;
  EXPECT_EQ(later.options.mode, SampleMode::Cpu);
  EXPECT_EQ(eventList(later.options), "cpu,gc");
}

TEST(AgentOptions, LockTraceAndItsThreshold) {
  const ParseResult r = parseOptions("event=cpu,lock", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.traces, uint32_t{kTraceLock});
  EXPECT_EQ(r.options.lock_threshold_ns, 1'000'000);  // the default, 1 ms
  EXPECT_EQ(eventList(r.options), "cpu,lock");
  const ParseResult threshold = parseOptions("event=lock,lock=25ms", 1);
  ASSERT_TRUE(threshold.ok) << threshold.error;
  EXPECT_EQ(threshold.options.mode, SampleMode::None);
  EXPECT_EQ(threshold.options.lock_threshold_ns, 25'000'000);
  EXPECT_EQ(parseOptions("lock=0ms", 1).error, "stackscope: bad agent option 'lock=0ms': must be between 1us and 1h");
  EXPECT_EQ(parseOptions("lock=2h", 1).error, "stackscope: bad agent option 'lock=2h': must be between 1us and 1h");
  EXPECT_EQ(parseOptions("lock=fast", 1).error,
            "stackscope: bad agent option 'lock=fast': expected a duration such as 10ms");
  EXPECT_EQ(parseOptions("lock=1ms,lock=2ms", 1).error, "stackscope: bad agent option 'lock=2ms': lock is given twice");
}

TEST(AgentOptions, TracesAloneRecordNoSamples) {
  const ParseResult r = parseOptions("event=gc", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::None);
  EXPECT_EQ(r.options.traces, uint32_t{kTraceGc});
  EXPECT_EQ(eventList(r.options), "gc");
}

TEST(AgentOptions, NoEventIsCpuWithoutTraces) {
  const ParseResult r = parseOptions("interval=20ms", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.mode, SampleMode::Cpu);
  EXPECT_EQ(r.options.traces, 0u);
  EXPECT_EQ(eventList(r.options), "cpu");
}

TEST(AgentOptions, BadEventListsNameTheBadName) {
  EXPECT_EQ(parseOptions("event=cpu,wall", 1).error,
            "stackscope: bad agent option 'wall': one sampling mode at most (cpu or wall), given twice");
  EXPECT_EQ(parseOptions("event=gc,gc", 1).error, "stackscope: bad agent option 'gc': gc is given twice");
  EXPECT_EQ(parseOptions("event=cpu,gc,monitor", 1).error, "stackscope: bad agent option 'monitor': expected a comma list of cpu or wall and traces (gc, exception, alloc, live, lock)");
  // A bare name away from event= is not part of its list.
  EXPECT_EQ(parseOptions("event=cpu,interval=1ms,gc", 1).error,
            "stackscope: bad agent option 'gc': unknown option (known: event, interval, file, overwrite, children, "
            "native, vthreads, status, filter, alloc, classes, lock, exception, metrics, histo, control, rotate, maxfiles, strict)");
  // strict stays an option inside the list.
  const ParseResult strict = parseOptions("event=cpu,strict,gc", 1);
  EXPECT_FALSE(strict.ok);
  EXPECT_TRUE(strict.strict);
  const ParseResult strict_last = parseOptions("event=cpu,gc,strict", 1);
  ASSERT_TRUE(strict_last.ok) << strict_last.error;
  EXPECT_TRUE(strict_last.options.strict);
  EXPECT_EQ(strict_last.options.traces, uint32_t{kTraceGc});
}

// metrics= takes a comma list as event= does, or none (the default).
TEST(AgentOptions, MetricsTakeACommaListOrNone) {
  const uint32_t both = format::kSampleCpuTime | format::kSampleAllocBytes;
  EXPECT_EQ(parseOptions("", 1).options.sample_metrics, 0u);
  EXPECT_EQ(parseOptions("metrics=cpu", 1).options.sample_metrics, uint32_t{format::kSampleCpuTime});
  EXPECT_EQ(parseOptions("metrics=alloc,cpu,interval=1ms", 1).options.sample_metrics, both);
  const ParseResult none = parseOptions("event=wall,metrics=none,gc", 1);
  ASSERT_FALSE(none.ok);  // gc after metrics= belongs to its list
  EXPECT_EQ(parseOptions("metrics=none,event=wall", 1).options.sample_metrics, 0u);
  EXPECT_EQ(parseOptions("metrics=cpu,cpu", 1).error, "stackscope: bad agent option 'cpu': cpu is given twice");
  EXPECT_EQ(parseOptions("metrics=cpu,none", 1).error,
            "stackscope: bad agent option 'none': expected a comma list of cpu and alloc, or none");
  EXPECT_EQ(parseOptions("metrics=none,alloc", 1).error,
            "stackscope: bad agent option 'alloc': expected a comma list of cpu and alloc, or none");
  EXPECT_EQ(parseOptions("metrics=wall", 1).error,
            "stackscope: bad agent option 'metrics=wall': expected a comma list of cpu and alloc, or none");
}

// histo= takes an interval or a count of collections; off by default.
TEST(AgentOptions, HistoIsAnIntervalOrEveryNthCollection) {
  EXPECT_EQ(parseOptions("", 1).options.histo_interval_ns, 0);
  EXPECT_EQ(parseOptions("", 1).options.histo_gcs, 0u);
  EXPECT_EQ(parseOptions("histo=10s", 1).options.histo_interval_ns, 10'000'000'000);
  EXPECT_EQ(parseOptions("histo=gc", 1).options.histo_gcs, 1u);
  EXPECT_EQ(parseOptions("histo=gc:5,event=wall", 1).options.histo_gcs, 5u);
  EXPECT_EQ(parseOptions("histo=10ms", 1).error, "stackscope: bad agent option 'histo=10ms': must be between 100ms and 24h");
  for (const char* bad : {"histo=gc:0", "histo=gc:", "histo=gc:x", "histo=gc:99999999999"})
    EXPECT_EQ(parseOptions(bad, 1).error, std::string("stackscope: bad agent option '") + bad +
                                              "': expected gc:N with N a count of collections from 1 to 1000000");
  EXPECT_EQ(parseOptions("histo=often", 1).error,
            "stackscope: bad agent option 'histo=often': expected a duration such as 10s, or gc, or gc:N");
}

TEST(AgentOptions, UnknownKey) {
  const ParseResult r = parseOptions("event=cpu,frobnicate=1", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error,
            "stackscope: bad agent option 'frobnicate=1': unknown option (known: event, interval, file, overwrite, children, native, vthreads, status, filter, alloc, classes, lock, exception, metrics, histo, control, rotate, maxfiles, strict)");
}

TEST(AgentOptions, KeyWithoutValue) {
  EXPECT_EQ(parseOptions("interval", 1).error, "stackscope: bad agent option 'interval': expected interval=VALUE");
  EXPECT_EQ(parseOptions("file=", 1).error, "stackscope: bad agent option 'file=': expected a file path");
  EXPECT_EQ(parseOptions("event=", 1).error, "stackscope: bad agent option 'event=': expected a comma list of cpu or wall and traces (gc, exception, alloc, live, lock)");
}

TEST(AgentOptions, StrictTakesNoValue) {
  const ParseResult r = parseOptions("strict=yes", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.strict);
  EXPECT_EQ(r.error, "stackscope: bad agent option 'strict=yes': strict takes no value");
}

TEST(AgentOptions, StrictAnywhereMakesFailureFatal) {
  // strict after the bad item still counts: it is looked for before parsing.
  const ParseResult after = parseOptions("interval=abc,strict", 1);
  EXPECT_FALSE(after.ok);
  EXPECT_TRUE(after.strict);
  const ParseResult before = parseOptions("strict,bogus", 1);
  EXPECT_FALSE(before.ok);
  EXPECT_TRUE(before.strict);
  EXPECT_EQ(before.error, "stackscope: bad agent option 'bogus': unknown option (known: event, interval, file, "
                          "overwrite, children, native, vthreads, status, filter, alloc, classes, lock, exception, metrics, histo, control, rotate, maxfiles, strict)");
}

TEST(AgentOptions, FirstBadItemIsReported) {
  EXPECT_EQ(parseOptions("event=x,interval=y", 1).error, "stackscope: bad agent option 'event=x': expected a comma list of cpu or wall and traces (gc, exception, alloc, live, lock)");
}

TEST(AgentOptions, EmptyItemsAreIgnored) {
  const ParseResult r = parseOptions(",interval=20ms,,status=2s,", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.interval_ns, 20'000'000);
  EXPECT_EQ(r.options.status_interval_ns, 2'000'000'000);
}

TEST(AgentOptions, AnOptionGivenTwiceIsNamed) {
  EXPECT_EQ(parseOptions("interval=1ms,interval=2ms", 1).error,
            "stackscope: bad agent option 'interval=2ms': interval is given twice");
  // Even with the same value, and for flags: a repeated option is a mistake somewhere.
  EXPECT_EQ(parseOptions("file=a.ssr,event=cpu,file=a.ssr", 1).error,
            "stackscope: bad agent option 'file=a.ssr': file is given twice");
  EXPECT_EQ(parseOptions("strict,strict", 1).error, "stackscope: bad agent option 'strict': strict is given twice");
  EXPECT_EQ(parseOptions("children=yes,children=no", 1).error,
            "stackscope: bad agent option 'children=no': children is given twice");
}

TEST(AgentOptions, RepeatedFiltersAddUp) {
  const ParseResult r = parseOptions("filter=user:u1,filter=user:u2;application:shop", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.filter.globs(0), (std::vector<std::string>{"u1", "u2"}));
}

TEST(AgentOptions, OverwriteAndChildren) {
  const ParseResult defaults = parseOptions("", 1);
  EXPECT_TRUE(defaults.options.overwrite);
  EXPECT_EQ(defaults.options.children, Children::Keep);
  const ParseResult set = parseOptions("overwrite=no,children=yes", 1);
  ASSERT_TRUE(set.ok) << set.error;
  EXPECT_FALSE(set.options.overwrite);
  EXPECT_EQ(set.options.children, Children::Follow);
  EXPECT_EQ(parseOptions("children=no", 1).options.children, Children::Ignore);
  EXPECT_EQ(parseOptions("children=maybe", 1).error, "stackscope: bad agent option 'children=maybe': expected yes or no");
  EXPECT_EQ(parseOptions("overwrite", 1).error, "stackscope: bad agent option 'overwrite': expected overwrite=VALUE");
}

TEST(AgentOptions, NativeIsOnUnlessTurnedOff) {
  EXPECT_TRUE(parseOptions("", 1).options.native);
  EXPECT_FALSE(parseOptions("native=no", 1).options.native);
  EXPECT_TRUE(parseOptions("native=yes", 1).options.native);
  EXPECT_EQ(parseOptions("native=off", 1).error, "stackscope: bad agent option 'native=off': expected yes or no");
}

TEST(AgentOptions, VirtualThreadsAreFollowedUnlessTurnedOff) {
  EXPECT_TRUE(parseOptions("", 1).options.vthreads);
  EXPECT_FALSE(parseOptions("vthreads=no", 1).options.vthreads);
  EXPECT_TRUE(parseOptions("vthreads=yes", 1).options.vthreads);
  EXPECT_EQ(parseOptions("vthreads=0", 1).error, "stackscope: bad agent option 'vthreads=0': expected yes or no");
  EXPECT_EQ(parseOptions("vthreads", 1).error, "stackscope: bad agent option 'vthreads': expected vthreads=VALUE");
}

TEST(AgentOptions, FileMayContainEqualsSign) {
  const ParseResult r = parseOptions("file=/tmp/a=b.ssr", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.file, "/tmp/a=b.ssr");
}

TEST(AgentOptions, ModeNames) {
  EXPECT_STREQ(modeName(SampleMode::Cpu), "cpu");
  EXPECT_STREQ(modeName(SampleMode::Wall), "wall");
}


TEST(AgentOptions, AllocTakesASizeWithKOrM) {
  const ParseResult defaults = parseOptions("event=cpu,alloc", 1);
  ASSERT_TRUE(defaults.ok) << defaults.error;
  EXPECT_EQ(defaults.options.traces, uint32_t{kTraceAlloc});
  EXPECT_EQ(defaults.options.alloc_interval, 512 * 1024);
  EXPECT_TRUE(defaults.options.classes.empty());
  EXPECT_EQ(parseOptions("event=alloc,alloc=64k", 1).options.alloc_interval, 64 * 1024);
  EXPECT_EQ(parseOptions("event=alloc,alloc=2M", 1).options.alloc_interval, 2 * 1024 * 1024);
  EXPECT_EQ(parseOptions("event=alloc,alloc=4096", 1).options.alloc_interval, 4096);
  EXPECT_EQ(parseOptions("event=alloc,alloc=1g", 1).options.alloc_interval, 1 << 30);
  const std::string why = "expected a size in bytes between 1k and 1g, such as 512k or 1m";
  for (const char* bad : {"alloc=", "alloc=k", "alloc=512kb", "alloc=-1k", "alloc=1023", "alloc=2g", "alloc=1.5m",
                          "alloc=99999999999999999999k"}) {
    const ParseResult r = parseOptions(std::string("event=alloc,") + bad, 1);
    EXPECT_FALSE(r.ok) << bad;
    if (std::string(bad) != "alloc=") {
      EXPECT_EQ(r.error, "stackscope: bad agent option '" + std::string(bad) + "': " + why);
    }
  }
}

TEST(AgentOptions, LiveImpliesAllocAndBothAreNamed) {
  const ParseResult live = parseOptions("event=cpu,live", 1);
  ASSERT_TRUE(live.ok) << live.error;
  EXPECT_EQ(live.options.traces, kTraceAlloc | kTraceLive);
  EXPECT_EQ(eventList(live.options), "cpu,alloc,live");
  const ParseResult both = parseOptions("event=alloc,live", 1);
  ASSERT_TRUE(both.ok) << both.error;
  EXPECT_EQ(eventList(both.options), "alloc,live");
  EXPECT_EQ(parseOptions("event=alloc,gc,alloc", 1).error, "stackscope: bad agent option 'alloc': alloc is given twice");
}

TEST(AgentOptions, ClassesTakesGlobsSeparatedBySemicolons) {
  const ParseResult r = parseOptions("event=alloc,classes=com.shop.*;byte[];;java.lang.Object[]", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.classes, (std::vector<std::string>{"com.shop.*", "byte[]", "java.lang.Object[]"}));
  EXPECT_EQ(parseOptions("event=alloc,classes=;", 1).error,
            "stackscope: bad agent option 'classes=;': expected one or more class globs separated by ';', such as "
            "com.shop.*;byte[]");
  EXPECT_EQ(parseOptions("event=alloc,classes=java/lang/String", 1).error,
            "stackscope: bad agent option 'classes=java/lang/String': expected class names as Java writes them, such "
            "as com.shop.*;byte[] (dots, not slashes)");
}

TEST(AgentOptions, AllocOptionsWithoutTheTraceAreAMistake) {
  EXPECT_EQ(parseOptions("event=cpu,alloc=1m", 1).error,
            "stackscope: bad agent option 'alloc=1m': only the alloc trace uses it: add alloc or live to event=");
  EXPECT_EQ(parseOptions("classes=byte[],event=cpu", 1).error,
            "stackscope: bad agent option 'classes=byte[]': only the alloc trace uses it: add alloc or live to event=");
  EXPECT_TRUE(parseOptions("alloc=1m,event=cpu,live", 1).ok);
}

// The exception trace counts creations unless exception=thrown asks for JVMTI's throws; the
// option is a mistake without the trace, and takes only those two values.
TEST(AgentOptions, ExceptionSourceIsCreatedUnlessThrownIsAsked) {
  ParseResult r = parseOptions("event=cpu,exception", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.options.exceptions_thrown);
  r = parseOptions("event=cpu,exception,exception=thrown", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.exceptions_thrown);
  EXPECT_EQ(r.options.traces, uint32_t{kTraceException});
  r = parseOptions("exception=created,event=exception", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.options.exceptions_thrown);
  EXPECT_EQ(parseOptions("event=cpu,exception,exception=caught", 1).error,
            "stackscope: bad agent option 'exception=caught': expected created or thrown");
  EXPECT_EQ(parseOptions("event=cpu,exception=thrown", 1).error,
            "stackscope: bad agent option 'exception=thrown': only the exception trace uses it: add exception to "
            "event=");
}

}  // namespace
}  // namespace stackscope::agent

namespace stackscope::agent {
namespace {

// rotate= is a duration, or a size when it is a number with k, m or g; off by default.
TEST(AgentOptions, RotateTakesADurationOrASize) {
  const Options none = parseOptions("", 1).options;
  EXPECT_EQ(none.rotate_ns, 0);
  EXPECT_EQ(none.rotate_bytes, 0u);
  EXPECT_EQ(none.max_files, 0u);
  EXPECT_EQ(parseOptions("rotate=1h", 1).options.rotate_ns, 3'600'000'000'000);
  EXPECT_EQ(parseOptions("rotate=1h30m", 1).options.rotate_ns, 5'400'000'000'000);
  EXPECT_EQ(parseOptions("rotate=30s", 1).options.rotate_ns, 30'000'000'000);
  EXPECT_EQ(parseOptions("rotate=256m", 1).options.rotate_bytes, 256u << 20);
  EXPECT_EQ(parseOptions("rotate=256m", 1).options.rotate_ns, 0);
  EXPECT_EQ(parseOptions("rotate=64k", 1).options.rotate_bytes, 64u << 10);
  EXPECT_EQ(parseOptions("rotate=2G", 1).options.rotate_bytes, uint64_t{2} << 30);
  const ParseResult kept = parseOptions("rotate=1h,maxfiles=24", 1);
  ASSERT_TRUE(kept.ok) << kept.error;
  EXPECT_EQ(kept.options.max_files, 24u);
}

TEST(AgentOptions, BadRotationGetsOneClearMessage) {
  for (const char* neither : {"rotate=often", "rotate=", "rotate=12", "rotate=1.5g"})
    EXPECT_EQ(parseOptions(neither, 1).error, std::string("stackscope: bad agent option '") + neither +
                                                  "': expected a duration such as 1h or 30s, or a size such as 256m "
                                                  "(k, m, g: KiB, MiB, GiB)");
  EXPECT_EQ(parseOptions("rotate=10ms", 1).error,
            "stackscope: bad agent option 'rotate=10ms': must be between 1s and 7 days (168h)");
  EXPECT_EQ(parseOptions("rotate=169h", 1).error,
            "stackscope: bad agent option 'rotate=169h': must be between 1s and 7 days (168h)");
  for (const char* small_or_huge : {"rotate=63k", "rotate=0m", "rotate=1025g", "rotate=99999999999999g"})
    EXPECT_EQ(parseOptions(small_or_huge, 1).error, std::string("stackscope: bad agent option '") + small_or_huge +
                                                         "': a size must be between 64k and 1024g");
  for (const char* bad : {"maxfiles=0", "maxfiles=", "maxfiles=x", "maxfiles=-1", "maxfiles=1000001"})
    EXPECT_EQ(parseOptions(std::string("rotate=1h,") + bad, 1).error,
              std::string("stackscope: bad agent option '") + bad + "': expected a count of files from 1 to 1000000");
  EXPECT_EQ(parseOptions("maxfiles=5", 1).error,
            "stackscope: bad agent option 'maxfiles=5': only rotation uses it: add rotate=DURATION or rotate=SIZE");
  EXPECT_EQ(parseOptions("rotate=1h,rotate=2h", 1).error, "stackscope: bad agent option 'rotate=2h': rotate is given twice");
}

}  // namespace
}  // namespace stackscope::agent
