#pragma once

// Halo exchange: after a phase writes a neighbour-visible property, the values of boundary agents
// travel to the ranks that hold them as ghosts.
//
// start() packs the values to send with a kernel, waits for it (MPI reads the buffer next), and
// posts non-blocking receives and sends; finish() unpacks each message into its ghost range as it
// arrives. Between the two the engine steps interior agents, which read no ghost. Buffers are
// allocated the first time they are needed and reused; the communicator is a duplicate, so halo
// messages never match a user's.
//
// With GPU-aware MPI (`device_buffers`) device buffers go straight to MPI; otherwise they are
// staged through page-locked host buffers, which works with any MPI. On host backends both are
// the same memory and nothing is staged.

#include <herd/core/kokkos_compat.hpp>
#include <herd/mpi/halo_plan.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace herd::mpi {

/// Time spent in the halo since the simulation started, per rank.
struct HaloTimes {
  double pack = 0.0;    ///< packing kernels, staging to the host, posting messages
  double wait = 0.0;    ///< waiting for messages
  double unpack = 0.0;  ///< staging from the host, unpacking kernels
  long long exchanges = 0;
  long long messages_sent = 0;
  long long bytes_sent = 0;
};

/// The current buffer of one property, as the halo sees it: bytes per agent and where they are.
struct HaloField {
  void* data = nullptr;
  int size = 0;
};

/// The fields of one exchange (at most eight properties at once).
struct HaloFields {
  std::array<HaloField, 8> field;
  int count = 0;

  void add(HaloField f) {
    require(count < static_cast<int>(field.size()), "a halo exchange carries at most 8 properties at once");
    field[count++] = f;
  }
};

template <class Property>
HaloField halo_field(Property const& property) {
  return {property.current().data(), static_cast<int>(sizeof(typename Property::storage_type))};
}

namespace Details {

// The halo's kernels, outside the class: CUDA allows device lambdas only in functions that are
// not private members.

// out[m] = values[agents[m]] for the m < sends values to send.
template <class T, class ExecutionSpace, class Agents>
void pack_values(ExecutionSpace const& exec, Agents const& agents, void const* data, unsigned char* buffer,
                 std::size_t sends) {
  T const* values = static_cast<T const*>(data);
  T* out = reinterpret_cast<T*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::pack", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, sends),
      KOKKOS_LAMBDA(std::size_t m) { out[m] = values[agents(m)]; });
}

// Ghost slots [first, last) of a property whose ghosts start at local index `owned`.
template <class T, class ExecutionSpace>
void unpack_values(ExecutionSpace const& exec, agent_index owned, void* data, unsigned char const* buffer,
                   agent_index first, agent_index last) {
  T* values = static_cast<T*>(data) + owned;
  T const* in = reinterpret_cast<T const*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::unpack", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m) { values[m] = in[m]; });
}

}  // namespace Details

template <class ExecutionSpace>
class Halo {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;

