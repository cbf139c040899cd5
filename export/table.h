// A plain-text table: a header row, columns padded to their widest cell, numbers aligned
// right, text left. The last column is not padded, so long names leave no trailing blanks.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace stackscope::exporting {

class TextTable {
 public:
  enum class Align { Left, Right };

  void addColumn(std::string header, Align align);
  void addRow(std::vector<std::string> cells);  // one cell per column
  void write(std::ostream& out) const;

 private:
  struct Column {
    std::string header;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace stackscope::exporting
