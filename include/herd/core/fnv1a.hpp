#pragma once

// FNV-1a over bytes: a fingerprint that is the same on every machine and rank (the arguments each
// rank was given, the scenario file a checkpoint was written with, the events of a scenario).

#include <cstdint>
#include <string_view>

namespace herd {

/// The hash of no bytes, which fnv1a carries on from.
inline constexpr std::uint64_t fnv1a_basis = 0xcbf29ce484222325ull;

/// `hash` carried on over `bytes`: fnv1a(a + b) == fnv1a(b, fnv1a(a)).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = fnv1a_basis) {
  for (char const c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return hash;
}

}  // namespace herd
