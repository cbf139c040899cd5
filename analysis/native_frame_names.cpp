#include "analysis/native_frame_names.h"

#include <string>
#include <unordered_map>

#include "native/file_symbolizer.h"

namespace stackscope::analysis {

std::vector<NativeName> findNativeNames(const Recording& recording, const std::vector<NativeAddress>& frames) {
  std::vector<NativeName> names;
  if (frames.empty()) return names;
  native::FileSymbolizer symbolizer(recording.info.boot_id);
  const auto text = [&](uint32_t id) { return id < recording.strings.size() ? recording.strings[id] : std::string(); };
  for (const NativeAddress& frame : frames) {
    if (frame.method >= recording.methods.size()) continue;
    const native::NativeSymbol symbol = symbolizer.symbolize(text(frame.module), text(frame.build_id), frame.address);
    // A name the writer gave says as much; a frame written without one gets "module+0xADDRESS".
    if (!symbol.function_start_known && recording.methods[frame.method].method_name != 0) continue;
    names.push_back({frame.method, native::display(symbol), symbol.module});
  }
  return names;
}

void applyNativeNames(Recording& recording, const std::vector<NativeName>& names) {
  std::unordered_map<std::string, uint32_t> added;  // the strings this adds, by value
  const auto intern = [&](const std::string& value) {
    auto [it, inserted] = added.try_emplace(value, static_cast<uint32_t>(recording.strings.size()));
    if (inserted) recording.strings.push_back(value);
    return it->second;
  };
  for (const NativeName& name : names) {
    if (name.method >= recording.methods.size()) continue;
    MethodInfo& method = recording.methods[name.method];
    method.method_name = intern(name.name);
    method.source_file = intern(name.module);
  }
}

void nameNativeFrames(Recording& recording, const std::vector<NativeAddress>& frames) {
  applyNativeNames(recording, findNativeNames(recording, frames));
}

}  // namespace stackscope::analysis
