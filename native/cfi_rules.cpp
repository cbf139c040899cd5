#include "native/cfi_rules.h"

#include <cstring>

namespace stackscope::native {

namespace {

// DW_EH_PE_* pointer encodings: the low four bits say the value's format, the next three what
// it is relative to; 0x80 (indirect) is never needed for what the walk reads.
constexpr uint8_t kOmitted = 0xff;
constexpr uint8_t kFormatMask = 0x0f;
constexpr uint8_t kAbsptr = 0x00, kUleb128 = 0x01, kUdata2 = 0x02, kUdata4 = 0x03, kUdata8 = 0x04;
constexpr uint8_t kSleb128 = 0x09, kSdata2 = 0x0a, kSdata4 = 0x0b, kSdata8 = 0x0c;
constexpr uint8_t kApplicationMask = 0x70;
constexpr uint8_t kAbsolute = 0x00, kPcrel = 0x10, kDatarel = 0x30;
constexpr uint8_t kDatarelSdata4 = kDatarel | kSdata4;  // the search table's: fixed 8-byte entries

// x86-64's DWARF register numbers.
constexpr uint64_t kRbp = 6, kRsp = 7, kReturnAddress = 16;

// More nested remember_state than any compiler writes.
constexpr int kMaxRememberedStates = 8;

// Reads the tables' bytes at addresses, never past `end` nor outside the tables: a read that
// would fails the cursor (ok() false) and gives 0.
class Cursor {
 public:
  Cursor(const CfiTables& tables, uintptr_t at, uintptr_t end) : tables_(&tables), at_(at) {
    const uintptr_t tables_end = tables.address + tables.size;
    end_ = end < tables_end ? end : tables_end;
    ok_ = at >= tables.address && at <= end_;
  }
  bool ok() const { return ok_; }
  uintptr_t at() const { return at_; }
  bool atEnd() const { return at_ >= end_; }
  void moveTo(uintptr_t at) {
    if (at < at_ || at > end_) ok_ = false;
    at_ = at;
  }

  template <typename T>
  T fixed() {
    T value{};
    if (!ok_ || end_ - at_ < sizeof(T)) {
      ok_ = false;
      return value;
    }
    std::memcpy(&value, tables_->bytes + (at_ - tables_->address), sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  uint8_t u8() { return fixed<uint8_t>(); }

  uint64_t uleb() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      const uint8_t byte = u8();
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    ok_ = false;  // longer than any 64-bit value
    return 0;
  }
  int64_t sleb() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64;) {
      const uint8_t byte = u8();
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if (!(byte & 0x80)) {
        if (shift < 64 && (byte & 0x40)) value |= ~uint64_t{0} << shift;
        return static_cast<int64_t>(value);
      }
    }
    ok_ = false;
    return 0;
  }

  // A value in the format of `encoding`, not applied to any base.
  uint64_t formatted(uint8_t encoding) {
    switch (encoding & kFormatMask) {
      case kAbsptr: return fixed<uint64_t>();
      case kUleb128: return uleb();
      case kUdata2: return fixed<uint16_t>();
      case kUdata4: return fixed<uint32_t>();
      case kUdata8: return fixed<uint64_t>();
      case kSleb128: return static_cast<uint64_t>(sleb());
      case kSdata2: return static_cast<uint64_t>(static_cast<int64_t>(fixed<int16_t>()));
      case kSdata4: return static_cast<uint64_t>(static_cast<int64_t>(fixed<int32_t>()));
      case kSdata8: return fixed<uint64_t>();
      default: ok_ = false; return 0;
    }
  }
  // A pointer: absolute, relative to where it is stored, or to `data_base` (.eh_frame_hdr).
  uintptr_t pointer(uint8_t encoding, uintptr_t data_base) {
    const uintptr_t field = at_;
    const uint64_t value = formatted(encoding);
    switch (encoding & (kApplicationMask | 0x80)) {
      case kAbsolute: return value;
      case kPcrel: return field + value;
      case kDatarel: return data_base + value;
      default: ok_ = false; return 0;
    }
  }

