// The summary of a selection (seed 004): how big its call graph is and how recursive, where the
// value goes (hottest methods, calls and path, deepest recursion), on which threads, and in
// which libraries and packages. Every figure comes from the models the other views show (the
// stack profile, the call graph, the call tree, the thread statistic), so the summary agrees
// with them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct SummaryPart {  // a method, thread, library or package
  std::string name;
  uint64_t self = 0;   // events with it on top (a thread: all of its events)
  uint64_t total = 0;  // events with it anywhere on the stack, once each
};

struct SummaryCall {
  std::string caller, callee;
  uint64_t value = 0;      // events with this call on the stack, once each
  uint64_t samples = 0;    // their weight
  uint64_t recursive = 0;  // the part of value where the call was recursive
};

struct SummaryStep {  // a frame of the hottest path
  std::string name;
  uint64_t total = 0;
};

struct SummaryThread {  // a node of the tree of which thread started which
  std::string name;
  size_t depth = 0;         // 0 = started by no thread the recording knows
  uint64_t value = 0;       // its events' value
  uint64_t below = 0;       // its own and every thread's it started, directly or not
  std::string started_at;   // the method that called Thread.start in its parent ("" = no parent)
};

struct Summary {
  ViewTotals totals;
  size_t methods = 0;          // nodes of the call graph
  size_t calls = 0;            // edges
  size_t recursive_calls = 0;  // edges that were recursive in some event (direct or indirect)
  uint64_t call_value = 0;     // the edges' values summed, and the recursive part of them
  uint64_t recursive_value = 0;
  std::vector<SummaryPart> hottest_methods;  // by self
  std::vector<SummaryCall> hottest_calls;    // by value
  std::vector<SummaryStep> hottest_path;     // from the root, the hottest callee each step, while >= 1 %
  std::string deepest_recursion_method;      // the method most often on one stack ("" = none)
  uint32_t deepest_recursion = 0;            // how many times it was on that stack
  size_t threads = 0;
  std::vector<SummaryPart> hottest_threads;  // by value
  // Which thread started which, depth first, the heaviest subtree first: threads with events and
  // their ancestors. Empty when the recording has no thread parents (an older agent, an attach).
  std::vector<SummaryThread> thread_tree;
  std::vector<SummaryPart> libraries;        // by total: JDK modules, jars, native modules
  // Some Java frame's library is not in the recording (an older agent): its frames count as
  // "JDK" or "application classes".
  bool libraries_unnamed = false;
  std::vector<SummaryPart> packages;         // Java packages, by total
};

// `top`: how many methods, calls, threads and packages to keep (libraries are all kept).
Summary summarize(const Recording& recording, const EventScope& scope, size_t top);

}  // namespace stackscope::analysis
