#include "launcher.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace herd::cli {

namespace {
pid_t launcher = 0;
}  // namespace

void remember_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
      std::getenv("PMIX_RANK") != nullptr)
    launcher = ::getppid();
}

void stop_if_launcher_gone() {
  if (launcher == 0 || ::getppid() == launcher) return;
  std::fprintf(stderr, "herd: the MPI launcher ended; stopping without writing outputs\n");
  std::_Exit(1);
}

}  // namespace herd::cli
