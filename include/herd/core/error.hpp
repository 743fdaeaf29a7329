#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace herd {

/// Raised for problems a user can cause: bad parameters, malformed files, invalid graphs.
/// The message names the input and what is wrong with it.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws herd::Error with `what` unless `condition` holds.
inline void require(bool condition, std::string const& what) {
  if (!condition) throw Error(what);
}

namespace Details {
// The fewest significant digits, from 6 up to `most`, that `read` parses back as `value`.
template <class Real, class Read>
std::string shortest_text(Real value, int most, Read read) {
  char text[32];
  for (int digits = 6; digits <= most; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (read(text) == value) break;
  }
  return text;
}
}  // namespace Details

/// A number as a message shows it: 16, 1.5, 1.0000001, 1e-07, nan (std::to_string would write
/// 16.000000 and 1.000000): the fewest digits that read back as the same number.
inline std::string number_text(double value) {
  return Details::shortest_text(value, 17, [](char const* text) { return std::strtod(text, nullptr); });
}
/// The same for a float: -0.1f shows as -0.1.
inline std::string number_text(float value) {
  return Details::shortest_text(value, 9, [](char const* text) { return std::strtof(text, nullptr); });
}

}  // namespace herd
