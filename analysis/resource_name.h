// Resource names: a view named by the path that led to it, e.g.
//   methods[hot.Alpha.work]/threads
//   threads[worker-1]/methods[a.B.c,a.B.d]/callers
// Every element but the last narrows the samples; the last names the view, and its own
// selection (if any) narrows too. Elements of one type are grouped: the values inside one
// element are alternatives, separate elements of one type must all hold, different types
// must all hold. The whole name becomes ONE filter, so a view is one pass over the events
// whatever the depth of the path, and two equal names are the same statistic.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/where_parser.h"

namespace stackscope::analysis {

enum class ResourceType {
  Methods,       // selection: a method anywhere on the stack; view: the method statistic
  Tree,          // view: the call tree
  Graph,         // view: the call graph (call_graph.h)
  Callers,       // view: back-traces of the selected methods
  Threads,       // selection: thread name (glob); view: per thread
  States,        // selection: thread state; view: per state
  Users,         // selection and view by annotation value
  Sessions,
  Requests,
  Applications,
  Components,
  VThreads,      // view: virtual threads (count, carriers, states, hottest stacks)
  Status,        // view: every status report (process-wide: nothing narrows it but time)
  Gc,            // selection: the collector (glob); view: the gc trace's collections by collector
  Exceptions,    // selection: the thrown class (glob); view: exception events by class
  Classes,       // selection: the object's class (glob, the ObjectClass label); view: by object class
  Allocations,   // the allocation events (alloc, unless --event says live): 'methods[X]/allocations/classes';
                 // as a view, the classes view
  Ages,          // view: events by how long before the end of the window they happened (live objects' ages)
  Locks,         // selection: the lock class (glob); view: lock (or wait) events by lock class
  Owners,        // view: lock events by owner thread and the owner's method
  Histogram,     // view: objects per class at the last class histogram of the selection
  HistogramGrowth,  // view: per class, the last class histogram of the selection minus the first
};

struct ResourceElement {
  ResourceType type = ResourceType::Methods;
  std::vector<std::string> values;  // the selection; empty = no selection
};

struct ResourceName {
  std::vector<ResourceElement> elements;  // never empty

  const ResourceElement& view() const { return elements.back(); }
  // The canonical spelling: types in lower case, values quoted only when they must be.
  std::string toString() const;
  // The selections as one --where expression tree, or nullptr when nothing is selected.
  std::unique_ptr<WhereNode> filter() const;
  // The values selected for `type` by every element (for views such as callers that focus
  // on a selection). Alternatives of the first such element only when several exist.
  std::vector<std::string> selected(ResourceType type) const;
};

class ResourceNameError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ResourceName parseResourceName(const std::string& text);
const char* resourceTypeName(ResourceType type);

}  // namespace stackscope::analysis
