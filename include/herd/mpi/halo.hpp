#pragma once

// Halo exchange: after a phase writes a property that neighbours read, the values of boundary
// agents travel to the ranks that hold them as ghosts. The plan (halo_plan.hpp) is built once;
// each exchange then carries any number of typed fields (halo_field.hpp).
//
// start() packs the values to send with kernels, waits for them (MPI reads the buffer next), and
// posts non-blocking receives and sends; finish() unpacks each message into its ghost range as it
// arrives. Between the two the engine steps interior agents, which read no ghost. Buffers are
// sized once (reserve) and reused; the communicator is a duplicate, so halo messages never match
// a user's. A sparse field's messages may carry only the values that changed (sparse_message.hpp),
// and the ghosts they change can be logged for active-set stepping (ghost_change_log.hpp).
//
// With GPU-aware MPI (`device_buffers`) device buffers go straight to MPI; otherwise they are
// staged through page-locked host buffers, which works with any MPI. On host backends both are
// the same memory and nothing is staged.

#include <herd/core/error.hpp>
#include <herd/core/kokkos_compat.hpp>
#include <herd/core/profiling_region.hpp>
#include <herd/mpi/ghost_change_log.hpp>
#include <herd/mpi/halo_field.hpp>
#include <herd/mpi/halo_plan.hpp>
#include <herd/mpi/sparse_message.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace herd::mpi {

/// Time spent in the halo since the simulation started, per rank.
struct HaloTimes {
  double pack = 0.0;    ///< packing kernels, staging to the host, posting messages
  double wait = 0.0;    ///< waiting for messages
  double unpack = 0.0;  ///< staging from the host, unpacking kernels
  long long exchanges = 0;
  long long messages_sent = 0;
  long long sparse_messages = 0;  ///< of which carried only the values that changed
  long long bytes_sent = 0;
};

/// Which owned agents the phase that wrote an exchange's fields stepped: every one (the default),
/// or list[0 .. listed) only (ascending), committed in place instead of swapped. A sparse field's
/// `previous` then holds the values before the phase for the listed agents only (the others did
/// not change), its ghosts still hold the values last received, and changes are looked for among
/// the listed agents only.
template <class MemorySpace>
struct SteppedAgents {
  Kokkos::View<agent_index*, MemorySpace> list;
  agent_index listed = -1;  ///< negative: every owned agent

  bool all() const { return listed < 0; }
};

namespace Details {

// out[m] = values[agents[m]] for the slots m in [first, last).
template <class ExecutionSpace, class Agents, class T, class MemorySpace>
void pack_values(ExecutionSpace const& exec, Agents const& agents, HaloField<T, MemorySpace> const& field,
                 unsigned char* buffer, agent_index first, agent_index last) {
  using Bits = bits_t<T>;
  Bits const* values = value_bits(field);
  auto* out = reinterpret_cast<Bits*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::pack", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m) { out[m] = values[agents(m)]; });
}

// Ghost slots [first, last) (ghost k is local index owned + k) from a dense message, which holds
// their values in order.
template <class ExecutionSpace, class T, class MemorySpace>
void unpack_values(ExecutionSpace const& exec, agent_index owned, HaloField<T, MemorySpace> const& field,
                   unsigned char const* buffer, agent_index first, agent_index last) {
  using Bits = bits_t<T>;
  Bits* values = value_bits(field) + owned;
  auto const* in = reinterpret_cast<Bits const*>(buffer);
  Kokkos::parallel_for(
      "herd::halo::unpack", Kokkos::RangePolicy<ExecutionSpace>(exec, first, last),
      KOKKOS_LAMBDA(agent_index m) { values[m] = in[m - first]; });
}

}  // namespace Details

template <class ExecutionSpace>
class Halo {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using stepped_type = SteppedAgents<memory_space>;

