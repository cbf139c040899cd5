#include "native/eh_frame_functions.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>

namespace stackscope::native {

namespace {

// DWARF pointer encodings (DW_EH_PE_*) of the layout every x86-64 linker writes.
constexpr uint8_t kPcrelSdata4 = 0x1b;
constexpr uint8_t kUdata4 = 0x03;
constexpr uint8_t kDatarelSdata4 = 0x3b;

bool sectionNamed(Elf* elf, const char* name, GElf_Shdr& found) {
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return false;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type == SHT_NOBITS) continue;
    const char* section_name = elf_strptr(elf, names, header.sh_name);
    if (section_name != nullptr && std::strcmp(section_name, name) == 0) {
      found = header;
      return true;
    }
  }
  return false;
}

// `size` bytes of the file at `offset`, read once and kept by libelf; null if out of the file.
const uint8_t* fileBytes(Elf* elf, uint64_t offset, size_t size) {
  Elf_Data* data = elf_getdata_rawchunk(elf, static_cast<int64_t>(offset), size, ELF_T_BYTE);
  return data != nullptr && data->d_size == size ? static_cast<const uint8_t*>(data->d_buf) : nullptr;
}

int32_t readInt32(const uint8_t* bytes) {
  int32_t value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

EhFrameFunctions::EhFrameFunctions(Elf* elf) : elf_(elf) {
  GElf_Shdr hdr, frames;
  if (elf == nullptr || !sectionNamed(elf, ".eh_frame_hdr", hdr) || !sectionNamed(elf, ".eh_frame", frames)) return;
  eh_frame_address_ = frames.sh_addr;
  eh_frame_offset_ = frames.sh_offset;
  eh_frame_size_ = frames.sh_size;
  // version, eh_frame_ptr encoding, fde_count encoding, table encoding; eh_frame_ptr; fde_count.
  const uint8_t* head = hdr.sh_size >= 12 ? fileBytes(elf, hdr.sh_offset, 12) : nullptr;
  if (head == nullptr || head[0] != 1 || head[1] != kPcrelSdata4 || head[2] != kUdata4 || head[3] != kDatarelSdata4)
    return;
  const uint64_t count = static_cast<uint32_t>(readInt32(head + 8));
  if (count == 0 || count > (hdr.sh_size - 12) / 8) return;
  const uint8_t* table = fileBytes(elf, hdr.sh_offset + 12, count * 8);
  if (table == nullptr) return;
  entries_.reserve(count);
  for (uint64_t i = 0; i < count; i++) {  // datarel: relative to the start of .eh_frame_hdr
    entries_.push_back({hdr.sh_addr + static_cast<int64_t>(readInt32(table + 8 * i)),
                        hdr.sh_addr + static_cast<int64_t>(readInt32(table + 8 * i + 4))});
  }
  // The linker sorts it for a binary search; a file that does not is not searched.
  if (!std::is_sorted(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.start < b.start; }))
    entries_.clear();
}

// The FDE's length of code; false unless its start says `expected_start` as the table does.
bool EhFrameFunctions::readFde(uint64_t fde_address, uint64_t expected_start, uint64_t& length) const {
  // length (4, not the 64-bit escape), CIE pointer (4), start (pcrel sdata4), length (udata4).
  if (fde_address < eh_frame_address_ || fde_address - eh_frame_address_ + 16 > eh_frame_size_) return false;
  const uint8_t* fde = fileBytes(elf_, eh_frame_offset_ + (fde_address - eh_frame_address_), 16);
  if (fde == nullptr || readInt32(fde) == -1) return false;
  if (fde_address + 8 + static_cast<int64_t>(readInt32(fde + 8)) != expected_start) return false;
  length = static_cast<uint32_t>(readInt32(fde + 12));
  return true;
}

EhFrameFunctions::Range EhFrameFunctions::find(uint64_t address) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), address,
                                [](uint64_t value, const Entry& entry) { return value < entry.start; });
  if (after == entries_.begin()) return {};
  const Entry& entry = *(after - 1);
  uint64_t length = 0;
  // Past the FDE's end: padding, or code no FDE describes (none to group it with).
  if (!readFde(entry.fde, entry.start, length) || address >= entry.start + length) return {};
  return {entry.start, entry.start + length};
}

}  // namespace stackscope::native
