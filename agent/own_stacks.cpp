// See own_stacks.h.
#include "agent/own_stacks.h"

#include <cstdlib>
#include <cstring>
#include <memory>

#include "agent/jvmti_stack.h"
#include "agent/own_frame_chain.h"

namespace stackscope::agent {

namespace {

bool checkAsked() {
  const char* value = std::getenv(kCheckOwnStacksVariable);
  return value && std::strcmp(value, "1") == 0;
}

// The chain read at the start of the calling thread's current wait (readChainAtStart), and
// that wait's start; a chain of another wait is never used. On the heap, made at the thread's
// first wait: the agent's thread-local storage is allocated with every thread (its
// initial-exec variables make it static), and has no room for 2 KiB.
struct ChainAtStart {
  FrameChain chain;
  int64_t wait_start = 0;
  bool read = false;
};
thread_local std::unique_ptr<ChainAtStart> t_at_start;

bool sameFrames(const RawFrame* a, size_t a_count, const RawFrame* b, size_t b_count) {
  if (a_count != b_count) return false;
  for (size_t i = 0; i < a_count; ++i)
    if (!sameFrame(a[i], b[i])) return false;
  return true;
}

}  // namespace

OwnStacks::OwnStacks() : check_(checkAsked()) {}

void OwnStacks::readChainAtStart(JNIEnv* jni, const ThreadSlot& slot, int64_t wait_start) {
  if (!t_at_start) t_at_start = std::make_unique<ChainAtStart>();
  ChainAtStart& at_start = *t_at_start;
  at_start.wait_start = wait_start;
  at_start.read = readOwnFrameChain(jni, slot, at_start.chain);
}

size_t OwnStacks::stackInto(jvmtiEnv* jvmti, JNIEnv* jni, const ThreadSlot* slot, int64_t wait_start, RawFrame* out) {
  const ChainAtStart* at_start = t_at_start.get();
  const bool kept = at_start && wait_start != 0 && at_start->wait_start == wait_start;
  FrameChain now;
  const FrameChain& chain = kept ? at_start->chain : now;
  if (kept ? !at_start->read : !slot || !readOwnFrameChain(jni, *slot, now)) {
    unchained_.fetch_add(1, std::memory_order_relaxed);
    return jvmtiStackInto(jvmti, nullptr, out);
  }
  size_t count = 0;
  if (memo_.find(chain.bytes(), out, count)) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (check_) {
      std::vector<RawFrame> walked(kMaxFrames);
      const size_t walked_count = jvmtiStackInto(jvmti, nullptr, walked.data());
      compared_.fetch_add(1, std::memory_order_relaxed);
      if (!sameFrames(out, count, walked.data(), walked_count)) mismatches_.fetch_add(1, std::memory_order_relaxed);
    }
    return count;
  }
  walked_.fetch_add(1, std::memory_order_relaxed);
  count = jvmtiStackInto(jvmti, nullptr, out);
  if (count > 0) memo_.remember(chain.bytes(), {out, count});
  return count;
}

std::vector<RawFrame> OwnStacks::stack(jvmtiEnv* jvmti, JNIEnv* jni, const ThreadSlot* slot, int64_t wait_start) {
  RawFrame frames[kMaxFrames];
  return std::vector<RawFrame>(frames, frames + stackInto(jvmti, jni, slot, wait_start, frames));
}

std::string OwnStacks::summary() const {
  const uint64_t hits = hits_.load(std::memory_order_relaxed);
  const uint64_t walked = walked_.load(std::memory_order_relaxed);
  const uint64_t unchained = unchained_.load(std::memory_order_relaxed);
  if (hits + walked + unchained == 0) return "";
  std::string text = std::to_string(hits + walked + unchained) + " stacks: " + std::to_string(hits) +
                     " from the memo, " + std::to_string(walked) + " walked for a new chain, " +
                     std::to_string(unchained) + " walked without a chain; " + std::to_string(memo_.size()) +
                     " chains held, " + std::to_string(memo_.restarts()) + " restarts";
  if (check_) {
    text += "; checked " + std::to_string(compared_.load(std::memory_order_relaxed)) + " memo stacks, " +
            std::to_string(mismatches_.load(std::memory_order_relaxed)) + " differed";
  }
  return text;
}

}  // namespace stackscope::agent
