#include "agent/compiled_code.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>

namespace stackscope::agent {

namespace {

template <typename T>
T load(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
  return value;
}

uintptr_t loadWord(uintptr_t address) { return load<uintptr_t>(address); }

// An integer field whose width changed between JDKs (int on 17, int16_t or u2 on 25).
int64_t loadInt(uintptr_t address, uint64_t size) {
  switch (size) {
    case 1: return load<uint8_t>(address);
    case 2: return load<int16_t>(address);
    case 4: return load<int32_t>(address);
    default: return -1;
  }
}

constexpr uint8_t kFreeSegment = 0xFF;
// A segment-map walk steps back at most 254 segments at a time; a blob of 64 MB of 64-byte
// segments is 4096 steps. More means a map changing under the walk: give up.
constexpr int kMaxSegmentSteps = 1 << 16;
constexpr uint32_t kMaxFrameWords = 1 << 16;
// A compiled Java method's blob name, and a native method's wrapper's (JDK 17 to 22).
constexpr char kNmethodName[] = "nmethod";
constexpr char kNativeNmethodName[] = "native nmethod";

struct SegmentSearch {
  uintptr_t base;
  uintptr_t (*segments)[2];
  int* count;
  int max;
};

int collectSegments(dl_phdr_info* info, size_t, void* data) {
  auto& search = *static_cast<SegmentSearch*>(data);
  if (info->dlpi_addr != search.base) return 0;
  for (int i = 0; i < info->dlpi_phnum && *search.count < search.max; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type != PT_LOAD || !(header.p_flags & PF_R)) continue;
    search.segments[*search.count][0] = info->dlpi_addr + header.p_vaddr;
    search.segments[*search.count][1] = info->dlpi_addr + header.p_vaddr + header.p_memsz;
    ++*search.count;
  }
  return 1;
}

}  // namespace

bool CompiledCode::bind(const VmStructs& vm) {
  heap_count_ = 0;
  const void* heaps_static = vm.staticAddress("CodeCache", "_heaps");
  heap_memory_ = vm.fieldOffset("CodeHeap", "_memory");
  heap_segmap_ = vm.fieldOffset("CodeHeap", "_segmap");
  heap_log2_segment_ = vm.fieldOffset("CodeHeap", "_log2_segment_size");
  space_low_ = vm.fieldOffset("VirtualSpace", "_low");
  space_high_ = vm.fieldOffset("VirtualSpace", "_high");
  block_header_size_ = vm.typeSize("HeapBlock");
  const int64_t header = vm.fieldOffset("HeapBlock", "_header");
  const int64_t used = vm.fieldOffset("HeapBlock::Header", "_used");
  block_used_ = header < 0 || used < 0 ? -1 : header + used;
  const int64_t array_length = vm.fieldOffset("GrowableArrayBase", "_len");
  const int64_t array_data = vm.fieldOffset("GrowableArray<int>", "_data");

  blob_name_ = vm.fieldOffset("CodeBlob", "_name");
  blob_frame_size_ = vm.fieldOffset("CodeBlob", "_frame_size");
  blob_frame_complete_ = vm.fieldOffset("CodeBlob", "_frame_complete_offset");
  blob_frame_complete_size_ = vm.fieldSize("CodeBlob", "_frame_complete_offset");
  blob_code_begin_ = vm.fieldOffset("CodeBlob", "_code_begin");
  blob_code_end_ = vm.fieldOffset("CodeBlob", "_code_end");
  code_as_offsets_ = blob_code_begin_ < 0;
  if (code_as_offsets_) {
    blob_code_begin_ = vm.fieldOffset("CodeBlob", "_code_offset");
    blob_code_end_ = vm.fieldOffset("CodeBlob", "_data_offset");
  }
  blob_kind_ = vm.fieldOffset("CodeBlob", "_kind");
  if (blob_kind_ >= 0 && (vm.fieldSize("CodeBlob", "_kind") != 1 || !vm.intConstant("CodeBlobKind::Nmethod", nmethod_kind_))) {
    return false;
  }
  verified_entry_ = vm.fieldOffset("nmethod", "_verified_entry_point");
  verified_entry_as_offset_ = verified_entry_ < 0;
  if (verified_entry_as_offset_) verified_entry_ = vm.fieldOffset("nmethod", "_verified_entry_offset");
  if (verified_entry_as_offset_ && vm.fieldSize("nmethod", "_verified_entry_offset") != 2) return false;
  nmethod_method_ = vm.fieldOffset("nmethod", "_method");
  if (nmethod_method_ < 0) nmethod_method_ = vm.fieldOffset("CompiledMethod", "_method");

  method_const_ = vm.fieldOffset("Method", "_constMethod");
  const_constants_ = vm.fieldOffset("ConstMethod", "_constants");
  const_idnum_ = vm.fieldOffset("ConstMethod", "_method_idnum");
  pool_holder_ = vm.fieldOffset("ConstantPool", "_pool_holder");
  klass_method_ids_ = vm.fieldOffset("InstanceKlass", "_methods_jmethod_ids");

  bindDebugRecords(vm);

  for (const int64_t offset : {heap_memory_, heap_segmap_, heap_log2_segment_, space_low_, space_high_, block_used_,
                               array_length, array_data, blob_name_, blob_frame_size_, blob_frame_complete_,
                               blob_code_begin_, blob_code_end_, verified_entry_, nmethod_method_, method_const_,
                               const_constants_, const_idnum_, pool_holder_, klass_method_ids_}) {
    if (offset < 0) return false;
  }
  if (!heaps_static || block_header_size_ == 0 || (blob_frame_complete_size_ != 2 && blob_frame_complete_size_ != 4) ||
      vm.fieldSize("ConstMethod", "_method_idnum") != 2) {
    return false;
  }
  if (blob_kind_ < 0) {  // the name test: find libjvm.so's segments, where the name must point
    Dl_info info{};
    if (!dladdr(heaps_static, &info) || !info.dli_fbase) return false;
    jvm_segment_count_ = 0;
    SegmentSearch search{reinterpret_cast<uintptr_t>(info.dli_fbase), jvm_segments_, &jvm_segment_count_,
                         kMaxSegments};
    dl_iterate_phdr(collectSegments, &search);
    if (jvm_segment_count_ == 0) return false;
  }
  // The heaps are made at start-up, before any agent's VMInit, and never change after.
  const uintptr_t array = loadWord(reinterpret_cast<uintptr_t>(heaps_static));
  if (!array) return false;
  const int32_t length = load<int32_t>(array + array_length);
  const uintptr_t data = loadWord(array + array_data);
  if (length <= 0 || length > kMaxHeaps || !data) return false;
  for (int i = 0; i < length; ++i) heaps_[i] = loadWord(data + 8 * i);
  heap_count_ = length;
  return true;
}

