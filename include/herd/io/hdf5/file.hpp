#pragma once

// A parallel HDF5 file as Herd uses it: every rank of a communicator opens it through MPI-IO, and
// every call below is collective (same arguments on every rank) unless it says otherwise. Failures
// throw herd::Error naming the file, the object and HDF5's reason; HDF5's own printing is off.

#include <herd/core/error.hpp>

#include <herd/detail/mpi.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace herd {
struct half;  // core/half.hpp: declared only, so that the readers build without Kokkos
struct bfloat16;
}  // namespace herd

namespace herd::io::h5 {

/// Element types of Herd's datasets. f16 is IEEE binary16 (herd::half), which h5py reads as
/// numpy.float16; bf16 is bfloat16 (herd::bfloat16), stored as a 16-bit float type with an 8-bit
/// exponent.
enum class Type : std::uint8_t { u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64 };

std::size_t size_of(Type type);
std::string to_string(Type type);
/// Whether `type` holds floating-point numbers (f16, bf16, f32, f64).
bool is_floating(Type type);
/// Whether `type` holds signed integers.
bool is_signed(Type type);

template <class T>
constexpr Type type_of() {
  if constexpr (std::is_same_v<T, half>)
    return Type::f16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return Type::bf16;
  else if constexpr (std::is_same_v<T, float>)
    return Type::f32;
  else if constexpr (std::is_same_v<T, double>)
    return Type::f64;
  else {
    static_assert(std::is_integral_v<T>, "herd::io::h5: no HDF5 type for this element type");
    constexpr int bytes = sizeof(T);
    if constexpr (std::is_signed_v<T>)
      return bytes == 1 ? Type::i8 : bytes == 2 ? Type::i16 : bytes == 4 ? Type::i32 : Type::i64;
    else
      return bytes == 1 ? Type::u8 : bytes == 2 ? Type::u16 : bytes == 4 ? Type::u32 : Type::u64;
  }
}

/// The checksum Herd stores with each dataset it writes (attribute `checksum`, the bits of this
/// uint64 as an int64) for `elements` values of `type` at `data`, the first being element `first` of
/// the dataset in row-major order: the sum modulo 2^64 over elements g of
/// mix(v_g + mix(g)), with mix SplitMix64's finaliser and v_g the value as a 64-bit integer
/// (integers sign- or zero-extended, floating-point numbers their bits). A sum, so ranks add their
/// parts; a flipped bit or two swapped values change it.
std::uint64_t checksum(Type type, std::uint64_t first, std::uint64_t elements, void const* data);

/// Whether closing a written file failed in this process (a full disk). HDF5 1.10 keeps such a
/// file registered and crashes closing it again in its exit-time cleanup, from MPI_Finalize or
/// after main returns: a program that saw this reports its error and ends with std::_Exit (the
/// herd command does).
bool close_failed();

/// An open file. Move-only; closes on destruction, but for a rank that fails alone
/// (mpi::failing_alone), whose job is then to be aborted.
class File {
 public:
  /// Creates (truncates) `path` for writing.
  static File create(std::string const& path, MPI_Comm comm);
  /// Opens an existing file read-only; a missing, truncated or non-HDF5 file is an error.
  static File open(std::string const& path, MPI_Comm comm);
  /// Opens an existing file to read and add to it; errors as open's.
  static File open_to_write(std::string const& path, MPI_Comm comm);

  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  File(File const&) = delete;
  File& operator=(File const&) = delete;
  ~File();

  /// Flushes and closes; errors surface here rather than in the destructor.
  void close();
  /// Forgets the file without closing it. For a rank that fails alone (mpi::failing_alone): the
  /// collective close would wait for ranks that wait elsewhere, and the job's abort ends the rest.
  void abandon() noexcept { id_ = -1; }
  std::string const& path() const { return path_; }
  /// The name its errors give: its path, or the file it is written to replace (named).
  std::string const& name() const { return name_; }
  void named(std::string name) { name_ = std::move(name); }
  MPI_Comm communicator() const { return comm_; }

  bool exists(std::string const& object) const;
  /// The names of the links in `group`, by name; none where there is no such group.
  std::vector<std::string> members(std::string const& group) const;
  void create_group(std::string const& group);

  void set_attribute(std::string const& object, std::string const& name, std::string const& value);
  void set_attribute(std::string const& object, std::string const& name, std::int64_t value);
  void set_attribute(std::string const& object, std::string const& name, double value);
  bool has_attribute(std::string const& object, std::string const& name) const;
  std::string string_attribute(std::string const& object, std::string const& name) const;
  std::int64_t int_attribute(std::string const& object, std::string const& name) const;
  double double_attribute(std::string const& object, std::string const& name) const;

  /// A dataset's element type (an error if Herd has no name for it) and its extents.
  Type type(std::string const& dataset) const;
  std::vector<std::uint64_t> extents(std::string const& dataset) const;

  /// Creates a dataset of the given extents; a row is everything under one first index.
  void create_dataset(std::string const& dataset, Type type, std::vector<std::uint64_t> const& extents);
  /// Writes rows [first, first + count) of a dataset from `data` (count rows of the dataset's row
  /// size, in `type`); ranks with nothing to write pass count 0. Collective. Writes in the
  /// dataset's own type add to its checksum; a write that converts values leaves it none.
  void write_rows(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count, void const* data);
  /// Reads rows [first, first + count) into `data`, converting to `type`. Collective. Where the
  /// dataset has a checksum and the ranks read all of it (once between them, or each the whole),
  /// values that differ from the checksum are an error: the file was damaged.
  void read_rows(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count, void* data) const;

  /// A whole small dataset written by every rank with the same contents (rank 0's are stored).
  void write_all(std::string const& dataset, Type type, std::vector<std::uint64_t> const& extents, void const* data);

  /// Rows one write_rows call of this rank wrote in the dataset's own type, and their checksum.
  struct WrittenPart {
    std::string dataset;
    Type type;
    std::uint64_t first = 0, count = 0, checksum = 0;
  };
  /// This rank's writes in the datasets' own types, in order (the same datasets on every rank).
  std::vector<WrittenPart> const& written() const { return written_; }
  /// Reads back the `parts` a writer of this file made (its written()), each rank its own, and
  /// throws herd::mpi::CollectiveError on every rank where any read other values: data lost on
  /// the way to storage without an error (a full disk under some MPI-IO layers). Collective.
  void check_written(std::vector<WrittenPart> const& parts) const;

 private:
  File(std::string path, MPI_Comm comm, std::int64_t id) : path_(std::move(path)), name_(path_), comm_(comm), id_(id) {}
  [[noreturn]] void fail(std::string const& object, std::string const& what) const;
  void verify(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count, void const* data) const;

  std::string path_;
  std::string name_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::int64_t id_ = -1;  // hid_t, kept out of this header so that users need no HDF5 include path
  std::vector<WrittenPart> written_;
};

}  // namespace herd::io::h5
