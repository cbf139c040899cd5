// libFuzzer target: any text as a --where expression, a resource name (--view) and a
// duration (--from). Their own errors are fine; a crash (deep nesting) or a sanitizer report
// is a bug.
#include <cstdint>
#include <string>

#include "analysis/resource_name.h"
#include "analysis/where_parser.h"
#include "common/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackscope;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    analysis::parseWhere(text);
  } catch (const analysis::WhereError&) {
  }
  try {
    const analysis::ResourceName name = analysis::parseResourceName(text);
    name.toString();
    name.filter();
  } catch (const analysis::ResourceNameError&) {
  }
  if (const auto ns = parseDuration(text)) formatDuration(*ns);
  return 0;
}
