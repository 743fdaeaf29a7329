#pragma once

// Lines end with a line feed, or CR LF. A file saved with a carriage return alone at each line's
// end reads as one line, whose later lines would pass for further fields: the text readers refuse
// a carriage return inside a line with one message.

#include <string_view>

namespace herd::Details {

inline constexpr char const* carriage_return_inside =
    "a carriage return inside the line (lines end with a line feed, or CR LF)";

/// Whether `line` (without its line feed) holds a carriage return before its last byte.
inline bool holds_carriage_return(std::string_view line) {
  auto const cr = line.find('\r');
  return cr != std::string_view::npos && cr + 1 < line.size();
}

}  // namespace herd::Details
