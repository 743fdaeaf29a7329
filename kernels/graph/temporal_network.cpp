#include <herd/graph/temporal_network.hpp>

#include <herd/core/error.hpp>
#include <herd/core/execution_spaces.hpp>
#include <herd/core/half.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/graph/build_csr.hpp>
#include <herd/io/device_copy.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace herd {

namespace Details {

// Rows of one batch's CSR: (window of the batch, agent) pairs, fewer than an agent index holds.
inline constexpr std::int64_t batch_rows = std::int64_t{1} << 30;

// Each unordered pair of `pairs` once, as (smaller, larger), with the number of times it was
// listed either way in `counts`. Exact in a float up to 2^24 contacts of one pair in a window.
void tally_pairs(std::vector<std::pair<global_id, global_id>>& pairs, std::vector<float>& counts) {
  for (auto& [a, b] : pairs)
    if (b < a) std::swap(a, b);
  std::sort(pairs.begin(), pairs.end());
  counts.clear();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (k > 0 && pairs[k] == pairs[k - 1]) {
      counts.back() += 1.0f;
      continue;
    }
    pairs[kept++] = pairs[k];
    counts.push_back(1.0f);
  }
  pairs.resize(kept);
}

// The snapshots of windows [first_slot, first_slot + slots) of the windows with contacts, whose
// contacts are `order[begin, end)` (sorted by slot), appended to `network.graphs`.
template <class WeightStorage, class ExecutionSpace>
void build_batch(ExecutionSpace const& exec, TimedContacts const& contacts, std::vector<std::size_t> const& order,
                 std::vector<std::int64_t> const& slot_of, std::size_t begin, std::size_t end, std::int64_t first_slot,
                 std::int64_t slots, SnapshotWeights weights,
                 TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage>& network) {
  using memory_space = typename ExecutionSpace::memory_space;
  auto const n = static_cast<global_id>(contacts.num_agents);
  // Contact k as a (window, agent) row and a neighbour in that window's rows.
  auto const contact = [&](std::size_t k) {
    auto const c = order[k];
    auto const row = (slot_of[c] - first_slot) * n;
    return std::make_pair(row + contacts.first[c], row + contacts.second[c]);
  };
  // Counted weights list each pair once; otherwise build_csr drops the repeats.
  std::vector<std::pair<global_id, global_id>> pairs;
  std::vector<float> counts;
  if (weights == SnapshotWeights::contacts) {
    pairs.reserve(end - begin);
    for (std::size_t k = begin; k < end; ++k) pairs.push_back(contact(k));
    tally_pairs(pairs, counts);
  }
  std::size_t const listed = counts.empty() ? end - begin : pairs.size();
  EdgeList<memory_space> edges;
  edges.num_agents = static_cast<agent_index>(slots * n);
  edges.sources = Kokkos::View<global_id*, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::sources"), listed);
  edges.targets = Kokkos::View<global_id*, memory_space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::targets"), listed);
  auto sources = Kokkos::create_mirror_view(edges.sources);
  auto targets = Kokkos::create_mirror_view(edges.targets);
  for (std::size_t k = 0; k < listed; ++k) {
    auto const [source, target] = counts.empty() ? contact(begin + k) : pairs[k];
    sources(k) = source;
    targets(k) = target;
  }
  Kokkos::deep_copy(exec, edges.sources, sources);
  Kokkos::deep_copy(exec, edges.targets, targets);
  if (!counts.empty()) {
    edges.weights = Kokkos::View<float*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::weights"), counts.size());
    Kokkos::deep_copy(exec, edges.weights, Kokkos::View<float const*, Kokkos::HostSpace>(counts.data(), counts.size()));
  }
  auto const batch = build_csr<WeightStorage>(exec, edges);
  // Each window's rows, numbered from its own first row and edge: offsets with a row more per window.
  auto const rows = static_cast<std::size_t>(n) + 1;
  Kokkos::View<edge_offset*, memory_space> offsets(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "herd::temporal::offsets"),
      static_cast<std::size_t>(slots) * rows);
  auto const big = batch.row_offsets;
  auto const per_window = static_cast<agent_index>(n);
  Kokkos::parallel_for(
      "herd::temporal::window_offsets", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, offsets.extent(0)),
      KOKKOS_LAMBDA(std::size_t k) {
        auto const w = k / rows, i = k % rows;
        auto const first_row = w * static_cast<std::size_t>(per_window);
        offsets(k) = big(first_row + i) - big(first_row);
      });
  auto const neighbours = batch.neighbours;
  Kokkos::parallel_for(
      "herd::temporal::window_neighbours", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, neighbours.extent(0)),
      KOKKOS_LAMBDA(std::size_t e) { neighbours(e) %= per_window; });
  auto const host_big = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), big);
  for (std::int64_t s = 0; s < slots; ++s) {
    auto const w = static_cast<std::size_t>(s);
    typename TemporalNetwork<memory_space, WeightStorage>::graph_type g;
    g.row_offsets = Kokkos::subview(offsets, std::make_pair(w * rows, (w + 1) * rows));
    auto const edges_of_window =
        std::make_pair(host_big(w * static_cast<std::size_t>(n)), host_big((w + 1) * static_cast<std::size_t>(n)));
    g.neighbours = Kokkos::subview(neighbours, edges_of_window);
    if (batch.weighted()) g.weights = Kokkos::subview(batch.weights, edges_of_window);
    g.symmetric = true;
    network.graphs.push_back(g);
  }
}

