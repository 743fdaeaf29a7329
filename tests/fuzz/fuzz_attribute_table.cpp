// Any bytes as an attribute CSV: the parser either throws herd::Error or returns a table whose
// columns all hold one value per row and whose category codes name a category.

#include <herd/core/error.hpp>
#include <herd/io/text/attribute_table.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  try {
    auto const table = herd::parse_attribute_table(std::string_view(reinterpret_cast<char const*>(data), size), "fuzz");
    if (table.rows == 0 || (!table.ids.empty() && table.ids.size() != table.rows)) std::abort();
    if (std::set<herd::global_id>(table.ids.begin(), table.ids.end()).size() != table.ids.size()) std::abort();
    for (auto id : table.ids)
      if (id < 0) std::abort();
    for (auto const& column : table.columns) {
      bool const real = column.kind == herd::AttributeColumn::Kind::real;
      if ((real ? column.reals.size() : column.integers.size()) != table.rows) std::abort();
      if (column.kind != herd::AttributeColumn::Kind::category) continue;
      for (auto code : column.integers)
        if (code < 0 || static_cast<std::size_t>(code) >= column.categories.size()) std::abort();
    }
  } catch (herd::Error const&) {
  }
  return 0;
}
