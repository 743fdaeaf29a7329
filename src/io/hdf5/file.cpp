#include <herd/io/hdf5/file.hpp>
#include <herd/mpi/collective.hpp>

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace herd::io::h5 {

namespace {

// The deepest message on HDF5's error stack: the cause rather than the API call that reported it
// ("truncated file: eof = ...", "unable to open file", ...).
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, H5E_error2_t const* e, void* out) -> herr_t {
        if (e->desc != nullptr && *e->desc != '\0') *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason;
}

// HDF5 prints its error stack to stderr by default; Herd reports errors itself.
void silence_hdf5() {
  static bool const done = (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr), true);
  (void)done;
}

// Owns one HDF5 identifier and releases it with the matching close function.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(Id const&) = delete;
  Id& operator=(Id const&) = delete;
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// A 16-bit float type: sign at bit 15, `exponent_bits` of exponent above the mantissa.
hid_t float16_type(unsigned exponent_bits) {
  hid_t t = H5Tcopy(H5T_IEEE_F32LE);
  unsigned const mantissa_bits = 15 - exponent_bits;
  H5Tset_fields(t, 15, mantissa_bits, exponent_bits, 0, mantissa_bits);
  H5Tset_precision(t, 16);
  H5Tset_size(t, 2);
  H5Tset_ebias(t, (1u << (exponent_bits - 1)) - 1);
  return t;
}

// A new HDF5 type for `type` (closed by the caller's Id).
hid_t native(Type type) {
  switch (type) {
    case Type::u8:
      return H5Tcopy(H5T_STD_U8LE);
    case Type::u16:
      return H5Tcopy(H5T_STD_U16LE);
    case Type::u32:
      return H5Tcopy(H5T_STD_U32LE);
    case Type::u64:
      return H5Tcopy(H5T_STD_U64LE);
    case Type::i8:
      return H5Tcopy(H5T_STD_I8LE);
    case Type::i16:
      return H5Tcopy(H5T_STD_I16LE);
    case Type::i32:
      return H5Tcopy(H5T_STD_I32LE);
    case Type::i64:
      return H5Tcopy(H5T_STD_I64LE);
    case Type::f16:
      return float16_type(5);
    case Type::bf16:
      return float16_type(8);
    case Type::f32:
      return H5Tcopy(H5T_IEEE_F32LE);
    case Type::f64:
      return H5Tcopy(H5T_IEEE_F64LE);
  }
  return -1;
}

// With MPI, every rank reaches the file through MPI-IO and transfers are collective; without it
// (serial HDF5, one process) HDF5's default driver and transfers serve.
hid_t transfer_collectively() {
  hid_t const dxpl = H5Pcreate(H5P_DATASET_XFER);
#if HERD_ENABLE_MPI
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
#endif
  return dxpl;
}

hid_t access_through_mpi([[maybe_unused]] MPI_Comm comm) {
  hid_t const fapl = H5Pcreate(H5P_FILE_ACCESS);
#if HERD_ENABLE_MPI
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  // Metadata reads and writes collective too: no rank hammers the file system alone.
  H5Pset_all_coll_metadata_ops(fapl, true);
  H5Pset_coll_metadata_write(fapl, true);
#endif
  return fapl;
}

// SplitMix64's finaliser: a bijection of 64-bit integers that spreads every input bit.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
std::uint64_t sum_of(std::uint64_t first, std::uint64_t elements, void const* data) {
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < elements; ++k) {
    T value;
    std::memcpy(&value, static_cast<unsigned char const*>(data) + k * sizeof(T), sizeof(T));
    sum += mix(static_cast<std::uint64_t>(value) + mix(first + k));
  }
  return sum;
}

constexpr char const* checksum_attribute = "checksum";

}  // namespace

std::size_t size_of(Type type) {
  switch (type) {
    case Type::u8:
    case Type::i8:
      return 1;
    case Type::u16:
    case Type::i16:
    case Type::f16:
    case Type::bf16:
      return 2;
    case Type::u32:
    case Type::i32:
    case Type::f32:
      return 4;
    case Type::u64:
    case Type::i64:
    case Type::f64:
      return 8;
  }
  return 0;
}

