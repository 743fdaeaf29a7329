#include <herd/mpi/attribute_reader.hpp>

#include "blocks.hpp"
#include "exchange.hpp"
#include "line_ranges.hpp"

#include <herd/core/error.hpp>
#include <herd/io/text/edge_list_parser.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace herd::mpi {

namespace {

using Kind = AttributeColumn::Kind;
constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

// Runs `f`, which may throw a LineError, on every rank; the first bad line of all is thrown on
// every rank.
template <class F>
void by_first_line(MPI_Comm comm, F&& f) {
  std::size_t line = 0;
  std::string failure;
  try {
    f();
  } catch (herd::Details::LineError const& e) {
    line = e.line;
    failure = e.what();
  }
  raise_first_failure(comm, line, failure);
}

// The header: the first non-empty line of the file, which the first rank holding one splits and
// checks for all. Returns it, with where this rank's rows begin in `text` (past the header).
std::vector<std::string> header_of(MPI_Comm comm, std::string const& path, Details::RankLines const& lines,
                                   std::size_t& rows_begin) {
  // The first non-empty line of this rank's text (a line of "\r" alone is empty).
  std::size_t header_end = std::string::npos, position = 0;
  while (position < lines.text.size() && header_end == std::string::npos) {
    auto end = lines.text.find('\n', position);
    if (end == std::string::npos) end = lines.text.size();
    if (end > position && !(end == position + 1 && lines.text[position] == '\r')) header_end = end;
    position = end + 1;
  }
  int const rank = rank_of(comm);
  int holder = header_end == std::string::npos ? size_of(comm) : rank;
  MPI_Allreduce(MPI_IN_PLACE, &holder, 1, MPI_INT, MPI_MIN, comm);
  if (holder == size_of(comm)) throw CollectiveError(path + ": the file holds no header line");
  std::vector<std::string> header;
  rows_begin = rank == holder ? std::min(header_end + 1, lines.text.size()) : 0;
  by_first_line(comm, [&] {
    if (rank == holder)
      header = herd::Details::split_attribute_lines(std::string_view(lines.text).substr(0, rows_begin), path,
                                                    lines.first_line)
                   .header;
  });
  header = Details::gather_lines(comm, rank == holder ? header : std::vector<std::string>{}, path);
  return header;
}

// Agent ids repeated across the file, found by the rank each id goes to (id mod P: any id, however
// large, and ids spread over the ranks): the line of the first row that repeats an id before it,
// and that id, on the rank that found it (none elsewhere).
std::pair<std::uint64_t, global_id> first_repeat(MPI_Comm comm, std::string const& path,
                                                 std::vector<global_id> const& ids,
                                                 std::vector<std::size_t> const& lines) {
  auto const parts = static_cast<std::uint64_t>(size_of(comm));
  auto const finder = [&](global_id id) { return static_cast<std::size_t>(static_cast<std::uint64_t>(id) % parts); };
  std::vector<std::size_t> counts(parts, 0);
  for (auto id : ids) ++counts[finder(id)];
  auto const begin = Details::group_begins(counts);
  auto next = begin;
  std::vector<std::uint64_t> out(2 * ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    auto& at = next[finder(ids[k])];
    out[2 * at] = static_cast<std::uint64_t>(ids[k]);
    out[2 * at + 1] = static_cast<std::uint64_t>(lines[k]);
    ++at;
  }
  auto doubled = begin;
  for (auto& b : doubled) b *= 2;
  std::vector<std::size_t> from;
  auto const in = Details::exchange(comm, out, doubled, from, path.c_str());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;  // (id, line)
  for (std::size_t k = 0; k + 1 < in.size(); k += 2) pairs.emplace_back(in[k], in[k + 1]);
  std::sort(pairs.begin(), pairs.end());
  std::pair<std::uint64_t, global_id> first{none, -1};
  for (std::size_t k = 1; k < pairs.size(); ++k)
    if (pairs[k].first == pairs[k - 1].first && pairs[k].second < first.first)
      first = {pairs[k].second, static_cast<global_id>(pairs[k].first)};
  return first;
}

// A category column's codes renumbered by the categories of every rank, in order of first
// appearance over the whole file: the ranks' parts are in file order.
void code_together(MPI_Comm comm, std::string const& path, AttributeColumn& column) {
  auto const all = Details::gather_lines(comm, column.categories, path + ": column " + column.name);
  std::vector<std::string> categories;
  std::unordered_map<std::string, std::int64_t> code;
  for (auto const& c : all)
    if (code.emplace(c, static_cast<std::int64_t>(categories.size())).second) categories.push_back(c);
  std::vector<std::int64_t> code_of(column.categories.size());
  for (std::size_t c = 0; c < code_of.size(); ++c) code_of[c] = code.at(column.categories[c]);
  for (auto& code : column.integers) code = code_of[static_cast<std::size_t>(code)];
  column.categories = std::move(categories);
}

}  // namespace

