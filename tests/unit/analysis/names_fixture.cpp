#include "names_fixture.h"

#include <stdexcept>
#include <vector>

#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {

using namespace format;

namespace {

enum Method : uint32_t { kMain = 1, kWorkInt, kWorkString, kLambda14, kLambda21, kBody0, kBody1, kThreadRun, kFormat2, kFormat3, kHashCode };

void method(RecordingWriter& w, uint32_t id, const char* cls, const char* name, const char* signature,
            std::vector<LineEntry> lines = {}) {
  MethodRecord m;
  m.id = id;
  m.class_name = w.internString(cls);
  m.method_name = w.internString(name);
  m.signature = w.internString(signature);
  m.source_file = lines.empty() ? 0 : w.internString("Main.java");
  m.lines = std::move(lines);
  w.writeMethod(m);
}

// Frames outermost first, as the comment in the header lists them.
uint32_t stack(RecordingWriter& w, std::vector<Frame> outermost_first) {
  std::vector<Frame> frames(outermost_first.rbegin(), outermost_first.rend());
  return w.internStack(frames.data(), frames.size());
}

}  // namespace

void writeNamesRecording(const std::string& path) {
  RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, "cpu", 1000 * kMs, 4343);
  method(w, kMain, "app.Main", "main", "([Ljava/lang/String;)V", {{0, 10}, {1, 11}, {2, 12}, {3, 13}, {4, 14}});
  method(w, kWorkInt, "app.Main", "work", "(I)D", {{0, 20}, {5, 21}, {9, 22}});
  method(w, kWorkString, "app.Main", "work", "(Ljava/lang/String;)D", {{0, 30}, {4, 31}});
  method(w, kLambda14, "app.Main$$Lambda$14.0x0000000800c0b000", "run", "()V");
  method(w, kLambda21, "app.Main$$Lambda.0x00007f3a1c00a218", "run", "()V");
  method(w, kBody0, "app.Main", "lambda$main$0", "()V", {{0, 40}});
  method(w, kBody1, "app.Main", "lambda$main$1", "()V", {{0, 41}});
  method(w, kThreadRun, "java.lang.Thread", "run", "()V", {{0, 833}});
  method(w, kFormat2, "app.Fmt", "format", "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;", {{0, 50}});
  method(w, kFormat3, "app.Fmt", "format", "(Ljava/util/Locale;Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
         {{0, 60}});
  method(w, kHashCode, "java.lang.Object", "hashCode", "()I");
  w.writeThread({1, "main", 2001, 1});
  w.writeThread({2, "pool-1", 2002, 22});

  const uint32_t work_int_21 = stack(w, {{kMain, 1}, {kWorkInt, 5}});
  const uint32_t work_int_22 = stack(w, {{kMain, 2}, {kWorkInt, 9}});
  const uint32_t work_string = stack(w, {{kMain, 3}, {kWorkString, 4}});
  const uint32_t lambda0 = stack(w, {{kThreadRun, 0}, {kLambda14, 1}, {kBody0, 0}});
  const uint32_t lambda1 = stack(w, {{kThreadRun, 0}, {kLambda21, 1}, {kBody1, 0}});
  const uint32_t format = stack(w, {{kMain, 4}, {kFormat2, 0}, {kFormat3, 0}, {kHashCode, -3}});

  int64_t ms = 0;
  const auto samples = [&](uint32_t thread, uint32_t stack_id, int count) {
    for (int i = 0; i < count; ++i, ms += 10) w.writeSample({ms * kMs, thread, stack_id, ThreadState::Running, 1, 0});
  };
  samples(1, work_int_21, 3);
  w.writeLost({25 * kMs, LostReason::NotWalkable, 1});
  samples(1, work_int_22, 4);
  samples(1, work_string, 3);
  samples(2, lambda0, 2);
  samples(2, lambda1, 1);
  w.writeLost({125 * kMs, LostReason::GcActive, 1});
  samples(1, format, 2);
  if (!w.finish(150 * kMs)) throw std::runtime_error(w.lastError());
}

}  // namespace stackscope::testing
