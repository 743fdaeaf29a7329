#pragma once

// A text file read by all ranks together, each taking the lines that begin in its own byte range:
// rank r of P the lines beginning in bytes [r S / P, (r + 1) S / P) of a file of S bytes, so that
// every line is read by one rank and the file is read once in all. What the edge-list and
// attribute-table readers share.

#include <herd/mpi/collective.hpp>

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

namespace herd::mpi::Details {

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

// Bytes [begin, end) of the open file `path`; throws herd::Error when they cannot be read.
std::string read_bytes(std::ifstream& file, std::string const& path, std::uint64_t begin, std::uint64_t end);

// Opens `path` on every rank and returns its size (rank 0's, on every rank: the ranges must tile
// one file). Throws CollectiveError on every rank when the file is a folder or cannot be opened.
std::uint64_t open_together(MPI_Comm comm, std::string const& path, std::ifstream& file);

// The lines that begin in this rank's byte range of a file of `size` bytes, newlines kept, and
// the number of the first (counting from 1). A byte-order mark of `bom` bytes at the start of
// the file is left out. A last line with no newline within longest_line bytes of the range's end
// is cut there: the text check reports it as too long, as one process reading the file does.
struct RankLines {
  std::string text;
  std::uint64_t start = 0;     // the first byte of `text` in the file
  std::size_t first_line = 1;  // the line number of its first line
};
RankLines rank_lines(MPI_Comm comm, std::ifstream& file, std::string const& path, std::uint64_t size,
                     std::size_t bom = 0);

// The lines of this rank's byte range of the text file `path`, opened on every rank, a leading
// byte-order mark left out as one process reading the file leaves it out. Text that is no text
// (a NUL byte, a line too long) throws CollectiveError on every rank, naming the first such line
// of the file, as one process refuses it on reading. Collective.
RankLines text_lines(MPI_Comm comm, std::string const& path);

// Every rank's strings (none holding a newline), in rank order, on every rank: the names a
// reader of part of a file found, which must be numbered as one reader of the whole numbers them.
// Throws CollectiveError on every rank, naming `what`, when they exceed MPI's int counts.
std::vector<std::string> gather_lines(MPI_Comm comm, std::vector<std::string> const& mine, std::string const& what);

}  // namespace herd::mpi::Details
