// An attribute table read by byte ranges: each rank parses the lines that begin in its part of the
// file, and the rows then travel to the ranks that own their agents. Each rank's rows, the kinds
// and category codes of the columns, and every error must be what one process reading the whole
// file gets.
#include <herd/core/error.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/mpi/attribute_reader.hpp>
#include <herd/mpi/collective.hpp>

#include "scratch.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace herd;
using test::SharedFile;

// A table of `agents` rows, in shuffled order with an id column or in agent order without one:
// an integer column, a column of integers that turns real in the last rows, and a category
// column whose categories first appear far apart; blank lines and CRLF endings between, and with
// ids a byte-order mark first.
std::string table_text(int agents, bool named) {
  std::mt19937_64 random(7);
  std::vector<int> order(static_cast<std::size_t>(agents));
  for (int i = 0; i < agents; ++i) order[static_cast<std::size_t>(i)] = i;
  if (named) std::shuffle(order.begin(), order.end(), random);
  std::string text = named ? "\xEF\xBB\xBF\n" : "\n";  // a byte-order mark, as spreadsheets write
  text += named ? "size,id,weight,group\r\n" : "size,weight,group\n";
  for (int k = 0; k < agents; ++k) {
    int const agent = order[static_cast<std::size_t>(k)];
    std::string const weight = k < agents - 3 ? std::to_string(agent % 17) : std::to_string(agent) + ".25";
    std::string const group =
        k < agents / 2 ? "g" + std::to_string(agent % 3) : "\"h, " + std::to_string(agent % 5) + "\"";
    text += std::to_string(agent * 3) + (named ? "," + std::to_string(agent) : "") + "," + weight + "," + group;
    text += k % 7 == 3 ? "\r\n" : "\n";
    if (k % 101 == 50) text += "\n";
  }
  return text;
}

std::string one_process_error(std::string const& path) {
  try {
    (void)read_attribute_table(path);
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

std::string error_reading(std::string const& path) {
  try {
    (void)mpi::read_attribute_rows(MPI_COMM_WORLD, path);
  } catch (mpi::CollectiveError const& e) {
    return e.what();
  }
  return "";
}

// The values of row `r` of `table`, as words (a real's bits compared exactly).
bool same_values(AttributeTable const& a, std::size_t ra, AttributeTable const& b, std::size_t rb) {
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    auto const& x = a.columns[c];
    auto const& y = b.columns[c];
    if (x.kind == AttributeColumn::Kind::real ? x.reals[ra] != y.reals[rb] : x.integers[ra] != y.integers[rb])
      return false;
  }
  return true;
}

TEST(AttributeRows, EachRankReadsItsPartAsOneProcessReadsTheWhole) {
  int const rank = mpi::rank_of(MPI_COMM_WORLD);
  for (bool named : {true, false}) {
    SCOPED_TRACE(named ? "with ids" : "in agent order");
    int const agents = 4001;
    auto const text = table_text(agents, named);
    SharedFile const file(std::string("attributes_") + (named ? "named" : "ordered"), text);
    auto const whole = read_attribute_table(file.path());
    auto const rows = mpi::read_attribute_rows(MPI_COMM_WORLD, file.path());
    EXPECT_EQ(rows.named, named);
    EXPECT_EQ(rows.rows, static_cast<std::uint64_t>(agents));
    EXPECT_EQ(rows.largest, agents - 1);
    // This rank's rows are the whole table's from the rows of the ranks before.
    unsigned long long mine = rows.table.rows, before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) before = 0;
    ASSERT_EQ(rows.table.columns.size(), whole.columns.size());
    for (std::size_t c = 0; c < whole.columns.size(); ++c) {
      EXPECT_EQ(rows.table.columns[c].name, whole.columns[c].name);
      EXPECT_EQ(rows.table.columns[c].kind, whole.columns[c].kind);
      EXPECT_EQ(rows.table.columns[c].categories, whole.columns[c].categories);
    }
    EXPECT_EQ(whole.columns[1].kind, AttributeColumn::Kind::real);
    EXPECT_EQ(whole.columns[2].categories.size(), 8u);
    ASSERT_EQ(rows.lines.size(), rows.table.rows);
    bool same = true;
    for (std::size_t r = 0; r < rows.table.rows; ++r) {
      auto const w = static_cast<std::size_t>(before) + r;
      same = same && rows.table.ids[r] == (named ? whole.ids[w] : static_cast<global_id>(w)) &&
             same_values(rows.table, r, whole, w);
    }
    EXPECT_TRUE(same);

    // The rows of agents spread over the ranks, asked for in descending order.
    std::vector<global_id> owned;
    for (global_id a = agents - 1; a >= 0; --a)
      if (a * 2654435761 % 1009 % mpi::size_of(MPI_COMM_WORLD) == rank) owned.push_back(a);
    auto const got = mpi::owned_attribute_rows(MPI_COMM_WORLD, rows, agents, owned, file.path());
    ASSERT_EQ(got.rows, owned.size());
    ASSERT_EQ(got.columns.size(), whole.columns.size());
    for (std::size_t k = 0; k < owned.size(); ++k) {
      auto const w =
          named ? static_cast<std::size_t>(std::find(whole.ids.begin(), whole.ids.end(), owned[k]) - whole.ids.begin())
                : static_cast<std::size_t>(owned[k]);
      ASSERT_TRUE(same_values(got, k, whole, w)) << "agent " << owned[k];
    }
    EXPECT_EQ(got.columns[2].categories, whole.columns[2].categories);
  }
}

