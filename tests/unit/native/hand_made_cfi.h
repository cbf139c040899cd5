// Unwinding tables written by hand for tests (native/cfi_rules.h): the DW_CFA_* instructions
// the tests need and a module's .eh_frame_hdr and .eh_frame laid out as GNU ld does, so a
// test knows every rule by construction.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "native/cfi_rules.h"

namespace stackscope::native {

using Bytes = std::vector<uint8_t>;

// DW_CFA_* instructions as the tests write them (x86-64: rbp 6, rsp 7, return address 16).
inline Bytes defCfa(uint8_t reg, uint8_t offset) { return {0x0c, reg, offset}; }
inline Bytes defCfaOffset(uint8_t offset) { return {0x0e, offset}; }
inline Bytes defCfaRegister(uint8_t reg) { return {0x0d, reg}; }
inline Bytes offsetOf(uint8_t reg, uint8_t factored) { return {static_cast<uint8_t>(0x80 | reg), factored}; }  // * -8
inline Bytes advance(uint8_t delta) { return {static_cast<uint8_t>(0x40 | delta)}; }
inline Bytes rememberState() { return {0x0a}; }
inline Bytes restoreState() { return {0x0b}; }
inline Bytes undefinedRegister(uint8_t reg) { return {0x07, reg}; }
inline Bytes joined(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const Bytes& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// A function with a frame pointer: push %rbp; mov %rsp,%rbp at 1; leave at 0x20.
inline Bytes framePointerFunction() {
  return joined({advance(1), defCfaOffset(16), offsetOf(6, 2), advance(3), defCfaRegister(6), advance(0x1c),
                 defCfa(7, 8)});
}

// A module's tables written by hand, as GNU ld lays them out: .eh_frame_hdr (pcrel eh_frame
// pointer, udata4 count, datarel sdata4 table) then .eh_frame, CIEs with augmentation "zR" and
// pcrel sdata4 FDE addresses. The code they describe lies 1 MiB past the tables (never read).
class HandMadeTables {
 public:
  static constexpr size_t kHeaderRoom = 128;
  HandMadeTables() : bytes_(kHeaderRoom, 0) { bytes_.reserve(8192); }

  uintptr_t address() const { return reinterpret_cast<uintptr_t>(bytes_.data()); }
  uintptr_t code(uintptr_t offset) const { return address() + (1 << 20) + offset; }

  // The CIE every x86-64 compiler writes: CFA = rsp + 8, return address at CFA - 8.
  size_t cie(const Bytes& initial = joined({defCfa(7, 8), offsetOf(16, 1)})) {
    const size_t at = beginEntry();
    put32(0);                                   // CIE id
    bytes_.push_back(1);                        // version
    for (char c : std::string("zR")) bytes_.push_back(static_cast<uint8_t>(c));
    bytes_.push_back(0);
    bytes_.push_back(1);                        // code alignment
    bytes_.push_back(0x78);                     // data alignment -8 (sleb128)
    bytes_.push_back(16);                       // return address register
    bytes_.push_back(1);                        // augmentation data length
    bytes_.push_back(0x1b);                     // FDE pointers: pcrel sdata4
    bytes_.insert(bytes_.end(), initial.begin(), initial.end());
    endEntry(at);
    return at;
  }

  void fde(size_t cie_at, uintptr_t start_offset, uint32_t length, const Bytes& instructions) {
    const size_t at = beginEntry();
    put32(static_cast<uint32_t>(bytes_.size() - cie_at));
    put32(static_cast<uint32_t>(code(start_offset) - (address() + bytes_.size())));
    put32(length);
    bytes_.push_back(0);  // augmentation data length
    bytes_.insert(bytes_.end(), instructions.begin(), instructions.end());
    endEntry(at);
    table_.push_back({code(start_offset), address() + at});
  }

  CfiTables finish() {
    std::sort(table_.begin(), table_.end());
    Bytes header = {1, 0x1b, 0x03, 0x3b};
    const auto add32 = [&header](uint32_t value) {
      for (int i = 0; i < 4; ++i) header.push_back(static_cast<uint8_t>(value >> (8 * i)));
    };
    add32(static_cast<uint32_t>(kHeaderRoom - 4));  // pcrel from the field (at 4) to .eh_frame
    add32(static_cast<uint32_t>(table_.size()));
    for (const auto& [start, fde] : table_) {
      add32(static_cast<uint32_t>(start - address()));
      add32(static_cast<uint32_t>(fde - address()));
    }
    EXPECT_LE(header.size(), kHeaderRoom);
    std::copy(header.begin(), header.end(), bytes_.begin());
    return {bytes_.data(), address(), bytes_.size(), address()};
  }

 private:
  size_t beginEntry() {
    const size_t at = bytes_.size();
    put32(0);
    return at;
  }
  void endEntry(size_t at) {
    while ((bytes_.size() - at) % 8 != 0) bytes_.push_back(0);  // DW_CFA_nop padding
    const auto length = static_cast<uint32_t>(bytes_.size() - at - 4);
    std::memcpy(bytes_.data() + at, &length, 4);
  }
  void put32(uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }

  Bytes bytes_;
  std::vector<std::pair<uintptr_t, uintptr_t>> table_;  // (code start, FDE address)
};

}  // namespace stackscope::native
