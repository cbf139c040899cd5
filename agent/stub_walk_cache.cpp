// See stub_walk_cache.h.
#include "agent/stub_walk_cache.h"

#include <algorithm>

#include "agent/own_frame_chain.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

namespace {

// FNV-1a over the chain's words; never 0 (the empty cache's hash).
uint64_t hashOf(const FrameChain& chain) {
  uint64_t hash = 14695981039346656037ull;
  for (int i = 0; i < chain.size; ++i) hash = (hash ^ chain.words[i]) * 1099511628211ull;
  return hash == 0 ? 1 : hash;
}

}  // namespace

void rememberStubWalk(JNIEnv* env, ThreadSlot& slot, const RawFrame* frames, int count, bool in_java) {
  StubWalkCache& cache = slot.stub_walk;
  FrameChain chain;
  if (count <= 0 || count > StubWalkCache::kKeptFrames || !readOwnFrameChain(env, slot, chain, in_java)) return;
  std::copy(frames, frames + count, cache.frames);
  cache.count = count;
  cache.chain_hash = hashOf(chain);
}

int recallStubWalk(JNIEnv* env, const ThreadSlot& slot, RawFrame* out, int depth) {
  const StubWalkCache& cache = slot.stub_walk;
  FrameChain chain;
  // The same chain is the same frames, in whatever state the thread is (readOwnFrameChain
  // reads none in Java).
  if (cache.chain_hash == 0 || cache.count > depth || !readOwnFrameChain(env, slot, chain) ||
      hashOf(chain) != cache.chain_hash) {
    return 0;
  }
  std::copy(cache.frames, cache.frames + cache.count, out);
  return cache.count;
}

}  // namespace stackscope::agent
