// `stackscope export --format profilerj-xml`, read back by an XML parser (tinyxml2): the
// sampler section on the reference recording (fixture.h) and the memory section on an alloc
// recording whose objects, deaths and peaks are known by construction.
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <map>
#include <string>

#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

using tinyxml2::XMLElement;

class ProfilerJCli : public ::testing::Test {
 protected:
  // The document `export FILE --format profilerj-xml ARGS` prints, parsed.
  const XMLElement& exportDoc(const std::string& file, const std::string& args = "") {
    const CliResult r = runCli("export " + file + " --format profilerj-xml -o - " + args, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(xml_.Parse(r.out.c_str()), tinyxml2::XML_SUCCESS) << xml_.ErrorStr() << "\n" << r.out;
    const XMLElement* doc = xml_.FirstChildElement("doc");
    if (!doc) throw std::runtime_error("no <doc>:\n" + r.out);
    return *doc;
  }
  static std::map<std::string, const XMLElement*> childrenByName(const XMLElement* parent, const char* tag) {
    std::map<std::string, const XMLElement*> out;
    for (const XMLElement* e = parent->FirstChildElement(tag); e; e = e->NextSiblingElement(tag)) {
      const char* name = e->Attribute("name") ? e->Attribute("name") : e->Attribute("class");
      EXPECT_TRUE(out.emplace(name, e).second) << "two <" << tag << "> of name " << name;
    }
    return out;
  }
  // "hits elapsed cumulated cumulatedElapsed" of a <profile> node.
  static std::string counts(const XMLElement* node) {
    if (!node) return "missing";
    return std::to_string(node->Unsigned64Attribute("hits")) + " " + std::to_string(node->Unsigned64Attribute("elapsed")) +
           " " + std::to_string(node->Unsigned64Attribute("cumulated")) + " " +
           std::to_string(node->Unsigned64Attribute("cumulatedElapsed"));
  }
  static const XMLElement* child(const XMLElement* parent, const std::string& name) {
    if (!parent) return nullptr;
    const auto children = childrenByName(parent, "profile");
    const auto it = children.find(name);
    return it == children.end() ? nullptr : it->second;
  }

  TempDir dir_;
  tinyxml2::XMLDocument xml_;
};

TEST_F(ProfilerJCli, SamplerHasEachThreadsTreeWithRunningAndAllStateCounts) {
  writeReferenceRecording(dir_.file("ref.ssr"));
  const XMLElement& doc = exportDoc("ref.ssr");
  EXPECT_EQ(doc.FirstChildElement("profile"), nullptr) << "no method tracing: no <profile> section";
  EXPECT_EQ(doc.FirstChildElement("memory"), nullptr) << "no alloc trace: no <memory> section";
  const XMLElement* sampler = doc.FirstChildElement("sampler");
  ASSERT_NE(sampler, nullptr);
  const auto threads = childrenByName(sampler, "thread");
  ASSERT_EQ(threads.size(), 3u);
  // main: 7 wall samples, one of them blocked (30 ms); started at 0, never ended: 70 ms alive.
  const XMLElement* main = threads.at("main");
  EXPECT_EQ(main->Unsigned64Attribute("cumulated"), 6u);
  EXPECT_EQ(main->Unsigned64Attribute("cumulatedElapsed"), 7u);
  EXPECT_EQ(main->Int64Attribute("elapsedTime"), 70 * kMs);
  EXPECT_EQ(main->Int64Attribute("cpuTime"), 6 * 10 * kMs) << "running samples x interval: no measured CPU";
  EXPECT_TRUE(main->BoolAttribute("isAlive"));
  const XMLElement* m = child(main, "app.Main.main()");
  const XMLElement* a = child(m, "app.Work.a()");
  EXPECT_EQ(counts(m), "0 0 6 7");
  EXPECT_EQ(counts(a), "1 2 6 7");  // SB at 0 (running) and 30 (blocked)
  EXPECT_EQ(counts(child(a, "app.Util$Inner.leaf()")), "3 3 3 3");
  const XMLElement* b = child(a, "app.Work.b()");
  EXPECT_EQ(counts(b), "0 0 2 2");  // the recursion main>a>b>a>b is a path of the tree
  EXPECT_EQ(counts(child(child(b, "app.Work.a()"), "app.Work.b()")), "2 2 2 2");
  // worker-1: 1 + 2 running samples, alive from 1 to 20 ms.
  const XMLElement* worker = threads.at("worker-1");
  EXPECT_EQ(worker->Unsigned64Attribute("cumulatedElapsed"), 3u);
  EXPECT_EQ(worker->Int64Attribute("elapsedTime"), 19 * kMs);
  EXPECT_FALSE(worker->BoolAttribute("isAlive"));
  // sleeper: 4 samples, all sleeping: none running.
  const XMLElement* sleeper = threads.at("sleeper");
  EXPECT_EQ(sleeper->Unsigned64Attribute("cumulated"), 0u);
  EXPECT_EQ(sleeper->Int64Attribute("cpuTime"), 0);
  EXPECT_EQ(counts(child(child(sleeper, "app.Worker.run()"), "java.lang.Thread.sleep()")), "0 4 0 4");
}

TEST_F(ProfilerJCli, SelectionNarrowsTheSampler) {
  writeReferenceRecording(dir_.file("ref.ssr"));
  const XMLElement& doc = exportDoc("ref.ssr", "--from 35ms --where 'thread=main'");
  const auto threads = childrenByName(doc.FirstChildElement("sampler"), "thread");
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.at("main")->Unsigned64Attribute("cumulatedElapsed"), 3u);  // 40, 50, 60 ms
  EXPECT_EQ(threads.at("main")->Int64Attribute("elapsedTime"), 35 * kMs);
}

