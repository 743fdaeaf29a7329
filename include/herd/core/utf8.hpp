#pragma once

// Cutting UTF-8 text (file names, fields quoted in messages) without splitting a character.

#include <cstddef>
#include <string_view>

namespace herd {

/// The last position at or before `at` (< text.size()) where a UTF-8 character begins: a byte
/// that is not a continuation byte (10xxxxxx), or 0.
inline std::size_t character_start(std::string_view text, std::size_t at) {
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0u) == 0x80u) --at;
  return at;
}

}  // namespace herd
