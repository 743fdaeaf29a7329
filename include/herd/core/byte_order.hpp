#pragma once

namespace herd::Details {

/// Whether byte k of a word lies at its address + k, so that eight bytes in memory load as one
/// word with byte k in bits 8k to 8k + 7.
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
inline constexpr bool little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#else
inline constexpr bool little_endian = false;
#endif

}  // namespace herd::Details
