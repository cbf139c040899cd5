#include "agent/entry_frames.h"

#include <cstring>

namespace stackscope::agent {

namespace {

template <typename T>
T load(const void* address) {
  T value;
  std::memcpy(&value, address, sizeof value);
  return value;
}

}  // namespace

bool EntryFrames::bind(const VmStructs& vm, const CompiledCode* code, int64_t env_offset) {
  const void* call_stub_return = vm.staticAddress("StubRoutines", "_call_stub_return_address");
  const void* interpreter_code = vm.staticAddress("AbstractInterpreter", "_code");
  const int64_t stub_buffer = vm.fieldOffset("StubQueue", "_stub_buffer");
  const int64_t buffer_limit = vm.fieldOffset("StubQueue", "_buffer_limit");
  const int64_t wrapper_anchor = vm.fieldOffset("JavaCallWrapper", "_anchor");
  const int64_t anchor_sp = vm.fieldOffset("JavaFrameAnchor", "_last_Java_sp");
  const int64_t anchor_fp = vm.fieldOffset("JavaFrameAnchor", "_last_Java_fp");
  const int64_t anchor_pc = vm.fieldOffset("JavaFrameAnchor", "_last_Java_pc");
  int64_t active_handles = vm.fieldOffset("JavaThread", "_active_handles");
  if (active_handles < 0) active_handles = vm.fieldOffset("Thread", "_active_handles");  // up to JDK 21
  int32_t call_wrapper_words = 0, sender_sp_words = 0;
  if (!code || !code->bound() || env_offset <= 0 || !call_stub_return || !interpreter_code || stub_buffer < 0 ||
      buffer_limit < 0 || vm.fieldSize("StubQueue", "_buffer_limit") != 4 || wrapper_anchor < 0 || anchor_sp < 0 ||
      anchor_fp < 0 || anchor_pc < 0 || active_handles < 0 ||
      !vm.intConstant("frame::entry_frame_call_wrapper_offset", call_wrapper_words) ||
      !vm.intConstant("frame::interpreter_frame_sender_sp_offset", sender_sp_words)) {
    return false;
  }
  // Both are set once the VM made its stubs and interpreter, before any agent's VMInit.
  call_stub_return_ = load<uintptr_t>(call_stub_return);
  const auto queue = load<uintptr_t>(interpreter_code);
  if (call_stub_return_ == 0 || queue == 0) return false;
  interpreter_low_ = load<uintptr_t>(reinterpret_cast<const void*>(queue + static_cast<uintptr_t>(stub_buffer)));
  const auto limit = load<int32_t>(reinterpret_cast<const void*>(queue + static_cast<uintptr_t>(buffer_limit)));
  if (interpreter_low_ == 0 || limit <= 0) return false;
  interpreter_high_ = interpreter_low_ + static_cast<uint32_t>(limit);
  layout_ = {call_wrapper_words, sender_sp_words, wrapper_anchor + anchor_sp, wrapper_anchor + anchor_fp,
             wrapper_anchor + anchor_pc};
  code_ = code;
  env_offset_ = static_cast<uintptr_t>(env_offset);
  active_handles_ = static_cast<uintptr_t>(active_handles);
  return true;
}

CodeAtPc EntryFrames::classify(uintptr_t pc) const {
  if (pc == call_stub_return_) return {CodeAtPc::Kind::CallStubReturn, 0};
  if (pc >= interpreter_low_ && pc < interpreter_high_) return {CodeAtPc::Kind::Interpreter, 0};
  CodeBlobFrame blob;
  // The interpreter and the stub routines' buffer have no frame size: not found here.
  if (code_->findBlob(pc, blob)) return {CodeAtPc::Kind::Framed, blob.frame_words};
  return {};
}

const void* EntryFrames::compiledMethodAt(uintptr_t pc) const {
  CompiledMethodCode method;
  return code_->find(pc, method) ? code_->methodId(method.method) : nullptr;
}

}  // namespace stackscope::agent
