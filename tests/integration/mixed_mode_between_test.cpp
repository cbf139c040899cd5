// Mixed mode's native frames between Java frames (agent/native_between.h): a JNI method that
// calls back into Java shows, between the callback and the native method, the JNI library's
// C function and the JVM's functions that made the call. And the native frames on top of the
// Java ones where the C code keeps no frame pointer (native/native_stack_walk.h).
#include <algorithm>

#include "folded_stacks.h"
#include "harness.h"

namespace it {
namespace {

class MixedModeBetween : public RecordingTest {};

// The main thread's stacks from main in (the frames below are mixed_mode_below_test.cpp's).
std::vector<FoldedStack> mainThreadStacks(const std::string& path) {
  std::vector<FoldedStack> stacks = foldedStacks(path, "thread=main or thread=DestroyJavaVM");
  for (FoldedStack& stack : stacks) stack.frames = aboveBottom(stack.frames);
  return stacks;
}

const std::string kMain = kWorkloads + "JniCallback.main";
const std::string kNativeMethod = kWorkloads + "JniCallback.callBack";
const std::string kCallback = kWorkloads + "JniCallback.work";
const std::string kNativeCallee = kWorkloads + "JniCallback.spin";
const std::string kCFunction = "Java_io_stackscope_workloads_JniCallback_callBack";
const std::string kCalleeCFunction = "Java_io_stackscope_workloads_JniCallback_spin";
const std::string kJniCall = "jni_CallStaticVoidMethod";

// Whether the stack reads, outermost first: main, callBack, the C functions `c_functions`, the
// JVM's JNI call, then only native frames (the VM's, the call stub's) up to the callback.
bool nativeFramesBetween(const std::vector<std::string>& frames, size_t callback,
                         const std::vector<std::string>& c_functions) {
  std::vector<std::string> expected = {kMain, kNativeMethod};
  expected.insert(expected.end(), c_functions.begin(), c_functions.end());
  expected.push_back(kJniCall);
  if (callback < expected.size() || !std::equal(expected.begin(), expected.end(), frames.begin())) return false;
  for (size_t i = expected.size(); i < callback; ++i) {
    if (frames[i].starts_with(kWorkloads) || frames[i].starts_with("java.")) return false;
  }
  return true;
}

// The frames without the JIT stubs' ("[stub] …", shown without native frames too).
std::vector<std::string> withoutStubs(const std::vector<std::string>& frames) {
  std::vector<std::string> kept;
  for (const std::string& frame : frames)
    if (!frame.starts_with("[stub] ")) kept.push_back(frame);
  return kept;
}

// JniCallback's main thread spends nearly all its CPU in work, called from the C function of
// the native method callBack through jni_CallStaticVoidMethod (tests/native_programs, built
// with frame pointers), in Java and in the native method spin it calls. Truth by
// construction: every sample of work has main, callBack, the C function and the JNI call
// below it, in that order, whether taken in Java code or in spin's C function (the thread in
// native code). Tolerance: at least 90 % of work's samples, and of those in spin's C function,
// show them so (a sample taken while the call is being set up or torn down has its native
// frames on top instead); without native frames (--no-native), every one of work's samples
// is main, callBack, work (and spin) and nothing else but a JIT stub's frame, or the VM
// linking spin at its first call, through Java code (one sample seen on JDK 25). The same in
// mixed mode with the library built without frame pointers, whose callBack calls the JNI
// function through one more C function, call_work (jni_callback_no_frame_pointer.c): both C
// functions are found by their CFI (native/native_stack_walk.h; by frame pointers alone the
// first is skipped: 0 of 198 samples whole on JDK 17 before).
// Whether the Java frames are the VM's lookup of spin's C function at its first call.
bool linkingSpin(const std::vector<std::string>& java) {
  const std::vector<std::string> linking = {kMain, kNativeMethod, kCallback, kNativeCallee,
                                            "java.lang.ClassLoader.findNative"};
  return java.size() >= linking.size() && std::equal(linking.begin(), linking.end(), java.begin());
}

TEST_F(MixedModeBetween, JniCallbackShowsTheNativeFramesBetweenItsJavaFrames) {
  struct Case {
    const char* label;
    bool native;
    const char* library;
    std::vector<std::string> c_functions;
  };
  for (const Case& run : {Case{"mixed", true, JNI_CALLBACK_LIBRARY, {kCFunction}},
                          Case{"mixed-no-frame-pointer", true, JNI_CALLBACK_NO_FRAME_POINTER_LIBRARY,
                               {kCFunction, "call_work"}},
                          Case{"no-native", false, JNI_CALLBACK_LIBRARY, {}}}) {
    SCOPED_TRACE(run.label);
    const bool native = run.native;
    std::vector<std::string> options = {"-e", "cpu"};
    if (!native) options.push_back("--no-native");
    const std::string path = file(std::string(run.label) + ".ssr");
    ProcessResult rec = record(options, path, "JniCallback", {"2000", run.library});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    double callback_samples = 0, right = 0, in_native = 0, in_native_right = 0;
    std::string wrong;
    for (const FoldedStack& stack : mainThreadStacks(path)) {
      const auto callback = std::find(stack.frames.begin(), stack.frames.end(), kCallback);
      if (callback == stack.frames.end()) continue;
      callback_samples += stack.samples;
      const auto at = static_cast<size_t>(callback - stack.frames.begin());
      const std::vector<std::string> java = withoutStubs(stack.frames);
      const bool as_expected = native ? nativeFramesBetween(stack.frames, at, run.c_functions)
                                      : java == std::vector<std::string>{kMain, kNativeMethod, kCallback} ||
                                            java == std::vector<std::string>{kMain, kNativeMethod, kCallback, kNativeCallee} ||
                                            linkingSpin(java);
      if (std::find(stack.frames.begin(), stack.frames.end(), kCalleeCFunction) != stack.frames.end()) {
        in_native += stack.samples;
        if (as_expected) in_native_right += stack.samples;
      }
      if (as_expected) {
        right += stack.samples;
      } else {
        wrong += describe(stack);
      }
    }
    ASSERT_GT(callback_samples, 100) << "too few samples of the callback to judge";
    if (native) {
      EXPECT_GE(right / callback_samples, 0.90) << right << " of " << callback_samples << "; the others:\n" << wrong;
      ASSERT_GT(in_native, 20) << "too few samples in spin's C function to judge";
      EXPECT_GE(in_native_right / in_native, 0.90) << in_native_right << " of " << in_native << "; the others:\n" << wrong;
    } else {
      EXPECT_EQ(right, callback_samples) << wrong;
    }
  }
}

// Whether, outermost first, the frame `outer` is followed by native frames only, among them
// JavaCalls::call_helper and one whose name holds `vm_function`, and then by `inner`.
bool vmFramesBetween(const std::vector<std::string>& frames, const std::string& outer, const std::string& inner,
                     const std::string& vm_function) {
  const auto from = std::find(frames.begin(), frames.end(), outer);
  if (from == frames.end()) return false;
  bool call_helper = false, named = false;
  for (auto frame = from + 1; frame != frames.end(); ++frame) {
    if (*frame == inner) return call_helper && named;
    if (frame->starts_with(kWorkloads) || frame->starts_with("java.")) return false;
    call_helper = call_helper || frame->starts_with("JavaCalls::call_helper");
    named = named || frame->find(vm_function) != std::string::npos;
  }
  return false;
}

// LoaderCallback's main thread initializes a class (Class.forName) whose static initializer,
// run by the VM, makes the VM load a class from a loader that burns the CPU in burn. Truth by
// construction: every sample of burn has, outermost first, Class.forName0, the VM initializing
// the class (InstanceKlass::), Resolver.<clinit>, the VM loading the class (SystemDictionary::),
// BurningLoader.loadClass. Tolerance: at least 90 % of burn's samples show all of it.
TEST_F(MixedModeBetween, TheVmLoadingAClassShowsItsFramesBetweenTheJavaFrames) {
  ProcessResult rec = record({"-e", "cpu"}, file("loader.ssr"), "LoaderCallback", {"3000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string loader = kWorkloads + "LoaderCallback$";
  double burn_samples = 0, right = 0;
  std::string wrong;
  for (const FoldedStack& stack : mainThreadStacks(file("loader.ssr"))) {
    const auto burn = std::find(stack.frames.begin(), stack.frames.end(), kWorkloads + "LoaderCallback.burn");
    if (burn == stack.frames.end()) continue;
    burn_samples += stack.samples;
    if (stack.frames[0] == kWorkloads + "LoaderCallback.main" &&
        vmFramesBetween(stack.frames, "java.lang.Class.forName0", loader + "Resolver.<clinit>", "InstanceKlass::") &&
        vmFramesBetween(stack.frames, loader + "Resolver.<clinit>", loader + "BurningLoader.loadClass",
                        "SystemDictionary::") &&
        burn != stack.frames.begin() && *(burn - 1) == loader + "BurningLoader.loadClass") {
      right += stack.samples;
    } else {
      wrong += describe(stack);
    }
  }
  ASSERT_GT(burn_samples, 50) << "too few samples of burn to judge";
  EXPECT_GE(right / burn_samples, 0.90) << right << " of " << burn_samples << "; the others:\n" << wrong;
}

class MixedModeCfi : public RecordingTest {};

// NoFramePointerChain's main thread spends nearly all its CPU in jni_chain_a, called from the
// native method run through jni_chain_c and jni_chain_b, C functions built with
// -fomit-frame-pointer (tests/native_programs/jni_no_frame_pointer.c): only their CFI
// describes their frames. Truth by construction: every sample of jni_chain_a has, outermost
// first, main, run, run's C function, jni_chain_c, jni_chain_b and then jni_chain_a on top.
// Tolerance: at least 90 % of jni_chain_a's samples show the whole chain (one taken as a
// function is entered or left may lack a frame the compiler has not set up yet).
TEST_F(MixedModeCfi, CFunctionsWithoutFramePointersShowTheirCallers) {
  const std::string path = file("chain.ssr");
  ProcessResult rec = record({"-e", "cpu"}, path, "NoFramePointerChain", {"2000", JNI_NO_FRAME_POINTER_LIBRARY});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::vector<std::string> chain = {kWorkloads + "NoFramePointerChain.main", kWorkloads + "NoFramePointerChain.run",
                                          "Java_io_stackscope_workloads_NoFramePointerChain_run", "jni_chain_c",
                                          "jni_chain_b", "jni_chain_a"};
  double leaf_samples = 0, whole = 0;
  std::string wrong;
  for (const FoldedStack& stack : mainThreadStacks(path)) {
    // Kernel frames may be above it (an interrupt): the chain is what lies below.
    const auto leaf = std::find(stack.frames.begin(), stack.frames.end(), chain.back());
    if (leaf == stack.frames.end()) continue;
    leaf_samples += stack.samples;
    if (withoutStubs({stack.frames.begin(), leaf + 1}) == chain) {
      whole += stack.samples;
    } else {
      wrong += describe(stack);
    }
  }
  ASSERT_GT(leaf_samples, 100) << "too few samples of jni_chain_a to judge";
  EXPECT_GE(whole / leaf_samples, 0.90) << whole << " of " << leaf_samples << "; the others:\n" << wrong;
}

}  // namespace
}  // namespace it
