# Spack recipe for Herd.
#
#   spack repo add ./spack
#   spack install herd +openmp                       # CPUs
#   spack install herd +cuda cuda_arch=90            # NVIDIA H100
#   spack install herd +rocm amdgpu_target=gfx90a    # AMD MI250X
#   spack install --test=root herd +openmp           # also builds and runs the test suite
#
# The GPU architecture chosen for Herd is passed down to Kokkos (and Kokkos Kernels): device
# code in Herd's headers is compiled by the user's compiler for the architecture Kokkos was built
# for, so the two must agree.

from spack.package import *


class Herd(CMakePackage, CudaPackage, ROCmPackage):
    """Herd: agent-based simulation on contact networks at the speed of the memory system, on
    CUDA, HIP and OpenMP through Kokkos, with bitwise-identical results for a given seed on every
    backend, thread count and rank count."""

    homepage = "https://github.com/herd-abm/herd"
    git = "https://github.com/herd-abm/herd.git"

    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("openmp", default=True, description="Run on CPU threads through Kokkos' OpenMP backend")
    variant("kokkos_kernels", default=True,
            description="Kokkos Kernels: RCM locality reordering and the reference SpMV benchmark")
    variant("mpi", default=False, description="Link MPI for distributed simulations")
    variant("metis", default=False, description="Partition graphs with METIS for distributed runs")
    variant("ptscotch", default=False,
            description="Partition distributed graphs with PT-Scotch, no rank holding the whole graph (needs +mpi)")
    variant("parmetis", default=False,
            description="Partition distributed graphs with ParMETIS, no rank holding the whole graph (needs +mpi)")
    variant("gpu_aware_mpi", default=False,
            description="Hand device buffers to MPI by default (needs an MPI built with GPU support)")
    variant("hdf5", default=False,
            description="HDF5 for populations, outputs and checkpoints (parallel with +mpi, serial without)")
    variant("strict_fp", default=True,
            description="No fused multiply-add contraction, so results are the same bits on every backend")
    variant("benchmarks", default=False, description="Build the Google Benchmark suite")

    depends_on("cxx", type="build")
    # FindHDF5 probes HDF5's C compiler wrapper: Herd's build, and HerdConfig.cmake, enable C.
    depends_on("c", type="build", when="+hdf5")
    depends_on("cmake@3.16:", type="build")

    depends_on("kokkos@3.4:")
    depends_on("kokkos+openmp", when="+openmp")
    # ~openmp means no OpenMP at all: Kokkos' host backend is then Serial.
    depends_on("kokkos~openmp", when="~openmp")
    # Herd's step kernels are device lambdas.
    depends_on("kokkos+cuda+cuda_lambda", when="+cuda")
    depends_on("kokkos+rocm", when="+rocm")
    depends_on("kokkos-kernels@3.4:", when="+kokkos_kernels")
    depends_on("kokkos-kernels+openmp", when="+kokkos_kernels+openmp")
    depends_on("kokkos-kernels~openmp", when="+kokkos_kernels~openmp")
    depends_on("kokkos-kernels+cuda", when="+kokkos_kernels+cuda")
    depends_on("kokkos-kernels+rocm", when="+kokkos_kernels+rocm")
    for _arch in CudaPackage.cuda_arch_values:
        _gpu = f"+cuda cuda_arch={_arch}"
        depends_on(f"kokkos{_gpu}", when=_gpu)
        depends_on(f"kokkos-kernels{_gpu}", when=f"+kokkos_kernels{_gpu}")
    for _target in ROCmPackage.amdgpu_targets:
        _gpu = f"+rocm amdgpu_target={_target}"
        depends_on(f"kokkos{_gpu}", when=_gpu)
        depends_on(f"kokkos-kernels{_gpu}", when=f"+kokkos_kernels{_gpu}")

    depends_on("mpi", when="+mpi")
    depends_on("metis@5:", when="+metis")
    depends_on("scotch@7:+mpi", when="+ptscotch")  # SCOTCH_Context came with 7.0
    conflicts("+ptscotch", when="~mpi", msg="PT-Scotch partitions graphs distributed over MPI ranks")
    depends_on("parmetis", when="+parmetis")
    conflicts("+parmetis", when="~mpi", msg="ParMETIS partitions graphs distributed over MPI ranks")
    # Ranks write one file through MPI-IO; one process (a laptop) uses serial HDF5.
    depends_on("hdf5+mpi", when="+hdf5+mpi")
    depends_on("hdf5~mpi", when="+hdf5~mpi")
    # The herd command reads its options with CLI11 and writes its reports with nlohmann/json
    # (header-only; the library uses neither).
    depends_on("cli11@2.1:", type="build")
    depends_on("nlohmann-json@3.9:", type="build")
    depends_on("benchmark@1.5:", when="+benchmarks")
    depends_on("googletest@1.10:", type="test")
    depends_on("python@3.6:", type="test")
    # The tests of the plotting scripts and of the HDF5 files read them with these.
    depends_on("py-matplotlib", type="test")
    depends_on("py-numpy", type="test")
    depends_on("py-h5py", type="test", when="+hdf5")

    conflicts("+cuda", when="+rocm", msg="Herd is built for one GPU backend at a time")
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a cuda_arch, e.g. cuda_arch=90")
    conflicts("+rocm", when="amdgpu_target=none", msg="+rocm needs an amdgpu_target, e.g. amdgpu_target=gfx90a")
    conflicts("+gpu_aware_mpi", when="~mpi", msg="+gpu_aware_mpi is a setting of MPI runs: it needs +mpi")

    def _toolchain_args(self):
        """Compiler and Kokkos prefixes: the same for Herd's build and for code built against it."""
        spec = self.spec
        if spec.satisfies("+rocm"):
            cxx = spec["hip"].hipcc
        else:
            # nvcc_wrapper for CUDA builds, the Kokkos build's own compiler otherwise.
            cxx = spec["kokkos"].kokkos_cxx
        args = [self.define("CMAKE_CXX_COMPILER", cxx), self.define("Kokkos_ROOT", spec["kokkos"].prefix)]
        if spec.satisfies("+kokkos_kernels"):
            args.append(self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix))
        return args

    def cmake_args(self):
        spec = self.spec
        args = self._toolchain_args() + [
            self.define_from_variant("Herd_ENABLE_KOKKOSKERNELS", "kokkos_kernels"),
            self.define_from_variant("Herd_ENABLE_MPI", "mpi"),
            self.define_from_variant("Herd_ENABLE_METIS", "metis"),
            self.define_from_variant("Herd_ENABLE_PTSCOTCH", "ptscotch"),
            self.define_from_variant("Herd_ENABLE_PARMETIS", "parmetis"),
            self.define_from_variant("Herd_MPI_DEVICE_BUFFERS", "gpu_aware_mpi"),
            self.define_from_variant("Herd_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("Herd_STRICT_FLOATING_POINT", "strict_fp"),
            # Spack's target flags (-march= the spec's target) choose the CPU, F16C included where
            # it has it; Herd's own guess would look at the building node's CPU instead.
            self.define("Herd_ENABLE_F16C", "OFF"),
            self.define_from_variant("Herd_ENABLE_BENCHMARKS", "benchmarks"),
            self.define("Herd_ENABLE_TESTS", self.run_tests),
            self.define("Herd_ENABLE_EXAMPLES", False),
        ]
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx))
        return args

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed(self):
        """Builds examples/sis_model against the installed tree with find_package(Herd), as a
        downstream code would, and runs it where it can run: a GPU build is only compiled, since
        the build node need not have the GPU. The unit tests ran in the build's check phase."""
        source = join_path(self.stage.source_path, "examples", "sis_model")
        with working_dir(join_path(self.build_directory, "installed-example"), create=True):
            cmake = Executable(self.spec["cmake"].prefix.bin.cmake)
            cmake(source, f"-DHerd_ROOT={self.prefix}", *self._toolchain_args())
            cmake("--build", ".")
            if not self.spec.satisfies("+cuda") and not self.spec.satisfies("+rocm"):
                Executable(join_path(".", "sis"))()
