// The host-side readers: sparse-id edge lists, attribute tables, and CSR checks.

#include "test_common.hpp"

#include <herd/io/host_csr.hpp>
#include <herd/io/text/attribute_table.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <fstream>
#include <string>

namespace {

using namespace herd;
// CUDA's headers declare a global ::half too; name Herd's.
using herd::half;

using herd::test::error_of;

TEST(EdgeListParser, CompactsAnyIdsInIncreasingOrder) {
  auto edges = parse_edge_list("# SNAP\n9000000000 5\n5 70\n", "e.txt", EdgeIds::any);
  auto const originals = compact_ids(edges, {3, 70});
  EXPECT_EQ(originals, (std::vector<global_id>{3, 5, 70, 9000000000}));
  EXPECT_EQ(edges.num_agents, 4);
  EXPECT_EQ(edges.sources, (std::vector<global_id>{3, 1}));
  EXPECT_EQ(edges.targets, (std::vector<global_id>{1, 2}));
  // Dense ids stop at what an agent index holds.
  EXPECT_EQ(error_of([] { parse_edge_list("0 9000000000\n", "e.txt"); }),
            "e.txt:1: agent id 9000000000 exceeds the largest supported id 2147483646");
}

TEST(AttributeTable, TypesColumnsAndCodesCategories) {
  auto const table = parse_attribute_table(
      "agent_id,age,weight,job\r\n2,30,71.5,\"nurse, ward 3\"\n\n0,41,80,teacher\n1,7,-1e3,\"nurse, ward 3\"\n",
      "a.csv");
  EXPECT_EQ(table.rows, 3u);
  EXPECT_EQ(table.ids, (std::vector<global_id>{2, 0, 1}));
  ASSERT_EQ(table.columns.size(), 3u);
  EXPECT_EQ(table.columns[0].name, "age");
  EXPECT_EQ(table.columns[0].kind, AttributeColumn::Kind::integer);
  EXPECT_EQ(table.columns[0].integers, (std::vector<std::int64_t>{30, 41, 7}));
  EXPECT_EQ(table.columns[1].kind, AttributeColumn::Kind::real);
  EXPECT_EQ(table.columns[1].reals, (std::vector<double>{71.5, 80.0, -1000.0}));
  EXPECT_EQ(table.columns[2].kind, AttributeColumn::Kind::category);
  EXPECT_EQ(table.columns[2].integers, (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(table.columns[2].categories, (std::vector<std::string>{"nurse, ward 3", "teacher"}));
  // A quote inside a quoted field is doubled.
  EXPECT_EQ(parse_attribute_table("name\n\"say \"\"hi\"\"\"\n", "q.csv").columns[0].categories[0], "say \"hi\"");
}

// A file saved with a UTF-8 byte-order mark reads as without one: the "id" column is the id
// column, and the first line's first id a number.
TEST(TextFiles, SkipAByteOrderMark) {
  herd::test::TemporaryFile const table_file("bom.csv");
  std::ofstream(table_file.path()) << "\xEF\xBB\xBFid,age\n1,30\n0,41\n";
  auto const table = read_attribute_table(table_file.path());
  EXPECT_EQ(table.ids, (std::vector<global_id>{1, 0}));
  ASSERT_EQ(table.columns.size(), 1u);
  EXPECT_EQ(table.columns[0].name, "age");
  herd::test::TemporaryFile const edges_file("bom.txt");
  std::ofstream(edges_file.path()) << "\xEF\xBB\xBF"
                                   << "0 1\n1 2\n";
  EXPECT_EQ(read_edge_list(edges_file.path()).sources, (std::vector<global_id>{0, 1}));
  // The mark is no part of the first line's length: a first line of the longest length allowed is
  // read, one byte more is refused.
  for (std::size_t extra : {0, 1}) {
    herd::test::TemporaryFile const long_file("bom-long.txt");
    std::ofstream(long_file.path()) << "\xEF\xBB\xBF#" << std::string(Details::longest_line - 1 + extra, 'c')
                                    << "\n0 1\n";
    if (extra == 0) {
      EXPECT_EQ(read_edge_list(long_file.path()).targets, (std::vector<global_id>{1}));
    } else {
      EXPECT_THROW(read_edge_list(long_file.path()), herd::Error);
    }
  }
}

// Messages show a number with the fewest digits that read back as it: never 16.000000, and never
// 1 for a value just above the bound it broke.
TEST(Error, NumbersReadAsTheyWereGiven) {
  EXPECT_EQ(number_text(16.0), "16");
  EXPECT_EQ(number_text(1.5), "1.5");
  EXPECT_EQ(number_text(1.0000001), "1.0000001");
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(-2.0), "-2");
  EXPECT_EQ(number_text(1e-7), "1e-07");
  EXPECT_EQ(number_text(static_cast<double>(0.6f)), "0.6000000238418579");
  EXPECT_EQ(number_text(-0.1f), "-0.1");
  // A float holds 2^24 + 1 as 2^24. Read from text at run time: nvcc's front end rounds the
  // literal 16777217.0f to 2^24 + 2.
  EXPECT_EQ(number_text(std::stof("16777217")), "16777216");
}

TEST(AttributeTable, NamesLineAndProblem) {
  auto error = [](char const* text) { return error_of([&] { parse_attribute_table(text, "a.csv"); }); };
  EXPECT_EQ(error("id,age\n0,1\n1\n"), "a.csv:3: expected 2 fields as in the header, found 1");
  EXPECT_EQ(error("id,age\n0,1\n0,2\n"), "a.csv:3: agent id 0 appears twice");
  EXPECT_EQ(error("id,age\n-4,1\n"), "a.csv:2: id '-4' is not a non-negative integer agent id");
  // Ids as an edge list takes them: up to 2^63 - 2, a larger one named as such.
  EXPECT_EQ(error("id,age\n9223372036854775807,1\n"),
            "a.csv:2: id '9223372036854775807' exceeds the largest supported agent id 9223372036854775806");
  EXPECT_EQ(error("id,age\n18446744073709551616,1\n"),
            "a.csv:2: id '18446744073709551616' exceeds the largest supported agent id 9223372036854775806");
  EXPECT_EQ(error("id,age\n1.5,1\n"), "a.csv:2: id '1.5' is not a non-negative integer agent id");
  EXPECT_EQ(error("age,age\n1,2\n"), "a.csv:1: the header names column 'age' twice");
  EXPECT_EQ(error("age,\n1,2\n"), "a.csv:1: the header has an empty column name");
  EXPECT_EQ(error("name\n\"open\n"), "a.csv:2: unterminated or misplaced double quote");
  EXPECT_EQ(error("id,agent_id\n1,2\n"), "a.csv: both 'id' and 'agent_id' columns: which one names the agent?");
  EXPECT_EQ(error("age\n"), "a.csv: the file holds a header but no agents");
  EXPECT_EQ(error(""), "a.csv: the file holds no header line");
}

TEST(HostCsr, CheckNamesTheFirstProblem) {
  HostCsr good;
  good.row_offsets = {0, 2, 3, 3};
  good.neighbours = {1, 2, 0};
  EXPECT_EQ(error_of([&] { check_csr(good, "g"); }), "no error");
  auto error = [&](auto&& change) {
    HostCsr g = good;
    change(g);
    return error_of([&] { check_csr(g, "g"); });
  };
  EXPECT_EQ(error([](HostCsr& g) { g.row_offsets = {0}; }),
            "g: a graph needs at least one agent (row offsets hold 1 entries, need agents + 1)");
  EXPECT_EQ(error([](HostCsr& g) { g.row_offsets[0] = 1; }), "g: row offsets start at 1, not 0");
  EXPECT_EQ(error([](HostCsr& g) { g.row_offsets.back() = 2; }),
            "g: the last row offset is 2 but there are 3 neighbour entries");
  EXPECT_EQ(error([](HostCsr& g) {
              g.row_offsets = {0, 9, 1, 3};
            }),
            "g: the row of agent 0 ends at entry 9, past the 3 neighbour entries");
  EXPECT_EQ(error([](HostCsr& g) { g.row_offsets = {0, 2, 1, 3}; }), "g: row offsets decrease after agent 1");
  EXPECT_EQ(error([](HostCsr& g) { g.neighbours[1] = 3; }), "g: agent 0 has neighbour 3, outside [0, 3)");
  EXPECT_EQ(error([](HostCsr& g) { g.neighbours[1] = 1; }),
            "g: the neighbours of agent 0 are not in strictly increasing order (1 then 1)");
  EXPECT_EQ(error([](HostCsr& g) { g.weights = {1.0f}; }), "g: 3 neighbour entries but 1 weights");
  EXPECT_EQ(error([](HostCsr& g) {
              g.weights = {1.0f, -2.0f, 0.0f};
            }),
            "g: the weight of agent 0's neighbour 2 is -2; weights must be finite and non-negative");
}

TEST(HostCsr, SurvivesTheTripToADeviceAndBack) {
  using Exec = Kokkos::DefaultExecutionSpace;
  HostCsr g;
  g.row_offsets = {0, 2, 3, 3};
  g.neighbours = {1, 2, 0};
  g.weights = {0.5f, 2.0f, 0.25f};
  auto const device = to_device<half>(Exec(), g);
  EXPECT_EQ(device.num_edges(), 3u);
  auto const back = to_host(Exec(), device);
  EXPECT_EQ(back.row_offsets, g.row_offsets);
  EXPECT_EQ(back.neighbours, g.neighbours);
  EXPECT_EQ(back.weights, g.weights);  // exact in binary16
}

}  // namespace