std::string to_string(Type type) {
  switch (type) {
    case Type::u8:
      return "uint8";
    case Type::u16:
      return "uint16";
    case Type::u32:
      return "uint32";
    case Type::u64:
      return "uint64";
    case Type::i8:
      return "int8";
    case Type::i16:
      return "int16";
    case Type::i32:
      return "int32";
    case Type::i64:
      return "int64";
    case Type::f16:
      return "float16";
    case Type::bf16:
      return "bfloat16";
    case Type::f32:
      return "float32";
    case Type::f64:
      return "float64";
  }
  return "unknown";
}

bool is_floating(Type type) {
  return type == Type::f16 || type == Type::bf16 || type == Type::f32 || type == Type::f64;
}

bool is_signed(Type type) { return type == Type::i8 || type == Type::i16 || type == Type::i32 || type == Type::i64; }

std::uint64_t checksum(Type type, std::uint64_t first, std::uint64_t elements, void const* data) {
  switch (type) {
    case Type::u8:
      return sum_of<std::uint8_t>(first, elements, data);
    case Type::u16:
    case Type::f16:
    case Type::bf16:
      return sum_of<std::uint16_t>(first, elements, data);
    case Type::u32:
    case Type::f32:
      return sum_of<std::uint32_t>(first, elements, data);
    case Type::u64:
    case Type::f64:
      return sum_of<std::uint64_t>(first, elements, data);
    case Type::i8:
      return sum_of<std::int8_t>(first, elements, data);
    case Type::i16:
      return sum_of<std::int16_t>(first, elements, data);
    case Type::i32:
      return sum_of<std::int32_t>(first, elements, data);
    case Type::i64:
      return sum_of<std::int64_t>(first, elements, data);
  }
  return 0;
}

File File::create(std::string const& path, MPI_Comm comm) {
  silence_hdf5();
  Id fapl(access_through_mpi(comm), H5Pclose);
  hid_t const id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (id < 0) throw Error(path + ": cannot create the file (" + hdf5_reason() + ")");
  return File(path, comm, id);
}

namespace {
hid_t open_file(std::string const& path, MPI_Comm comm, unsigned access) {
  // MPI-IO would name a folder or a pipe in its own words (a FIFO also prints from lseek).
  // So would a missing file ("MPI_ERR_NO_SUCH_FILE"): its reason is the system's, as for text
  // files. The ranks agree on what they found first, since the open is collective and a path local
  // to each node may exist on some of them only: the largest code wins (0: a regular file, 1: a
  // directory, 2: another kind, 2 + errno: none found).
  if (path.empty()) throw Error("an HDF5 file's name is empty");
  struct stat info {};
  int found = ::stat(path.c_str(), &info) != 0 ? 2 + errno : S_ISREG(info.st_mode) ? 0 : S_ISDIR(info.st_mode) ? 1 : 2;
  MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_MAX, comm);
  if (found == 1) throw Error(path + ": is a directory, not an HDF5 file");
  if (found == 2) throw Error(path + ": is not a regular file (a pipe or a device), as HDF5 files must be");
  if (found > 2) throw Error(path + ": cannot open the file (" + std::strerror(found - 2) + ")");
  silence_hdf5();
  Id fapl(access_through_mpi(comm), H5Pclose);
  hid_t const id = H5Fopen(path.c_str(), access, fapl.get());
  if (id < 0) {
    std::string const reason = hdf5_reason();
    throw Error(path + ": not a " + (access == H5F_ACC_RDWR ? "writable" : "readable") + " HDF5 file (" +
                (reason.empty() ? "unknown reason" : reason) + ")");
  }
  return id;
}
}  // namespace

File File::open(std::string const& path, MPI_Comm comm) {
  return File(path, comm, open_file(path, comm, H5F_ACC_RDONLY));
}