// Every object recorded (interval 0: each sample is one object). main allocates byte[] at 5,
// 15, 25 ms, freed at 20 and 30 ms, and an app.Pair at 10 ms never freed; the worker a byte[]
// at 12 ms freed at 14 ms.
void writeAllocRecording(const std::string& path, bool live) {
  format::RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, live ? "cpu,alloc,live" : "cpu,alloc", 0, 1);
  w.writeThread({1, "main", 11, 1});
  w.writeThread({2, "worker", 12, 2});
  w.writeMethod({1, w.internString("app.Buf"), w.internString("fill"), w.internString("()V"), 0, {}});
  const format::Frame fill{1, 3};
  const uint32_t stack = w.internStack(&fill, 1);
  const uint32_t bytes = w.internString("byte[]"), pair = w.internString("app.Pair");
  w.writeSample({1 * kMs, 1, stack, format::ThreadState::Running, 1});
  const auto alloc = [&](int64_t ms, uint32_t thread, uint32_t cls, uint64_t tag) {
    w.writeAlloc({ms * kMs, thread, stack, cls, 64, 0, 0, live ? tag : 0});
  };
  alloc(5, 1, bytes, 1);
  alloc(10, 1, pair, 2);
  alloc(12, 2, bytes, 3);
  alloc(15, 1, bytes, 4);
  alloc(25, 1, bytes, 5);
  if (live) {
    w.writeObjectFree({14 * kMs, 3});
    w.writeObjectFree({20 * kMs, 1});
    w.writeObjectFree({30 * kMs, 4});
  }
  if (!w.finish(40 * kMs)) throw std::runtime_error(w.lastError());
}

// "count/max" per thread and class.
std::map<std::string, std::string> memoryOf(const XMLElement& doc) {
  std::map<std::string, std::string> out;
  const XMLElement* memory = doc.FirstChildElement("memory");
  if (!memory) return out;
  for (const XMLElement* t = memory->FirstChildElement("thread"); t; t = t->NextSiblingElement("thread"))
    for (const XMLElement* c = t->FirstChildElement("memory"); c; c = c->NextSiblingElement("memory"))
      out[std::string(t->Attribute("name")) + " " + c->Attribute("class")] =
          std::to_string(c->Int64Attribute("count")) + "/" + std::to_string(c->Int64Attribute("max"));
  return out;
}

TEST_F(ProfilerJCli, MemoryHasTheLiveObjectsAndTheirPeakPerThreadAndClass) {
  writeAllocRecording(dir_.file("live.ssr"), true);
  const std::map<std::string, std::string> whole = memoryOf(exportDoc("live.ssr"));
  EXPECT_EQ(whole, (std::map<std::string, std::string>{
                       {"main byte[]", "1/2"}, {"main app.Pair", "1/1"}, {"worker byte[]", "0/1"}}));
  // Up to 22 ms: main's byte[] of 5 and 15 ms, the first freed at 20 ms; the worker's freed.
  const std::map<std::string, std::string> early = memoryOf(exportDoc("live.ssr", "--to 22ms"));
  EXPECT_EQ(early, (std::map<std::string, std::string>{
                       {"main byte[]", "1/2"}, {"main app.Pair", "1/1"}, {"worker byte[]", "0/1"}}));
  const std::map<std::string, std::string> late = memoryOf(exportDoc("live.ssr", "--from 12ms --to 22ms"));
  // From 12 ms: the byte[] of 5 ms is not in it (its death at 20 ms neither); that of 15 ms dies after.
  EXPECT_EQ(late, (std::map<std::string, std::string>{{"main byte[]", "1/1"}, {"worker byte[]", "0/1"}}));
}

TEST_F(ProfilerJCli, WithoutTheLiveTraceMemoryCountsTheAllocatedObjects) {
  writeAllocRecording(dir_.file("alloc.ssr"), false);
  EXPECT_EQ(memoryOf(exportDoc("alloc.ssr")),
            (std::map<std::string, std::string>{{"main byte[]", "3/3"}, {"main app.Pair", "1/1"}, {"worker byte[]", "1/1"}}));
}

TEST_F(ProfilerJCli, NamesAreEscaped) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("odd.ssr")));
  writeTestInfo(w, "cpu", 0, 1);
  w.writeThread({1, "pool <1> & \"quoted\"", 11, 1});
  w.writeMethod({1, w.internString("app.A<T>"), w.internString("run"), w.internString("()V"), 0, {}});
  const format::Frame frame{1, 0};
  w.writeSample({1 * kMs, 1, w.internStack(&frame, 1), format::ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(10 * kMs));
  const XMLElement& doc = exportDoc("odd.ssr");
  const XMLElement* thread = doc.FirstChildElement("sampler")->FirstChildElement("thread");
  ASSERT_NE(thread, nullptr);
  EXPECT_STREQ(thread->Attribute("name"), "pool <1> & \"quoted\"");
  EXPECT_STREQ(thread->FirstChildElement("profile")->Attribute("name"), "app.A<T>.run()");
}

}  // namespace
}  // namespace stackscope::testing
