#include <herd/mpi/edge_list_reader.hpp>

#include <herd/core/error.hpp>
#include <herd/mpi/collective.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <vector>

namespace herd::mpi {

namespace {

// Runs `f` on every rank; a failure on any rank is thrown on all, with the lowest failing rank's
// message (a file that cannot be read fails alike everywhere: no rank is named).
template <class F>
void together(MPI_Comm comm, F&& f) {
  std::string failure;
  try {
    f();
  } catch (std::exception const& e) {
    failure = e.what();
    if (failure.empty()) failure = "unknown error";
  }
  raise_first_failure(comm, 0, failure);
}

std::string read_bytes(std::ifstream& file, std::string const& path, std::uint64_t begin, std::uint64_t end) {
  std::string bytes(static_cast<std::size_t>(end - begin), '\0');
  file.clear();
  file.seekg(static_cast<std::streamoff>(begin));
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  require(file && static_cast<std::size_t>(file.gcount()) == bytes.size(), path + ": cannot read the file");
  return bytes;
}

// The format from the file's first data line, read in growing blocks from the start: comments
// may come first. Only whole lines are judged, the last of the file aside. Text that is no text
// (a NUL byte, a line too long) before the first data line leaves the default format: the check
// of the ranges reports it first, as one process does, and so a bad header's problem is kept in
// `header_error` to be reported after that check.
Details::EdgeListFormat first_line_format(std::ifstream& file, std::string const& path, std::uint64_t size,
                                          std::size_t& bom, std::string& header_error) {
  std::uint64_t n = std::min<std::uint64_t>(size, std::uint64_t{1} << 16);
  for (;;) {
    auto const prefix = read_bytes(file, path, 0, n);
    bom = prefix.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    auto const last_newline = prefix.rfind('\n');
    std::size_t const whole = n == size ? prefix.size() : (last_newline == std::string::npos ? 0 : last_newline + 1);
    auto const lines = std::string_view(prefix).substr(std::min(bom, whole), whole - std::min(bom, whole));
    if (Details::first_non_text_line(lines, 1).first != 0 || prefix.size() - whole > Details::longest_line) return {};
    Details::EdgeListFormat format;
    try {
      format = Details::edge_list_format(lines, path);
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
  std::string joined;
  for (auto const& name : edges.layer_names) joined += name + '\n';
  int const length = static_cast<int>(joined.size());
  int const parts = size_of(comm);
  std::vector<int> lengths(static_cast<std::size_t>(parts)), starts(static_cast<std::size_t>(parts), 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  for (int r = 1; r < parts; ++r) starts[r] = starts[r - 1] + lengths[r - 1];
  std::string all(static_cast<std::size_t>(starts.back() + lengths.back()), '\0');
  MPI_Allgatherv(joined.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(), MPI_CHAR, comm);
  std::vector<std::string> names;
  for (std::size_t at = 0; at < all.size();) {
    auto const end = all.find('\n', at);
    names.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  int many = too_many || names.size() > static_cast<std::size_t>(max_layers) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &many, 1, MPI_INT, MPI_MAX, comm);
  if (many != 0) throw CollectiveError(Details::too_many_layers(path));
  Details::number_layers(edges, names);
}

}  // namespace

HostEdgeList read_edge_list(MPI_Comm comm, std::string const& path) {
  int const rank = rank_of(comm), parts = size_of(comm);
  std::ifstream file;
  std::uint64_t size = 0;
  together(comm, [&] {
    // A folder opens as a stream that reads nothing, which would pass for an empty file.
    std::error_code ignored;
    require(!std::filesystem::is_directory(path, ignored), path + ": is a directory, not a file");
    errno = 0;
    file.open(path, std::ios::binary);
    if (!file) {
      int const reason = errno;
      throw Error(path + ": cannot open the file" +
                  (reason != 0 ? std::string(" (") + std::strerror(reason) + ")" : ""));
    }
    file.seekg(0, std::ios::end);
    auto const end = file.tellg();
    require(end >= 0, path + ": cannot find the file's size: not a regular file");
    size = static_cast<std::uint64_t>(end);
  });
  // Rank 0's size for all: the ranges must tile one file.
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);

  // 1. The format, from the first data line, which rank 0 reads for everyone.
  Details::EdgeListFormat format;
  std::size_t bom = 0;
  std::string header_error;
  together(comm, [&] {
    if (rank == 0) format = first_line_format(file, path, size, bom, header_error);
  });
  long long settings[5] = {format.declared_agents, format.base, format.directed ? 1 : 0,
                           static_cast<long long>(format.header_end), static_cast<long long>(bom)};
  MPI_Bcast(settings, 5, MPI_LONG_LONG, 0, comm);
  format.declared_agents = settings[0];
  format.base = settings[1];
  format.directed = settings[2] != 0;
  bom = static_cast<std::size_t>(settings[4]);
  // Where the data lines begin in the file's bytes.
  std::uint64_t const data_begin = settings[3] > 0 ? static_cast<std::uint64_t>(settings[3]) + bom : 0;

  // 2. This rank's lines: those beginning in [begin, end). A line begins after a newline, so
  //    the newlines in [begin - 1, end - 1) mark them; the last runs to the first newline at or
  //    after end - 1, at most a longest line further.
  std::uint64_t const begin = size * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(parts);
  std::uint64_t const end = size * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(parts);
  std::string text;
  std::uint64_t start = 0;  // the first byte of `text` in the file
  bool cut_line = false;
  together(comm, [&] {
    if (begin == end) return;
    std::uint64_t const low = begin > 0 ? begin - 1 : 0;
    std::uint64_t const high = std::min<std::uint64_t>(size, end + Details::longest_line + 1);
    text = read_bytes(file, path, low, high);
    std::size_t first = 0;
    if (begin > 0) {
      auto const newline = text.find('\n');
      if (newline == std::string::npos || low + newline >= end - 1) {
        text.clear();  // no line begins here
        return;
      }
      first = newline + 1;
    }
    auto const newline = text.find('\n', static_cast<std::size_t>(end - 1 - low));
    // Without a newline before `high`, the last line is too long (the check below says so), and
    // its newline, further on, still counts for the line numbers of the ranks after.
    std::size_t const last = newline == std::string::npos ? text.size() : newline + 1;
    cut_line = newline == std::string::npos && high < size;
    text.erase(last);
    text.erase(0, first);
    start = low + first;
    if (start == 0 && bom > 0) {
      text.erase(0, bom);
      start = bom;
    }
  });
  file.close();

  // 3. Line numbers: the newlines of the ranks before.
  auto newlines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + (cut_line ? 1 : 0);
  std::uint64_t before = 0;
  MPI_Exscan(&newlines, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;
  auto const first_line = static_cast<std::size_t>(before) + 1;

  // 4. Text that is no text fails first, wherever it lies, as one process refuses it on reading;
  //    then a bad header.
  auto const [bad_line, bad] = Details::first_non_text_line(text, first_line);
  raise_first_failure(comm, bad_line,
                      bad_line == 0 ? std::string() : path + ":" + std::to_string(bad_line) + ": " + bad);
  raise_first_failure(comm, 0, header_error);

  // 5. The edges of this rank's lines.
  std::size_t const skip = data_begin > start ? static_cast<std::size_t>(data_begin - start) : 0;
  Details::EdgeLines lines;
  together(comm, [&] { lines = Details::parse_edge_lines(text, format, first_line, skip, EdgeIds::dense); });
  text = std::string();

  // 6. The first problem of all, as one process reading the file would report it.
  constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  auto or_none = [](std::size_t line) { return line == 0 ? none : static_cast<std::uint64_t>(line); };
  constexpr int kinds = Details::edge_line_kinds;
  std::uint64_t firsts[1 + kinds] = {or_none(lines.error_line)};
  for (int k = 0; k < kinds; ++k) firsts[1 + k] = or_none(lines.first_of[k]);
  MPI_Allreduce(MPI_IN_PLACE, firsts, 1 + kinds, MPI_UINT64_T, MPI_MIN, comm);
  auto line_of = [&](std::uint64_t first) { return first == none ? std::size_t{0} : static_cast<std::size_t>(first); };
  std::size_t first_of[kinds] = {};
  for (int k = 0; k < kinds; ++k) first_of[k] = line_of(firsts[1 + k]);
  // The whole file's problem without its bad line, which one rank alone knows.
  auto const mixing = Details::edge_list_error(path, 0, {}, first_of);
  if (firsts[0] != none && (mixing.empty() || line_of(firsts[0]) < Details::first_mixed_line(first_of))) {
    std::size_t const no_kinds[kinds] = {};
    raise_first_failure(comm, or_none(lines.error_line),
                        lines.error_line == 0
                            ? std::string()
                            : Details::edge_list_error(path, lines.error_line, lines.error, no_kinds));
  }
  if (!mixing.empty()) throw CollectiveError(mixing);

  // 7. What the whole file holds.
  long long facts[2] = {static_cast<long long>(lines.edges.sources.size()), lines.largest};
  long long totals[2] = {0, 0};
  MPI_Allreduce(&facts[0], &totals[0], 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&facts[1], &totals[1], 1, MPI_LONG_LONG, MPI_MAX, comm);
  if (totals[0] == 0) throw CollectiveError(path + ": the file holds no edges");
  HostEdgeList edges = std::move(lines.edges);
  number_layers_together(comm, path, edges, lines.too_many_layers);
  edges.directed = format.directed;
  edges.num_agents = static_cast<agent_index>(format.declared_agents > 0 ? format.declared_agents : totals[1] + 1);
  return edges;
}

}  // namespace herd::mpi