TEST(AttributeRows, ABadLineFailsOnEveryRankAsOneProcessNamesIt) {
  auto const good = table_text(3001, true);
  auto const lines_of = [](std::string const& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < text.size();) {
      auto const end = text.find('\n', at);
      lines.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    return lines;
  };
  auto const join = [](std::vector<std::string> const& lines) {
    std::string text;
    for (auto const& l : lines) text += l + "\n";
    return text;
  };
  auto lines = lines_of(good);
  auto short_line = lines;
  short_line[short_line.size() - 10] = "1,2,3";
  // The agent of the first row (line 3: a blank line, the header, then the rows), again near the end.
  auto const after_size = lines[2].find(',') + 1;
  auto const first_id = lines[2].substr(after_size, lines[2].find(',', after_size) - after_size);
  auto repeated = lines;
  repeated[repeated.size() - 20] = "0," + first_id + ",1,g0";
  auto both = repeated;  // and a bad id after it
  both[both.size() - 5] = "0,x,1,g0";
  auto bad_first = repeated;  // a bad id before it
  bad_first[40] = "0,-4,1,g0";
  auto header_twice = lines;
  header_twice[1] = "size,id,size,group";
  for (auto const& [name, text] :
       {std::pair{"short", join(short_line)}, std::pair{"repeated", join(repeated)}, std::pair{"both", join(both)},
        std::pair{"bad_first", join(bad_first)}, std::pair{"header_twice", join(header_twice)},
        std::pair{"no_header", std::string("\n\r\n\n")}, std::pair{"no_rows", std::string("\nid,x\n\n")},
        std::pair{"nul", good.substr(0, good.size() / 2) + std::string(1, '\0') + good.substr(good.size() / 2)}}) {
    SCOPED_TRACE(name);
    SharedFile const file(std::string("attributes_bad_") + name, text);
    auto const expected = one_process_error(file.path());
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(error_reading(file.path()), expected);
  }
}

TEST(AttributeRows, AgentsWithoutARowOrRowsWithoutAnAgentAreNamed) {
  int const rank = mpi::rank_of(MPI_COMM_WORLD);
  auto const owned_of = [&](global_id agents) {
    std::vector<global_id> owned;
    for (global_id a = 0; a < agents; ++a)
      if (a % mpi::size_of(MPI_COMM_WORLD) == rank) owned.push_back(a);
    return owned;
  };
  auto const failure = [&](std::string const& text, global_id agents) {
    SharedFile const file("attributes_cover", text);
    auto const rows = mpi::read_attribute_rows(MPI_COMM_WORLD, file.path());
    try {
      (void)mpi::owned_attribute_rows(MPI_COMM_WORLD, rows, agents, owned_of(agents), file.path());
    } catch (mpi::CollectiveError const& e) {
      return std::string(e.what()).substr(file.path().size());
    }
    return std::string();
  };
  std::string gaps = "id,x\n";
  for (int a = 0; a < 2000; ++a)
    if (a != 1700 && a != 900) gaps += std::to_string(a) + ",1\n";
  EXPECT_EQ(failure(gaps, 2000), ": no row for agent 900 of the graph");
  std::string beyond = "id,x\n";
  for (int a = 0; a < 2000; ++a) beyond += std::to_string(a < 1500 ? a : 4000 - a) + ",1\n";
  // The first such row's line: agent 1500's, after the header.
  EXPECT_EQ(failure(beyond, 2000), ":1502: agent id 2500 is not an agent of the graph (2000 agents)");
  std::string ordered = "x\n";
  for (int a = 0; a < 2000; ++a) ordered += "1\n";
  EXPECT_EQ(failure(ordered, 2001),
            ": 2000 rows for the graph's 2001 agents (give an 'id' column to name each row's agent)");
  EXPECT_EQ(failure(ordered, 2000), "");
}

}  // namespace
