#include "agent/java_api.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/cpu_sampler.h"
#include "agent/remembered_annotations.h"
#include "agent/session_gate.h"
#include "agent/utf8.h"

namespace stackscope::agent {

namespace {

constexpr const char* kClassSignature = "Lio/stackscope/Stackscope;";
constexpr jint kAccStatic = 0x0008;

JavaApiContext g_api;
std::atomic<bool> g_active{false};
std::atomic<bool> g_mismatch_reported{false};

// A Java string as standard UTF-8, cut at kMaxAnnotationValueBytes; false for null (unset).
bool readText(JNIEnv* jni, jstring text, std::string& out) {
  if (!text) return false;
  // Each UTF-16 unit makes at least one byte, so one unit past the cap is all the cut can
  // need, and a surrogate pair straddling it is still read whole.
  constexpr jsize kMaxUnits = static_cast<jsize>(kMaxAnnotationValueBytes + 1);
  jchar units[kMaxUnits];
  const jsize count = std::min(jni->GetStringLength(text), kMaxUnits);
  jni->GetStringRegion(text, 0, count, units);
  if (jni->ExceptionCheck()) {  // cannot happen within bounds; never let one reach the app
    jni->ExceptionClear();
    return false;
  }
  out.clear();
  appendUtf8FromUtf16(units, static_cast<size_t>(count), kMaxAnnotationValueBytes, out);
  return true;
}

void pushMarker(JNIEnv* jni, jstring name, format::MarkerKind kind) {
  // Markers bound snapshots of the whole program, so they are recorded whatever the
  // annotation filter says about the thread that writes them.
  const ThreadSlot* slot = callingThreadSlot();
  std::string text;
  if (!readText(jni, name, text)) return;
  queueMarker(std::move(text), kind, slot ? slot->id : 0);  // the Java side refuses empty names
}

void JNICALL mark0(JNIEnv* jni, jclass, jstring name) { pushMarker(jni, name, format::MarkerKind::Point); }
void JNICALL begin0(JNIEnv* jni, jclass, jstring name) { pushMarker(jni, name, format::MarkerKind::Begin); }
void JNICALL end0(JNIEnv* jni, jclass, jstring name) { pushMarker(jni, name, format::MarkerKind::End); }

// Puts annotation `found` in force on `slot`, with annotationChangeMutex held: on the thread
// itself (the annotate native) or, when a recording begins, for a thread that annotated
// itself before it (applyRememberedAnnotations). arm(slot, armed) arms or disarms its CPU
// timer in cpu mode.
template <typename Arm>
void applyAnnotation(ThreadSlot& slot, AnnotationTable::Lookup found, Arm&& arm) {
  const uint32_t previous = slot.annotation.load(std::memory_order_relaxed);
  const bool was_excluded = slot.excluded.load(std::memory_order_relaxed);
  const bool excluded = !found.matches;
  if (found.id == previous && excluded == was_excluded) return;  // a scope restoring the same

  // Sequentially consistent stores (this path runs only on a change), in this order:
  // `excluded` set before an id the filter rejects, cleared only after one it accepts, so
  // neither the thread's own signal handler nor the wall sampler (which reads the id, then
  // `excluded` again) can pair a rejected id with "included".
  if (excluded && !was_excluded) {
    slot.excluded.store(true);
    if (g_api.cpu_timers) arm(slot, false);
  }
  slot.annotation.store(found.id);
  // wall mode: the stack last captured belongs to the old annotation; do not let an idle
  // tick repeat it under the new one.
  slot.has_stack.store(false);
  if (!excluded && was_excluded) {
    slot.excluded.store(false);
    if (g_api.cpu_timers) arm(slot, true);
  }
  // A thread the filter leaves out records nothing, except the change that ends its
  // recorded time (matching to not matching).
  if (found.id == previous || (excluded && was_excluded)) return;
  MetaEvent event;
  event.kind = MetaEvent::Kind::AnnotationChange;
  event.time_ns = monotonicNs() - g_api.start_ns;
  event.thread = slot.id;
  event.annotation = found.id;
  g_api.meta->push(std::move(event));
}

// Runs on the thread being annotated. Remembered even while nothing records, for the next
// recording (remembered_annotations.h).
void JNICALL annotate0(JNIEnv* jni, jclass, jstring user, jstring session, jstring request, jstring application,
                       jstring component) {
  AnnotationValues values;
  const jstring texts[kAnnotationFields] = {user, session, request, application, component};
  for (int field = 0; field < kAnnotationFields; ++field) {
    if (readText(jni, texts[field], values.value[field])) values.set = static_cast<uint8_t>(values.set | 1u << field);
  }
  std::lock_guard<std::mutex> lock(annotationChangeMutex());
  rememberOwnAnnotation(values);
  SessionUse use;
  if (!use || !g_active.load(std::memory_order_acquire)) return;
  ThreadSlot* slot = callingThreadSlot();
  if (!slot) return;  // a thread the agent does not sample: nothing to attribute
  applyAnnotation(*slot, g_api.annotations->lookup(values),
                  [](ThreadSlot& own, bool armed) { g_api.registry->setTimerArmed(own, armed); });
}

bool isJavaApiClass(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  if (jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE || !signature) return false;
  const bool is = std::strcmp(signature, kClassSignature) == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return is;
}

// The static boolean `bound`, found through JVMTI: JNI's GetStaticFieldID would initialize
// the class, running Java code inside the ClassPrepare callback.
jfieldID boundField(jvmtiEnv* jvmti, jclass klass) {
  jint count = 0;
  jfieldID* fields = nullptr;
  if (jvmti->GetClassFields(klass, &count, &fields) != JVMTI_ERROR_NONE) return nullptr;
  jfieldID found = nullptr;
  for (jint i = 0; i < count && !found; ++i) {
    char* name = nullptr;
    char* signature = nullptr;
    jint modifiers = 0;
    if (jvmti->GetFieldName(klass, fields[i], &name, &signature, nullptr) != JVMTI_ERROR_NONE) continue;
    if (std::strcmp(name, "bound") == 0 && std::strcmp(signature, "Z") == 0 &&
        jvmti->GetFieldModifiers(klass, fields[i], &modifiers) == JVMTI_ERROR_NONE && (modifiers & kAccStatic)) {
      found = fields[i];
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(fields));
  return found;
}

void bindClass(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
  constexpr const char* kOneString = "(Ljava/lang/String;)V";
  constexpr const char* kFiveStrings =
      "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)V";
  // jni.h's JNINativeMethod has non-const char pointers; RegisterNatives only reads them.
  JNINativeMethod methods[] = {
      {const_cast<char*>("mark0"), const_cast<char*>(kOneString), reinterpret_cast<void*>(mark0)},
      {const_cast<char*>("begin0"), const_cast<char*>(kOneString), reinterpret_cast<void*>(begin0)},
      {const_cast<char*>("end0"), const_cast<char*>(kOneString), reinterpret_cast<void*>(end0)},
      {const_cast<char*>("annotate0"), const_cast<char*>(kFiveStrings), reinterpret_cast<void*>(annotate0)},
  };
  const jfieldID bound = boundField(jvmti, klass);
  if (!bound || jni->RegisterNatives(klass, methods, sizeof(methods) / sizeof(methods[0])) != JNI_OK) {
    if (jni->ExceptionCheck()) jni->ExceptionClear();  // NoSuchMethodError: another version of the jar
    if (!g_mismatch_reported.exchange(true)) {
      std::fprintf(stderr,
                   "stackscope: the io.stackscope.Stackscope class loaded does not match this agent; "
                   "its markers and annotations are not recorded\n");
    }
    return;
  }
  jni->SetStaticBooleanField(klass, bound, JNI_TRUE);
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

}  // namespace

void initJavaApi(const JavaApiContext& context) { g_api = context; }

bool queueMarker(std::string name, format::MarkerKind kind, uint32_t thread) {
  SessionUse use;  // g_api is the session's (session_gate.h)
  if (!use || !g_active.load(std::memory_order_acquire) || name.empty()) return false;
  MetaEvent event;
  event.kind = MetaEvent::Kind::Marker;
  event.time_ns = monotonicNs() - g_api.start_ns;
  event.thread = thread;
  event.marker = kind;
  event.name = std::move(name);
  g_api.meta->push(std::move(event));
  return true;
}

void setJavaApiActive(bool active) { g_active.store(active, std::memory_order_release); }

void applyRememberedAnnotations() {
  SessionUse use;
  if (!use || !g_active.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(annotationChangeMutex());
  // Registered threads under the registry's mutex: none of their slots goes away meanwhile,
  // and arming a timer needs it.
  g_api.registry->forEachLocked([](ThreadSlot& slot) {
    if (const AnnotationValues* values = slot.tid != 0 ? rememberedAnnotationOf(slot.tid) : nullptr) {
      applyAnnotation(slot, g_api.annotations->lookup(*values), armThreadTimer);
    }
  });
  // Threads adopted after an attach (cpu mode): their slots live as long as the session, and
  // their timers stay armed (their handler drops the ticks of an excluded thread).
  if (!g_api.by_tid) return;
  forEachRememberedAnnotation([](pid_t tid, const AnnotationValues& values) {
    if (ThreadSlot* slot = g_api.by_tid->find(tid)) {
      applyAnnotation(*slot, g_api.annotations->lookup(values), [](ThreadSlot&, bool) {});
    }
  });
}

void bindIfJavaApi(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
  if (g_active.load(std::memory_order_acquire) && isJavaApiClass(jvmti, klass)) bindClass(jvmti, jni, klass);
}

void bindLoadedJavaApi(jvmtiEnv* jvmti, JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  // One local reference per class arrives at once: make room for them.
  if (jni->EnsureLocalCapacity(count) != JNI_OK) jni->ExceptionClear();
  for (jint i = 0; i < count; ++i) {
    jint status = 0;
    // One not prepared yet is bound by its ClassPrepare event.
    if (jvmti->GetClassStatus(classes[i], &status) == JVMTI_ERROR_NONE && (status & JVMTI_CLASS_STATUS_PREPARED)) {
      bindIfJavaApi(jvmti, jni, classes[i]);
    }
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

}  // namespace stackscope::agent
