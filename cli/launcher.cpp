#include "launcher.hpp"

#include <herd/io/output_file.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace herd::cli {

namespace {
pid_t launcher = 0;
}  // namespace

void remember_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr && std::getenv("PMI_SIZE") == nullptr &&
      std::getenv("PMIX_RANK") == nullptr)
    return;
  launcher = ::getppid();
  // A rank blocked in MPI, waiting for one that already stopped, never reaches a step boundary:
  // a watcher ends it too.
  std::thread([] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      stop_if_launcher_gone();
    }
  }).detach();
}

void stop_if_launcher_gone() {
  if (launcher == 0 || ::getppid() == launcher) return;
  std::fprintf(stderr, "herd: the MPI launcher ended; stopping without writing outputs\n");
  io::remove_remembered_temporaries();  // the outputs written but not yet put in place
  std::_Exit(1);
}

}  // namespace herd::cli