  /// `always_stage` stages through host buffers even where MPI could read the Views, so that a
  /// host build runs the staged path as well.
  Halo(ExecutionSpace const& exec, MPI_Comm comm, HaloPlan<memory_space> plan, bool device_buffers,
       bool always_stage = false)
      : exec_(exec), plan_(std::move(plan)), log_(exec, plan_.owned, plan_.receives()) {
    MPI_Comm_dup(comm, &comm_);
    staged_ =
        always_stage || (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible && !device_buffers);
    changed_ = Kokkos::View<agent_index*, memory_space>(Kokkos::ViewAllocateWithoutInitializing("herd::halo::changed"),
                                                        plan_.sends());
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
  template <class... Fields>
  void start(stepped_type const& stepped, Fields const&... fields) {
    require(!in_flight_, "halo: start() while an exchange is in flight");
    if (plan_.recv_ranks.empty() && plan_.send_ranks.empty()) return;
    Kokkos::Timer timer;
    pack(stepped, fields...);
    post();
    times_.pack += timer.seconds();
  }

  /// start() then finish(), after a phase that stepped every agent: the ghosts of `fields` are
  /// current when it returns.
  template <class... Fields>
  void exchange(Fields const&... fields) {
    start(stepped_type{}, fields...);
    finish();
  }

  /// The first half of start(): packs `fields` into the send buffer (and stages it to the host)
  /// and waits for that, without sending. Public to measure packing on its own.
  template <class... Fields>
  void pack(stepped_type const& stepped, Fields const&... fields) {
    herd::Details::ProfilingRegion const region("herd::halo::pack");
    reserve(std::initializer_list<std::size_t>{sizeof(typename Fields::value_type)...});
    fields_.clear();
    ghosts_current_ = !stepped.all();
    std::size_t send = 0, recv = 0;
    (add(stepped, fields, send, recv), ...);
    send_bytes_ = send;
    exec_.fence();
    if (staged_) {
      Kokkos::deep_copy(exec_, Kokkos::subview(send_host_, std::make_pair(std::size_t{0}, send_bytes_)),
                        Kokkos::subview(send_, std::make_pair(std::size_t{0}, send_bytes_)));
      exec_.fence();
    }
  }

  /// Unpacks every ghost of the fields last packed from the receive buffer, as dense messages,
  /// and waits for that, without receiving. Public to measure unpacking on its own.
  void unpack() {
    for (std::size_t f = 0; f < fields_.size(); ++f)
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k) {
        agent_index const first = plan_.recv_offsets[k], last = plan_.recv_offsets[k + 1];
        unpack_message(f, first, last, static_cast<int>(static_cast<std::size_t>(last - first) * fields_[f].size));
      }
    exec_.fence();
  }

  /// Waits for the messages, unpacking each into its ghost range as it arrives.
  void finish() {
    if (!in_flight_) return;
    herd::Details::ProfilingRegion const region("herd::halo::finish");
    auto const neighbours = plan_.recv_ranks.size();
    auto const receives = static_cast<int>(neighbours * fields_.size());
    Kokkos::Timer timer;
    for (int done = 0; done < receives; ++done) {
      int index = MPI_UNDEFINED;
      MPI_Status status;
      MPI_Waitany(receives, requests_.data(), &index, &status);
      double const waited = timer.seconds();
      times_.wait += waited;
      auto const f = static_cast<std::size_t>(index) / neighbours, k = static_cast<std::size_t>(index) % neighbours;
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      unpack_message(f, plan_.recv_offsets[k], plan_.recv_offsets[k + 1], bytes);
      times_.unpack += timer.seconds() - waited;
      timer.reset();
    }
    MPI_Waitall(static_cast<int>(requests_.size()) - receives, requests_.data() + receives, MPI_STATUSES_IGNORE);
    times_.wait += timer.seconds();
    timer.reset();
    exec_.fence();
    times_.unpack += timer.seconds();
    for (auto const& field : fields_) field.unpacker->release();
    in_flight_ = false;
  }

