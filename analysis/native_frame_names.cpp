#include "analysis/native_frame_names.h"

#include <string>
#include <unordered_map>

#include "native/file_symbolizer.h"

namespace stackscope::analysis {

void nameNativeFrames(Recording& recording, const std::vector<NativeAddress>& frames) {
  if (frames.empty()) return;
  native::FileSymbolizer symbolizer(recording.info.boot_id);
  std::unordered_map<std::string, uint32_t> added;  // the strings this adds, by value
  const auto intern = [&](const std::string& value) {
    auto [it, inserted] = added.try_emplace(value, static_cast<uint32_t>(recording.strings.size()));
    if (inserted) recording.strings.push_back(value);
    return it->second;
  };
  const auto text = [&](uint32_t id) { return id < recording.strings.size() ? recording.strings[id] : std::string(); };
  for (const NativeAddress& frame : frames) {
    if (frame.method >= recording.methods.size()) continue;
    const native::NativeSymbol symbol = symbolizer.symbolize(text(frame.module), text(frame.build_id), frame.address);
    if (!symbol.function_start_known) continue;  // the writer's name says as much
    MethodInfo& method = recording.methods[frame.method];
    method.method_name = intern(native::display(symbol));
    method.source_file = intern(symbol.module);
  }
}

}  // namespace stackscope::analysis
