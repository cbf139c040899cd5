#include "agent/remembered_annotations.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <unordered_map>

namespace stackscope::agent {

namespace {

std::mutex g_mutex;
// Never freed: threads of the JVM may still exit (and forget theirs) after the process's
// static destructors ran.
auto* const g_by_tid = new std::unordered_map<pid_t, AnnotationValues>;

// Forgets the thread's entry when its OS thread exits: its tid may then be given to a new
// thread, which must not inherit the annotation.
struct ForgetAtThreadExit {
  pid_t tid = 0;
  ~ForgetAtThreadExit() {
    if (tid == 0) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_by_tid->erase(tid);
  }
};
thread_local ForgetAtThreadExit t_forget;

}  // namespace

std::mutex& annotationChangeMutex() { return g_mutex; }

void rememberOwnAnnotation(const AnnotationValues& values) {
  if (t_forget.tid == 0) t_forget.tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (values.empty()) {
    g_by_tid->erase(t_forget.tid);
  } else {
    (*g_by_tid)[t_forget.tid] = values;
  }
}

const AnnotationValues* rememberedAnnotationOf(pid_t tid) {
  const auto it = g_by_tid->find(tid);
  return it == g_by_tid->end() ? nullptr : &it->second;
}

void forEachRememberedAnnotation(void (*fn)(pid_t tid, const AnnotationValues& values)) {
  for (const auto& [tid, values] : *g_by_tid) fn(tid, values);
}

}  // namespace stackscope::agent