  /// Sizes the buffers for exchanging fields of these value sizes (and any subset of them) at
  /// once; allocates only when they grow. pack() does it too: calling it before a step loop keeps
  /// allocations out of the loop. `value_bytes`: a std::vector or an initializer list of sizes.
  template <class Sizes>
  void reserve(Sizes const& value_bytes) {
    std::size_t send = 0, recv = 0;
    for (auto const size : value_bytes) {
      send += buffer_bytes(plan_.sends(), size);
      recv += buffer_bytes(plan_.receives(), size);
    }
    auto const fields = static_cast<std::size_t>(value_bytes.size());
    grow(send_, send_host_, send, "herd::halo::send");
    grow(recv_, recv_host_, recv, "herd::halo::recv");
    fields_.reserve(fields);
    message_bytes_.reserve(fields * plan_.send_ranks.size());
    requests_.reserve(fields * (plan_.recv_ranks.size() + plan_.send_ranks.size()));
  }

  /// Starts (or stops) logging which ghosts the exchanges change, for ghost_changes(). Allocates;
  /// call it before the step loop.
  void record_ghost_changes(bool on) { log_.record(on); }

  /// The ghosts that the exchanges completed since the last report changed (GhostChangeLog::report).
  GhostChanges<memory_space> ghost_changes() { return log_.report(); }

 private:
  // Replaces `buffer`, and its pinned host copy when staged, by buffers of `bytes` if they are
  // smaller. The label is a C string: pack() calls this every exchange, and must not allocate.
  void grow(Kokkos::View<unsigned char*, memory_space>& buffer,
            Kokkos::View<unsigned char*, compat::HostPinnedSpace>& host, std::size_t bytes, char const* label) {
    if (bytes <= buffer.extent(0)) return;
    buffer = Kokkos::View<unsigned char*, memory_space>(Kokkos::ViewAllocateWithoutInitializing(label), bytes);
    if (staged_)
      host = Kokkos::View<unsigned char*, compat::HostPinnedSpace>(
          Kokkos::ViewAllocateWithoutInitializing(std::string(label) + "_host"), bytes);
  }

  // Unpacks the messages of one field, knowing its type. One is made per field position and value
  // type the first time they meet, then reused: once each phase has exchanged, exchanges allocate
  // nothing.
  struct Unpacker {
    virtual ~Unpacker() = default;
    virtual void unpack(Halo& halo, unsigned char const* message, agent_index first, agent_index last,
                        int bytes) const = 0;
    virtual void release() = 0;  // drops the field's Views once its messages are unpacked
  };
  template <class T>
  struct TypedUnpacker final : Unpacker {
    HaloField<T, memory_space> field;
    void unpack(Halo& halo, unsigned char const* message, agent_index first, agent_index last,
                int bytes) const override {
      halo.unpack_field(field, message, first, last, bytes);
    }
    void release() override { field = {}; }
  };

  // One field of the exchange being packed or in flight: where its values lie in the buffers, and
  // what unpacks its messages.
  struct FieldInFlight {
    std::size_t size = 0;  ///< bytes per value
    std::size_t send_offset = 0, recv_offset = 0;
    Unpacker* unpacker = nullptr;
  };

  template <class T>
  Unpacker* unpacker_for(std::size_t f, HaloField<T, memory_space> const& field) {
    if (unpackers_.size() <= f) unpackers_.resize(f + 1);
    for (auto& known : unpackers_[f])
      if (auto* typed = dynamic_cast<TypedUnpacker<T>*>(known.get())) {
        typed->field = field;
        return typed;
      }
    auto typed = std::make_unique<TypedUnpacker<T>>();
    typed->field = field;
    unpackers_[f].push_back(std::move(typed));
    return unpackers_[f].back().get();
  }

  // Each field's values start 8-byte aligned in the buffers.
  static constexpr std::size_t buffer_bytes(agent_index values, std::size_t size) {
    return (static_cast<std::size_t>(values) * size + 7) / 8 * 8;
  }

