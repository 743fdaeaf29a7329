#pragma once

#include <cstdio>
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

/// A number as a message shows it: 16, 1.5, 1e-07, nan (std::to_string would write 16.000000).
inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace herd
