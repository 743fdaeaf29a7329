// An edge list read by byte ranges: each rank parses the lines that begin in its part of the file.
// Its edges, the line numbers in its messages and the share it builds must be what one process
// reading the whole file gets.
#include <herd/herd.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/distributed_graph.hpp>
#include <herd/mpi/edge_list_reader.hpp>

#include "same_share.hpp"
#include "scratch.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace herd;
using test::Exec;

using test::SharedFile;

struct Style {
  bool weights = false;
  bool layers = false;     // a layer name after the weight, from a few names in no order
  bool lg_header = false;  // "nv,ne,u|d,name" and ids from 1
  bool directed = false;
  bool bom = false;
  bool final_newline = true;
};

// Lines of random pairs among `agents` agents, with comments, blank lines, separators of every
// kind, CRLF endings, repeats and self-loops, so that ranges split lines of every shape.
std::string edge_text(agent_index agents, int lines, Style const& style) {
  std::string text = style.bom ? "\xEF\xBB\xBF" : "";
  text += "# a contact network\n% written for the test\n\n";
  if (style.lg_header)
    text += std::to_string(agents) + "," + std::to_string(lines) + "," + (style.directed ? "d" : "u") + ",test\n";
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  char const* separators[] = {" ", "\t", ",", "  ", " , "};
  long long const base = style.lg_header ? 1 : 0;
  for (int k = 0; k < lines; ++k) {
    auto const u = static_cast<long long>(next() % static_cast<std::uint64_t>(agents));
    auto const v = k % 97 == 0 ? u : static_cast<long long>(next() % static_cast<std::uint64_t>(agents));
    std::string const separator = separators[next() % 5];
    text += std::to_string(u + base) + separator + std::to_string(v + base);
    if (style.weights || style.layers)
      text += separator + std::to_string(0.25 + static_cast<double>(next() % 1000) * 1e-3);
    char const* names[] = {"work", "home", "school-3", "Bus.line_7", "home2"};
    // Layers in runs, as files tend to hold them, and the last name only near the end.
    if (style.layers) text += separator + names[k + 50 >= lines ? 4 : (k / 1500) % 4];
    if (k % 211 == 0) text += "\n# a comment between edges";
    if (k % 307 == 0) text += "\n";
    bool const last = k + 1 == lines;
    if (!last || style.final_newline) text += next() % 3 == 0 ? "\r\n" : "\n";
  }
  return text;
}

// This rank's edges must be the whole file's, from after the lower ranks' ones.
void expect_part_of(HostEdgeList const& part, HostEdgeList const& whole) {
  auto const count = static_cast<std::uint64_t>(part.sources.size());
  std::uint64_t below = 0, total = 0;
  MPI_Exscan(&count, &below, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (mpi::rank_of(MPI_COMM_WORLD) == 0) below = 0;
  MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, whole.sources.size());
  EXPECT_EQ(part.num_agents, whole.num_agents);
  EXPECT_EQ(part.directed, whole.directed);
  // No ASSERT: a rank that returned early would leave the others waiting in on_every_rank.
  auto const from = static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(below, whole.sources.size()));
  auto const to = static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(below + count, whole.sources.size()));
  bool const same =
      below + count <= whole.sources.size() &&
      part.sources == std::vector<global_id>(whole.sources.begin() + from, whole.sources.begin() + to) &&
      part.targets == std::vector<global_id>(whole.targets.begin() + from, whole.targets.begin() + to) &&
      (whole.weights.empty()
           ? part.weights.empty()
           : part.weights == std::vector<float>(whole.weights.begin() + from, whole.weights.begin() + to)) &&
      part.layer_names == whole.layer_names &&
      (whole.layers.empty()
           ? part.layers.empty()
           : part.layers == std::vector<layer_index>(whole.layers.begin() + from, whole.layers.begin() + to));
  EXPECT_TRUE(same);
  EXPECT_TRUE(test::on_every_rank(same));
}

