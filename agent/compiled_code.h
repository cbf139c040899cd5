// HotSpot's code cache read through the structures it exports (vm_structs.h): which compiled
// Java method (nmethod) holds a pc, where its frame is complete, its frame size, and the
// jmethodID of its Java method. AsyncGetCallTrace gives up on a pc in a method's prologue or
// epilogue; with this the stack capture walks on from the caller (compiled_frame_edges.h).
//
// The code cache is a few CodeHeaps; each maps its segments to the blocks holding them (the
// segment map: 0xFF a free segment, 0 a block's first, n "go back n segments"), and a block's
// header is followed by the CodeBlob.
//
// SIGNAL SAFETY: find() and methodId() run in the SIGPROF handler. They read only memory that
// is mapped for the life of the VM: the CodeHeap objects, the committed parts of a heap and of
// its segment map (bounds re-read at each call, as the heap grows), blob headers checked to
// contain pc, and the metadata of the method the thread is running (alive while it runs). Every
// offset is taken from the VM's tables at bind(); a field the tables lack leaves it unbound.
#pragma once

#include <cstdint>

#include "agent/compiled_frame_edges.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

class CompiledCode {
 public:
  // Reads the layout and the list of code heaps (which exist from VMInit on). Outside signal
  // handlers. False, and find() finds nothing, when this VM lacks something needed.
  bool bind(const VmStructs& vm);
  bool bound() const { return heap_count_ > 0; }

  // The nmethod holding pc, or false (not in the code cache, or a stub, adapter, the
  // interpreter: not a compiled Java method). Async-signal-safe.
  bool find(uintptr_t pc, CompiledMethodCode& out) const;

  // Any code blob holding pc (a runtime stub, an adapter, a compiled method): its code, where
  // its frame is complete and its size. False outside the code cache. Async-signal-safe.
  bool findBlob(uintptr_t pc, CodeBlobFrame& out) const;

  // Whether pc lies in the code cache's committed code (compiled methods, stubs, the
  // interpreter). Async-signal-safe.
  bool contains(uintptr_t pc) const;

  // The jmethodID of a Method* found by find(), or null when it has none yet. Async-signal-safe.
  const void* methodId(const void* method) const;

  // The end of the last instruction before the call returning to `ra` in `method` that has a
  // debug record (PcDesc): where that instruction's inlined method and bci are told. A leaf call
  // (into an intrinsic's stub, the VM or libc) has no record of its own, and AsyncGetCallTrace
  // names its frame by the first record at or after its return address: the code after the
  // call, or a safepoint poll right at it, which may belong to another inlined method. The stack
  // capture weighs both (stack_capture.cpp). False when no record lies before ra past the
  // prologue, or when this VM's records cannot be read. Async-signal-safe. From JDK 23 the
  // records lie outside the code cache, in a block whose recorded size bounds the reads: call
  // it for a frame AsyncGetCallTrace has just walked (it read the same records).
  bool recordBeforeCall(const CompiledMethodCode& method, uintptr_t ra, uintptr_t& pc) const;

 private:
  static constexpr int kMaxHeaps = 8;  // HotSpot has 1 (unsegmented) or 3

  // The blob holding pc and the bounds of its heap's committed code, or 0.
  uintptr_t blobAt(uintptr_t pc, uintptr_t& heap_low, uintptr_t& heap_high) const;
  bool readFrame(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high, uintptr_t pc, CodeBlobFrame& out) const;
  bool readBlob(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high, uintptr_t pc, CompiledMethodCode& out) const;
  bool isNmethod(uintptr_t blob, uintptr_t heap_low, uintptr_t heap_high) const;
  bool isNmethodName(uintptr_t name) const;
  void bindDebugRecords(const VmStructs& vm);

  uintptr_t heaps_[kMaxHeaps] = {};
  int heap_count_ = 0;
  // CodeHeap and its VirtualSpaces
  int64_t heap_memory_ = 0, heap_segmap_ = 0, heap_log2_segment_ = 0;
  int64_t space_low_ = 0, space_high_ = 0;
  uint64_t block_header_size_ = 0;
  int64_t block_used_ = 0;
  // CodeBlob: the code range is two addresses up to JDK 21, two offsets from the blob after
  int64_t blob_name_ = 0, blob_frame_size_ = 0, blob_frame_complete_ = 0;
  uint64_t blob_frame_complete_size_ = 0;
  bool code_as_offsets_ = false;
  int64_t blob_code_begin_ = 0, blob_code_end_ = 0;
  // An nmethod is told by the blob's kind (JDK 23+) or, before, by its name "nmethod" ("native
  // nmethod": a native method's wrapper)
  int64_t blob_kind_ = -1;
  int32_t nmethod_kind_ = 0;
  // Where that name may point: libjvm.so's loaded segments (its string constants among them).
  static constexpr int kMaxSegments = 8;
  uintptr_t jvm_segments_[kMaxSegments][2] = {};
  int jvm_segment_count_ = 0;
  int64_t verified_entry_ = 0;
  bool verified_entry_as_offset_ = false;
  int64_t nmethod_method_ = 0;
  // Method* -> ConstMethod -> ConstantPool -> InstanceKlass -> its jmethodID array
  int64_t method_const_ = 0, const_constants_ = 0, const_idnum_ = 0, pool_holder_ = 0, klass_method_ids_ = 0;
  // An nmethod's debug records (PcDesc, sorted by pc offset from its code's start, between two
  // sentinels): offsets from the nmethod up to JDK 22; from its immutable data block (a pointer
  // in it) after. Unbound (pcs_begin_ < 0): recordBeforeCall is off.
  int64_t pcs_begin_ = -1, pcs_end_ = -1, immutable_data_ = -1, immutable_size_ = -1;
  uint64_t pc_desc_size_ = 0;
  int64_t pc_desc_offset_ = -1;
};

}  // namespace stackscope::agent
