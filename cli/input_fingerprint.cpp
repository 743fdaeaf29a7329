#include "input_fingerprint.hpp"

#include <herd/core/error.hpp>
#include <herd/graph/graph_hash.hpp>
#include <herd/mpi/collective.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <vector>

namespace herd::cli {

namespace {

// Closes a file descriptor on every way out.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Words [first, last) of the file, 8 bytes each (the last one padded with zeros), summed as
// position-keyed hashes: shares read apart add up to the whole file's sum.
std::uint64_t share_sum(std::string const& path, int fd, std::uint64_t bytes, std::uint64_t first, std::uint64_t last) {
  constexpr std::uint64_t chunk_words = std::uint64_t{1} << 17;  // 1 MiB a read
  std::vector<std::uint64_t> words(chunk_words);
  std::uint64_t sum = 0;
  for (std::uint64_t w = first; w < last; w += chunk_words) {
    std::uint64_t const count = std::min(chunk_words, last - w);
    std::uint64_t const want = std::min(count * 8, bytes - w * 8);
    words[count - 1] = 0;  // the tail's padding
    auto* const out = reinterpret_cast<char*>(words.data());
    for (std::uint64_t got = 0; got < want;) {
      auto const n = ::pread(fd, out + got, want - got, static_cast<off_t>(w * 8 + got));
      if (n < 0 && errno == EINTR) continue;
      require(n > 0, path + ": cannot be read for its fingerprint: " +
                         (n == 0 ? std::string("it ended early (changed while read?)") : std::strerror(errno)));
      got += static_cast<std::uint64_t>(n);
    }
    for (std::uint64_t k = 0; k < count; ++k) sum += Details::mix64(words[k] ^ (w + k + 1) * 0x9E3779B97F4A7C15ull);
  }
  return sum;
}

bool regular_file(std::string const& path) {
  struct stat s {};
  return ::stat(path.c_str(), &s) == 0 && S_ISREG(s.st_mode);
}

}  // namespace

std::uint64_t file_fingerprint(std::string const& path, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::uint64_t bytes[2] = {0, 0};  // the smallest and the largest size the ranks see (the second negated)
  std::uint64_t sum = mpi::collectively(comm, [&] {
    Descriptor file{::open(path.c_str(), O_RDONLY)};
    require(file.fd >= 0, path + ": cannot be opened for its fingerprint: " + std::strerror(errno));
    struct stat s {};
    require(::fstat(file.fd, &s) == 0 && S_ISREG(s.st_mode), path + ": is not a regular file");
    bytes[0] = static_cast<std::uint64_t>(s.st_size);
    std::uint64_t const words = (bytes[0] + 7) / 8;
    auto const share = [&](int r) { return words / size * r + std::min<std::uint64_t>(words % size, r); };
    return share_sum(path, file.fd, bytes[0], share(rank), share(rank + 1));
  });
  bytes[1] = ~bytes[0];
  MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_UINT64_T, MPI_MIN, comm);
  require(bytes[0] == ~bytes[1], path + ": changed while its fingerprint was taken (the ranks saw other sizes)");
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  auto const fingerprint = Details::mix64(sum ^ Details::mix64(bytes[0]));
  return fingerprint == 0 ? 1 : fingerprint;
}

void fingerprint_inputs(Options& o, MPI_Comm comm) {
  // A pipe gives its bytes once, to the run: it is not read again (and a checkpoint then keeps no
  // fingerprint, so that the resumed run must name the same path).
  auto const of = [&](std::string const& path) {
    int here = regular_file(path) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &here, 1, MPI_INT, MPI_MIN, comm);
    return here != 0 ? file_fingerprint(path, comm) : 0;
  };
  o.graph_file_hash = is_generator(o.graph) ? 0 : of(o.graph);
  o.attributes_file_hash = o.attributes.empty() ? 0 : of(o.attributes);
}

}  // namespace herd::cli
