#pragma once

// Timestamped contacts ("t i j" per line, as SocioPatterns publishes them) parsed on the host.
// Free of Kokkos, like the edge-list parser.

#include <herd/graph/timed_contacts.hpp>

#include <string>
#include <string_view>

namespace herd {

/// Parses timed contacts (agents numbered in increasing order of the file's ids): a time and two non-negative agent ids
/// per line, separated by spaces, tabs or commas; further columns (a SocioPatterns file's classes) are ignored; lines
/// starting with '#' or '%' are comments. Times are integers in any unit (SocioPatterns: seconds) and need not be
/// sorted. Throws herd::Error naming `name`, the line and the problem.
TimedContacts parse_timed_contacts(std::string_view text, std::string const& name);

/// Reads and parses the timed-contact file `path` (see parse_timed_contacts).
TimedContacts read_timed_contacts(std::string const& path);

}  // namespace herd
