#pragma once

// Timestamped contacts ("t i j" per line, as SocioPatterns publishes them) parsed on the host.
// Free of Kokkos, like the edge-list parser.

#include <herd/graph/timed_contacts.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace herd {

/// Parses timed contacts (agents numbered in increasing order of the file's ids): a time and two non-negative agent ids
/// per line, separated by spaces, tabs or commas; further columns (a SocioPatterns file's classes) are ignored; lines
/// starting with '#' or '%' are comments. Times are integers in any unit (SocioPatterns: seconds) and need not be
/// sorted. Throws herd::Error naming `name`, the line and the problem.
TimedContacts parse_timed_contacts(std::string_view text, std::string const& name);

/// Reads and parses the timed-contact file `path` (see parse_timed_contacts).
TimedContacts read_timed_contacts(std::string const& path);

namespace Details {

// The contacts of some lines of a file, with the file's own ids: what parse_timed_contacts and
// the ranks reading a file in parts (mpi::read_timed_contacts) share.
struct TimedLines {
  std::vector<std::int64_t> times;
  std::vector<long long> first, second;
};

// Appends the contacts of `text`, whose first line is line `first_line` of `name`, to `out`; the
// first bad line's number and message, or {0, ""}.
std::pair<std::size_t, std::string> parse_timed_lines(std::string_view text, std::string const& name,
                                                      std::size_t first_line, TimedLines& out);

// `contacts`' agents of `lines`, numbered by their places in `ids` (sorted, each id once).
void number_timed_agents(std::vector<long long> const& ids, TimedLines const& lines, TimedContacts& contacts);

// The message for a file without contacts.
std::string no_timed_contacts(std::string const& name);

}  // namespace Details

}  // namespace herd