File File::open_to_write(std::string const& path, MPI_Comm comm) {
  return File(path, comm, open_file(path, comm, H5F_ACC_RDWR));
}

namespace {
std::atomic<bool> a_close_failed{false};

// Closes a file id; false if closing failed (its last writes did not reach storage).
bool close_file(hid_t id) {
  if (H5Fclose(id) >= 0) return true;
  a_close_failed = true;
  return false;
}
}  // namespace

bool close_failed() { return a_close_failed; }

File::File(File&& other) noexcept
    : path_(std::move(other.path_)),
      name_(std::move(other.name_)),
      comm_(other.comm_),
      id_(std::exchange(other.id_, -1)),
      written_(std::move(other.written_)) {}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0) close_file(id_);
    path_ = std::move(other.path_);
    name_ = std::move(other.name_);
    comm_ = other.comm_;
    id_ = std::exchange(other.id_, -1);
    written_ = std::move(other.written_);
  }
  return *this;
}

File::~File() {
  // A rank failing alone would wait in the collective close for ranks that wait elsewhere: the
  // file is left to the job's abort.
  if (id_ >= 0 && !mpi::failing_alone(comm_)) close_file(id_);
}

void File::close() {
  if (id_ < 0) return;
  hid_t const id = std::exchange(id_, -1);
  bool const flushed = H5Fflush(id, H5F_SCOPE_GLOBAL) >= 0;
  std::string const reason = flushed ? "" : hdf5_reason();
  // Over ranks, a rank whose flush failed has left HDF5 1.10's collective steps out of turn (a
  // full disk): the others wait in them, and this rank's close would wait elsewhere.
  bool const ranks = mpi::size_of(comm_) > 1;
  bool const closed = (flushed || !ranks) && close_file(id);
  if (flushed && closed) return;
  std::string const message = name_ + ": writing the file failed (" + (flushed ? hdf5_reason() : reason) + ")";
  if (ranks) throw mpi::StrandedError(message);
  throw Error(message);
}

namespace {
// "path: object: what (HDF5's reason)", the reason taken from HDF5's error stack.
std::string failure_text(std::string const& path, std::string const& object, std::string const& what) {
  std::string const reason = hdf5_reason();
  return path + ": " + object + ": " + what + (reason.empty() ? "" : " (" + reason + ")");
}
}  // namespace

void File::fail(std::string const& object, std::string const& what) const {
  throw Error(failure_text(name_, object, what));
}

