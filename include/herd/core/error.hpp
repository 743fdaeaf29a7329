#pragma once

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

}  // namespace herd