// Each contact's window: (time - start) / window, in unsigned arithmetic (the span of 64-bit
// times may exceed what a signed one holds).
std::vector<std::uint64_t> window_indices(TimedContacts const& contacts, std::int64_t window, std::int64_t start) {
  require(window > 0, "temporal network: the window must be positive, not " + std::to_string(window));
  std::vector<std::uint64_t> windows(contacts.size());
  for (std::size_t k = 0; k < contacts.size(); ++k)
    windows[k] = (static_cast<std::uint64_t>(contacts.times[k]) - static_cast<std::uint64_t>(start)) /
                 static_cast<std::uint64_t>(window);
  return windows;
}

// The earliest contact's time (0 without contacts).
std::int64_t earliest_time(TimedContacts const& contacts) {
  return contacts.size() == 0 ? 0 : *std::min_element(contacts.times.begin(), contacts.times.end());
}

}  // namespace Details

void check_contacts(TimedContacts const& contacts) {
  auto const count = contacts.size();
  require(contacts.first.size() == count && contacts.second.size() == count,
          "temporal network: " + std::to_string(count) + " times for " + std::to_string(contacts.first.size()) +
              " and " + std::to_string(contacts.second.size()) + " agents");
  require(contacts.num_agents > 0 || count == 0, "temporal network: contacts without agents");
  for (std::size_t k = 0; k < count; ++k)
    require(contacts.first[k] >= 0 && contacts.first[k] < contacts.num_agents && contacts.second[k] >= 0 &&
                contacts.second[k] < contacts.num_agents,
            "temporal network: contact " + std::to_string(k) + " joins an agent out of [0, " +
                std::to_string(contacts.num_agents) + ")");
}

std::vector<std::uint64_t> busy_windows(TimedContacts const& contacts, std::int64_t window, std::int64_t start) {
  auto windows = Details::window_indices(contacts, window, start);
  // A window whose only contacts are of agents with themselves makes no contacts: it reads the
  // empty snapshot. (Agents missing for a time are refused by check_contacts, collectively, once
  // the frame is known.)
  std::size_t kept = 0;
  for (std::size_t k = 0; k < windows.size(); ++k)
    if (k >= contacts.first.size() || k >= contacts.second.size() || contacts.first[k] != contacts.second[k])
      windows[kept++] = windows[k];
  windows.resize(kept);
  std::sort(windows.begin(), windows.end());
  windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
  return windows;
}

std::size_t windows_with_contacts(TimedContacts const& contacts, std::int64_t window) {
  return busy_windows(contacts, window, Details::earliest_time(contacts)).size();
}

template <class WeightStorage, class ExecutionSpace>
TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> build_temporal_network(
    ExecutionSpace const& exec, TimedContacts const& contacts, std::int64_t window, AfterLastWindow after_last,
    SnapshotWeights weights) {
  WindowFrame frame;
  if (contacts.size() > 0) {
    auto const [earliest, latest] = std::minmax_element(contacts.times.begin(), contacts.times.end());
    frame.start = *earliest;
    frame.latest = *latest;
  }
  frame.busy = busy_windows(contacts, window, frame.start);
  return build_temporal_network<WeightStorage>(exec, contacts, window, frame, after_last, weights);
}

