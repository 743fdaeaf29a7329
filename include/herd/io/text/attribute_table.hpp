#pragma once

// A CSV table of agent attributes (age, household, occupation, ...) parsed on the host, one row per
// agent. Free of Kokkos, like the edge-list parser, so that it can be fuzzed on its own.

#include <herd/core/error.hpp>
#include <herd/core/types.hpp>

#include <cstdint>
#include <limits>
#include <optional>
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
  /// The file's line of each row, where the table was read from text (else empty): what a
  /// problem found later with a row names.
  std::vector<std::size_t> lines;
};

/// Parses CSV text: a header line of unique column names, then one line per agent with as many
/// comma-separated fields (a field may be double-quoted, with "" for a quote inside it). Empty
/// lines are skipped. Throws herd::Error naming `name`, the line and the problem; an id column
/// must hold distinct non-negative integers.
AttributeTable parse_attribute_table(std::string_view text, std::string const& name);

/// Reads and parses the CSV file `path` (see parse_attribute_table).
AttributeTable read_attribute_table(std::string const& path);

namespace Details {

/// A problem on one line of an attribute table: the message names the file and the line.
class LineError : public Error {
 public:
  LineError(std::string const& what, std::size_t at) : Error(what), line(at) {}
  std::size_t line;
};

/// An attribute table's lines as text, before the kinds of its columns are known: what a reader
/// of part of a file (herd::mpi::read_attribute_rows) settles with the other parts first.
struct AttributeLines {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> values;  ///< [column][row]
  std::vector<std::size_t> lines;                ///< the line number of each row
};

/// Splits CSV text into fields, the first line being number `first_line`. With `header` empty,
/// the first non-empty line is the header, checked; otherwise every non-empty line is a row of
/// the columns `header` names. Throws LineError naming `name`, the line and the problem.
AttributeLines split_attribute_lines(std::string_view text, std::string const& name, std::size_t first_line = 1,
                                     std::vector<std::string> header = {});

/// The kind of a column whose values are these alone: integer if every one is, else real if every
/// one is, else category.
AttributeColumn::Kind kind_of(std::vector<std::string> const& values);

/// A column `name` of `kind` from its text values, which must all read as that kind (`kind_of`
/// gave it, or a kind that takes more). Categories are coded in order of first appearance.
AttributeColumn typed_column(std::string name, std::vector<std::string> const& values, AttributeColumn::Kind kind);

/// Whether `name` is a column that names each row's agent: "id" or "agent_id".
bool is_id_column(std::string const& name);

/// The largest id a table may give an agent: 2^63 - 2, as an edge list's ids (2^63 - 1 is kept back).
inline constexpr global_id largest_agent_id = std::numeric_limits<global_id>::max() - 1;
/// The agent id `text` gives: an integer in [0, largest_agent_id]; nothing otherwise.
std::optional<global_id> agent_id_of(std::string const& text);
/// What is wrong with an id that agent_id_of refuses, in the column `column`.
std::string bad_agent_id(std::string const& column, std::string const& text);
/// What is wrong with an id given a second time.
std::string repeated_agent_id(global_id id);

/// The agent ids of an id column, each checked to be a non-negative integer not seen before in
/// the column. Throws LineError naming `name`, the line (from `lines`) and the problem.
std::vector<global_id> agent_ids(std::vector<std::string> const& values, std::vector<std::size_t> const& lines,
                                 std::string const& column, std::string const& name);

}  // namespace Details

}  // namespace herd
