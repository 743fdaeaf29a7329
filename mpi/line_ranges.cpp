#include "line_ranges.hpp"

#include <herd/core/error.hpp>
#include <herd/io/text/edge_list_parser.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

namespace herd::mpi::Details {

std::string read_bytes(std::ifstream& file, std::string const& path, std::uint64_t begin, std::uint64_t end) {
  std::string bytes(static_cast<std::size_t>(end - begin), '\0');
  file.clear();
  file.seekg(static_cast<std::streamoff>(begin));
  file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  require(file && static_cast<std::size_t>(file.gcount()) == bytes.size(), path + ": cannot read the file");
  return bytes;
}

std::uint64_t open_together(MPI_Comm comm, std::string const& path, std::ifstream& file) {
  std::uint64_t size = 0;
  together(comm, [&] {
    // A folder opens as a stream that reads nothing, which would pass for an empty file.
    std::error_code ignored;
    auto const status = std::filesystem::status(path, ignored);
    require(!std::filesystem::is_directory(status), path + ": is a directory, not a file");
    // Before opening: a pipe's open waits for a writer, which one rank's read would leave behind.
    require(!std::filesystem::exists(status) || std::filesystem::is_regular_file(status),
            path +
                ": not a regular file (a pipe or a device): ranks read a file by parts, which needs a regular "
                "file (one process reads a pipe)");
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
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
  return size;
}

RankLines rank_lines(MPI_Comm comm, std::ifstream& file, std::string const& path, std::uint64_t size, std::size_t bom) {
  int const rank = rank_of(comm), parts = size_of(comm);
  // A line begins after a newline, so the newlines in [begin - 1, end - 1) mark the rank's lines;
  // the last runs to the first newline at or after end - 1, at most a longest line further.
  std::uint64_t const begin = size * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(parts);
  std::uint64_t const end = size * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(parts);
  RankLines lines;
  auto& text = lines.text;
  bool cut_line = false;
  together(comm, [&] {
    if (begin == end) return;
    std::uint64_t const low = begin > 0 ? begin - 1 : 0;
    std::uint64_t const high = std::min<std::uint64_t>(size, end + herd::Details::longest_line + 1);
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
    // Without a newline before `high`, the last line is too long (the caller's text check says so), and
    // its newline, further on, still counts for the line numbers of the ranks after.
    std::size_t const last = newline == std::string::npos ? text.size() : newline + 1;
    cut_line = newline == std::string::npos && high < size;
    text.erase(last);
    text.erase(0, first);
    lines.start = low + first;
    if (lines.start == 0 && bom > 0) {
      text.erase(0, bom);
      lines.start = bom;
    }
  });
  // Line numbers: the newlines of the ranks before.
  auto newlines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + (cut_line ? 1 : 0);
  std::uint64_t before = 0;
  MPI_Exscan(&newlines, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;
  lines.first_line = static_cast<std::size_t>(before) + 1;
  return lines;
}

std::vector<std::string> gather_lines(MPI_Comm comm, std::vector<std::string> const& mine, std::string const& what) {
  std::string joined;
  for (auto const& s : mine) joined += s + '\n';
  unsigned long long total = joined.size();
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  if (total > static_cast<unsigned long long>(INT_MAX))
    throw CollectiveError(what + ": the names to share exceed 2^31 bytes");
  int const length = static_cast<int>(joined.size()), parts = size_of(comm);
  std::vector<int> lengths(static_cast<std::size_t>(parts)), starts(static_cast<std::size_t>(parts), 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  for (int r = 1; r < parts; ++r) starts[r] = starts[r - 1] + lengths[r - 1];
  std::string all(static_cast<std::size_t>(starts.back() + lengths.back()), '\0');
  MPI_Allgatherv(joined.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(), MPI_CHAR, comm);
  std::vector<std::string> out;
  for (std::size_t at = 0; at < all.size();) {
    auto const end = all.find('\n', at);
    out.push_back(all.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

RankLines text_lines(MPI_Comm comm, std::string const& path) {
  std::ifstream file;
  auto const size = open_together(comm, path, file);
  int bom = 0;
  together(comm, [&] {
    if (rank_of(comm) == 0 && size >= 3) bom = read_bytes(file, path, 0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  });
  MPI_Bcast(&bom, 1, MPI_INT, 0, comm);
  auto lines = rank_lines(comm, file, path, size, static_cast<std::size_t>(bom));
  file.close();
  auto const [bad_line, bad] = herd::Details::first_non_text_line(lines.text, lines.first_line);
  raise_first_failure(comm, bad_line,
                      bad_line == 0 ? std::string() : path + ":" + std::to_string(bad_line) + ": " + bad);
  return lines;
}

}  // namespace herd::mpi::Details