template <class WeightStorage, class ExecutionSpace>
TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> build_temporal_network(
    ExecutionSpace const& exec, TimedContacts const& contacts, std::int64_t window, WindowFrame const& frame,
    AfterLastWindow after_last, SnapshotWeights weights) {
  using memory_space = typename ExecutionSpace::memory_space;
  Details::ProfilingRegion const region("herd::build_temporal_network");
  auto const count = contacts.size();
  check_contacts(contacts);
  for (std::size_t k = 0; k < count; ++k)
    require(contacts.times[k] >= frame.start, "temporal network: contact " + std::to_string(k) + " at " +
                                                  std::to_string(contacts.times[k]) + " precedes the frame's start " +
                                                  std::to_string(frame.start));
  auto const window_of = Details::window_indices(contacts, window, frame.start);
  TemporalNetwork<memory_space, WeightStorage> network;
  network.window = window;
  network.after_last = after_last;
  // The empty snapshot, for windows without contacts.
  typename TemporalNetwork<memory_space, WeightStorage>::graph_type empty;
  empty.row_offsets = Kokkos::View<edge_offset*, memory_space>("herd::temporal::empty",
                                                               static_cast<std::size_t>(contacts.num_agents) + 1);
  empty.symmetric = true;
  network.graphs.push_back(empty);
  // The windows run from the earliest contact's to the latest's, busy or not. The last window's
  // index, not the count, is checked: the count of 2^64 windows wraps to 0.
  std::uint64_t last = 0;
  if (frame.latest >= frame.start) {
    network.start = frame.start;
    last = (static_cast<std::uint64_t>(frame.latest) - static_cast<std::uint64_t>(frame.start)) /
           static_cast<std::uint64_t>(window);
    require(last < std::uint64_t{1} << 31,
            "temporal network: " +
                (last == std::numeric_limits<std::uint64_t>::max() ? std::string("18446744073709551616")
                                                                   : std::to_string(last + 1)) +
                " windows of " + std::to_string(window) + " from " + std::to_string(frame.start) + " to " +
                std::to_string(frame.latest) + " are more than 2^31; choose a longer window");
    network.windows = last + 1;
  }
  // A contact of an agent with itself is dropped: its window need not be busy.
  auto const dropped = [&](std::size_t c) { return contacts.first[c] == contacts.second[c]; };
  if (frame.busy.empty()) {
    for (std::size_t c = 0; c < count; ++c)
      require(dropped(c), "temporal network: contacts outside the frame's windows");
    return network;
  }
  require(network.windows > frame.busy.back(), "temporal network: the frame's busy windows pass its latest contact");
  // Busy windows are numbered (slots) in time order; the others read the empty snapshot.
  network.busy = frame.busy;
  std::vector<std::int64_t> slot_of(count, -1);
  std::vector<std::size_t> order;
  order.reserve(count);
  for (std::size_t c = 0; c < count; ++c) {
    if (dropped(c)) continue;
    order.push_back(c);
    auto const at = std::lower_bound(frame.busy.begin(), frame.busy.end(), window_of[c]);
    require(at != frame.busy.end() && *at == window_of[c],
            "temporal network: contact " + std::to_string(c) + " lies in a window the frame does not list");
    slot_of[c] = at - frame.busy.begin();
  }
  // The contacts in window order (stable: the CSR does not depend on it, but the batches do).
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return slot_of[a] < slot_of[b]; });
  auto const slots = static_cast<std::int64_t>(frame.busy.size());
  // Batches of whole windows, each fewer rows than an agent index holds.
  auto const n = static_cast<std::int64_t>(contacts.num_agents);
  std::int64_t const per_batch = std::max<std::int64_t>(1, Details::batch_rows / std::max<std::int64_t>(n, 1));
  std::size_t begin = 0;
  for (std::int64_t first = 0; first < slots; first += per_batch) {
    std::int64_t const batch_slots = std::min(per_batch, slots - first);
    std::size_t end = begin;
    while (end < order.size() && slot_of[order[end]] < first + batch_slots) ++end;
    Details::build_batch(exec, contacts, order, slot_of, begin, end, first, batch_slots, weights, network);
    begin = end;
  }
  exec.fence();
  return network;
}

template <class WeightStorage, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> met_graph(ExecutionSpace const& exec,
                                                                         TimedContacts const& contacts) {
  HostEdgeList pairs;
  pairs.num_agents = contacts.num_agents;
  pairs.sources.assign(contacts.first.begin(), contacts.first.end());
  pairs.targets.assign(contacts.second.begin(), contacts.second.end());
  return build_csr<WeightStorage>(exec, to_device(exec, pairs));
}

#define HERD_INSTANTIATE_TEMPORAL_W(EXEC, W)                                                                  \
  template TemporalNetwork<EXEC::memory_space, W> build_temporal_network<W, EXEC>(                            \
      EXEC const&, TimedContacts const&, std::int64_t, AfterLastWindow, SnapshotWeights);                     \
  template TemporalNetwork<EXEC::memory_space, W> build_temporal_network<W, EXEC>(                            \
      EXEC const&, TimedContacts const&, std::int64_t, WindowFrame const&, AfterLastWindow, SnapshotWeights); \
  template CsrGraph<EXEC::memory_space, W> met_graph<W, EXEC>(EXEC const&, TimedContacts const&);
#define HERD_INSTANTIATE_TEMPORAL(EXEC) HERD_INSTANTIATE_TEMPORAL_W(EXEC, float) HERD_INSTANTIATE_TEMPORAL_W(EXEC, half)

HERD_FOR_EACH_EXECUTION_SPACE(HERD_INSTANTIATE_TEMPORAL)

}  // namespace herd