bool File::exists(std::string const& object) const {
  // Each component must exist before the next may be asked about.
  std::size_t pos = 0;
  while ((pos = object.find('/', pos + 1)) != std::string::npos) {
    if (H5Lexists(id_, object.substr(0, pos).c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return object == "/" || H5Lexists(id_, object.c_str(), H5P_DEFAULT) > 0;
}

std::vector<std::string> File::members(std::string const& group) const {
  std::vector<std::string> names;
  if (!exists(group)) return names;
  // By index rather than H5Literate, whose callback's types differ between HDF5 1.10 and 1.12.
  H5G_info_t info;
  if (H5Gget_info_by_name(id_, group.c_str(), &info, H5P_DEFAULT) < 0) fail(group, "cannot list the group's members");
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    ssize_t const size = H5Lget_name_by_idx(id_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    if (size < 0) fail(group, "cannot list the group's members");
    std::string name(static_cast<std::size_t>(size) + 1, '\0');
    if (H5Lget_name_by_idx(id_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT) <
        0)
      fail(group, "cannot list the group's members");
    name.resize(static_cast<std::size_t>(size));
    names.push_back(std::move(name));
  }
  return names;
}

bool File::has_attribute(std::string const& object, std::string const& name) const {
  return exists(object) && H5Aexists_by_name(id_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

void File::create_group(std::string const& group) {
  // The groups above it too, where missing (a snapshot's group before its parent).
  Id links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  if (!links.valid() || H5Pset_create_intermediate_group(links.get(), 1) < 0)
    fail(group, "cannot create the group (link properties)");
  Id g(H5Gcreate2(id_, group.c_str(), links.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!g.valid()) fail(group, "cannot create the group");
}

namespace {

void put_attribute(hid_t file, std::string const& object, std::string const& name, hid_t type, void const* value,
                   std::string const& path) {
  Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  if (H5Aexists(obj.get(), name.c_str()) > 0) H5Adelete(obj.get(), name.c_str());
  Id attr(H5Acreate2(obj.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!obj.valid() || !attr.valid() || H5Awrite(attr.get(), type, value) < 0)
    throw Error(path + ": " + object + ": cannot write the attribute '" + name + "' (" + hdf5_reason() + ")");
}

}  // namespace

void File::set_attribute(std::string const& object, std::string const& name, std::string const& value) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.empty() ? 1 : value.size());
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  put_attribute(id_, object, name, type.get(), value.empty() ? "" : value.data(), name_);
}

void File::set_attribute(std::string const& object, std::string const& name, std::int64_t value) {
  put_attribute(id_, object, name, H5T_NATIVE_INT64, &value, name_);
}

void File::set_attribute(std::string const& object, std::string const& name, double value) {
  put_attribute(id_, object, name, H5T_NATIVE_DOUBLE, &value, name_);
}

namespace {

// Opens attribute `name` of `object`, or throws naming what is missing.
hid_t open_attribute(hid_t file, std::string const& path, std::string const& object, std::string const& name,
                     H5T_class_t expected, char const* expected_name) {
  Id obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.valid() || H5Aexists(obj.get(), name.c_str()) <= 0) {
    hdf5_reason();
    throw Error(path + ": " + object + ": the attribute '" + name + "' is missing");
  }
  hid_t const attr = H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT);
  Id type(H5Aget_type(attr), H5Tclose);
  Id space(H5Aget_space(attr), H5Sclose);
  if (H5Tget_class(type.get()) != expected || H5Sget_simple_extent_npoints(space.get()) != 1) {
    H5Aclose(attr);
    throw Error(path + ": " + object + ": the attribute '" + name + "' is not a single " + expected_name);
  }
  return attr;
}

}  // namespace

std::string File::string_attribute(std::string const& object, std::string const& name) const {
  Id attr(open_attribute(id_, name_, object, name, H5T_STRING, "string"), H5Aclose);
  Id type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tis_variable_str(type.get()) > 0) {
    // Written by other tools (h5py writes variable-length strings).
    char* text = nullptr;
    Id memtype(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memtype.get(), H5T_VARIABLE);
    H5Tset_cset(memtype.get(), H5Tget_cset(type.get()));  // HDF5 converts no ASCII <-> UTF-8
    if (H5Aread(attr.get(), memtype.get(), &text) < 0) fail(object, "cannot read the attribute '" + name + "'");
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) fail(object, "cannot read the attribute '" + name + "'");
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return value;
}

std::int64_t File::int_attribute(std::string const& object, std::string const& name) const {
  Id attr(open_attribute(id_, name_, object, name, H5T_INTEGER, "integer"), H5Aclose);
  std::int64_t value = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &value) < 0) fail(object, "cannot read the attribute '" + name + "'");
  return value;
}

double File::double_attribute(std::string const& object, std::string const& name) const {
  Id attr(open_attribute(id_, name_, object, name, H5T_FLOAT, "floating-point number"), H5Aclose);
  double value = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0) fail(object, "cannot read the attribute '" + name + "'");
  return value;
}

namespace {

hid_t open_dataset(hid_t file, std::string const& path, std::string const& dataset) {
  hid_t const d = H5Lexists(file, dataset.c_str(), H5P_DEFAULT) > 0 ? H5Dopen2(file, dataset.c_str(), H5P_DEFAULT) : -1;
  if (d < 0) {
    hdf5_reason();
    throw Error(path + ": the dataset " + dataset + " is missing");
  }
  return d;
}

}  // namespace

