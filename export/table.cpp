#include "export/table.h"

#include <algorithm>
#include <stdexcept>

namespace stackscope::exporting {

namespace {
constexpr const char* kGap = "  ";
}

void TextTable::addColumn(std::string header, Align align) { columns_.push_back({std::move(header), align}); }

void TextTable::addRow(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) throw std::logic_error("TextTable: row has the wrong number of cells");
  rows_.push_back(std::move(cells));
}

void TextTable::write(std::ostream& out) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = columns_[c].header.size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto write_row = [&](auto cell_of) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      const size_t pad = widths[c] - cell.size();
      const bool last = c + 1 == columns_.size();
      if (c > 0) out << kGap;
      if (columns_[c].align == Align::Right) out << std::string(pad, ' ') << cell;
      else out << cell << (last ? "" : std::string(pad, ' '));
    }
    out << '\n';
  };
  write_row([&](size_t c) -> const std::string& { return columns_[c].header; });
  for (const auto& row : rows_) write_row([&](size_t c) -> const std::string& { return row[c]; });
}

}  // namespace stackscope::exporting