uintptr_t CompiledCode::blobAt(uintptr_t pc, uintptr_t& heap_low, uintptr_t& heap_high) const {
  for (int i = 0; i < heap_count_; ++i) {
    const uintptr_t heap = heaps_[i];
    const uintptr_t low = loadWord(heap + heap_memory_ + space_low_);
    const uintptr_t high = loadWord(heap + heap_memory_ + space_high_);
    if (pc < low || pc >= high) continue;
    const uintptr_t map_low = loadWord(heap + heap_segmap_ + space_low_);
    const uintptr_t map_high = loadWord(heap + heap_segmap_ + space_high_);
    const int32_t shift = load<int32_t>(heap + heap_log2_segment_);
    if (shift <= 0 || shift > 20) return 0;
    uintptr_t segment = (pc - low) >> shift;
    for (int steps = 0;; ++steps) {
      if (map_low + segment < map_low || map_low + segment >= map_high || steps == kMaxSegmentSteps) return 0;
      const uint8_t back = load<uint8_t>(map_low + segment);
      if (back == kFreeSegment) return 0;
      if (back == 0) break;
      if (back > segment) return 0;
      segment -= back;
    }
    const uintptr_t block = low + (segment << shift);
    if (block + block_header_size_ >= high || load<uint8_t>(block + block_used_) == 0) return 0;
    heap_low = low;
    heap_high = high;
    return block + block_header_size_;
  }
  return 0;
}

bool CompiledCode::find(uintptr_t pc, CompiledMethodCode& out) const {
  uintptr_t low = 0, high = 0;
  const uintptr_t blob = blobAt(pc, low, high);
  return blob && readBlob(blob, low, high, pc, out);
}

bool CompiledCode::findBlob(uintptr_t pc, CodeBlobFrame& out) const {
  uintptr_t low = 0, high = 0;
  const uintptr_t blob = blobAt(pc, low, high);
  return blob && readFrame(blob, low, high, pc, out);
}

bool CompiledCode::contains(uintptr_t pc) const {
  for (int i = 0; i < heap_count_; ++i) {
    const uintptr_t low = loadWord(heaps_[i] + heap_memory_ + space_low_);
    const uintptr_t high = loadWord(heaps_[i] + heap_memory_ + space_high_);
    if (pc >= low && pc < high) return true;
  }
  return false;
}