Type File::type(std::string const& dataset) const {
  Id d(open_dataset(id_, name_, dataset), H5Dclose);
  Id t(H5Dget_type(d.get()), H5Tclose);
  std::size_t const size = H5Tget_size(t.get());
  H5T_class_t const kind = H5Tget_class(t.get());
  if (kind == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
    bool const is_signed = H5Tget_sign(t.get()) == H5T_SGN_2;
    Type const u[] = {Type::u8, Type::u16, Type::u32, Type::u64};
    Type const s[] = {Type::i8, Type::i16, Type::i32, Type::i64};
    int const k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return is_signed ? s[k] : u[k];
  }
  if (kind == H5T_FLOAT) {
    if (size == 4) return Type::f32;
    if (size == 8) return Type::f64;
    if (size == 2) {
      std::size_t spos, epos, esize, mpos, msize;
      H5Tget_fields(t.get(), &spos, &epos, &esize, &mpos, &msize);
      if (esize == 5 && msize == 10) return Type::f16;
      if (esize == 8 && msize == 7) return Type::bf16;
    }
  }
  throw Error(name_ + ": " + dataset + ": element type (HDF5 class " + std::to_string(static_cast<int>(kind)) + ", " +
              std::to_string(size) + " bytes) is not one Herd stores");
}

std::vector<std::uint64_t> File::extents(std::string const& dataset) const {
  Id d(open_dataset(id_, name_, dataset), H5Dclose);
  Id space(H5Dget_space(d.get()), H5Sclose);
  int const rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(dataset, "cannot read the dataset's shape");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

void File::create_dataset(std::string const& dataset, Type type, std::vector<std::uint64_t> const& extents) {
  std::vector<hsize_t> dims(extents.begin(), extents.end());
  Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Id t(native(type), H5Tclose);
  // Contiguous and uncompressed: ranks write disjoint blocks straight through MPI-IO, and
  // parallel HDF5 1.10 compresses only with collective chunk writes that would cost far more time.
  Id d(H5Dcreate2(id_, dataset.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!d.valid()) fail(dataset, "cannot create the dataset");
}

namespace {

// Selects rows [first, first + count) of a dataset (of any rank) in `file_space` and returns
// the matching memory space (an empty selection where count is 0).
hid_t select_rows(hid_t file_space, std::uint64_t first, std::uint64_t count, std::string const& path,
                  std::string const& name) {
  int const rank = H5Sget_simple_extent_ndims(file_space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank > 0 ? rank : 1), 1);
  H5Sget_simple_extent_dims(file_space, dims.data(), nullptr);
  if (first + count > dims[0])
    throw Error(path + ": " + name + ": rows " + std::to_string(first) + " to " + std::to_string(first + count) +
                " asked of a dataset of " + std::to_string(dims[0]) + " rows");
  std::vector<hsize_t> start(dims.size(), 0), extent = dims;
  start[0] = first;
  extent[0] = count;
  if (count == 0) {
    H5Sselect_none(file_space);
    std::vector<hsize_t> one(dims.size(), 1);
    hid_t const memory = H5Screate_simple(static_cast<int>(one.size()), one.data(), nullptr);
    H5Sselect_none(memory);
    return memory;
  }
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr);
  return H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr);
}

}  // namespace

namespace {

// Elements in one row of a dataset (the product of its extents after the first).
std::uint64_t row_size(std::vector<std::uint64_t> const& extents) {
  std::uint64_t size = 1;
  for (std::size_t k = 1; k < extents.size(); ++k) size *= extents[k];
  return size;
}

// Whether every value of `stored` reads as itself in `memory`, so that a checksum of the values
// read is the checksum of the values stored.
bool reads_exactly(Type memory, Type stored) {
  if (is_floating(memory) || is_floating(stored)) return memory == stored;
  if (is_signed(stored) && !is_signed(memory)) return false;
  return size_of(memory) > size_of(stored) ||
         (size_of(memory) == size_of(stored) && is_signed(memory) == is_signed(stored));
}

// The sum over every rank, modulo 2^64.
std::uint64_t sum_over(MPI_Comm comm, std::uint64_t value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_SUM, comm);
  return value;
}

}  // namespace

