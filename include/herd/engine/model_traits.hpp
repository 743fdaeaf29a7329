#pragma once

// What a model declares beyond its step, found from its members: the engine steps its active
// agents only, pushes or sums its contributions, and asks for their values ahead accordingly.

#include <herd/core/types.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace herd {

namespace Details {
template <class Model, class = void>
struct declares_activity : std::false_type {};
template <class Model>
struct declares_activity<Model, std::void_t<decltype(std::declval<Model const&>().activity(agent_index{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether a model can be stepped on its active agents only.
template <class Model>
inline constexpr bool declares_activity_v = Details::declares_activity<Model>::value;

namespace Details {
template <class Model, class = void>
struct declares_activity_words : std::false_type {};
template <class Model>
struct declares_activity_words<Model, std::void_t<decltype(std::declval<Model const&>().activity_word(agent_index{}))>>
    : std::bool_constant<declares_activity_v<Model>> {};
}  // namespace Details

/// Whether a model also gives eight agents' activity() at once: Model::activity_word(first), with
/// activity(first + k) in bits 8k to 8k + 7, for `first` a multiple of 8 and the eight agents
/// stored. Passes that read every agent's activity (the members' marks of
/// SharedSpreaderCounts) then read a word at a time.
template <class Model>
inline constexpr bool declares_activity_words_v = Details::declares_activity_words<Model>::value;

namespace Details {
template <class Model, class = void>
struct checks_state : std::false_type {};
template <class Model>
struct checks_state<Model, std::void_t<decltype(std::declval<Model const&>().holds_valid_state(agent_index{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether a model says which states an agent may hold (Model::holds_valid_state(i)): a state
/// loaded from a file is checked against it before any step runs.
template <class Model>
inline constexpr bool checks_state_v = Details::checks_state<Model>::value;

namespace Details {
template <class Model, class = void>
struct declares_contribution : std::false_type {};
template <class Model>
struct declares_contribution<Model,
                             std::void_t<decltype(std::declval<Model const&>().contribution(agent_index{}, float{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether a model says what each neighbour adds to the sum its agents read
/// (Model::contribution(j, w), read through Agent::sum_of_contributions): active-set stepping then
/// pushes that sum from the spreading agents, and a listed agent reads one value, not its row.
template <class Model>
inline constexpr bool declares_contribution_v = Details::declares_contribution<Model>::value;

namespace Details {
template <class Model, class = void>
struct gathers_ahead : std::false_type {};
template <class Model>
struct gathers_ahead<Model, std::void_t<decltype(std::declval<Model const&>().contribution_address(agent_index{}))>>
    : std::true_type {};
}  // namespace Details

/// Whether the pull step can gather ahead for what a model reads of each neighbour: the model says
/// where (Model::contribution_address(j)), whether or not it declares contributions and activity.
template <class Model>
inline constexpr bool gathers_ahead_v = Details::gathers_ahead<Model>::value;

namespace Details {
template <class T>
constexpr std::size_t size_or_one() {
  if constexpr (std::is_void_v<T>)
    return 1;
  else
    return sizeof(T);
}
template <class Model, class = void>
struct gathered_bytes : std::integral_constant<std::size_t, 1> {};
template <class Model>
struct gathered_bytes<Model, std::enable_if_t<gathers_ahead_v<Model>>>
    : std::integral_constant<std::size_t,
                             size_or_one<std::remove_cv_t<std::remove_pointer_t<
                                 decltype(std::declval<Model const&>().contribution_address(agent_index{}))>>>()> {};
}  // namespace Details

/// Bytes of each neighbour's value that the step asks for ahead: the size of what
/// Model::contribution_address points to (1 where it gives `void const*`).
template <class Model>
inline constexpr std::size_t gathered_bytes_v = Details::gathered_bytes<Model>::value;

namespace Details {
template <class Model, class = void>
struct counts_spreaders : std::false_type {};
template <class Model>
struct counts_spreaders<Model, std::void_t<decltype(std::declval<Model const&>().spreader_contribution())>>
    : std::bool_constant<declares_contribution_v<Model> && declares_activity_v<Model>> {};
}  // namespace Details

/// Whether every spreading neighbour contributes the same over an edge of weight 1
/// (Model::spreader_contribution()): the pull step on an unweighted graph then counts the
/// spreading neighbours, one bit each, and multiplies.
template <class Model>
inline constexpr bool counts_spreaders_v = Details::counts_spreaders<Model>::value;

namespace Details {
template <class Model, class = void>
struct counts_weighted_spreaders : std::false_type {};
template <class Model>
struct counts_weighted_spreaders<Model,
                                 std::void_t<decltype(std::declval<Model const&>().spreader_contribution(float{}))>>
    : std::bool_constant<declares_contribution_v<Model> && declares_activity_v<Model>> {};
}  // namespace Details

/// Whether what a spreading neighbour contributes depends on the edge's weight alone
/// (Model::spreader_contribution(w), which is contribution(j, w) for every j that spreads): the
/// pull step on a weighted graph whose weights take few values then adds the contribution of
/// each edge's weight code where its neighbour's spreader bit is set (see weight_codes.hpp).
template <class Model>
inline constexpr bool counts_weighted_spreaders_v = Details::counts_weighted_spreaders<Model>::value;

namespace Details {
template <class Model, class = void>
struct sums_contacts_only : std::false_type {};
template <class Model>
struct sums_contacts_only<Model, std::void_t<decltype(Model::sums_contacts_only)>>
    : std::bool_constant<Model::sums_contacts_only> {};
}  // namespace Details

/// Whether a model's phases read their contacts only through Agent::sum_of_contributions, never
/// an entry's weight(k) or closed(e) (`static constexpr bool sums_contacts_only = true`): where
/// those sums add by weight code, isolation then leaves the entries open and the sums read who is
/// isolated from the spreader bits (Simulation::close_contacts).
template <class Model>
inline constexpr bool sums_contacts_only_v = Details::sums_contacts_only<Model>::value;

}  // namespace herd
