#pragma once

// The halo plan: which owned agents each rank sends to which neighbour rank, and which ghost
// slots each neighbour's message fills. Built once, by one handshake: every rank tells the owners
// of its ghosts which agents it reads (MPI_Alltoall of counts, MPI_Alltoallv of global ids), and
// each owner turns the ids into local indices on the device. Send lists follow the receiver's
// ghost order, so a message is unpacked into one contiguous range.

#include <herd/core/error.hpp>
#include <herd/detail/invert_rows.hpp>
#include <herd/mpi/collective.hpp>
#include <herd/mpi/local_graph.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <utility>
#include <vector>

namespace herd::mpi {

template <class MemorySpace>
struct HaloPlan {
  agent_index owned = 0;                  ///< ghost slot k is local index owned + k
  std::vector<int> recv_ranks;            ///< ranks this rank receives ghosts from, ascending
  std::vector<agent_index> recv_offsets;  ///< ghosts of recv_ranks[k]: slots [offsets[k], offsets[k+1])
  std::vector<int> send_ranks;            ///< ranks this rank sends to, ascending
  std::vector<agent_index> send_offsets;  ///< send_agents[offsets[k] ... offsets[k+1]) go to send_ranks[k]
  Kokkos::View<agent_index*, MemorySpace> send_agents;  ///< local indices of owned agents, per destination
  /// The send slots of owned agent i, by destination: agent_slots[slot_offsets[i] ... slot_offsets[i+1])
  /// (send_agents inverted), so that a phase that stepped a few agents finds what they changed
  /// without reading every slot.
  Kokkos::View<agent_index*, MemorySpace> slot_offsets;
  Kokkos::View<agent_index*, MemorySpace> agent_slots;

  agent_index receives() const { return recv_offsets.empty() ? 0 : recv_offsets.back(); }
  agent_index sends() const { return send_offsets.empty() ? 0 : send_offsets.back(); }
};

namespace Details {

struct Requests {
  std::vector<int> ranks;            ///< ranks that read agents of this one, ascending
  std::vector<agent_index> offsets;  ///< requested[offsets[k] ... offsets[k+1]) come from ranks[k]
  std::vector<global_id> requested;  ///< global ids this rank owns and must send
};

/// The handshake: sends each owner the ids this rank reads (ghost_ids, grouped as recv_ranks and
/// recv_offsets say) and returns what others read from this rank. Collective.
Requests exchange_requests(MPI_Comm comm, std::vector<int> const& recv_ranks,
                           std::vector<agent_index> const& recv_offsets, std::vector<global_id> const& ghost_ids);

/// Fills plan.slot_offsets and plan.agent_slots from plan.send_agents: each slot is a row of one
/// entry, its agent. An agent's slots (one per destination) are then sorted, so that they come in
/// destination order.
template <class ExecutionSpace>
void invert_send_agents(ExecutionSpace const& exec, HaloPlan<typename ExecutionSpace::memory_space>& plan) {
  using memory_space = typename ExecutionSpace::memory_space;
  plan.agent_slots = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::halo::agent_slots"), plan.sends());
  auto const agents = plan.send_agents;
  auto const slots = plan.agent_slots;
  plan.slot_offsets = herd::Details::invert_rows(
      exec, plan.sends(), plan.sends(), plan.owned, KOKKOS_LAMBDA(agent_index m) { return m; },
      KOKKOS_LAMBDA(agent_index m) { return agents(m); },
      KOKKOS_LAMBDA(agent_index at, agent_index m, agent_index) { slots(at) = m; }, "herd::halo::slots");
  auto const offsets = plan.slot_offsets;
  Kokkos::parallel_for(
      "herd::halo::sort_slots", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, plan.owned), KOKKOS_LAMBDA(agent_index i) {
        for (agent_index s = offsets(i) + 1; s < offsets(i + 1); ++s)
          for (agent_index t = s; t > offsets(i) && slots(t - 1) > slots(t); --t) {
            agent_index const swapped = slots(t);
            slots(t) = slots(t - 1);
            slots(t - 1) = swapped;
          }
      });
  exec.fence();
}

}  // namespace Details

