#include <herd/mpi/edge_list_reader.hpp>

#include "line_ranges.hpp"

#include <herd/core/error.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string_view>
#include <vector>

namespace herd::mpi {

namespace {

using Details::open_together;
using Details::rank_lines;
using Details::read_bytes;
using Details::together;

// The format from the file's first data line, read in growing blocks from the start: comments
// may come first. Only whole lines are judged, the last of the file aside. Text that is no text
// (a NUL byte, a line too long) before the first data line leaves the default format: the check
// of the ranges reports it first, as one process does, and so a bad header's problem is kept in
// `header_error` to be reported after that check.
herd::Details::EdgeListFormat first_line_format(std::ifstream& file, std::string const& path, std::uint64_t size,
                                                std::size_t& bom, std::string& header_error) {
  std::uint64_t n = std::min<std::uint64_t>(size, std::uint64_t{1} << 16);
  for (;;) {
    auto const prefix = read_bytes(file, path, 0, n);
    bom = prefix.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    auto const last_newline = prefix.rfind('\n');
    std::size_t const whole = n == size ? prefix.size() : (last_newline == std::string::npos ? 0 : last_newline + 1);
    auto const lines = std::string_view(prefix).substr(std::min(bom, whole), whole - std::min(bom, whole));
    if (herd::Details::first_non_text_line(lines, 1).first != 0 || prefix.size() - whole > herd::Details::longest_line)
      return {};
    herd::Details::EdgeListFormat format;
    try {
      format = herd::Details::edge_list_format(lines, path);
    } catch (Error const& e) {
      header_error = e.what();
      return {};
    }
    if (format.complete || n == size) return format;
    n = std::min(size, 2 * n);
  }
}

// Numbers this rank's layers by the sorted names of all ranks' lines, as one process reading the
// whole file does.
void number_layers_together(MPI_Comm comm, std::string const& path, HostEdgeList& edges, bool too_many) {
  auto names = Details::gather_lines(comm, edges.layer_names, path);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  int many = too_many || names.size() > static_cast<std::size_t>(max_layers) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &many, 1, MPI_INT, MPI_MAX, comm);
  if (many != 0) throw CollectiveError(herd::Details::too_many_layers(path));
  herd::Details::number_layers(edges, names);
}

}  // namespace

HostEdgeList read_edge_list(MPI_Comm comm, std::string const& path) {
  int const rank = rank_of(comm);
  std::ifstream file;
  std::uint64_t const size = open_together(comm, path, file);

  // 1. The format, from the first data line, which rank 0 reads for everyone.
  herd::Details::EdgeListFormat format;
  std::size_t bom = 0;
  std::string header_error;
  together(comm, [&] {
    if (rank == 0) format = first_line_format(file, path, size, bom, header_error);
  });
  long long settings[6] = {format.declared_agents,      format.base,
                           format.directed ? 1 : 0,     static_cast<long long>(format.header_end),
                           static_cast<long long>(bom), format.declared_edges};
  MPI_Bcast(settings, 6, MPI_LONG_LONG, 0, comm);
  format.declared_agents = settings[0];
  format.declared_edges = settings[5];
  format.base = settings[1];
  format.directed = settings[2] != 0;
  bom = static_cast<std::size_t>(settings[4]);
  // Where the data lines begin in the file's bytes.
  std::uint64_t const data_begin = settings[3] > 0 ? static_cast<std::uint64_t>(settings[3]) + bom : 0;

  // 2. This rank's lines, and their line numbers.
  auto part = rank_lines(comm, file, path, size, bom);
  std::string& text = part.text;
  std::uint64_t const start = part.start;
  std::size_t const first_line = part.first_line;
  file.close();

  // 3. Text that is no text fails first, wherever it lies, as one process refuses it on reading;
  //    then a bad header.
  auto const [bad_line, bad] = herd::Details::first_non_text_line(text, first_line);
  raise_first_failure(comm, bad_line,
                      bad_line == 0 ? std::string() : path + ":" + std::to_string(bad_line) + ": " + bad);
  raise_first_failure(comm, 0, header_error);

  // 4. The edges of this rank's lines.
  std::size_t const skip = data_begin > start ? static_cast<std::size_t>(data_begin - start) : 0;
  herd::Details::EdgeLines lines;
  together(comm, [&] { lines = herd::Details::parse_edge_lines(text, format, first_line, skip, EdgeIds::dense); });
  text = std::string();

  // 5. The first problem of all, as one process reading the file would report it.
  constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  auto or_none = [](std::size_t line) { return line == 0 ? none : static_cast<std::uint64_t>(line); };
  constexpr int kinds = herd::Details::edge_line_kinds;
  std::uint64_t firsts[1 + kinds] = {or_none(lines.error_line)};
  for (int k = 0; k < kinds; ++k) firsts[1 + k] = or_none(lines.first_of[k]);
  MPI_Allreduce(MPI_IN_PLACE, firsts, 1 + kinds, MPI_UINT64_T, MPI_MIN, comm);
  auto line_of = [&](std::uint64_t first) { return first == none ? std::size_t{0} : static_cast<std::size_t>(first); };
  std::size_t first_of[kinds] = {};
  for (int k = 0; k < kinds; ++k) first_of[k] = line_of(firsts[1 + k]);
  // The whole file's problem without its bad line, which one rank alone knows.
  auto const mixing = herd::Details::edge_list_error(path, 0, {}, first_of);
  if (firsts[0] != none && (mixing.empty() || line_of(firsts[0]) < herd::Details::first_mixed_line(first_of))) {
    std::size_t const no_kinds[kinds] = {};
    raise_first_failure(comm, or_none(lines.error_line),
                        lines.error_line == 0
                            ? std::string()
                            : herd::Details::edge_list_error(path, lines.error_line, lines.error, no_kinds));
  }
  if (!mixing.empty()) throw CollectiveError(mixing);

  // 6. What the whole file holds.
  long long facts[2] = {static_cast<long long>(lines.edges.sources.size()), lines.largest};
  long long totals[2] = {0, 0};
  MPI_Allreduce(&facts[0], &totals[0], 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&facts[1], &totals[1], 1, MPI_LONG_LONG, MPI_MAX, comm);
  if (totals[0] == 0) throw CollectiveError(path + ": the file holds no edges");
  HostEdgeList edges = std::move(lines.edges);
  number_layers_together(comm, path, edges, lines.too_many_layers);
  // Every rank holds the same total, so every rank refuses alike.
  auto const count = herd::Details::declared_edges_error(path, format, totals[0]);
  if (!count.empty()) throw CollectiveError(count);
  edges.directed = format.directed;
  edges.num_agents = static_cast<agent_index>(format.declared_agents > 0 ? format.declared_agents : totals[1] + 1);
  return edges;
}

}  // namespace herd::mpi
