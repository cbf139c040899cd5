// Mixed mode: the native frames between two Java frames, where native code called into Java
// (a JNI method calling back, the VM loading a class), put at their place in a captured stack.
// AsyncGetCallTrace gives the Java frames of every region of the stack in one list (it steps
// over the native frames of the middle); java_regions.h finds the regions and the native
// frames between them. How many of the list's frames each region holds (inlined methods make
// them more than its physical frames) is learnt by walking again from each region's top: the
// frames from region k's top less those from region k+1's. The walk from region k+1's top
// must give exactly the list's last frames, or nothing is changed. A thread in native code
// cannot be walked again (its frame anchor is the VM's to read at any time): there each
// region's top must be a native method's compiled wrapper (a JNI method that called back),
// found in the list as the next frame of that native method.
//
// SIGNAL SAFETY: everything here runs in the SIGPROF handler (stack_capture.cpp's rules).
#pragma once

#include <cstdint>

#include "agent/code_regions.h"
#include "agent/compiled_code.h"
#include "agent/entry_frames.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

// Walks AsyncGetCallTrace from a region's top (a Java frame, pc a return address) into out,
// at most depth frames; its num_frames.
using WalkJavaFrom = int32_t (*)(const WalkRegisters& top, RawFrame* out, int32_t depth, void* data);

struct BetweenInput {
  const EntryFrames* entry = nullptr;
  const CodeRegions* code_regions = nullptr;  // names the call stub's frame; may be null
  StackBounds stack;
  uintptr_t interrupted_sp = 0;
  WalkRegisters top;  // the innermost Java frame: where AsyncGetCallTrace's walk began
};

// What the region walk found: how many Java regions (0: it gave up) and, at the bottom of the
// stack, the outermost call into Java: its entry frame's fp and the Java frame the call stub
// called (pc 0: none), the stack's outermost physical Java frame.
struct RegionsFound {
  int count = 0;
  uintptr_t bottom_entry_fp = 0;
  WalkRegisters bottom_java_frame;
};

// frames[0, native) are the native frames on top, frames[native, native + java) the Java
// frames AsyncGetCallTrace gave from input.top. When the stack has more than one Java region
// and all checks out, the native frames of the middle are put in and the new number of
// frames after `native` is returned; 0 leaves the frames as they are. `found` tells what the
// region walk found. `walk` null: the thread is in native code.
int32_t insertNativeBetween(const BetweenInput& input, RawFrame* frames, int32_t native, int32_t java,
                            WalkJavaFrom walk, void* walk_data, RegionsFound& found);

// The call stub's own frame, an entry frame, as a sample shows it ("[stub] call_stub"); false
// when the VM did not name the stub to the agent.
bool callStubFrame(const EntryFrames& entry, const CodeRegions* code_regions, RawFrame& frame);

// How many of the list's last frames (of list[0, java)) `walk` gives from `top`, a Java frame
// of the stack: the list's frames from that frame out. -1 when the walk does not end as the
// list does (it did not start at a frame of this stack, or the list ends elsewhere) or may
// have been cut (it filled `room`, the free room past the list, where it lands).
int32_t listFramesFrom(const WalkRegisters& top, RawFrame* list, int32_t java, int32_t room, WalkJavaFrom walk,
                       void* walk_data);

}  // namespace stackscope::agent
