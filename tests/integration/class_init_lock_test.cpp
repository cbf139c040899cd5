// Threads that need a class another thread is linking wait on HotSpot's initialization lock,
// a zero-length int[] (agent/class_init_lock.h). ClassInitWait makes that wait known: its class
// loader takes a known time to load a class the linking needs, while waiters need the class by
// `new`; then a thread waits for the program's own int[0].
#include "harness.h"

namespace it {
namespace {

const std::string kClassInitWait = kWorkloads + "ClassInitWait";
constexpr int kSlowMs = 200;
constexpr int kWaiters = 2;

class ClassInitWaits : public RecordingTest {};

TEST_F(ClassInitWaits, AWaitForALinkingClassIsNamedForThatClassAndItsLinker) {
  const std::string path = file("init.ssr");
  std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-e", "lock", "-o", path, "--"};
  for (const std::string& arg : javaCommand("ClassInitWait", {std::to_string(kSlowMs), std::to_string(kWaiters)}))
    argv.push_back(arg);
  const ProcessResult rec = run(argv);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  ASSERT_EQ(t.at("waiters"), kWaiters) << rec.out;

  const json locks = report(path, {"--view", "locks", "--top", "0"});
  const std::string init_lock = "int[] (initializing " + kClassInitWait + "$Linked)";
  const json* linked = find(locks, "locks", "value", init_lock);
  ASSERT_NE(linked, nullptr) << locks.dump(1);
  EXPECT_EQ(linked->at("events"), kWaiters) << locks.dump(1);
  EXPECT_GE(linked->at("time").get<double>(), 0.85 * t.at("waited_ns")) << locks.dump(1);
  EXPECT_LE(linked->at("time").get<double>(), 1.15 * t.at("waited_ns")) << locks.dump(1);
  // The program's own int[0], entered by monitorenter, keeps its class's name alone.
  const json* own = find(locks, "locks", "value", "int[]");
  ASSERT_NE(own, nullptr) << locks.dump(1);
  EXPECT_EQ(own->at("events"), 1) << locks.dump(1);
  EXPECT_GE(own->at("time").get<double>(), 0.5 * kSlowMs * 1e6) << locks.dump(1);

  // The waiters stood at the `new`, and the culprit is the thread linking the class, held up
  // in its class loader.
  const std::string where = "lock=\"" + init_lock + "\"";
  const json methods = report(path, {"--where", where, "--top", "0"});
  const json* needer = find(methods, "methods", "method", kClassInitWait + "$Needer.run");
  ASSERT_NE(needer, nullptr) << methods.dump(1);
  EXPECT_EQ(needer->at("self"), linked->at("time")) << methods.dump(1);
  const json owners = report(path, {"--view", "owners", "--where", where});
  ASSERT_EQ(owners.at("owners").size(), 1u) << owners.dump(1);
  const json& linker = owners.at("owners")[0];
  EXPECT_EQ(linker.at("value"), "linker") << owners.dump(1);
  const json* held_in = find(linker, "held_in", "method", kClassInitWait + "$SlowLoader.loadClass");
  EXPECT_NE(held_in, nullptr) << owners.dump(1);
}

}  // namespace
}  // namespace it
