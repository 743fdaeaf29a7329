#pragma once

// How long an agent stays in a state, as SEIR-like models take it.

namespace herd {

/// How long an agent stays in a state: a fixed number of steps, or a geometric time where it
/// leaves with a given probability each step. `none` skips the state (SIR has no latent state).
struct Period {
  enum class Kind { none, fixed, geometric };
  Kind kind = Kind::none;
  int steps = 0;
  double probability = 0.0;

  /// The longest fixed period: an agent's steps left are kept in 16 bits.
  static constexpr int longest = 65535;

  static Period fixed(int steps) { return {Kind::fixed, steps, 0.0}; }
  static Period geometric(double probability) { return {Kind::geometric, 0, probability}; }
};

}  // namespace herd
