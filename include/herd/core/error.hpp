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

/// A number as a message shows it: 16, 1.5, 1.0000001, 1e-07, nan (std::to_string would write
/// 16.000000 and 1.000000): the fewest digits that read back as the same number.
inline std::string number_text(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

/// The same for a float: -0.1f shows as -0.1.
inline std::string number_text(float value) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  return text;
}

}  // namespace herd