void expect_read_as_one_process(std::string const& name, std::string const& text, std::size_t round_edges = 0) {
  SCOPED_TRACE(name);
  SharedFile const file("edge_list_" + name, text);
  Exec exec;
  auto const whole = read_edge_list(file.path());
  auto const part = mpi::read_edge_list(MPI_COMM_WORLD, file.path());
  expect_part_of(part, whole);
  BuildOptions options;
  options.symmetrise = !whole.directed;
  auto const global = build_csr<float>(exec, to_device(exec, whole), options);
  auto const built = mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, to_device(exec, part), options, round_edges);
  test::expect_share_of(global, built, name);
  // Built from the host's lines in place, or a round at a time on a device.
  test::expect_share_of(global, mpi::build_local_graph<float>(exec, MPI_COMM_WORLD, part, options, round_edges),
                        name + " from the host");
}

TEST(EdgeListReader, EachRankReadsItsLinesAsOneProcessDoes) {
  expect_read_as_one_process("plain.txt", edge_text(3000, 20000, {}), 1000);
  Style weighted;
  weighted.weights = true;
  expect_read_as_one_process("weighted.txt", edge_text(3000, 20000, weighted));
  Style layered;
  layered.layers = true;
  expect_read_as_one_process("layered.txt", edge_text(3000, 20000, layered), 1500);
  Style lg;
  lg.lg_header = true;
  lg.bom = true;
  lg.final_newline = false;
  expect_read_as_one_process("graph.lg", edge_text(2500, 9000, lg), 700);
  lg.directed = true;
  lg.weights = true;
  expect_read_as_one_process("directed.lg", edge_text(2500, 9000, lg));
  // Lines of one width, 12 k of them: with 1 to 4 ranks every range ends just after a newline.
  std::string aligned;
  for (int k = 0; k < 1200; ++k)
    aligned += std::to_string(1000 + k % 900) + " " + std::to_string(1000 + k * 7 % 900) + "\n";
  expect_read_as_one_process("aligned.txt", aligned);
  // A header after 200 KiB of comments, beyond rank 0's first block and range.
  std::string comments;
  while (comments.size() < 200000) comments += "# " + std::string(97, 'c') + "\n";
  lg.bom = false;
  expect_read_as_one_process("late-header.lg", comments + edge_text(2500, 3000, lg));
  // Fewer lines than ranks: some ranks own no line, and a range may fall inside one line.
  expect_read_as_one_process("tiny.txt", "0 5\n4 2\n");
  expect_read_as_one_process("one-line.txt", "# one edge\n7 3");
  // A byte-order mark before a first line of the longest length allowed: read, in parts or not.
  expect_read_as_one_process("bom-long-first.txt", "\xEF\xBB\xBF#" + std::string(Details::longest_line - 1, 'c') +
                                                       "\n" + edge_text(2500, 9000, {}));
}

// The CollectiveError reading `path` throws on this rank ("" if none).
std::string error_reading(std::string const& path) {
  try {
    (void)mpi::read_edge_list(MPI_COMM_WORLD, path);
  } catch (mpi::CollectiveError const& e) {
    return e.what();
  }
  return "";
}

