#pragma once

// Contacts that change over time: one graph snapshot per time window, which the steps of a
// Simulation made on the network read in turn (step t reads window t - 1).

#include <herd/graph/csr_graph.hpp>
#include <herd/graph/timed_contacts.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace herd {

/// What the steps after the last window read: the windows again from the first, or no contacts.
enum class AfterLastWindow { loop, stop };

/// What a snapshot's pair weighs: nothing (`met`: unweighted, a pair met or did not), or the
/// number of its contacts in the window (`contacts`: the SocioPatterns files list a contact for
/// every 20 s two people faced each other, so the weight is the time they spent together).
enum class SnapshotWeights { met, contacts };

/// A sequence of graph snapshots over one set of agents. Window w covers the times
/// [start + w window, start + (w + 1) window); its snapshot joins two agents when they met at least
/// once in it, both directions, unweighted or weighted by their contacts in it (SnapshotWeights).
/// Windows without contacts share the empty snapshot, which is unweighted.
template <class MemorySpace, class WeightStorage = float>
struct TemporalNetwork {
  using memory_space = MemorySpace;
  using graph_type = CsrGraph<MemorySpace, WeightStorage>;

  /// The distinct snapshots: graphs[0] has no edges; each other is one window's.
  std::vector<graph_type> graphs;
  /// The windows, in time order from `start`.
  std::uint64_t windows = 0;
  /// The windows that hold contacts, ascending: window busy[s] reads graphs[s + 1], and every
  /// other the empty graphs[0]. Empty windows take no memory, however many lie between contacts.
  std::vector<std::uint64_t> busy;
  std::int64_t start = 0;
  std::int64_t window = 1;
  AfterLastWindow after_last = AfterLastWindow::loop;

  agent_index num_agents() const { return graphs.empty() ? 0 : graphs.front().num_agents(); }
  /// A weighted snapshot, or the empty one where none is: the weights the steps may read.
  graph_type const& weighted_snapshot() const {
    for (auto const& g : graphs)
      if (g.weighted()) return g;
    return graphs.front();
  }
  /// Whether any snapshot is weighted.
  bool weighted() const { return !graphs.empty() && weighted_snapshot().weighted(); }
  std::uint64_t num_windows() const { return windows; }
  /// The snapshot (an index into graphs) that window w reads.
  std::uint32_t window_graph(std::uint64_t w) const {
    auto const at = std::lower_bound(busy.begin(), busy.end(), w);
    return at != busy.end() && *at == w ? static_cast<std::uint32_t>(at - busy.begin() + 1) : 0u;
  }
  /// Edges stored over all snapshots.
  edge_offset num_edges() const {
    return std::accumulate(graphs.begin(), graphs.end(), edge_offset{0},
                           [](edge_offset sum, graph_type const& g) { return sum + g.num_edges(); });
  }
  /// The snapshot that step `step` (numbered from 1) reads: window step - 1, or after the last
  /// window the first again (loop) or the empty one (stop).
  std::uint32_t graph_of_step(std::uint64_t step) const {
    if (windows == 0) return 0;
    std::uint64_t w = step == 0 ? 0 : step - 1;
    if (w >= windows) {
      if (after_last == AfterLastWindow::stop) return 0;
      w %= windows;
    }
    return window_graph(w);
  }
};

/// The windows of a network whose contacts several parts hold (ranks reading parts of one file):
/// the earliest and latest times of all (the latest before the earliest: none), and the windows
/// from the earliest that hold any part's contacts of two agents, ascending.
struct WindowFrame {
  std::int64_t start = 0;
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  std::vector<std::uint64_t> busy;
};

/// How many windows of `window` time units from the earliest contact hold contacts of two agents
/// (a contact of an agent with itself is dropped): the snapshots
/// build_temporal_network makes besides the empty one, each (agents + 1) row offsets. Throws
/// herd::Error for a window that is not positive.
std::size_t windows_with_contacts(TimedContacts const& contacts, std::int64_t window);

/// Checks that `contacts` holds a time and two agents for each contact, every agent in
/// [0, num_agents). Throws herd::Error naming the first contact that does not.
void check_contacts(TimedContacts const& contacts);

/// The windows of `window` time units from `start` (no later than any contact) that hold
/// contacts of two agents, ascending, each once: a WindowFrame's `busy` for `contacts`. Throws herd::Error for
/// a window that is not positive.
std::vector<std::uint64_t> busy_windows(TimedContacts const& contacts, std::int64_t window, std::int64_t start);

/// Builds the snapshots of `contacts` for windows of `window` time units from the earliest
/// contact, on the device: the contacts of a batch of windows become one CSR of (window, agent)
/// rows (build_csr, in parallel), which is then cut into its windows' graphs without copying their
/// edges. A contact of an agent with itself is dropped. With SnapshotWeights::contacts a pair's
/// contacts in a window are counted on the host as the batch is laid out, whichever of the two
/// was named first. Throws herd::Error for a window that is not positive, an agent out of range,
/// or more than 2^31 windows.
template <class WeightStorage = float, class ExecutionSpace>
TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> build_temporal_network(
    ExecutionSpace const& exec, TimedContacts const& contacts, std::int64_t window,
    AfterLastWindow after_last = AfterLastWindow::loop, SnapshotWeights weights = SnapshotWeights::met);

/// The graph of every pair that met in `contacts`, whatever the time: each pair once, stored both
/// ways, without self-contacts (build_csr). Distributed runs partition it, and its rows' ghosts
/// cover every snapshot's.
template <class WeightStorage = float, class ExecutionSpace>
CsrGraph<typename ExecutionSpace::memory_space, WeightStorage> met_graph(ExecutionSpace const& exec,
                                                                         TimedContacts const& contacts);

/// build_temporal_network of a part of some contacts, in the windows of `frame` (every window of a
/// contact of two agents of the part must be among frame.busy, and the windows run to
/// frame.latest's): one snapshot per busy window, in order, empty
/// where the part has none of its contacts, so that every part numbers its snapshots alike. Each
/// agent's row of a snapshot is the whole network's where the part holds all of the agent's
/// contacts.
template <class WeightStorage = float, class ExecutionSpace>
TemporalNetwork<typename ExecutionSpace::memory_space, WeightStorage> build_temporal_network(
    ExecutionSpace const& exec, TimedContacts const& contacts, std::int64_t window, WindowFrame const& frame,
    AfterLastWindow after_last = AfterLastWindow::loop, SnapshotWeights weights = SnapshotWeights::met);

}  // namespace herd
