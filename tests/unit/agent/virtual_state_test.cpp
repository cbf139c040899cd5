// A virtual thread's storage word (virtual_state.h): which session wrote it, the waits it
// notes, and JNI's IsVirtualThread found only on a JVM whose table has it.
#include "agent/virtual_state.h"

#include <gtest/gtest.h>

#include <vector>

namespace stackscope::agent {
namespace {

constexpr int64_t kUnit = int64_t{1} << 16;  // the words' clock unit, ns
constexpr int64_t kHour = int64_t{3600} * 1'000'000'000;

// Two sessions one after the other, the second begun 10 units after the first.
const VirtualEpoch kFirst{7, 1000 * kUnit + 123};
const VirtualEpoch kSecond{8, 1010 * kUnit + 5};

TEST(VirtualState, AWordWithoutWaitIsTheSessionsWhoseGenerationItCarries) {
  const uint64_t word = idleWord(3, kFirst);
  EXPECT_EQ(virtualIdOf(word), 3u);
  EXPECT_EQ(waitSourceOf(word), WaitSource::None);
  EXPECT_TRUE(writtenBy(word, kFirst, 0));
  EXPECT_FALSE(writtenBy(word, kSecond, 0));
  // Generations are kept modulo 2^30: one 2^30 sessions later reads the same.
  EXPECT_TRUE(writtenBy(word, VirtualEpoch{7 + (1u << 30), 0}, 0));
}

TEST(VirtualState, AWordNotingAWaitIsTheSessionsWhenTheWaitBeganInALaterUnit) {
  // Noted by the first session two units before the second began: the second's mounts must
  // give the thread a new id, however long after that.
  const uint64_t earlier = withWait(idleWord(3, kFirst), WaitSource::Park, 1008 * kUnit);
  EXPECT_EQ(virtualIdOf(earlier), 3u);
  EXPECT_EQ(waitSourceOf(earlier), WaitSource::Park);
  EXPECT_TRUE(writtenBy(earlier, kFirst, 1009 * kUnit));
  for (int64_t now : {1010 * kUnit + 6, 1011 * kUnit, 2000 * kUnit, 5 * kHour}) {
    EXPECT_FALSE(writtenBy(earlier, kSecond, now)) << now;
  }
  // In the very unit the second began (before it, by the clock): still the first's.
  EXPECT_FALSE(writtenBy(withWait(earlier, WaitSource::Park, 1010 * kUnit + 1), kSecond, 1011 * kUnit));
  // Noted by the second, from the unit after its start on (enableVirtualThreadEvents waits for it).
  EXPECT_EQ(firstWaitNs(kSecond), 1011 * kUnit);
  const uint64_t own = withWait(idleWord(4, kSecond), WaitSource::MonitorEnter, firstWaitNs(kSecond));
  for (int64_t now : {1011 * kUnit, 1011 * kUnit + kUnit - 1, 3000 * kUnit, 5 * kHour}) {
    EXPECT_TRUE(writtenBy(own, kSecond, now)) << now;
  }
}

TEST(VirtualState, AWaitLastsTheUnitsBetweenItsStartAndNow) {
  const uint64_t word = withWait(idleWord(9, kSecond), WaitSource::ObjectWait, 1500 * kUnit + 77);
  EXPECT_EQ(waitedNs(word, 1500 * kUnit + 90), 0);
  EXPECT_EQ(waitedNs(word, 1520 * kUnit), 20 * kUnit);
  // Modulo 2^30 units (19.5 hours).
  const int64_t wrap = (int64_t{1} << 30) * kUnit;
  EXPECT_EQ(waitedNs(word, 1520 * kUnit + wrap), 20 * kUnit);
  // A new wait replaces the old one's source and start, and keeps the id.
  const uint64_t again = withWait(word, WaitSource::Park, 2000 * kUnit);
  EXPECT_EQ(virtualIdOf(again), 9u);
  EXPECT_EQ(waitSourceOf(again), WaitSource::Park);
  EXPECT_EQ(waitedNs(again, 2001 * kUnit), kUnit);
}

TEST(VirtualState, GenerationsFollowOneAnother) {
  const uint32_t first = nextVirtualGeneration();
  EXPECT_EQ(nextVirtualGeneration(), first + 1);
}

jint jniVersion10(JNIEnv*) { return 0x000a0000; }  // JDK 17's
jint jniVersion21(JNIEnv*) { return 0x00150000; }
const jobject kVirtual = reinterpret_cast<jobject>(0x1000);
jboolean isVirtualEntry(JNIEnv*, jobject thread) { return thread == kVirtual ? JNI_TRUE : JNI_FALSE; }

// A JNI function table with GetVersion and one entry after GetModule (where JDK 21+ has
// IsVirtualThread; JDK 17's table ends before it).
struct FakeJni {
  explicit FakeJni(jint (*get_version)(JNIEnv*)) : entries(sizeof(JNINativeInterface_) / sizeof(void*) + 1, nullptr) {
    auto* table = reinterpret_cast<JNINativeInterface_*>(entries.data());
    table->GetVersion = get_version;
    entries.back() = reinterpret_cast<void*>(&isVirtualEntry);
    env.functions = table;
  }
  std::vector<void*> entries;
  JNIEnv env{};
};

TEST(VirtualState, IsVirtualThreadIsReadOnlyFromAJniThatHasIt) {
  // An older JNI's table is not read past its end, whatever lies there.
  FakeJni jdk17(jniVersion10);
  EXPECT_EQ(resolveIsVirtualThread(&jdk17.env), nullptr);
  FakeJni jdk21(jniVersion21);
  const IsVirtualThreadFn is_virtual = resolveIsVirtualThread(&jdk21.env);
  ASSERT_EQ(is_virtual, &isVirtualEntry);
  EXPECT_TRUE(is_virtual(&jdk21.env, kVirtual));
  EXPECT_FALSE(is_virtual(&jdk21.env, reinterpret_cast<jobject>(0x2000)));
}

}  // namespace
}  // namespace stackscope::agent
