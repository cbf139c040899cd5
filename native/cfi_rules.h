// How to find a native frame's caller on x86-64 from the module's DWARF call frame information
// (.eh_frame, which every x86-64 module carries for C++ exceptions, frame pointer or not): the
// .eh_frame_hdr's sorted search table gives the FDE of the function holding a pc, its CIE the
// common part; both hold CFA instructions that say, instruction by instruction of the
// function, where the canonical frame address (CFA: the caller's sp) is — rsp or rbp plus an
// offset — and where rbp is saved. The return address is at CFA - 8 (the x86-64 ABI; a CIE
// that says otherwise is not interpreted).
//
// Interpreted: advance_loc*, set_loc, def_cfa*, offset*, restore*, same_value, undefined (of
// the return address: the thread's first function, no caller), remember/restore_state,
// GNU_args_size, nop. Anything that says rbp, the return address or the CFA are elsewhere
// than at an offset (DW_CFA_def_cfa_expression in PLT entries and signal trampolines,
// register rules) gives Unsupported; rules of other registers are skipped, as the walk needs
// only rsp, rbp and the return address.
//
// Pure and async-signal-safe: no allocation, no lock; every byte read is checked against the
// tables' bounds, so a corrupt or hostile table gives NoEntry or Unsupported, never a fault.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stackscope::native {

// One module's unwinding tables as they lie in memory: bytes[0, size) are the contents of the
// addresses [address, address + size), the loaded segment that holds .eh_frame_hdr and
// .eh_frame (in this process bytes == address; a copy elsewhere works the same).
struct CfiTables {
  const uint8_t* bytes = nullptr;
  uintptr_t address = 0;
  size_t size = 0;
  uintptr_t eh_frame_hdr = 0;  // the address of .eh_frame_hdr, inside [address, address + size)
};

// Where a frame's caller is, at one pc.
struct FrameRule {
  enum class Cfa : uint8_t { Rsp, Rbp };
  Cfa cfa_register = Cfa::Rsp;
  int64_t cfa_offset = 0;
  bool rbp_saved = false;   // at CFA + rbp_offset; else the caller's rbp is this frame's
  int64_t rbp_offset = 0;
  bool outermost = false;   // the return address is undefined: no caller (clone3, _start)
};

enum class CfiResult { Found, NoEntry, Unsupported };

// The rule at `pc` (the interrupted pc, or a return address minus 1: inside the call).
// NoEntry: no FDE covers pc (code without CFI); Unsupported: one does, in a form not
// interpreted here.
CfiResult frameRuleAt(const CfiTables& tables, uintptr_t pc, FrameRule& rule);

}  // namespace stackscope::native