AttributeRows read_attribute_rows(MPI_Comm comm, std::string const& path) {
  // A leading byte-order mark (spreadsheets save CSV with one) is left out; text that is no text
  // fails first.
  auto lines = Details::text_lines(comm, path);

  // The header, then this rank's rows, split as text.
  std::size_t rows_begin = 0;
  auto header = header_of(comm, path, lines, rows_begin);
  std::size_t const skipped =
      static_cast<std::size_t>(std::count(lines.text.begin(), lines.text.begin() + rows_begin, '\n'));
  herd::Details::AttributeLines text;
  by_first_line(comm, [&] {
    text = herd::Details::split_attribute_lines(std::string_view(lines.text).substr(rows_begin), path,
                                                lines.first_line + skipped, header);
  });
  lines.text = std::string();

  AttributeRows out;
  auto& table = out.table;
  table.rows = text.lines.size();
  unsigned long long rows = table.rows;
  MPI_Allreduce(MPI_IN_PLACE, &rows, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  out.rows = rows;
  if (out.rows == 0) throw CollectiveError(path + ": the file holds a header but no agents");

  // Each column in the order one process takes them: ids, checked by line; values of the kind
  // every rank's values allow.
  for (std::size_t c = 0; c < header.size(); ++c) {
    auto const& values = text.values[c];
    if (herd::Details::is_id_column(header[c])) {
      if (out.named) throw CollectiveError(path + ": both 'id' and 'agent_id' columns: which one names the agent?");
      out.named = true;
      std::size_t failing = 0;
      std::string failure;
      global_id largest = -1;
      for (std::size_t r = 0; r < values.size(); ++r) {
        auto const id = herd::Details::agent_id_of(values[r]);
        if (!id && failure.empty()) {
          failing = text.lines[r];
          failure = path + ":" + std::to_string(failing) + ": " + herd::Details::bad_agent_id(header[c], values[r]);
        }
        table.ids.push_back(id ? *id : -1);
        if (id) largest = std::max(largest, *id);
      }
      MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, comm);
      // Every valid id goes to one rank (id mod P), which finds the repeats.
      std::vector<global_id> valid;
      std::vector<std::size_t> valid_lines;
      for (std::size_t r = 0; r < values.size(); ++r)
        if (table.ids[r] >= 0) {
          valid.push_back(table.ids[r]);
          valid_lines.push_back(text.lines[r]);
        }
      auto const [repeat_line, repeated] = first_repeat(comm, path, valid, valid_lines);
      if (repeat_line < (failure.empty() ? none : failing)) {
        failing = static_cast<std::size_t>(repeat_line);
        failure = path + ":" + std::to_string(failing) + ": " + herd::Details::repeated_agent_id(repeated);
      }
      raise_first_failure(comm, failing, failure);
      out.largest = largest;
      continue;
    }
    auto kind = static_cast<int>(herd::Details::kind_of(values));
    MPI_Allreduce(MPI_IN_PLACE, &kind, 1, MPI_INT, MPI_MAX, comm);
    table.columns.push_back(herd::Details::typed_column(header[c], values, static_cast<Kind>(kind)));
    if (static_cast<Kind>(kind) == Kind::category) code_together(comm, path, table.columns.back());
  }
  if (!out.named) {
    // A row's agent is its position in the file.
    unsigned long long before = 0, mine = table.rows;
    MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (rank_of(comm) == 0) before = 0;
    for (std::size_t r = 0; r < table.rows; ++r) table.ids.push_back(static_cast<global_id>(before + r));
    out.largest = static_cast<global_id>(out.rows) - 1;
  }
  out.lines = std::move(text.lines);
  return out;
}

