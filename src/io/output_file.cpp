#include <herd/core/error.hpp>
#include <herd/core/utf8.hpp>
#include <herd/io/output_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace herd::io {

namespace {

std::string folder_of(std::string const& path) {
  auto const slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(std::string const& path) {
  auto const slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool names_a_descriptor_itself(std::string const& path) {
  for (char const* prefix : {"/dev/std", "/dev/fd/", "/proc/"})
    if (path.rfind(prefix, 0) == 0) return true;
  return false;
}

// The path a chain of symlinks ends at (which need not exist yet); `path` itself if it is no link.
// `through_descriptor`, if given, says whether a link of the chain names a descriptor the process
// holds (/dev/stdout, /proc/self/fd/1), whose own link leads to whatever that descriptor is.
std::string end_of_links(std::string path, bool* through_descriptor = nullptr) {
  for (int hops = 0; hops < 40; ++hops) {
    if (through_descriptor != nullptr && names_a_descriptor_itself(path)) *through_descriptor = true;
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    std::vector<char> buffer(PATH_MAX + 1);
    auto const length = ::readlink(path.c_str(), buffer.data(), PATH_MAX);
    require(length > 0, path + ": cannot read the symlink (" + std::strerror(errno) + ")");
    std::string const link(buffer.data(), static_cast<std::size_t>(length));
    if (link[0] == '/') {
      path = link;
    } else {
      path = folder_of(path);
      path += '/';
      path += link;
    }
  }
  throw Error(path + ": too many levels of symlinks");
}

std::string absolute_of(std::string const& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) return resolved;
  // A new file: its folder resolved, then its name.
  if (::realpath(folder_of(path).c_str(), resolved) != nullptr) return std::string(resolved) + "/" + name_of(path);
  return path;
}

mode_t new_file_mode() {
  mode_t const mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

void sync_folder(std::string const& path) {
  int const fd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);  // a folder that cannot be flushed (some file systems) loses nothing here
  ::close(fd);
}

bool write_all(int fd, std::string const& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    auto const n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// The temporary files this process made and has not yet put in place or removed, for the signal
// handler: fixed slots whose state is atomic, so that the handler reads only whole names (a slot
// being filled or emptied is skipped) and allocates nothing.
constexpr int temporary_slots = 32;
struct TemporarySlot {
  std::atomic<int> state{0};  // 0 free, 1 being changed, 2 holds a name
  char name[PATH_MAX] = {};
};
TemporarySlot temporaries[temporary_slots];

void remember_temporary(std::string const& name) {
  if (name.size() >= PATH_MAX) return;
  for (auto& slot : temporaries) {
    int free = 0;
    if (!slot.state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(slot.name, name.c_str(), name.size() + 1);
    slot.state.store(2);
    return;
  }
  // Every slot taken: the file is left to the process's own removal, as without a signal.
}

void forget_temporary(std::string const& name) {
  for (auto& slot : temporaries) {
    int held = 2;
    if (slot.state.load() != 2 || std::strcmp(slot.name, name.c_str()) != 0) continue;
    if (slot.state.compare_exchange_strong(held, 1)) slot.state.store(0);
  }
}

void remove_temporaries_and_end(int signal_number) {
  remove_remembered_temporaries();
  // Ended by the signal itself, so that a parent (mpiexec, a batch system) sees why.
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");

}  // namespace

OutputTarget output_target(std::string const& option, std::string const& path) {
  std::string const named = option.empty() ? path : option + " " + path;
  require(!path.empty(), (option.empty() ? std::string("an output") : option) + ": needs a file name");
  OutputTarget t;
  t.path = path;
  t.target = path;
  if (path == "-") {
    t.kind = OutputTarget::Kind::standard_output;
    return t;
  }
  struct stat info {};
  int const found = ::stat(path.c_str(), &info);
  // Only a name that does not exist yet (or a link to one) may be created; a link the kernel
  // refuses to follow (protected_symlinks) is refused here too, not followed by hand.
  require(found == 0 || errno == ENOENT, named + ": cannot write to it (" + std::strerror(errno) + ")");
  if (found == 0) {
    require(!S_ISDIR(info.st_mode), named + ": is a directory, not a file");
    // /dev/stdout and /proc/self/fd/N name a descriptor the process already holds: write to it, even
    // where it is a regular file, which renaming would leave behind unseen.
    if (!S_ISREG(info.st_mode) || names_a_descriptor(path)) {
      t.kind = OutputTarget::Kind::in_place;
      require(::access(path.c_str(), W_OK) == 0, named + ": cannot write to it (" + std::strerror(errno) + ")");
      return t;
    }
    require((info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0,
            named + ": the file is read-only; remove it or make it writable to replace it");
  }
  t.target = end_of_links(path);
  return t;
}

std::string replaced_file(std::string const& path, std::string const& named) {
  auto const target = output_target("", path);
  require(target.kind == OutputTarget::Kind::replace,
          (named.empty() ? path : named) +
              ": an HDF5 file must be a regular file (it is written beside its target and renamed into place)");
  return target.target;
}

std::string temporary_beside(std::string const& target, std::string const& named) {
  // A name the folder takes, whose own name may be as long as it allows: its temporary's is then
  // cut (before a UTF-8 character) to leave room for the suffix, and for what MPI-IO adds to it to
  // name files of its own (Open MPI's sm: "_cid-N-PID.sm", up to 29 characters).
  std::string const suffix = ".partial-XXXXXX";
  std::size_t const mpi_io_names = 32;
  auto const slash = target.rfind('/');
  std::string const folder = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  std::size_t const first = slash == std::string::npos ? 0 : slash + 1;
  long const most = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  std::size_t const room = suffix.size() + mpi_io_names;
  std::size_t const longest = most > static_cast<long>(room) ? static_cast<std::size_t>(most) : NAME_MAX;
  std::size_t keep = target.size() - first;
  if (keep + room > longest) keep = std::max(character_start(target, first + longest - room), first) - first;
  std::string name = target.substr(0, first + keep) + suffix;
  int const fd = ::mkstemp(name.data());
  require(fd >= 0, (named.empty() ? target : named) + ": cannot write the file (" + std::strerror(errno) + ")");
  ::close(fd);
  remember_temporary(name);
  return name;
}

void remove_temporary(std::string const& temporary) {
  std::remove(temporary.c_str());
  forget_temporary(temporary);
}

void share_temporary(std::string const& temporary) { remember_temporary(temporary); }

void unshare_temporary(std::string const& temporary) { forget_temporary(temporary); }

void remove_remembered_temporaries() {
  // Atomic loads and unlink alone: the signal handler above calls this too.
  for (auto& slot : temporaries)
    if (slot.state.load() == 2) ::unlink(slot.name);
}

void remove_temporaries_on_signals() {
  // SIGPIPE too: under mpiexec, a rank that writes to its standard error once mpiexec has gone ends by it.
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction current {};
    // A signal ignored (nohup) stays ignored, and a handler of the program's own stays.
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction handler {};
    handler.sa_handler = remove_temporaries_and_end;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

void replace_with(std::string const& temporary, std::string const& target) {
  struct stat info {};
  mode_t const mode = ::stat(target.c_str(), &info) == 0 ? (info.st_mode & 07777) : new_file_mode();
  if (::chmod(temporary.c_str(), mode) != 0 || std::rename(temporary.c_str(), target.c_str()) != 0) {
    std::string const why = std::strerror(errno);
    remove_temporary(temporary);
    throw Error(target + ": cannot put the written file in place (" + why + ")");
  }
  forget_temporary(temporary);
  sync_folder(target);
}

bool names_a_descriptor(std::string const& path) {
  bool through = false;
  end_of_links(path, &through);
  return through;
}

bool is_standard_output(std::string const& path) {
  struct stat mine {
  }, named{};
  return ::fstat(STDOUT_FILENO, &mine) == 0 && ::stat(path.c_str(), &named) == 0 && mine.st_dev == named.st_dev &&
         mine.st_ino == named.st_ino;
}

void write_output(OutputTarget const& t, std::string const& content) {
  using Kind = OutputTarget::Kind;
  if (t.kind != Kind::replace) {
    // The process's own standard output is written through its descriptor: opened anew, the file
    // behind it would get a second offset, and later output would overwrite this.
    bool const is_stdout = t.kind == Kind::standard_output || is_standard_output(t.path);
    int const fd = is_stdout ? STDOUT_FILENO : ::open(t.path.c_str(), O_WRONLY | O_APPEND);
    require(fd >= 0, t.path + ": cannot write to it (" + std::strerror(errno) + ")");
    bool const written = write_all(fd, content);
    int const why = errno;
    if (!is_stdout) ::close(fd);
    require(written, t.path + ": writing failed (" + std::strerror(why) + ")");
    return;
  }
  auto const written = write_beside(t, content);
  replace_with(written.temporary, written.target);
}

WrittenFile write_beside(OutputTarget const& t, std::string const& content) {
  auto const temporary = temporary_beside(t.target, t.path);
  int const fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC);
  bool const written = fd >= 0 && write_all(fd, content) && ::fsync(fd) == 0;
  int const why = errno;
  if (fd >= 0) ::close(fd);
  if (!written) {
    remove_temporary(temporary);
    throw Error(t.path + ": writing the file failed (" + std::strerror(why) + ")");
  }
  return {temporary, t.target};
}

std::optional<FileIdentity> identity_of(std::string const& path) {
  if (path.empty() || path == "-") return std::nullopt;
  FileIdentity id;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    id.device = info.st_dev;
    id.inode = info.st_ino;
    id.regular = S_ISREG(info.st_mode);
  } else {
    id.absolute = absolute_of(end_of_links(path));
  }
  return id;
}

}  // namespace herd::io
