// pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzipped as pprof
// expects. Each distinct frame of the profile is one Function and one Location with one
// Line (no Mapping: frames are named already, nothing is left to symbolize). Sample values:
// [samples in "count"] and, when the metric is another, [the metric in its unit], the
// metric being the default sample type.
#include <zlib.h>

#include <stdexcept>
#include <unordered_map>

#include "export/protobuf_writer.h"
#include "export/stack_exports.h"

namespace stackscope::exporting {

namespace {

// profile.proto's field numbers.
namespace profile_field {
constexpr uint32_t kSampleType = 1, kSample = 2, kLocation = 4, kFunction = 5, kStringTable = 6, kTimeNanos = 9,
                   kDurationNanos = 10, kPeriodType = 11, kPeriod = 12, kComment = 13, kDefaultSampleType = 14;
}
namespace value_type_field { constexpr uint32_t kType = 1, kUnit = 2; }
namespace sample_field { constexpr uint32_t kLocationId = 1, kValue = 2; }
namespace location_field { constexpr uint32_t kId = 1, kLine = 4; }
namespace line_field { constexpr uint32_t kFunctionId = 1, kLine = 2; }
namespace function_field { constexpr uint32_t kId = 1, kName = 2, kSystemName = 3, kFilename = 4; }

// pprof's unit names: it scales "nanoseconds" and "bytes" itself when it prints.
const char* pprofUnit(analysis::MetricUnit unit) {
  switch (unit) {
    case analysis::MetricUnit::Nanoseconds: return "nanoseconds";
    case analysis::MetricUnit::Bytes: return "bytes";
    case analysis::MetricUnit::Count: break;
  }
  return "count";
}

class StringTable {
 public:
  StringTable() { id(""); }  // profile.proto: string_table[0] must be ""
  uint64_t id(const std::string& text) {
    auto [it, inserted] = ids_.try_emplace(text, strings_.size());
    if (inserted) strings_.push_back(text);
    return it->second;
  }
  void writeTo(ProtobufWriter& profile) const {
    for (const std::string& text : strings_) profile.bytesField(profile_field::kStringTable, text);
  }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint64_t> ids_;
};

ProtobufWriter valueType(StringTable& strings, const std::string& type, const std::string& unit) {
  ProtobufWriter message;
  message.int64Field(value_type_field::kType, static_cast<int64_t>(strings.id(type)));
  message.int64Field(value_type_field::kUnit, static_cast<int64_t>(strings.id(unit)));
  return message;
}

std::string gzip(const std::string& bytes) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: cannot start compressing");
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("zlib: compressing the profile failed");
  out.resize(stream.total_out);
  return out;
}

}  // namespace

std::string pprofBytes(const analysis::StackProfile& profile, const ProfileMeta& meta) {
  StringTable strings;
  ProtobufWriter message;
  const bool two_values = meta.metric->source != analysis::MetricSource::Weight;
  message.messageField(profile_field::kSampleType, valueType(strings, "samples", "count"));
  if (two_values) message.messageField(profile_field::kSampleType, valueType(strings, meta.metric->name, pprofUnit(meta.metric->unit)));

  for (const analysis::ProfileStack& stack : profile.stacks) {
    ProtobufWriter sample;
    std::vector<uint64_t> locations(stack.frames.rbegin(), stack.frames.rend());  // pprof: leaf first
    for (uint64_t& location : locations) ++location;                                 // ids start at 1
    sample.packedField(sample_field::kLocationId, locations);
    std::vector<uint64_t> values{stack.samples};
    if (two_values) values.push_back(stack.value);
    sample.packedField(sample_field::kValue, values);
    message.messageField(profile_field::kSample, sample);
  }
  for (size_t i = 0; i < profile.frames.size(); ++i) {
    const analysis::ProfileFrame& frame = profile.frames[i];
    const uint64_t id = i + 1;
    ProtobufWriter line;
    line.varintField(line_field::kFunctionId, id);
    if (frame.line != 0) line.int64Field(line_field::kLine, frame.line);
    ProtobufWriter location;
    location.varintField(location_field::kId, id);
    location.messageField(location_field::kLine, line);
    message.messageField(profile_field::kLocation, location);
    ProtobufWriter function;
    function.varintField(function_field::kId, id);
    function.int64Field(function_field::kName, static_cast<int64_t>(strings.id(frame.name)));
    function.int64Field(function_field::kSystemName, static_cast<int64_t>(strings.id(frame.name)));
    if (!frame.file.empty()) function.int64Field(function_field::kFilename, static_cast<int64_t>(strings.id(frame.file)));
    message.messageField(profile_field::kFunction, function);
  }
  message.int64Field(profile_field::kTimeNanos, meta.start_epoch_ns);
  message.int64Field(profile_field::kDurationNanos, meta.duration_ns);
  if (meta.period_ns > 0) {
    message.messageField(profile_field::kPeriodType, valueType(strings, analysis::eventKindName(meta.kind), "nanoseconds"));
    message.int64Field(profile_field::kPeriod, meta.period_ns);
  }
  message.int64Field(profile_field::kComment, static_cast<int64_t>(strings.id("stackscope: " + meta.name)));
  if (two_values) message.int64Field(profile_field::kDefaultSampleType, static_cast<int64_t>(strings.id(meta.metric->name)));
  strings.writeTo(message);
  return gzip(message.bytes());
}

}  // namespace stackscope::exporting