  // Packs `field`, as the next field of the exchange, at `send` in the send buffer, and reserves
  // its messages at `recv` in the receive buffer.
  template <class T>
  void add(stepped_type const& stepped, HaloField<T, memory_space> const& field, std::size_t& send, std::size_t& recv) {
    auto const f = fields_.size();
    FieldInFlight in_flight;
    in_flight.size = sizeof(T);
    in_flight.send_offset = send;
    in_flight.recv_offset = recv;
    in_flight.unpacker = unpacker_for(f, field);
    fields_.push_back(std::move(in_flight));
    send += buffer_bytes(plan_.sends(), sizeof(T));
    recv += buffer_bytes(plan_.receives(), sizeof(T));

    auto const ranks = plan_.send_ranks.size();
    message_bytes_.resize((f + 1) * ranks);
    for (std::size_t k = 0; k < ranks; ++k)
      message_bytes_[f * ranks + k] =
          static_cast<int>(static_cast<std::size_t>(plan_.send_offsets[k + 1] - plan_.send_offsets[k]) * sizeof(T));
    unsigned char* buffer = send_.data() + fields_[f].send_offset;
    if (field.sparse && !stepped.all())
      pack_listed_changes(f, field, buffer, stepped);
    else if (field.sparse)
      pack_changes(f, field, buffer);
    else
      Details::pack_values(exec_, plan_.send_agents, field, buffer, 0, plan_.sends());
  }

  // Packs field f and, where it is shorter, sends a destination a sparse message instead: the
  // values that changed since field.previous, and their slots. Waits for the counts.
  template <class T>
  void pack_changes(std::size_t f, HaloField<T, memory_space> const& field, unsigned char* buffer) {
    herd::Details::ProfilingRegion const region("herd::halo::encode_changes");
    auto const ranks = plan_.send_ranks.size();
    for (std::size_t k = 0; k < ranks; ++k) {
      agent_index const first = plan_.send_offsets[k], last = plan_.send_offsets[k + 1];
      agent_index const changed = Details::pack_counting_changes(exec_, plan_.send_agents, field, buffer, first, last);
      int& bytes = message_bytes_[f * ranks + k];
      auto const sparse = Details::sparse_bytes<T>(changed);
      if (sparse >= static_cast<std::size_t>(bytes)) continue;
      bytes = static_cast<int>(sparse);
      Details::pack_changes(exec_, plan_.send_agents, field, buffer + static_cast<std::size_t>(first) * sizeof(T),
                            first, last, changed);
    }
  }

  // As pack_changes, after a phase that stepped the listed agents only: the values that changed
  // are found among those, without reading every slot.
  template <class T>
  void pack_listed_changes(std::size_t f, HaloField<T, memory_space> const& field, unsigned char* buffer,
                           stepped_type const& stepped) {
    herd::Details::ProfilingRegion const region("herd::halo::encode_changes");
    auto const ranks = plan_.send_ranks.size();
    Details::AgentSlots<memory_space> const slots{plan_.slot_offsets, plan_.agent_slots};
    agent_index* changed = changed_.data();
    agent_index const count =
        Details::changed_among_listed(exec_, slots, field, stepped.list.data(), stepped.listed, changed);
    for (std::size_t k = 0; k < ranks; ++k) {
      agent_index const first = plan_.send_offsets[k], last = plan_.send_offsets[k + 1];
      agent_index const sent =
          count > 0 ? Details::listed_changes_to(exec_, slots, field, changed, count, first, last) : 0;
      int& bytes = message_bytes_[f * ranks + k];
      auto const sparse = Details::sparse_bytes<T>(sent);
      if (sparse >= static_cast<std::size_t>(bytes)) {
        Details::pack_values(exec_, plan_.send_agents, field, buffer, first, last);
        continue;
      }
      bytes = static_cast<int>(sparse);
      if (sent > 0)
        Details::listed_changes_to(exec_, slots, field, changed, count, first, last,
                                   buffer + static_cast<std::size_t>(first) * sizeof(T), sent);
    }
  }

