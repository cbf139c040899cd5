#include "kinds_fixture.h"

#include <stdexcept>
#include <vector>

#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {

using namespace format;

void writeKindsRecording(const std::string& path) {
  enum : uint32_t { kMain = 1, kCrunch, kNap, kSleep };
  enum : uint32_t { kMainThread = 1, kWorker };
  RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, "cpu,wall", 25 * kMs, 77);
  const auto method = [&](uint32_t id, const char* cls, const char* name) {
    w.writeMethod({id, w.internString(cls), w.internString(name), w.internString("()V"), 0, {}});
  };
  method(kMain, "app.Main", "main");
  method(kCrunch, "app.Work", "crunch");
  method(kNap, "app.Work", "nap");
  method(kSleep, "java.lang.Thread", "sleep");
  w.writeThread({kMainThread, "main", 2001, 1});
  w.writeThread({kWorker, "worker", 2002, 2});
  for (uint32_t id : {1u, 2u}) {
    AnnotationRecord a{id, {}};
    a.fields[static_cast<int>(AnnotationField::User)] = w.internString("u" + std::to_string(id));
    w.writeAnnotation(a);
  }
  const std::vector<Frame> crunch{{kCrunch, 1}, {kMain, 1}}, nap{{kSleep, 1}, {kNap, 1}, {kMain, 1}};
  const uint32_t sc = w.internStack(crunch.data(), crunch.size()), ss = w.internStack(nap.data(), nap.size());
  w.writeMarker({25 * kMs, kMainThread, MarkerKind::Begin, w.internString("late")});
  w.writeMarker({50 * kMs, kMainThread, MarkerKind::End, w.internString("late")});
  const auto cpu = [&](int64_t ms, uint32_t thread, uint32_t weight) {
    w.writeSample({ms * kMs, thread, sc, ThreadState::Running, weight, thread});
  };
  const auto wall = [&](int64_t ms, uint32_t thread, uint32_t stack, ThreadState state, uint32_t weight) {
    SampleRecord s{ms * kMs, thread, stack, state, weight, thread};
    s.kind = SampleKind::Wall;
    w.writeSample(s);
  };
  for (int64_t ms : {0, 10, 20}) {
    cpu(ms, kMainThread, 1);
    wall(ms, kMainThread, sc, ThreadState::Running, 1);
    if (ms == 0) {
      cpu(5, kWorker, 2);
      wall(5, kWorker, ss, ThreadState::Sleeping, 4);
    }
  }
  w.writeStatus({25 * kMs, 500, 0, 0, 1u << 20, 4u << 20, 2});
  wall(30, kMainThread, ss, ThreadState::Sleeping, 1);
  wall(40, kMainThread, ss, ThreadState::Sleeping, 3);
  if (!w.finish(50 * kMs)) throw std::runtime_error(w.lastError());
}

}  // namespace stackscope::testing
