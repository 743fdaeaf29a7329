#pragma once

// A CSV table of agent attributes (age, household, occupation, ...) parsed on the host, one row per
// agent. Free of Kokkos, like the edge-list parser, so that it can be fuzzed on its own.

#include <herd/core/types.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace herd {

/// One column of an attribute table. Every value of an `integer` column is a 64-bit integer, of
/// a `real` column a finite number; any other column is `category`: its values are coded
/// 0, 1, ... in order of first appearance, and `categories` holds the text of each code.
struct AttributeColumn {
  enum class Kind { integer, real, category };
  std::string name;
  Kind kind = Kind::integer;
  std::vector<std::int64_t> integers;  ///< integer values, or category codes
  std::vector<double> reals;           ///< real values
  std::vector<std::string> categories;
};

/// A table of agent attributes with one row per agent.
struct AttributeTable {
  /// The agent of each row, from a column named "id" or "agent_id"; empty when the table has no
  /// such column, in which case row i describes agent i.
  std::vector<global_id> ids;
  std::vector<AttributeColumn> columns;
  std::size_t rows = 0;
};

/// Parses CSV text: a header line of unique column names, then one line per agent with as many
/// comma-separated fields (a field may be double-quoted, with "" for a quote inside it). Empty
/// lines are skipped. Throws herd::Error naming `name`, the line and the problem; an id column
/// must hold distinct non-negative integers.
AttributeTable parse_attribute_table(std::string_view text, std::string const& name);

/// Reads and parses the CSV file `path` (see parse_attribute_table).
AttributeTable read_attribute_table(std::string const& path);

}  // namespace herd