bool CompiledCode::readFrame(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high, uintptr_t pc,
                             CodeBlobFrame& out) const {
  // The blob's header lies inside the heap; check each field read stays in it too.
  const auto inHeap = [&](int64_t offset, uint64_t size) {
    return blob >= heap_low && blob + offset + size <= heap_high;
  };
  if (!inHeap(blob_frame_size_, 4) || !inHeap(blob_code_begin_, 8) || !inHeap(blob_code_end_, 8) ||
      !inHeap(blob_frame_complete_, blob_frame_complete_size_)) {
    return false;
  }
  uintptr_t code_begin, code_end;
  if (code_as_offsets_) {
    code_begin = blob + static_cast<uint32_t>(load<int32_t>(blob + blob_code_begin_));
    code_end = blob + static_cast<uint32_t>(load<int32_t>(blob + blob_code_end_));
  } else {
    code_begin = loadWord(blob + blob_code_begin_);
    code_end = loadWord(blob + blob_code_end_);
  }
  if (code_begin <= blob || code_begin > pc || pc >= code_end || code_end > heap_high) return false;
  const int64_t frame_complete = loadInt(blob + blob_frame_complete_, blob_frame_complete_size_);
  const int32_t frame_words = load<int32_t>(blob + blob_frame_size_);
  const bool nmethod = isNmethod(blob, heap_low, heap_high);
  // A stub may say its frame is never safe to walk (-1): known as 0, not told.
  if ((frame_complete < 0 && nmethod) || code_begin + static_cast<uint64_t>(std::max<int64_t>(frame_complete, 0)) > code_end ||
      frame_words <= 0 || static_cast<uint32_t>(frame_words) > kMaxFrameWords) {
    return false;
  }
  out = {code_begin, code_end, frame_complete < 0 ? 0 : code_begin + static_cast<uint64_t>(frame_complete),
         static_cast<uint32_t>(frame_words), nmethod};
  return true;
}

bool CompiledCode::isNmethod(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high) const {
  if (blob_kind_ >= 0) {
    return blob + blob_kind_ + 1 <= heap_high && blob >= heap_low && load<uint8_t>(blob + blob_kind_) == nmethod_kind_;
  }
  return blob + blob_name_ + 8 <= heap_high && blob >= heap_low && isNmethodName(loadWord(blob + blob_name_));
}

bool CompiledCode::readBlob(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high, uintptr_t pc,
                            CompiledMethodCode& out) const {
  CodeBlobFrame frame;
  if (!readFrame(blob, heap_low, heap_high, pc, frame) || !frame.nmethod) return false;
  // The blob's header lies inside the heap; check each field read stays in it too.
  if (blob + verified_entry_ + 8 > heap_high || blob + nmethod_method_ + 8 > heap_high) return false;
  const uintptr_t verified_entry = verified_entry_as_offset_
                                       ? frame.code_begin + load<uint16_t>(blob + verified_entry_)
                                       : loadWord(blob + verified_entry_);
  const uintptr_t method = loadWord(blob + nmethod_method_);
  if (verified_entry < frame.code_begin || verified_entry >= frame.code_end || !method || method % 8 != 0) return false;
  out = {frame.code_begin, frame.code_end, verified_entry, frame.frame_complete, frame.frame_words,
         reinterpret_cast<const void*>(method), blob};
  return true;
}

void CompiledCode::bindDebugRecords(const VmStructs& vm) {
  const auto int32Field = [&vm](const char* field) {
    const int64_t offset = vm.fieldOffset("nmethod", field);
    const uint64_t size = vm.fieldSize("nmethod", field);
    return size == 0 || size == 4 ? offset : -1;
  };
  pcs_begin_ = int32Field("_scopes_pcs_offset");
  pcs_end_ = int32Field("_dependencies_offset");  // up to JDK 22 the dependencies follow the records
  immutable_data_ = -1;
  if (pcs_end_ < 0) {  // JDK 23+: the records, then the scopes, in a block of their own
    immutable_data_ = vm.fieldOffset("nmethod", "_immutable_data");
    immutable_size_ = int32Field("_immutable_data_size");
    pcs_end_ = immutable_data_ < 0 || immutable_size_ < 0 ? -1 : int32Field("_scopes_data_offset");
  }
  pc_desc_size_ = vm.typeSize("PcDesc");
  pc_desc_offset_ = vm.fieldOffset("PcDesc", "_pc_offset");
  if (pcs_end_ < 0 || pc_desc_offset_ < 0 || pc_desc_size_ < static_cast<uint64_t>(pc_desc_offset_) + 4) {
    pcs_begin_ = -1;
  }
}

