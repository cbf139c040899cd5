#include "analysis/file_inspection.h"

#include <algorithm>
#include <map>

#include "analysis/load.h"

namespace stackscope::analysis {

namespace {

using format::RecordType;

std::string recordTypeName(uint32_t type) {
  switch (static_cast<RecordType>(type)) {
    case RecordType::RecordingInfo: return "info";
    case RecordType::String: return "string";
    case RecordType::Method: return "method";
    case RecordType::Stack: return "stack";
    case RecordType::StackBranch: return "stack_branch";
    case RecordType::Thread: return "thread";
    case RecordType::Annotation: return "annotation";
    case RecordType::Sample: return "sample";
    case RecordType::ThreadStart: return "thread_start";
    case RecordType::ThreadEnd: return "thread_end";
    case RecordType::Status: return "status";
    case RecordType::Lost: return "lost";
    case RecordType::RecordingEnd: return "end";
    case RecordType::Marker: return "marker";
    case RecordType::AnnotationChange: return "annotation_change";
    case RecordType::AgentWarning: return "agent_warning";
    case RecordType::KindSample: return "kind_sample";
    case RecordType::Gc: return "gc";
    case RecordType::Exception: return "exception";
    case RecordType::Alloc: return "alloc";
    case RecordType::ObjectFree: return "object_free";
    case RecordType::Lock: return "lock";
    case RecordType::ClassHistogram: return "class_histogram";
    case RecordType::ThreadParent: return "thread_parent";
    case RecordType::SampleRun: return "sample_run";
  }
  return "unknown_" + std::to_string(type);
}

class Counter final : public format::RecordVisitor {
 public:
  explicit Counter(FileInspection& out) : out_(out) {}

  void info(const format::RecordingInfo& info) override {
    count(RecordType::RecordingInfo);
    out_.has_info = true;
    out_.info = info;
  }
  void string(uint32_t, std::string_view) override { count(RecordType::String); }
  void method(const format::MethodRecord&) override { count(RecordType::Method); }
  void stack(const format::StackRecord&) override { count(RecordType::Stack); }
  void thread(const format::ThreadRecord&) override { count(RecordType::Thread); }
  void annotation(const format::AnnotationRecord&) override { count(RecordType::Annotation); }
  void sample(const format::SampleRecord& s) override {
    count(s.kind == format::SampleKind::Mode ? RecordType::Sample : RecordType::KindSample);
    out_.samples += s.weight;
    ++out_.sample_records;
    seen(s.time_ns);
  }
  void gc(const format::GcRecord& g) override {
    count(RecordType::Gc);
    seen(g.time_ns);
  }
  void exception(const format::ExceptionRecord& e) override {
    count(RecordType::Exception);
    seen(e.time_ns);
  }
  void alloc(const format::AllocRecord& a) override {
    count(RecordType::Alloc);
    seen(a.time_ns);
  }
  void objectFree(const format::ObjectFreeRecord& f) override {
    count(RecordType::ObjectFree);
    seen(f.time_ns);
  }
  void classHistogram(const format::ClassHistogramRecord& h) override {
    count(RecordType::ClassHistogram);
    seen(h.time_ns);
  }
  void lock(const format::LockRecord& l) override {
    count(RecordType::Lock);
    seen(l.time_ns);
  }
  void threadStart(const format::ThreadEventRecord& e) override {
    count(RecordType::ThreadStart);
    seen(e.time_ns);
  }
  void threadEnd(const format::ThreadEventRecord& e) override {
    count(RecordType::ThreadEnd);
    seen(e.time_ns);
  }
  void status(const format::StatusRecord& s) override {
    count(RecordType::Status);
    statuses_.push_back(s);
    seen(s.time_ns);
  }
  void lost(const format::LostRecord& l) override {
    count(RecordType::Lost);
    out_.lost += l.count;
    seen(l.time_ns);
  }
  void end(const format::RecordingEndRecord& e) override {
    count(RecordType::RecordingEnd);
    out_.ended = true;
    end_time_ = e.time_ns;
  }
  void marker(const format::MarkerRecord& m) override {
    count(RecordType::Marker);
    seen(m.time_ns);
  }
  void threadParent(const format::ThreadParentRecord& p) override {
    count(RecordType::ThreadParent);
    seen(p.time_ns);
  }
  void annotationChange(const format::AnnotationChangeRecord& c) override {
    count(RecordType::AnnotationChange);
    seen(c.time_ns);
  }
  void agentWarning(const format::AgentWarningRecord& w) override {
    count(RecordType::AgentWarning);
    agent_warnings.push_back(agentWarningText(w));
  }
  void unknown(uint32_t type, std::string_view) override { ++counts_[type]; }

  std::vector<std::string> agent_warnings;  // in file order

  void finish() {
    for (const auto& [type, n] : counts_) out_.records.push_back({type, recordTypeName(type), n});
    out_.status = summarizeStatus(statuses_);
    out_.end_ns = out_.ended ? end_time_ : last_event_;
  }

 private:
  void count(RecordType type) { ++counts_[static_cast<uint32_t>(type)]; }
  void seen(int64_t time_ns) { last_event_ = std::max(last_event_, time_ns); }

  FileInspection& out_;
  std::map<uint32_t, uint64_t> counts_;
  std::vector<format::StatusRecord> statuses_;
  int64_t last_event_ = 0;
  int64_t end_time_ = 0;
};

}  // namespace

FileInspection inspectFile(const std::string& path) {
  format::RecordingReader reader(path);
  FileInspection out;
  out.header = reader.header();
  out.indexed = reader.indexed();
  out.file_size = reader.fileSize();
  out.chunks = reader.chunks();
  Counter counter(out);
  reader.read(counter);
  counter.finish();
  out.warnings = counter.agent_warnings;
  out.warnings.insert(out.warnings.end(), reader.warnings().begin(), reader.warnings().end());
  return out;
}

}  // namespace stackscope::analysis