// The herd::Error one process reading the whole of `path` throws.
std::string one_process_error(std::string const& path) {
  try {
    (void)read_edge_list(path);
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

void expect_failure_as_one_process(std::string const& name, std::string const& text) {
  SCOPED_TRACE(name);
  SharedFile const file("edge_list_" + name, text);
  auto const expected = one_process_error(file.path());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(error_reading(file.path()), expected);
}

TEST(EdgeListReader, ABadLineFailsOnEveryRankNamingTheFirstBadLine) {
  auto const lines = edge_text(3000, 20000, {});
  // Near the end: found by the last rank alone.
  expect_failure_as_one_process("bad-id.txt", lines + "12 x\n3 4\n");
  expect_failure_as_one_process("three-ids.txt", lines + "1 2 3 4\n");
  expect_failure_as_one_process("negative-weight.txt", lines + "1 2 -1\n");
  expect_failure_as_one_process("nul.txt", lines + std::string("1 2\n3\0 4\n", 9));
  // Two bad lines in different ranges: the first is named.
  expect_failure_as_one_process("two-bad.txt", "0 1\nzero 1\n" + lines + "1 -2\n");
  // A weight appears far from the first lines, or the first line has one and a later does not.
  expect_failure_as_one_process("weight-late.txt", lines + "1 2 0.5\n");
  Style weighted;
  weighted.weights = true;
  expect_failure_as_one_process("weight-missing.txt", edge_text(3000, 20000, weighted) + "1 2\n");
  // A layer appears, or goes missing, far from the first lines; a bad layer name; more names in
  // all than a graph holds, though each rank's lines name fewer.
  auto const weighted_lines = edge_text(3000, 20000, weighted);
  expect_failure_as_one_process("layer-late.txt", weighted_lines + "1 2 0.5 home\n");
  Style layered;
  layered.layers = true;
  auto const layered_lines = edge_text(3000, 20000, layered);
  expect_failure_as_one_process("layer-missing.txt", layered_lines + "1 2 0.5\n");
  expect_failure_as_one_process("bad-layer.txt", layered_lines + "1 2 0.5 9lives\n");
  std::string first_names, last_names;
  for (int l = 0; l < 70; ++l) {
    first_names += "1 2 1 first" + std::to_string(l) + "\n";
    last_names += "1 2 1 last" + std::to_string(l) + "\n";
  }
  expect_failure_as_one_process("many-layers.txt", first_names + layered_lines + last_names);
  // An id beyond the .lg header's agent count, and a bad header.
  Style lg;
  lg.lg_header = true;
  expect_failure_as_one_process("beyond-header.lg", edge_text(2500, 9000, lg) + "2501 1\n");
  expect_failure_as_one_process("bad-header.lg", "# x\nmany,3,u,g\n1 2\n");
  // A header whose edge count the lines do not match: lines added, or the file cut short.
  auto const whole = edge_text(2500, 9000, lg);
  expect_failure_as_one_process("added.lg", whole + "7 9\n");
  expect_failure_as_one_process("cut.lg", whole.substr(0, whole.rfind('\n', whole.size() - 4000) + 1));
  // Text that is no text fails first, wherever it lies and whatever comes before it: a NUL byte
  // after a bad line, in a comment before a header, after a bad header; lines too long to be text
  // at the end, in the middle (the ranks after must still number their lines right), as a header.
  std::string const long_comment = "#" + std::string(3 * Details::longest_line, 'x') + "\n";
  expect_failure_as_one_process("long-line.txt", lines + std::string(Details::longest_line + 10, '1') + " 2\n");
  expect_failure_as_one_process("long-middle.txt", "0 1 0.5\n" + long_comment + "0 1\n" + lines);
  expect_failure_as_one_process("nul-late.txt", "x 1\n" + lines + std::string("3\0 4\n", 5));
  expect_failure_as_one_process("nul-comment.lg", std::string("# c\0\n5,1,u,g\n1 2\n", 17));
  expect_failure_as_one_process("bad-header-nul.lg", "many,3,u,g\n" + lines + std::string("3\0 4\n", 5));
  expect_failure_as_one_process("long-header.lg", "5,1,u," + std::string(3 * Details::longest_line, 'x') + "\n1 2\n");
  // A first data line that rank 0's first block of 64 KiB cuts after four fields.
  expect_failure_as_one_process("cut-first-line.txt", "#" + std::string(65527, 'c') + "\nx,1,u,a,b\n0 1\n");
}

TEST(EdgeListReader, AMissingOrEmptyFileFailsOnEveryRank) {
  std::string const missing = "/nonexistent/herd/graph.txt";
  EXPECT_EQ(error_reading(missing), one_process_error(missing));
  EXPECT_NE(error_reading(missing).find("cannot open the file"), std::string::npos);
  auto const folder = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(error_reading(folder), one_process_error(folder));
  expect_failure_as_one_process("comments-only.txt", "# nothing\n\n% here\n");
  expect_failure_as_one_process("empty.txt", "");
}

}  // namespace