AttributeTable owned_attribute_rows(MPI_Comm comm, AttributeRows const& rows, global_id agents,
                                    std::vector<global_id> const& owned, std::string const& path) {
  auto const& table = rows.table;
  // As one process reading the table for a graph of `agents` agents checks it.
  if (!rows.named && rows.rows != static_cast<std::uint64_t>(agents))
    throw CollectiveError(path + ": " + std::to_string(rows.rows) + " rows for the graph's " + std::to_string(agents) +
                          " agents (give an 'id' column to name each row's agent)");
  std::size_t failing = 0;
  std::string failure;
  for (std::size_t r = 0; r < table.rows && failure.empty(); ++r)
    if (table.ids[r] >= agents) {
      failing = rows.lines[r];
      failure = path + ":" + std::to_string(failing) + ": agent id " + std::to_string(table.ids[r]) +
                " is not an agent of the graph (" + std::to_string(agents) + " agents)";
    }
  raise_first_failure(comm, failing, failure);

  // Each row to its agent's home, the rank whose block holds it: its agent, then a word per
  // column (an integer, or a real's bits).
  int const parts = size_of(comm);
  Details::Blocks const blocks{agents, parts};
  std::size_t const columns = table.columns.size(), width = 1 + columns;
  auto word = [&](std::size_t c, std::size_t r) {
    auto const& column = table.columns[c];
    if (column.kind != Kind::real) return static_cast<std::uint64_t>(column.integers[r]);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &column.reals[r], sizeof bits);
    return bits;
  };
  std::vector<std::size_t> counts(static_cast<std::size_t>(parts), 0);
  for (std::size_t r = 0; r < table.rows; ++r) counts[static_cast<std::size_t>(blocks.owner(table.ids[r]))] += width;
  auto begin = Details::group_begins(counts);
  auto next = begin;
  std::vector<std::uint64_t> out(table.rows * width);
  for (std::size_t r = 0; r < table.rows; ++r) {
    auto& at = next[static_cast<std::size_t>(blocks.owner(table.ids[r]))];
    out[at] = static_cast<std::uint64_t>(table.ids[r]);
    for (std::size_t c = 0; c < columns; ++c) out[at + 1 + c] = word(c, r);
    at += width;
  }
  std::vector<std::size_t> from;
  auto in = Details::exchange(comm, out, begin, from, path.c_str());
  out = {};
  int const rank = rank_of(comm);
  global_id const first = blocks.begin(rank);
  auto const held = static_cast<std::size_t>(blocks.size(rank));
  std::vector<std::uint64_t> block(held * columns);
  std::vector<bool> have(held, false);
  for (std::size_t k = 0; k < in.size(); k += width) {
    auto const i = static_cast<std::size_t>(static_cast<global_id>(in[k]) - first);
    have[i] = true;
    std::copy(in.begin() + static_cast<std::ptrdiff_t>(k + 1), in.begin() + static_cast<std::ptrdiff_t>(k + width),
              block.begin() + static_cast<std::ptrdiff_t>(i * columns));
  }
  in = {};
  auto const missing = static_cast<std::size_t>(std::find(have.begin(), have.end(), false) - have.begin());
  raise_first_failure(comm, missing < held ? static_cast<std::uint64_t>(first) + missing : none,
                      missing < held ? path + ": no row for agent " +
                                           std::to_string(first + static_cast<global_id>(missing)) + " of the graph"
                                     : std::string());

  // Each rank asks the homes for its agents' rows, which come back in the order asked.
  std::fill(counts.begin(), counts.end(), 0);
  for (auto id : owned) ++counts[static_cast<std::size_t>(blocks.owner(id))];
  begin = Details::group_begins(counts);
  next = begin;
  std::vector<std::size_t> position(owned.size());  // where each owned agent's request goes
  std::vector<global_id> asked(owned.size());
  for (std::size_t k = 0; k < owned.size(); ++k) {
    position[k] = next[static_cast<std::size_t>(blocks.owner(owned[k]))]++;
    asked[position[k]] = owned[k];
  }
  std::vector<std::size_t> asked_from;
  auto const requests = Details::exchange(comm, asked, begin, asked_from, path.c_str());
  std::vector<std::uint64_t> answers(requests.size() * columns);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    auto const i = static_cast<std::size_t>(requests[k] - first);
    std::copy(block.begin() + static_cast<std::ptrdiff_t>(i * columns),
              block.begin() + static_cast<std::ptrdiff_t>((i + 1) * columns),
              answers.begin() + static_cast<std::ptrdiff_t>(k * columns));
  }
  for (auto& b : asked_from) b *= columns;
  auto const replies = Details::exchange(comm, answers, asked_from, from, path.c_str());

  AttributeTable mine;
  mine.rows = owned.size();
  for (std::size_t c = 0; c < columns; ++c) {
    AttributeColumn column;
    column.name = table.columns[c].name;
    column.kind = table.columns[c].kind;
    column.categories = table.columns[c].categories;
    for (std::size_t k = 0; k < owned.size(); ++k) {
      auto const bits = replies[position[k] * columns + c];
      if (column.kind != Kind::real) {
        column.integers.push_back(static_cast<std::int64_t>(bits));
      } else {
        double value = 0.0;
        std::memcpy(&value, &bits, sizeof value);
        column.reals.push_back(value);
      }
    }
    mine.columns.push_back(std::move(column));
  }
  return mine;
}

}  // namespace herd::mpi
