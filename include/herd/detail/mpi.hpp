#pragma once

// MPI as Herd's files and collective errors use it. A build with MPI includes <mpi.h>. A build
// without it (a laptop with serial HDF5) gets a stand-in for one process: each call below does
// what MPI does when the communicator holds a single rank, as PETSc's mpiuni and LAMMPS' STUBS do.
// The stand-in lives in namespace herd, so a program's own MPI, if any, is never shadowed.

#include <herd/config.hpp>

#if HERD_ENABLE_MPI
#include <mpi.h>
#else
#include <cstdlib>
#include <cstring>

namespace herd {

using MPI_Comm = int;
using MPI_Datatype = int;  // the element's size in bytes: all a copy needs
using MPI_Op = int;

inline constexpr MPI_Comm MPI_COMM_WORLD = 0;
inline constexpr MPI_Comm MPI_COMM_SELF = 1;
inline constexpr MPI_Comm MPI_COMM_NULL = -1;
inline constexpr MPI_Datatype MPI_BYTE = 1;
inline constexpr MPI_Datatype MPI_CHAR = 1;
inline constexpr MPI_Datatype MPI_INT = sizeof(int);
inline constexpr MPI_Datatype MPI_DOUBLE = sizeof(double);
inline constexpr MPI_Datatype MPI_INT64_T = 8;
inline constexpr MPI_Datatype MPI_UINT64_T = 8;
inline constexpr MPI_Datatype MPI_LONG_LONG = sizeof(long long);
inline constexpr MPI_Op MPI_SUM = 0;
inline constexpr MPI_Op MPI_MIN = 1;
inline constexpr MPI_Op MPI_MAX = 2;
namespace detail {
inline char in_place;
}
inline void* const MPI_IN_PLACE = &detail::in_place;

inline int MPI_Comm_rank(MPI_Comm, int* rank) {
  *rank = 0;
  return 0;
}

inline int MPI_Comm_size(MPI_Comm, int* size) {
  *size = 1;
  return 0;
}

inline int MPI_Barrier(MPI_Comm) { return 0; }

inline int MPI_Bcast(void*, int, MPI_Datatype, int, MPI_Comm) { return 0; }

// A reduction over one rank is its own values.
inline int MPI_Allreduce(void const* send, void* receive, int count, MPI_Datatype type, MPI_Op, MPI_Comm) {
  if (send != MPI_IN_PLACE && count > 0) std::memcpy(receive, send, static_cast<std::size_t>(count) * type);
  return 0;
}

inline int MPI_Gather(void const* send, int count, MPI_Datatype type, void* receive, int, MPI_Datatype, int, MPI_Comm) {
  if (send != MPI_IN_PLACE && count > 0) std::memcpy(receive, send, static_cast<std::size_t>(count) * type);
  return 0;
}

inline int MPI_Gatherv(void const* send, int count, MPI_Datatype type, void* receive, int const*,
                       int const* displacements, MPI_Datatype, int, MPI_Comm) {
  if (count > 0)
    std::memcpy(static_cast<char*>(receive) + static_cast<std::size_t>(displacements[0]) * type, send,
                static_cast<std::size_t>(count) * type);
  return 0;
}

inline int MPI_Alltoall(void const* send, int count, MPI_Datatype type, void* receive, int, MPI_Datatype, MPI_Comm) {
  if (count > 0) std::memcpy(receive, send, static_cast<std::size_t>(count) * type);
  return 0;
}

// Rank 0 sends its one block to itself.
inline int MPI_Alltoallv(void const* send, int const* send_counts, int const* send_displacements, MPI_Datatype type,
                         void* receive, int const*, int const* receive_displacements, MPI_Datatype, MPI_Comm) {
  if (send_counts[0] > 0)
    std::memcpy(static_cast<char*>(receive) + static_cast<std::size_t>(receive_displacements[0]) * type,
                static_cast<char const*>(send) + static_cast<std::size_t>(send_displacements[0]) * type,
                static_cast<std::size_t>(send_counts[0]) * type);
  return 0;
}

[[noreturn]] inline int MPI_Abort(MPI_Comm, int code) { std::_Exit(code); }

}  // namespace herd
#endif