void File::write_rows(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count,
                      void const* data) {
  Id d(open_dataset(id_, name_, dataset), H5Dclose);
  Id file_space(H5Dget_space(d.get()), H5Sclose);
  Id memory_space(select_rows(file_space.get(), first, count, name_, dataset), H5Sclose);
  Id t(native(type), H5Tclose);
  // Each rank writes its own block of rows, one contiguous range: alone, so that a rank whose
  // write fails (a full disk) returns, where a collective write left ROMIO's other ranks waiting
  // in it for good and OMPIO's aggregators losing data without an error.
  Id dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
#if HERD_ENABLE_MPI
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_INDEPENDENT);
#endif
  // A rank whose part failed (its disk full) must not leave the others in the checksum's sum:
  // every rank throws.
  std::string failure;
  // A dataset of no values has no storage, and HDF5 refuses even an empty write to it (the same
  // on every rank: the extents are the file's).
  bool const holds_values = H5Sget_simple_extent_npoints(file_space.get()) > 0;
  if (holds_values && H5Dwrite(d.get(), t.get(), memory_space.get(), file_space.get(), dxpl.get(), data) < 0)
    failure = failure_text(name_, dataset, "writing failed");
  mpi::raise_if_any_failed(comm_, failure);
  // Every write adds its rows to the stored sum, so a dataset written in parts gets the whole one.
  // Values converted on the way have another sum than those stored: such a dataset gets none.
  bool const had = has_attribute(dataset, checksum_attribute);
  if (type != this->type(dataset)) {
    if (had) H5Adelete_by_name(id_, dataset.c_str(), checksum_attribute, H5P_DEFAULT);
    return;
  }
  auto const row = row_size(extents(dataset));
  auto const mine = checksum(type, first * row, count * row, data);
  written_.push_back({dataset, type, first, count, mine});
  auto const written = sum_over(comm_, mine);
  auto const before = had ? int_attribute(dataset, checksum_attribute) : 0;
  set_attribute(dataset, checksum_attribute, static_cast<std::int64_t>(static_cast<std::uint64_t>(before) + written));
}

void File::check_written(std::vector<WrittenPart> const& parts) const {
  // In rounds of at most 64 MiB a rank, read collectively: every rank takes part in every round,
  // with no rows once its own are read or once it failed (whatever failed: a rank leaving the
  // rounds early would leave the others in them).
  constexpr std::uint64_t round_bytes = std::uint64_t{64} << 20;
  std::string failure;
  std::vector<unsigned char> values(1);
  for (auto const& part : parts) {
    Id d(open_dataset(id_, name_, part.dataset), H5Dclose);
    Id t(native(part.type), H5Tclose);
    Id dxpl(transfer_collectively(), H5Pclose);
    Id whole(H5Dget_space(d.get()), H5Sclose);
    // As in write_rows: a dataset of no values has no storage to read (the same on every rank).
    if (H5Sget_simple_extent_npoints(whole.get()) <= 0) continue;
    // The row size from the dataspace at hand: extents() would open the dataset again.
    int const ranks = H5Sget_simple_extent_ndims(whole.get());
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(ranks, 1)), 1);
    H5Sget_simple_extent_dims(whole.get(), dims.data(), nullptr);
    std::uint64_t const row = row_size(std::vector<std::uint64_t>(dims.begin(), dims.end()));
    std::uint64_t const row_bytes = row * size_of(part.type);
    std::uint64_t const rows_a_round = std::max<std::uint64_t>(1, round_bytes / std::max<std::uint64_t>(row_bytes, 1));
    std::uint64_t rounds = (part.count + rows_a_round - 1) / rows_a_round;
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_UINT64_T, MPI_MAX, comm_);
    std::uint64_t sum = 0;
    for (std::uint64_t k = 0; k < rounds; ++k) {
      std::uint64_t const first = std::min(part.first + k * rows_a_round, part.first + part.count);
      std::uint64_t count = failure.empty() ? std::min(rows_a_round, part.first + part.count - first) : 0;
      Id file_space(H5Dget_space(d.get()), H5Sclose);
      hid_t memory = -1;
      try {
        if (values.size() < count * row_bytes) values.resize(static_cast<std::size_t>(count * row_bytes));
        memory = select_rows(file_space.get(), first, count, name_, part.dataset);
      } catch (std::exception const& e) {
        failure = name_ + ": " + part.dataset + ": reading back what was written failed (" + e.what() + ")";
        count = 0;
        memory = select_rows(file_space.get(), part.first, 0, name_, part.dataset);
      }
      Id memory_space(memory, H5Sclose);
      if (H5Dread(d.get(), t.get(), memory_space.get(), file_space.get(), dxpl.get(), values.data()) < 0) {
        if (failure.empty()) failure = failure_text(name_, part.dataset, "reading back what was written failed");
      } else if (count > 0) {
        sum += checksum(part.type, first * row, count * row, values.data());
      }
    }
    if (failure.empty() && sum != part.checksum)
      failure = name_ + ": " + part.dataset +
                ": the values read back differ from those written: they were lost on the way to storage (is the "
                "disk full?)";
  }
  mpi::raise_if_any_failed(comm_, failure);
}

