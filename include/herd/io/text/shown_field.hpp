#pragma once

// A field of an input file quoted in an error message. A damaged file's whole line, or a
// megabyte without a line feed, can be one field: a long one is cut, and its length said.

#include <herd/core/utf8.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace herd::io {

/// `field` in single quotes, or its first 40 bytes then "...' (N bytes)" when longer than 80
/// bytes (cut before a UTF-8 character, never inside one).
inline std::string quoted_field(std::string_view field) {
  constexpr std::size_t longest = 80, kept = 40;
  if (field.size() <= longest) return "'" + std::string(field) + "'";
  std::size_t const cut = character_start(field, kept);
  return "'" + std::string(field.substr(0, cut)) + "...' (" + std::to_string(field.size()) + " bytes)";
}

}  // namespace herd::io
