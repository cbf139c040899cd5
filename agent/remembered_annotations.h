// What each thread last annotated itself with through the Java API, kept for the process's
// life rather than a recording's. The Java API calls the agent only when a thread's
// annotation changes (Stackscope.java), so a later recording of the same JVM (a start after
// a stop over control, a second attach) learns here the annotation of a thread that keeps
// it; java_api.cpp applies them when a recording begins.
//
// Bounded by the live threads that carry an annotation: a thread's entry goes when it
// annotates itself with nothing, and when its OS thread exits.
#pragma once

#include <sys/types.h>

#include <mutex>

#include "agent/annotation_values.h"

namespace stackscope::agent {

// Serializes every change of a thread's annotation: the thread's own (the annotate native)
// and a beginning recording's. Held across remembering and applying an annotation, so that
// a recording beginning meanwhile cannot apply an older annotation over a newer one. Every
// function below is called with it held.
std::mutex& annotationChangeMutex();

// The calling thread's annotation from now on (empty: none).
void rememberOwnAnnotation(const AnnotationValues& values);

// The annotation thread `tid` last gave itself, null when none.
const AnnotationValues* rememberedAnnotationOf(pid_t tid);

// fn(tid, values) for every thread that has one.
void forEachRememberedAnnotation(void (*fn)(pid_t tid, const AnnotationValues& values));

}  // namespace stackscope::agent
