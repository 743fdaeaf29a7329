#pragma once

// The model contract, checked at compile time. The engine finds a model's optional hooks
// (activity, contribution, spreader_contribution, contribution_address) by name and signature; a
// hook whose signature is off would otherwise be silently ignored, and its optimisation with it.
// So a hook that is named must have the signature the engine calls, and hooks that only work
// together must come together.

#include <herd/core/types.hpp>
#include <herd/engine/model_traits.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace herd {

namespace Details {

// Whether Model declares a member of this name, whatever it is: a name that both Model and the
// probe declare is ambiguous in a class that derives from both. A final model cannot be derived
// from: it is asked for the member's address instead, which finds a member that is neither
// overloaded nor a template (those are found by the hook's call, declares_*_v, alone).
#define HERD_IMPL_NAMES_MEMBER(NAME)                                                                                \
  struct names_##NAME##_probe {                                                                                     \
    int NAME;                                                                                                       \
  };                                                                                                                \
  template <class Model>                                                                                            \
  struct names_##NAME##_both : Model, names_##NAME##_probe {};                                                      \
  template <class Model, class = void>                                                                              \
  struct names_##NAME##_by_address : std::false_type {};                                                            \
  template <class Model>                                                                                            \
  struct names_##NAME##_by_address<Model, std::void_t<decltype(&Model::NAME)>> : std::true_type {};                 \
  template <class Model, bool Final = std::is_final_v<Model>, class = void>                                         \
  struct names_##NAME : std::true_type {};                                                                          \
  template <class Model>                                                                                            \
  struct names_##NAME<Model, false, std::void_t<decltype(&names_##NAME##_both<Model>::NAME)>> : std::false_type {}; \
  template <class Model, class Unused>                                                                              \
  struct names_##NAME<Model, true, Unused> : names_##NAME##_by_address<Model> {};
HERD_IMPL_NAMES_MEMBER(activity)
HERD_IMPL_NAMES_MEMBER(contribution)
HERD_IMPL_NAMES_MEMBER(spreader_contribution)
HERD_IMPL_NAMES_MEMBER(contribution_address)
#undef HERD_IMPL_NAMES_MEMBER

template <class Model, class = void>
struct contribution_type {
  using type = void;
};
template <class Model>
struct contribution_type<Model, std::enable_if_t<declares_contribution_v<Model>>> {
  using type = decltype(std::declval<Model const&>().contribution(agent_index{}, float{}));
};

// spreader_contribution() const or spreader_contribution(float) const, returning what
// contribution returns: one of the two signatures the engine calls, exactly.
template <class Model, class Signature, class = void>
struct has_hook_signature : std::false_type {};
template <class Model, class Signature>
struct has_hook_signature<Model, Signature,
                          std::void_t<decltype(static_cast<Signature>(&Model::spreader_contribution))>>
    : std::true_type {};
template <class Model>
inline constexpr bool exact_spreader_contribution_v =
    has_hook_signature<Model, typename contribution_type<Model>::type (Model::*)() const>::value ||
    has_hook_signature<Model, typename contribution_type<Model>::type (Model::*)(float) const>::value;

template <class Model>
constexpr bool activity_is_bits() {
  if constexpr (declares_activity_v<Model>)
    return std::is_same_v<std::decay_t<decltype(std::declval<Model const&>().activity(agent_index{}))>, std::uint8_t>;
  else
    return true;
}

template <class Model>
constexpr bool contribution_is_integer() {
  using T = typename contribution_type<Model>::type;
  if constexpr (declares_contribution_v<Model>)
    return std::is_integral_v<T> && sizeof(T) <= sizeof(std::uint64_t);
  else
    return true;
}

template <class Model>
constexpr bool contribution_address_is_pointer() {
  if constexpr (gathers_ahead_v<Model>)
    return std::is_pointer_v<decltype(std::declval<Model const&>().contribution_address(agent_index{}))>;
  else
    return true;
}

}  // namespace Details

/// The ways a model can break the contract of its hooks (bits; 0: none).
namespace hook_error {
inline constexpr unsigned activity_signature = 1u << 0;      ///< activity not callable as activity(agent_index) const
inline constexpr unsigned activity_type = 1u << 1;           ///< activity does not return std::uint8_t
inline constexpr unsigned contribution_signature = 1u << 2;  ///< not callable as contribution(agent_index, float) const
inline constexpr unsigned contribution_type = 1u << 3;       ///< contribution does not return an integer
inline constexpr unsigned spreader_signature = 1u << 4;      ///< spreader_contribution's signature is off
inline constexpr unsigned spreader_alone = 1u << 5;  ///< spreader_contribution without contribution and activity
inline constexpr unsigned contribution_address_signature =
    1u << 6;  ///< not a pointer from contribution_address(agent_index) const
}  // namespace hook_error

/// The contract's breaches by `Model` (hook_error bits).
template <class Model>
constexpr unsigned model_hook_errors() {
  using namespace Details;
  unsigned errors = 0;
  if (names_activity<Model>::value && !declares_activity_v<Model>) errors |= hook_error::activity_signature;
  if (!activity_is_bits<Model>()) errors |= hook_error::activity_type;
  if (names_contribution<Model>::value && !declares_contribution_v<Model>) errors |= hook_error::contribution_signature;
  if (!contribution_is_integer<Model>()) errors |= hook_error::contribution_type;
  if (names_spreader_contribution<Model>::value) {
    if (!declares_contribution_v<Model> || !declares_activity_v<Model>)
      errors |= hook_error::spreader_alone;
    else if (!exact_spreader_contribution_v<Model>)
      errors |= hook_error::spreader_signature;
  }
  if (names_contribution_address<Model>::value &&
      (!gathers_ahead_v<Model> || !contribution_address_is_pointer<Model>()))
    errors |= hook_error::contribution_address_signature;
  return errors;
}

namespace Details {

// Stops the build of a model that breaks the contract, with the rule it breaks.
template <class Model>
constexpr bool check_model_hooks() {
  constexpr unsigned errors = model_hook_errors<Model>();
  static_assert(!(errors & hook_error::activity_signature),
                "herd model: activity must be callable as activity(herd::agent_index) const");
  static_assert(!(errors & hook_error::activity_type),
                "herd model: activity(i) must return std::uint8_t, the herd::activity bits");
  static_assert(!(errors & hook_error::contribution_signature),
                "herd model: contribution must be callable as contribution(herd::agent_index, float) const");
  static_assert(!(errors & hook_error::contribution_type),
                "herd model: contribution must return an integer of at most 64 bits, so that sums do not "
                "depend on the order of their terms");
  static_assert(!(errors & hook_error::spreader_alone),
                "herd model: spreader_contribution needs contribution and activity as well");
  static_assert(!(errors & hook_error::spreader_signature),
                "herd model: spreader_contribution must be spreader_contribution() const or "
                "spreader_contribution(float) const, returning the type contribution returns");
  static_assert(!(errors & hook_error::contribution_address_signature),
                "herd model: contribution_address must be callable as contribution_address(herd::agent_index) "
                "const and return a pointer");
  return errors == 0;
}

}  // namespace Details

}  // namespace herd