void File::read_rows(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count,
                     void* data) const {
  Id d(open_dataset(id_, name_, dataset), H5Dclose);
  Id file_space(H5Dget_space(d.get()), H5Sclose);
  Id memory_space(select_rows(file_space.get(), first, count, name_, dataset), H5Sclose);
  Id t(native(type), H5Tclose);
  Id dxpl(transfer_collectively(), H5Pclose);
#if HERD_ENABLE_MPI
  // A dataset whose storage was never written in full (another tool's, with a fill value): HDF5
  // 1.10 then skips its collective read on ranks that select rows but not on ranks that select
  // none, and the ranks wait on each other for good. Read alone, it gives the fill value. The
  // status is the file's, the same on every rank.
  H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
  if (H5Dget_space_status(d.get(), &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED)
    H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_INDEPENDENT);
#endif
  if (H5Dread(d.get(), t.get(), memory_space.get(), file_space.get(), dxpl.get(), data) < 0)
    fail(dataset, "reading failed (the file may be truncated or corrupted)");
  verify(dataset, type, first, count, data);
}

void File::verify(std::string const& dataset, Type type, std::uint64_t first, std::uint64_t count,
                  void const* data) const {
  // Files from other tools carry no checksum, and a read that converts values cannot be checked.
  if (!has_attribute(dataset, checksum_attribute) || !reads_exactly(type, this->type(dataset))) return;
  auto const shape = extents(dataset);
  auto const row = row_size(shape);
  auto const all = shape.at(0) * row;
  auto const mine = checksum(type, first * row, count * row, data);
  // Ranks either read the dataset once between them, or each read all of it (then each checks its
  // own sum); any other read cannot be checked.
  std::uint64_t totals[2] = {mine, count * row};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_UINT64_T, MPI_SUM, comm_);
  int whole = count * row == all ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT, MPI_MIN, comm_);
  if (whole == 0 && totals[1] != all) return;
  auto const stored = static_cast<std::uint64_t>(int_attribute(dataset, checksum_attribute));
  if ((whole == 1 ? mine : totals[0]) != stored)
    throw Error(name_ + ": " + dataset +
                ": the values differ from the dataset's stored checksum: the file is damaged (a file edited by "
                "another tool must have the dataset's '" +
                checksum_attribute + "' attribute removed or recomputed)");
}

void File::write_all(std::string const& dataset, Type type, std::vector<std::uint64_t> const& extents,
                     void const* data) {
  create_dataset(dataset, type, extents);
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  write_rows(dataset, type, 0, rank == 0 ? extents.at(0) : 0, data);
}

}  // namespace herd::io::h5
