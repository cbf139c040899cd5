#include "agent/class_init_lock.h"

#include <vector>

#include "agent/jvmti_buffer.h"

namespace stackscope::agent {

namespace {

enum Opcode : unsigned char { kGetStatic = 0xb2, kPutStatic = 0xb3, kInvokeStatic = 0xb8, kNew = 0xbb, kMonitorEnter = 0xc2 };
enum Tag : unsigned char {
  kUtf8 = 1, kInteger = 3, kFloat = 4, kLong = 5, kDouble = 6, kClass = 7, kString = 8, kFieldref = 9,
  kMethodref = 10, kInterfaceMethodref = 11, kNameAndType = 12, kMethodHandle = 15, kMethodType = 16,
  kDynamic = 17, kInvokeDynamic = 18, kModule = 19, kPackage = 20,
};

unsigned u2(const unsigned char* at) { return (unsigned{at[0]} << 8) | at[1]; }

// The size of the entry with `tag` after its tag byte, its length field included for Utf8; 0
// for a tag the class-file format does not have.
size_t entrySize(const unsigned char* pool, size_t at, size_t pool_size) {
  switch (pool[at]) {
    case kUtf8: return at + 3 <= pool_size ? 2 + u2(pool + at + 1) : 0;
    case kClass: case kString: case kMethodType: case kModule: case kPackage: return 2;
    case kMethodHandle: return 3;
    case kInteger: case kFloat: case kFieldref: case kMethodref: case kInterfaceMethodref: case kNameAndType:
    case kDynamic: case kInvokeDynamic: return 4;
    case kLong: case kDouble: return 8;
    default: return 0;
  }
}

constexpr size_t kNoEntry = SIZE_MAX;

// Where each entry of `pool` starts (kNoEntry for index 0 and the second slot of a long or a
// double); empty for a malformed pool.
std::vector<size_t> entryOffsets(const unsigned char* pool, size_t pool_size, int count) {
  std::vector<size_t> offsets(count > 0 ? count : 0, kNoEntry);
  size_t at = 0;
  for (int index = 1; index < count; ++index) {
    const size_t size = at < pool_size ? entrySize(pool, at, pool_size) : 0;
    if (size == 0 || at + 1 + size > pool_size) return {};
    offsets[index] = at;
    if (pool[at] == kLong || pool[at] == kDouble) ++index;
    at += 1 + size;
  }
  return offsets;
}

}  // namespace

std::string classNeededAt(const unsigned char* code, size_t code_size, int64_t bci, const unsigned char* pool,
                          size_t pool_size, int count) {
  if (bci < 0 || static_cast<size_t>(bci) + 3 > code_size) return {};
  // HotSpot's interpreter moves its bytecode index past a monitorenter before it enters: a
  // frame waiting for a program's own int[] stands at the instruction after it. (A class
  // needed right after an operand byte 0xc2 goes unnamed: the lock keeps its class's name.)
  if (bci >= 1 && code[bci - 1] == kMonitorEnter) return {};
  const unsigned char opcode = code[bci];
  if (opcode != kNew && opcode != kGetStatic && opcode != kPutStatic && opcode != kInvokeStatic) return {};
  const std::vector<size_t> offsets = entryOffsets(pool, pool_size, count);
  const auto entry = [&](unsigned index, Tag tag) -> const unsigned char* {
    if (index >= offsets.size() || offsets[index] == kNoEntry) return nullptr;
    return pool[offsets[index]] == tag ? pool + offsets[index] : nullptr;
  };
  unsigned class_index = u2(code + bci + 1);
  if (opcode != kNew) {
    const unsigned char* member = entry(class_index, opcode == kInvokeStatic ? kMethodref : kFieldref);
    if (!member && opcode == kInvokeStatic) member = entry(class_index, kInterfaceMethodref);
    if (!member) return {};
    class_index = u2(member + 1);
  }
  const unsigned char* klass = entry(class_index, kClass);
  const unsigned char* name = klass ? entry(u2(klass + 1), kUtf8) : nullptr;
  if (!name) return {};
  return std::string(reinterpret_cast<const char*>(name + 3), u2(name + 1));
}

const std::string& ClassInitLocks::nameAt(JNIEnv* jni, const RawFrame& top) {
  const auto key = std::make_pair(top.method, top.bci);
  if (const auto known = names_.find(key); known != names_.end()) return known->second;
  if (names_.size() >= kMaxNames) names_.clear();
  return names_.emplace(key, lookUp(jni, top)).first->second;
}

std::string ClassInitLocks::lookUp(JNIEnv* jni, const RawFrame& top) {
  std::string name = "int[]";
  if (top.bci < 0) return name;  // a native frame, a stub's, or no bytecode index
  const auto method = static_cast<jmethodID>(const_cast<void*>(top.method));
  jint code_size = 0;
  JvmtiBuffer<unsigned char> code(jvmti_);
  jclass holder = nullptr;
  if (jvmti_->GetBytecodes(method, &code_size, &code.ptr) != JVMTI_ERROR_NONE ||
      jvmti_->GetMethodDeclaringClass(method, &holder) != JVMTI_ERROR_NONE) {
    return name;
  }
  jint count = 0, pool_size = 0;
  JvmtiBuffer<unsigned char> pool(jvmti_);
  const bool have_pool = jvmti_->GetConstantPool(holder, &count, &pool_size, &pool.ptr) == JVMTI_ERROR_NONE;
  jni->DeleteLocalRef(holder);  // the writer's loop never returns to Java to free it
  std::string needed = have_pool ? classNeededAt(code.ptr, code_size, top.bci, pool.ptr, pool_size, count) : "";
  if (needed.empty()) return name;
  for (char& c : needed) c = c == '/' ? '.' : c;
  return name + " (initializing " + needed + ")";
}

}  // namespace stackscope::agent