  Halo(ExecutionSpace const& exec, MPI_Comm comm, HaloPlan<memory_space> plan, bool device_buffers)
      : exec_(exec), plan_(std::move(plan)) {
    MPI_Comm_dup(comm, &comm_);
    staged_ = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible && !device_buffers;
  }
  Halo(Halo const&) = delete;
  Halo& operator=(Halo const&) = delete;
  ~Halo() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (in_flight_) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
  }

  HaloPlan<memory_space> const& plan() const { return plan_; }
  HaloTimes const& times() const { return times_; }
  bool in_flight() const { return in_flight_; }
  bool staged() const { return staged_; }
  MPI_Comm communicator() const { return comm_; }

  /// Packs `fields` of the agents others read and posts the messages. A rank with no neighbours
  /// (a single rank) has nothing to do.
  void start(HaloFields const& fields) {
    require(!in_flight_, "halo: start() while an exchange is in flight");
    if (plan_.recv_ranks.empty() && plan_.send_ranks.empty()) return;
    Kokkos::Timer timer;
    pack(fields);
    post();
    times_.pack += timer.seconds();
  }

  /// The first half of start(): packs `fields` into the send buffer (and stages it to the host)
  /// and waits for that, without sending. Public to measure packing on its own.
  void pack(HaloFields const& fields) {
    fields_ = fields;
    reserve(fields);
    auto const sends = static_cast<std::size_t>(plan_.sends());
    for (int f = 0; f < fields.count; ++f) pack_field(fields.field[f], send_.data() + send_offset_[f], sends);
    exec_.fence();
    if (staged_) {
      Kokkos::deep_copy(exec_, Kokkos::subview(send_host_, std::make_pair(std::size_t{0}, send_bytes_)),
                        Kokkos::subview(send_, std::make_pair(std::size_t{0}, send_bytes_)));
      exec_.fence();
    }
  }

  /// Unpacks every ghost of the fields last packed from the receive buffer and waits for that,
  /// without receiving. Public to measure unpacking on its own.
  void unpack() {
    for (int f = 0; f < fields_.count; ++f)
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k)
        unpack_range(fields_.field[f], recv_offset_[f], plan_.recv_offsets[k], plan_.recv_offsets[k + 1]);
    exec_.fence();
  }

  /// Waits for the messages, unpacking each into its ghost range as it arrives.
  void finish() {
    if (!in_flight_) return;
    auto const neighbours = plan_.recv_ranks.size();
    auto const receives = static_cast<int>(neighbours * static_cast<std::size_t>(fields_.count));
    Kokkos::Timer timer;
    for (int done = 0; done < receives; ++done) {
      int index = MPI_UNDEFINED;
      MPI_Waitany(receives, requests_.data(), &index, MPI_STATUS_IGNORE);
      double const waited = timer.seconds();
      times_.wait += waited;
      auto const f = static_cast<std::size_t>(index) / neighbours, k = static_cast<std::size_t>(index) % neighbours;
      unpack_range(fields_.field[f], recv_offset_[f], plan_.recv_offsets[k], plan_.recv_offsets[k + 1]);
      times_.unpack += timer.seconds() - waited;
      timer.reset();
    }
    MPI_Waitall(static_cast<int>(requests_.size()) - receives, requests_.data() + receives, MPI_STATUSES_IGNORE);
    times_.wait += timer.seconds();
    timer.reset();
    exec_.fence();
    times_.unpack += timer.seconds();
    in_flight_ = false;
  }

  /// Sizes the buffers for exchanging `fields` (and any subset of them); allocates only when they
  /// grow. start() does it too: calling it before a step loop keeps allocations out of the loop.
  void reserve(HaloFields const& fields) {
    std::size_t send = 0, recv = 0;
    for (int f = 0; f < fields.count; ++f) {
      send_offset_[f] = send;
      recv_offset_[f] = recv;
      send += align(static_cast<std::size_t>(plan_.sends()) * static_cast<std::size_t>(fields.field[f].size));
      recv += align(static_cast<std::size_t>(plan_.receives()) * static_cast<std::size_t>(fields.field[f].size));
    }
    send_bytes_ = send;
    if (send > send_.extent(0)) {
      send_ =
          Kokkos::View<unsigned char*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::send"), send);
      if (staged_)
        send_host_ = Kokkos::View<unsigned char*, compat::HostPinnedSpace>(
            Kokkos::ViewAllocateWithoutInitializing("herd::halo::send_host"), send);
    }
    if (recv > recv_.extent(0)) {
      recv_ =
          Kokkos::View<unsigned char*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::recv"), recv);
      if (staged_)
        recv_host_ = Kokkos::View<unsigned char*, compat::HostPinnedSpace>(
            Kokkos::ViewAllocateWithoutInitializing("herd::halo::recv_host"), recv);
    }
    requests_.reserve(static_cast<std::size_t>(fields.count) * (plan_.recv_ranks.size() + plan_.send_ranks.size()));
  }

  /// start() then finish(): ghosts of `fields` are current when it returns.
  void exchange(HaloFields const& fields) {
    start(fields);
    finish();
  }

 private:
  static constexpr std::size_t align(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

  // Posts the receives and sends of the fields just packed.
  void post() {
    unsigned char* send = staged_ ? send_host_.data() : send_.data();
    unsigned char* recv = staged_ ? recv_host_.data() : recv_.data();
    auto const& fields = fields_;
    requests_.clear();
    for (int f = 0; f < fields.count; ++f) {
      auto const size = static_cast<std::size_t>(fields.field[f].size);
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.recv_offsets[k]) * size;
        int const bytes = static_cast<int>((plan_.recv_offsets[k + 1] - plan_.recv_offsets[k]) * size);
        MPI_Irecv(recv + recv_offset_[f] + first, bytes, MPI_BYTE, plan_.recv_ranks[k], f, comm_, &requests_.back());
      }
    }
    for (int f = 0; f < fields.count; ++f) {
      auto const size = static_cast<std::size_t>(fields.field[f].size);
      for (std::size_t k = 0; k < plan_.send_ranks.size(); ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.send_offsets[k]) * size;
        int const bytes = static_cast<int>((plan_.send_offsets[k + 1] - plan_.send_offsets[k]) * size);
        MPI_Isend(send + send_offset_[f] + first, bytes, MPI_BYTE, plan_.send_ranks[k], f, comm_, &requests_.back());
        times_.bytes_sent += bytes;
        ++times_.messages_sent;
      }
    }
    in_flight_ = true;
    ++times_.exchanges;
  }

  void pack_field(HaloField const& field, unsigned char* buffer, std::size_t sends) const {
    switch (field.size) {
      case 1:
        return Details::pack_values<std::uint8_t>(exec_, plan_.send_agents, field.data, buffer, sends);
      case 2:
        return Details::pack_values<std::uint16_t>(exec_, plan_.send_agents, field.data, buffer, sends);
      case 4:
        return Details::pack_values<std::uint32_t>(exec_, plan_.send_agents, field.data, buffer, sends);
      case 8:
        return Details::pack_values<std::uint64_t>(exec_, plan_.send_agents, field.data, buffer, sends);
      default:
        throw Error("halo: properties of " + std::to_string(field.size) + " bytes cannot travel (1, 2, 4 or 8)");
    }
  }

  // Unpacks ghost slots [first, last) of `field` from the receive buffer at `offset`.
  void unpack_range(HaloField const& field, std::size_t offset, agent_index first, agent_index last) {
    auto const size = static_cast<std::size_t>(field.size);
    if (staged_) {
      auto const range = std::make_pair(offset + static_cast<std::size_t>(first) * size,
                                        offset + static_cast<std::size_t>(last) * size);
      Kokkos::deep_copy(exec_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
    }
    unsigned char const* buffer = recv_.data() + offset;
    switch (field.size) {
      case 1:
        return Details::unpack_values<std::uint8_t>(exec_, plan_.owned, field.data, buffer, first, last);
      case 2:
        return Details::unpack_values<std::uint16_t>(exec_, plan_.owned, field.data, buffer, first, last);
      case 4:
        return Details::unpack_values<std::uint32_t>(exec_, plan_.owned, field.data, buffer, first, last);
      default:
        return Details::unpack_values<std::uint64_t>(exec_, plan_.owned, field.data, buffer, first, last);
    }
  }

  ExecutionSpace exec_;
  HaloPlan<memory_space> plan_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool staged_ = false;
  bool in_flight_ = false;
  HaloFields fields_;
  std::array<std::size_t, 8> send_offset_{};
  std::array<std::size_t, 8> recv_offset_{};
  std::size_t send_bytes_ = 0;
  Kokkos::View<unsigned char*, memory_space> send_, recv_;
  Kokkos::View<unsigned char*, compat::HostPinnedSpace> send_host_, recv_host_;
  std::vector<MPI_Request> requests_;
  HaloTimes times_;
};

}  // namespace herd::mpi