/// Builds the halo plan of `local` on `comm` (the communicator whose ranks are the partition's
/// parts). Collective; throws herd::Error on every rank if any rank's share is inconsistent.
template <class ExecutionSpace, class WeightStorage>
HaloPlan<typename ExecutionSpace::memory_space> make_halo_plan(
    ExecutionSpace const& exec, MPI_Comm comm,
    LocalGraph<typename ExecutionSpace::memory_space, WeightStorage> const& local) {
  using memory_space = typename ExecutionSpace::memory_space;
  raise_if_any_failed(comm, size_of(comm) == local.parts && rank_of(comm) == local.rank
                                ? std::string()
                                : "a graph share for part " + std::to_string(local.rank) + " of " +
                                      std::to_string(local.parts) + " on rank " + std::to_string(rank_of(comm)) +
                                      " of " + std::to_string(size_of(comm)));
  HaloPlan<memory_space> plan;
  plan.owned = local.owned;
  plan.recv_ranks = local.ghost_owners;
  plan.recv_offsets = local.ghost_offsets;
  auto const ghost_view = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(local.ids, std::make_pair(local.owned, local.local())));
  std::vector<global_id> const ghost_ids(ghost_view.data(), ghost_view.data() + ghost_view.extent(0));
  auto requests = Details::exchange_requests(comm, plan.recv_ranks, plan.recv_offsets, ghost_ids);
  plan.send_ranks = std::move(requests.ranks);
  plan.send_offsets = std::move(requests.offsets);

  // Requested ids to local indices. Where the owned ids fill a range (a share by blocks), a map
  // of that range finds each at once; else a binary search of the two ascending runs they form
  // (interior, boundary).
  auto const count = requests.requested.size();
  Kokkos::View<global_id*, memory_space> wanted(Kokkos::ViewAllocateWithoutInitializing("herd::halo::wanted"), count);
  Kokkos::deep_copy(wanted, Kokkos::View<global_id const*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                requests.requested.data(), count));
  plan.send_agents = Kokkos::View<agent_index*, memory_space>(
      Kokkos::ViewAllocateWithoutInitializing("herd::halo::send_agents"), count);
  auto send_agents = plan.send_agents;
  auto ids = local.ids;
  agent_index const interior = local.interior, owned = local.owned;
  auto const range = owned_id_range(exec, local);
  global_id const lowest = range.first, highest = range.second;
  bool const filled = owned > 0 && highest - lowest + 1 == owned;
  // -1 where no owned id lands: a share whose ids repeat leaves gaps, and their requests are refused.
  Kokkos::View<agent_index*, memory_space> local_of(Kokkos::ViewAllocateWithoutInitializing("herd::halo::local_of"),
                                                    filled ? owned : 0);
  Kokkos::deep_copy(exec, local_of, agent_index{-1});
  if (filled)
    Kokkos::parallel_for(
        "herd::halo::local_of", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, owned),
        KOKKOS_LAMBDA(agent_index l) { local_of(static_cast<std::size_t>(ids(l) - lowest)) = l; });
  std::size_t missing = 0;
  Kokkos::parallel_reduce(
      "herd::halo::send_agents", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count),
      KOKKOS_LAMBDA(std::size_t k, std::size_t & not_found) {
        auto find = [&](agent_index lo, agent_index hi) {
          agent_index const end = hi;
          while (lo < hi) {
            agent_index const mid = lo + (hi - lo) / 2;
            if (ids(mid) < wanted(k))
              lo = mid + 1;
            else
              hi = mid;
          }
          return lo < end && ids(lo) == wanted(k) ? lo : agent_index{-1};
        };
        agent_index l = -1;
        if (filled) {
          global_id const at = wanted(k) - lowest;
          if (at >= 0 && at < owned) l = local_of(static_cast<std::size_t>(at));
        } else {
          l = find(0, interior);
          if (l < 0) l = find(interior, owned);
        }
        send_agents(k) = l;
        if (l < 0) ++not_found;
      },
      missing);
  exec.fence();
  raise_if_any_failed(comm, missing == 0 ? std::string()
                                         : std::to_string(missing) + " agents requested from rank " +
                                               std::to_string(local.rank) +
                                               " are not owned there: the ranks hold different partitions");
  Details::invert_send_agents(exec, plan);
  return plan;
}

}  // namespace herd::mpi