 private:
  const CfiTables* tables_;
  uintptr_t at_;
  uintptr_t end_;
  bool ok_;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint8_t fde_encoding = kAbsptr;
  bool has_augmentation_data = false;  // "z": each FDE has a length-prefixed block to skip
  bool signal_frame = false;           // "S": a signal trampoline's
  uintptr_t instructions = 0;
  uintptr_t end = 0;
};

// An entry's length and where it ends; false for the 64-bit escape and the terminator.
bool entryBounds(Cursor& cursor, uintptr_t& end) {
  const uint32_t length = cursor.fixed<uint32_t>();
  if (!cursor.ok() || length == 0 || length == 0xffffffff) return false;
  end = cursor.at() + length;
  return true;
}

bool parseCie(const CfiTables& tables, uintptr_t address, Cie& cie) {
  Cursor cursor(tables, address, tables.address + tables.size);
  if (!entryBounds(cursor, cie.end)) return false;
  cursor = Cursor(tables, cursor.at(), cie.end);
  const uint32_t id = cursor.fixed<uint32_t>();
  const uint8_t version = cursor.u8();
  if (!cursor.ok() || id != 0 || (version != 1 && version != 3)) return false;
  char augmentation[8];
  size_t length = 0;
  for (char c = static_cast<char>(cursor.u8()); c != '\0'; c = static_cast<char>(cursor.u8())) {
    if (!cursor.ok() || length == sizeof augmentation) return false;
    augmentation[length++] = c;
  }
  cie.code_align = cursor.uleb();
  cie.data_align = cursor.sleb();
  const uint64_t return_register = version == 1 ? cursor.u8() : cursor.uleb();
  if (!cursor.ok() || return_register != kReturnAddress) return false;
  if (length > 0 && augmentation[0] != 'z') return false;  // data of unknown size ("eh")
  if (length > 0) {
    cie.has_augmentation_data = true;
    const uint64_t data_length = cursor.uleb();
    const uintptr_t data_end = cursor.at() + data_length;
    for (size_t i = 1; i < length && cursor.ok(); ++i) {
      const char c = augmentation[i];
      if (c == 'R') {
        cie.fde_encoding = cursor.u8();
      } else if (c == 'L') {
        cursor.u8();
      } else if (c == 'P') {
        const uint8_t encoding = cursor.u8();
        if (encoding != kOmitted) cursor.formatted(encoding);
      } else if (c == 'S') {
        cie.signal_frame = true;
      } else {
        break;  // the length skips what follows
      }
    }
    cursor.moveTo(data_end);
  }
  cie.instructions = cursor.at();
  return cursor.ok() && cie.fde_encoding != kOmitted;
}

struct Fde {
  uintptr_t start = 0;
  uintptr_t end = 0;  // of the code it covers
  uintptr_t instructions = 0;
  uintptr_t instructions_end = 0;
};

bool parseFde(const CfiTables& tables, uintptr_t address, Cie& cie, Fde& fde) {
  Cursor cursor(tables, address, tables.address + tables.size);
  uintptr_t end = 0;
  if (!entryBounds(cursor, end)) return false;
  cursor = Cursor(tables, cursor.at(), end);
  const uintptr_t cie_field = cursor.at();
  const uint32_t cie_offset = cursor.fixed<uint32_t>();
  if (!cursor.ok() || cie_offset == 0 || !parseCie(tables, cie_field - cie_offset, cie)) return false;
  fde.start = cursor.pointer(cie.fde_encoding, tables.eh_frame_hdr);
  fde.end = fde.start + cursor.formatted(cie.fde_encoding);
  if (cie.has_augmentation_data) {
    const uint64_t data_length = cursor.uleb();
    cursor.moveTo(cursor.at() + data_length);
  }
  fde.instructions = cursor.at();
  fde.instructions_end = end;
  return cursor.ok();
}

// The FDE the search table gives for pc: the one with the greatest start at or below pc.
bool fdeAddressFor(const CfiTables& tables, uintptr_t pc, uintptr_t& fde, uintptr_t& start) {
  Cursor header(tables, tables.eh_frame_hdr, tables.address + tables.size);
  const uint8_t version = header.u8();
  const uint8_t frame_pointer_encoding = header.u8();
  const uint8_t count_encoding = header.u8();
  const uint8_t table_encoding = header.u8();
  if (!header.ok() || version != 1 || frame_pointer_encoding == kOmitted || count_encoding == kOmitted ||
      table_encoding != kDatarelSdata4) {
    return false;
  }
  header.pointer(frame_pointer_encoding, tables.eh_frame_hdr);
  const uint64_t count = header.pointer(count_encoding, tables.eh_frame_hdr);
  const uintptr_t table = header.at();
  const uintptr_t tables_end = tables.address + tables.size;
  if (!header.ok() || count == 0 || count > (tables_end - table) / 8) return false;
  const auto entry = [&](uint64_t i, uintptr_t& entry_start, uintptr_t& entry_fde) {
    Cursor cursor(tables, table + i * 8, tables_end);
    entry_start = cursor.pointer(table_encoding, tables.eh_frame_hdr);
    entry_fde = cursor.pointer(table_encoding, tables.eh_frame_hdr);
    return cursor.ok();
  };
  uint64_t low = 0, high = count;  // the answer is below high
  while (high - low > 1) {
    const uint64_t middle = low + (high - low) / 2;
    uintptr_t middle_start = 0, middle_fde = 0;
    if (!entry(middle, middle_start, middle_fde)) return false;
    if (middle_start <= pc) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return entry(low, start, fde) && start <= pc;
}

// A register's rule, for the two the walk needs besides rsp.
struct RegisterRule {
  enum class Kind : uint8_t { SameValue, Offset, Undefined, Other };
  Kind kind = Kind::SameValue;
  int64_t offset = 0;  // Offset: saved at CFA + offset
};

struct Row {
  uint64_t cfa_register = kRsp;
  int64_t cfa_offset = 0;
  bool cfa_expression = false;
  RegisterRule rbp;
  RegisterRule return_address;
};

RegisterRule* ruleOf(Row& row, uint64_t reg) {
  if (reg == kRbp) return &row.rbp;
  if (reg == kReturnAddress) return &row.return_address;
  return nullptr;  // a register the walk does not need
}

void setRule(Row& row, uint64_t reg, RegisterRule::Kind kind, int64_t offset = 0) {
  if (RegisterRule* rule = ruleOf(row, reg)) *rule = {kind, offset};
}

// DW_CFA_restore: the rule the CIE's instructions left.
void restoreRule(Row& row, const Row& initial, uint64_t reg) {
  if (reg == kRbp) row.rbp = initial.rbp;
  if (reg == kReturnAddress) row.return_address = initial.return_address;
}

// Runs the CFA instructions of [begin, end) on `row` up to the row that holds at `pc`, the
// code's location starting at `location`. False for an instruction not interpreted or bytes
// that do not decode.
bool runInstructions(const CfiTables& tables, const Cie& cie, uintptr_t begin, uintptr_t end, uintptr_t location,
                     uintptr_t pc, const Row& initial, Row& row) {
  Cursor cursor(tables, begin, end);
  Row remembered[kMaxRememberedStates];
  int depth = 0;
  const auto advance = [&](uint64_t delta) {
    location += delta * cie.code_align;
    return location <= pc;  // past pc: the row so far is pc's
  };
  while (cursor.ok() && !cursor.atEnd()) {
    const uint8_t op = cursor.u8();
    const uint8_t operand = op & 0x3f;
    switch (op >> 6) {
      case 1:  // DW_CFA_advance_loc
        if (!advance(operand)) return true;
        continue;
      case 2:  // DW_CFA_offset
        setRule(row, operand, RegisterRule::Kind::Offset, static_cast<int64_t>(cursor.uleb()) * cie.data_align);
        continue;
      case 3:  // DW_CFA_restore
        restoreRule(row, initial, operand);
        continue;
      default: break;
    }
    switch (op) {
      case 0x00: break;  // DW_CFA_nop
      case 0x01:         // DW_CFA_set_loc
        location = cursor.pointer(cie.fde_encoding, tables.eh_frame_hdr);
        if (location > pc) return cursor.ok();
        break;
      case 0x02: if (!advance(cursor.u8())) return cursor.ok(); break;                // advance_loc1
      case 0x03: if (!advance(cursor.fixed<uint16_t>())) return cursor.ok(); break;   // advance_loc2
      case 0x04: if (!advance(cursor.fixed<uint32_t>())) return cursor.ok(); break;   // advance_loc4
      case 0x05: {  // DW_CFA_offset_extended
        const uint64_t reg = cursor.uleb();
        setRule(row, reg, RegisterRule::Kind::Offset, static_cast<int64_t>(cursor.uleb()) * cie.data_align);
        break;
      }
      case 0x06: restoreRule(row, initial, cursor.uleb()); break;                      // restore_extended
      case 0x07: setRule(row, cursor.uleb(), RegisterRule::Kind::Undefined); break;   // undefined
      case 0x08: setRule(row, cursor.uleb(), RegisterRule::Kind::SameValue); break;   // same_value
      case 0x09: {  // DW_CFA_register
        const uint64_t reg = cursor.uleb();
        cursor.uleb();
        setRule(row, reg, RegisterRule::Kind::Other);
        break;
      }
      case 0x0a:  // DW_CFA_remember_state
        if (depth == kMaxRememberedStates) return false;
        remembered[depth++] = row;
        break;
      case 0x0b:  // DW_CFA_restore_state
        if (depth == 0) return false;
        row = remembered[--depth];
        break;
      case 0x0c:  // DW_CFA_def_cfa
        row.cfa_register = cursor.uleb();
        row.cfa_offset = static_cast<int64_t>(cursor.uleb());
        row.cfa_expression = false;
        break;
      case 0x0d: row.cfa_register = cursor.uleb(); row.cfa_expression = false; break;  // def_cfa_register
      case 0x0e: row.cfa_offset = static_cast<int64_t>(cursor.uleb()); break;         // def_cfa_offset
      case 0x0f:  // DW_CFA_def_cfa_expression
        cursor.moveTo(cursor.at() + cursor.uleb());
        row.cfa_expression = true;
        break;
      case 0x10:    // DW_CFA_expression
      case 0x16: {  // DW_CFA_val_expression
        const uint64_t reg = cursor.uleb();
        cursor.moveTo(cursor.at() + cursor.uleb());
        setRule(row, reg, RegisterRule::Kind::Other);
        break;
      }
      case 0x11: {  // DW_CFA_offset_extended_sf
        const uint64_t reg = cursor.uleb();
        setRule(row, reg, RegisterRule::Kind::Offset, cursor.sleb() * cie.data_align);
        break;
      }
      case 0x12:  // DW_CFA_def_cfa_sf
        row.cfa_register = cursor.uleb();
        row.cfa_offset = cursor.sleb() * cie.data_align;
        row.cfa_expression = false;
        break;
      case 0x13: row.cfa_offset = cursor.sleb() * cie.data_align; break;  // def_cfa_offset_sf
      case 0x14:    // DW_CFA_val_offset
      case 0x15: {  // DW_CFA_val_offset_sf
        const uint64_t reg = cursor.uleb();
        if (op == 0x14) cursor.uleb(); else cursor.sleb();
        setRule(row, reg, RegisterRule::Kind::Other);
        break;
      }
      case 0x2e: cursor.uleb(); break;  // DW_CFA_GNU_args_size: the walk needs no argument sizes
      case 0x2f: {                      // DW_CFA_GNU_negative_offset_extended
        const uint64_t reg = cursor.uleb();
        setRule(row, reg, RegisterRule::Kind::Offset, -static_cast<int64_t>(cursor.uleb()) * cie.data_align);
        break;
      }
      default: return false;
    }
  }
  return cursor.ok();
}

}  // namespace

CfiResult frameRuleAt(const CfiTables& tables, uintptr_t pc, FrameRule& rule) {
  uintptr_t fde_address = 0, start = 0;
  if (tables.bytes == nullptr || !fdeAddressFor(tables, pc, fde_address, start)) return CfiResult::NoEntry;
  Cie cie;
  Fde fde;
  // The table and the FDE must agree on the start; past the FDE's end pc is in no function
  // the CFI describes (padding, code written without CFI).
  if (!parseFde(tables, fde_address, cie, fde) || fde.start != start) return CfiResult::Unsupported;
  if (pc >= fde.end) return CfiResult::NoEntry;
  if (cie.signal_frame) return CfiResult::Unsupported;
  Row row;
  if (!runInstructions(tables, cie, cie.instructions, cie.end, fde.start, fde.start, row, row)) {
    return CfiResult::Unsupported;
  }
  const Row initial = row;
  if (!runInstructions(tables, cie, fde.instructions, fde.instructions_end, fde.start, pc, initial, row)) {
    return CfiResult::Unsupported;
  }
  if (row.return_address.kind == RegisterRule::Kind::Undefined) {
    rule = {};
    rule.outermost = true;
    return CfiResult::Found;
  }
  if (row.cfa_expression || (row.cfa_register != kRsp && row.cfa_register != kRbp) ||
      row.return_address.kind != RegisterRule::Kind::Offset || row.return_address.offset != -8 ||
      (row.rbp.kind != RegisterRule::Kind::SameValue && row.rbp.kind != RegisterRule::Kind::Offset)) {
    return CfiResult::Unsupported;
  }
  rule.cfa_register = row.cfa_register == kRsp ? FrameRule::Cfa::Rsp : FrameRule::Cfa::Rbp;
  rule.cfa_offset = row.cfa_offset;
  rule.rbp_saved = row.rbp.kind == RegisterRule::Kind::Offset;
  rule.rbp_offset = row.rbp.offset;
  rule.outermost = false;
  return CfiResult::Found;
}

}  // namespace stackscope::native
