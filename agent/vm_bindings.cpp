#include "agent/vm_bindings.h"

#include <cstdio>

#include "agent/compiled_code.h"
#include "agent/entry_frames.h"
#include "agent/monitor_owner_words.h"
#include "agent/own_frame_chain.h"
#include "agent/stack_capture.h"
#include "agent/thread_metrics.h"
#include "agent/vm_structs.h"
#include "agent/vm_thread_anchor.h"

namespace stackscope::agent {

namespace {

// Set by the first bindVmOnce, under the control mutex of session.cpp (every begin holds it).
bool g_bound = false;
const AllocationCounter* g_counter = nullptr;  // null: this VM does not show allocations per thread

void bindStructures(jvmtiEnv* jvmti, JNIEnv* jni) {
  VmStructs vm;
  if (!vm.bind(lookupJvmSymbol)) return;
  jthread thread = nullptr;
  if (jvmti->GetCurrentThread(&thread) != JVMTI_ERROR_NONE || !thread) return;
  const int64_t env_offset = jniEnvOffset(jni, thread);
  jni->DeleteLocalRef(thread);
  auto* code = new CompiledCode;
  if (code->bind(vm)) {
    setCompiledCode(code);
  } else {
    delete code;
    code = nullptr;
  }
  auto* entry = new EntryFrames;
  if (entry->bind(vm, code, env_offset)) {
    setEntryFrames(entry);
  } else {
    delete entry;
  }
  auto* anchor = new VmThreadAnchor;
  if (anchor->bind(vm, env_offset)) {
    setVmThreadAnchor(anchor);
  } else {
    delete anchor;
  }
  // The traces' own stacks (own_frame_chain.h) read the same frames, and interpreted ones too.
  auto* interpreted = new InterpretedFrames;
  const int64_t compile_id = vm.fieldOffset("nmethod", "_compile_id");
  if (code && interpreted->bind(vm) && compile_id >= 0 && vm.fieldSize("nmethod", "_compile_id") == 4) {
    setInterpretedFrames(interpreted, compile_id);
  } else {
    delete interpreted;
  }
  auto* owners = new MonitorOwnerWords;
  if (owners->bind(vm, env_offset)) {
    setMonitorOwnerWords(owners);
  } else {
    delete owners;
  }
  auto* counter = new AllocationCounter;
  if (counter->bind(vm, env_offset)) {
    g_counter = counter;
  } else {
    delete counter;
  }
}

}  // namespace

uint32_t bindVmOnce(const Options& options, jvmtiEnv* jvmti, JNIEnv* jni) {
  if (!g_bound) bindStructures(jvmti, jni);
  g_bound = true;
  uint32_t metrics = options.mode == SampleMode::None ? 0 : options.sample_metrics;
  if (!g_counter) {
    if (metrics & format::kSampleAllocBytes)
      std::fprintf(stderr, "stackscope: this JVM does not show how much each thread allocated: samples carry no alloc-bytes\n");
    metrics &= ~uint32_t{format::kSampleAllocBytes};
  }
  setSampleMetrics(metrics, g_counter);
  return metrics;
}

}  // namespace stackscope::agent
