#pragma once

// An edge-list file read by all ranks together, each parsing its own part of the bytes.
//
// Rank r reads the lines that begin in bytes [r S / P, (r + 1) S / P) of a file of S bytes, so
// that every line is read by one rank and the file is read once in all. The first line (an .lg
// header, if any), the line numbers and the agent count are settled collectively, so each rank's
// edges and any error are what one process reading the whole file would give.

#include <herd/io/text/edge_list_parser.hpp>

#include <mpi.h>

#include <string>

namespace herd::mpi {

/// This rank's part of the edge list `path` (see herd::parse_edge_list for the format): the edges
/// of the lines in its byte range, in file order, with the agent count and direction of the whole
/// file. The file's edges are the ranks' edges in rank order. Throws CollectiveError on every rank
/// when the file cannot be read or holds no edges, or when any line is bad, naming the file and
/// the first bad line. Dense ids only (EdgeIds::dense). Collective over `comm`.
HostEdgeList read_edge_list(MPI_Comm comm, std::string const& path);

}  // namespace herd::mpi
