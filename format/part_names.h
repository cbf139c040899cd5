// Names of the files of a rotated recording (agent options rotate= and maxfiles=): the first
// file has the name the recording was given, each next one that name with "-N" inserted
// before the extension: run.ssr, run-1.ssr, run-2.ssr, … (/d/run: /d/run-1; a leading dot,
// .ssr, is no extension). The agent names the parts with it; the front-end finds a set's
// parts with it. Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stackscope::format {

// The name of part `n` of the recording first written to `first`; part 0 is `first` itself.
std::string partName(std::string_view first, uint64_t n);

// N when `name` is partName(first, N) for some N >= 1, spelled as partName spells it (no
// leading zeros); nullopt otherwise. Both in the same directory form (compare file names,
// or whole paths built alike).
std::optional<uint64_t> partNumber(std::string_view first, std::string_view name);

}  // namespace stackscope::format
