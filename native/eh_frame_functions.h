// The bounds of the functions a module's symbols do not name (a stripped library's internal
// ones: Debian's libz and libc keep only .dynsym), from the unwinding tables every x86-64
// module carries: .eh_frame_hdr's sorted table of function starts, and each function's FDE in
// .eh_frame for its length. Every address of one such function then gets one name
// ("libz.so.1.2.13+0x4a00", its start) instead of one per address.
//
// Only the encodings GNU ld and lld write are read (table: datarel sdata4; FDE start: pcrel
// sdata4); anything else, or a table that contradicts its FDE, gives no bounds. Only the
// pieces needed are read from the file (pread), none mapped.
#pragma once

#include <cstdint>
#include <vector>

typedef struct Elf Elf;

namespace stackscope::native {

class EhFrameFunctions {
 public:
  // `elf` must outlive this object (libdw's handle of the module's file).
  explicit EhFrameFunctions(Elf* elf);

  struct Range {
    uint64_t start = 0;  // ELF addresses of the module; start == end: no function known
    uint64_t end = 0;
  };
  // The function holding ELF address `address`, per its FDE.
  Range find(uint64_t address) const;

 private:
  struct Entry {
    uint64_t start;  // the function's first address
    uint64_t fde;    // its FDE's address
  };
  bool readFde(uint64_t fde_address, uint64_t expected_start, uint64_t& length) const;

  Elf* elf_;
  std::vector<Entry> entries_;  // sorted by start
  uint64_t eh_frame_address_ = 0;
  uint64_t eh_frame_offset_ = 0;
  uint64_t eh_frame_size_ = 0;
};

}  // namespace stackscope::native