  // Posts the receives and sends of the fields just packed; a field's messages carry its index
  // as their tag.
  void post() {
    unsigned char* send = staged_ ? send_host_.data() : send_.data();
    unsigned char* recv = staged_ ? recv_host_.data() : recv_.data();
    auto const ranks = plan_.send_ranks.size();
    requests_.clear();
    for (std::size_t f = 0; f < fields_.size(); ++f) {
      auto const size = fields_[f].size;
      for (std::size_t k = 0; k < plan_.recv_ranks.size(); ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.recv_offsets[k]) * size;
        int const bytes =
            static_cast<int>(static_cast<std::size_t>(plan_.recv_offsets[k + 1] - plan_.recv_offsets[k]) * size);
        MPI_Irecv(recv + fields_[f].recv_offset + first, bytes, MPI_BYTE, plan_.recv_ranks[k], static_cast<int>(f),
                  comm_, &requests_.back());
      }
    }
    for (std::size_t f = 0; f < fields_.size(); ++f) {
      auto const size = fields_[f].size;
      for (std::size_t k = 0; k < ranks; ++k) {
        requests_.emplace_back();
        auto const first = static_cast<std::size_t>(plan_.send_offsets[k]) * size;
        auto const dense = static_cast<std::size_t>(plan_.send_offsets[k + 1] - plan_.send_offsets[k]) * size;
        int const bytes = message_bytes_[f * ranks + k];
        MPI_Isend(send + fields_[f].send_offset + first, bytes, MPI_BYTE, plan_.send_ranks[k], static_cast<int>(f),
                  comm_, &requests_.back());
        times_.bytes_sent += bytes;
        ++times_.messages_sent;
        if (static_cast<std::size_t>(bytes) < dense) ++times_.sparse_messages;
      }
    }
    in_flight_ = true;
    ++times_.exchanges;
  }

  // Unpacks ghost slots [first, last) of field f from its message of `bytes`, staging the
  // message to the device first where MPI received it in host memory.
  void unpack_message(std::size_t f, agent_index first, agent_index last, int bytes) {
    auto const start = fields_[f].recv_offset + static_cast<std::size_t>(first) * fields_[f].size;
    if (staged_) {
      auto const range = std::make_pair(start, start + static_cast<std::size_t>(bytes));
      Kokkos::deep_copy(exec_, Kokkos::subview(recv_, range), Kokkos::subview(recv_host_, range));
    }
    fields_[f].unpacker->unpack(*this, recv_.data() + start, first, last, bytes);
  }

  // A message with every value of its ghost range is dense; a shorter one is sparse.
  template <class T>
  void unpack_field(HaloField<T, memory_space> const& field, unsigned char const* message, agent_index first,
                    agent_index last, int bytes) {
    if (static_cast<std::size_t>(bytes) == static_cast<std::size_t>(last - first) * sizeof(T)) {
      log_.all_changed();  // not known which did
      Details::unpack_values(exec_, plan_.owned, field, message, first, last);
      return;
    }
    require(field.sparse, "halo: a sparse message for a field without previous values");
    auto const changed =
        static_cast<agent_index>(static_cast<std::size_t>(bytes) / (sizeof(T) + sizeof(std::uint32_t)));
    Details::unpack_changes(exec_, plan_.owned, field, ghosts_current_, message, first, last, changed, log_.writer());
  }

  ExecutionSpace exec_;
  HaloPlan<memory_space> plan_;
  GhostChangeLog<ExecutionSpace> log_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool staged_ = false;
  bool in_flight_ = false;
  bool ghosts_current_ = false;  ///< the phase was listed: the ghosts still hold the values last received
  std::vector<FieldInFlight> fields_;
  std::vector<std::vector<std::unique_ptr<Unpacker>>> unpackers_;  ///< [field position]: one per value type
  std::size_t send_bytes_ = 0;
  Kokkos::View<unsigned char*, memory_space> send_, recv_;
  Kokkos::View<unsigned char*, compat::HostPinnedSpace> send_host_, recv_host_;
  Kokkos::View<agent_index*, memory_space> changed_;  ///< listed agents whose values changed, for one field
  std::vector<MPI_Request> requests_;
  std::vector<int> message_bytes_;  ///< of each message in flight, [field][destination]: dense or sparse
  HaloTimes times_;
};

}  // namespace herd::mpi