bool CompiledCode::recordBeforeCall(const CompiledMethodCode& method, uintptr_t ra, uintptr_t& pc) const {
  if (pcs_begin_ < 0 || method.blob == 0 || ra <= method.code_begin || ra >= method.code_end) return false;
  const uintptr_t blob = method.blob;
  // The fields lie in the nmethod's header, before its code (find() checked the blob).
  for (const int64_t field : {pcs_begin_, pcs_end_, immutable_data_, immutable_size_}) {
    if (field >= 0 && blob + static_cast<uint64_t>(field) + 8 > method.code_begin) return false;
  }
  const uintptr_t base = immutable_data_ < 0 ? blob : loadWord(blob + immutable_data_);
  if (base == 0 || base % 8 != 0) return false;
  const int32_t begin_offset = load<int32_t>(blob + pcs_begin_);
  const int32_t end_offset = load<int32_t>(blob + pcs_end_);
  if (begin_offset < 0 || end_offset <= begin_offset ||
      static_cast<uint64_t>(end_offset - begin_offset) % pc_desc_size_ != 0) {
    return false;
  }
  // Outside the code cache the block's own size bounds every read.
  if (immutable_data_ >= 0 && end_offset > load<int32_t>(blob + immutable_size_)) return false;
  const uint64_t count = static_cast<uint64_t>(end_offset - begin_offset) / pc_desc_size_;
  constexpr uint64_t kMaxRecords = 1 << 22;
  if (count < 2 || count > kMaxRecords) return false;
  const uintptr_t records = base + static_cast<uint32_t>(begin_offset);
  if (immutable_data_ < 0) {  // inside the nmethod: after its code, within its code heap
    uintptr_t heap_low = 0, heap_high = 0;
    if (blobAt(ra, heap_low, heap_high) != blob || records < method.code_end ||
        records + count * pc_desc_size_ > heap_high) {
      return false;
    }
  }
  const auto offsetAt = [&](uint64_t i) { return load<int32_t>(records + i * pc_desc_size_ + pc_desc_offset_); };
  // HotSpot's sentinels tell a layout read right: first -1; last the largest int up to JDK 22,
  // one past the code's end after (seen on JDK 25).
  constexpr int32_t kLowerLimit = -1, kUpperLimit = 0x7fffffff;
  const int32_t last = offsetAt(count - 1);
  if (offsetAt(0) != kLowerLimit ||
      (last != kUpperLimit && static_cast<uint64_t>(last) != method.code_end - method.code_begin + 1)) {
    return false;
  }
  const int64_t target = static_cast<int64_t>(ra - method.code_begin);
  // The first record at or after ra: [low, high) narrows to it.
  uint64_t low = 1, high = count - 1;
  while (low < high) {
    const uint64_t mid = low + (high - low) / 2;
    if (offsetAt(mid) < target) low = mid + 1; else high = mid;
  }
  if (low < 2) return false;  // none before it but the sentinel
  const int32_t before = offsetAt(low - 1);
  if (before <= 0 || before >= target) return false;
  pc = method.code_begin + static_cast<uint32_t>(before);
  return pc > method.frame_complete;
}

bool CompiledCode::isNmethodName(uintptr_t name) const {
  const auto named = [name](const uintptr_t* segment, const char* expected, size_t size) {
    return name >= segment[0] && name + size <= segment[1] &&
           std::memcmp(reinterpret_cast<const void*>(name), expected, size) == 0;
  };
  for (int i = 0; i < jvm_segment_count_; ++i) {
    if (named(jvm_segments_[i], kNmethodName, sizeof kNmethodName) ||
        named(jvm_segments_[i], kNativeNmethodName, sizeof kNativeNmethodName)) {
      return true;
    }
  }
  return false;
}

const void* CompiledCode::methodId(const void* method) const {
  const auto valid = [](uintptr_t pointer) { return pointer != 0 && pointer % 8 == 0; };
  const uintptr_t const_method = loadWord(reinterpret_cast<uintptr_t>(method) + method_const_);
  if (!valid(const_method)) return nullptr;
  const uintptr_t constants = loadWord(const_method + const_constants_);
  if (!valid(constants)) return nullptr;
  const uintptr_t holder = loadWord(constants + pool_holder_);
  if (!valid(holder)) return nullptr;
  // [0] is the array's length, [idnum + 1] the method's id (null until JVMTI made one: the
  // agent makes them all when a class is prepared).
  const uintptr_t ids = loadWord(holder + klass_method_ids_);
  if (!valid(ids)) return nullptr;
  const uint16_t idnum = load<uint16_t>(const_method + const_idnum_);
  if (loadWord(ids) <= idnum) return nullptr;
  return reinterpret_cast<const void*>(loadWord(ids + 8 * (static_cast<uintptr_t>(idnum) + 1)));
}

}  // namespace stackscope::agent
