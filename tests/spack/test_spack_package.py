"""Checks spack/packages/herd/package.py without Spack: loads it with stand-ins for Spack's base
classes and directives (spack_standins.py), then checks, for each variant combination users
install, the Kokkos configuration the recipe requires, the conflicts it declares and the CMake
arguments it passes to Herd's build.

    python3 test_spack_package.py                     # the checks
    python3 test_spack_package.py --print-args SPEC   # CMake arguments for SPEC, one per line,
                                                      # with this machine's Kokkos (Kokkos_ROOT...)
"""

import importlib.util
import os
import re
import shutil
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import spack_standins as spack  # noqa: E402

spack.install()
_loader = importlib.util.spec_from_file_location("herd_recipe", os.path.join(ROOT, "spack", "packages", "herd",
                                                                              "package.py"))
recipe = importlib.util.module_from_spec(_loader)
_loader.loader.exec_module(recipe)
Herd = recipe.Herd


def variants():
    return {args[0]: kwargs.get("default") for kind, args, kwargs in Herd.directives if kind == "variant"}


def concretize(text="", prefixes=None, cxx="/usr/bin/g++", mpicxx="/opt/mpi/bin/mpicxx"):
    """A concrete spec for `herd <text>`: the recipe's defaults overridden by `text`."""
    prefixes = prefixes or {}
    values = variants()
    _, chosen = spack.parse(text)
    for key, value in chosen.items():
        if key not in values:
            raise spack.SpecError(f"herd has no variant {key!r}")
        values[key] = value
    kokkos_cxx = "/opt/kokkos/bin/nvcc_wrapper" if values["cuda"] else cxx
    deps = {
        "kokkos": spack.Dependency("kokkos", prefixes.get("kokkos", "/opt/kokkos"), kokkos_cxx=kokkos_cxx),
        "kokkos-kernels": spack.Dependency("kokkos-kernels", prefixes.get("kokkos-kernels", "/opt/kokkos-kernels")),
        "hip": spack.Dependency("hip", "/opt/rocm", hipcc="/opt/rocm/bin/hipcc"),
        "mpi": spack.Dependency("mpi", os.path.dirname(os.path.dirname(mpicxx)), mpicxx=mpicxx),
        "cmake": spack.Dependency("cmake", "/opt/cmake"),
    }
    return spack.Spec(values, deps)


def dependencies(spec, deptype=None):
    """{package: merged constraints} of the depends_on directives active for `spec`."""
    merged = {}
    for kind, args, kwargs in Herd.directives:
        if kind != "depends_on" or not spec.satisfies(kwargs.get("when", "")):
            continue
        if deptype and deptype not in str(kwargs.get("type", ("build", "link"))):
            continue
        package, constraints = spack.parse(args[0])
        for key, value in constraints.items():
            previous = merged.setdefault(package, {}).get(key)
            if previous is not None and previous != value and key != "@":
                raise AssertionError(f"{package}: {key} required as both {previous} and {value}")
            merged[package][key] = value
        merged.setdefault(package, {})
    return merged


def conflicts(spec):
    found = []
    for kind, args, kwargs in Herd.directives:
        if kind == "conflicts" and spec.satisfies(args[0]) and spec.satisfies(kwargs.get("when", "")):
            found.append(kwargs.get("msg", args[0]))
    return found


def cmake_args(spec, run_tests=False):
    return Herd(spec, run_tests=run_tests).cmake_args()


def arg(args, name):
    for a in args:
        match = re.match(rf"-D{re.escape(name)}:(BOOL|STRING)=(.*)$", a)
        if match:
            return match.group(2)
    raise AssertionError(f"-D{name} not among {args}")


class Recipe(unittest.TestCase):
    def test_default_is_openmp_with_kokkos_kernels(self):
        spec = concretize()
        self.assertEqual(conflicts(spec), [])
        deps = dependencies(spec)
        self.assertTrue(deps["kokkos"]["openmp"])
        self.assertEqual(deps["kokkos"]["@"], "3.4:")
        self.assertTrue(deps["kokkos-kernels"]["openmp"])
        self.assertNotIn("mpi", deps)
        self.assertNotIn("hdf5", deps)
        args = cmake_args(spec)
        self.assertEqual(arg(args, "CMAKE_CXX_COMPILER"), "/usr/bin/g++")
        self.assertEqual(arg(args, "Kokkos_ROOT"), "/opt/kokkos")
        self.assertEqual(arg(args, "KokkosKernels_ROOT"), "/opt/kokkos-kernels")
        self.assertEqual(arg(args, "Herd_ENABLE_KOKKOSKERNELS"), "ON")
        self.assertEqual(arg(args, "Herd_ENABLE_MPI"), "OFF")
        self.assertEqual(arg(args, "Herd_ENABLE_HDF5"), "OFF")
        self.assertEqual(arg(args, "Herd_ENABLE_TESTS"), "OFF")
        self.assertEqual(arg(args, "Herd_STRICT_FLOATING_POINT"), "ON")
        self.assertEqual(arg(args, "Herd_ENABLE_F16C"), "OFF", "spack's target flags choose the CPU")

    def test_cuda_arch_reaches_kokkos_and_kokkos_kernels(self):
        for arch in ("80", "90"):
            spec = concretize(f"+cuda cuda_arch={arch} ~openmp")
            self.assertEqual(conflicts(spec), [])
            deps = dependencies(spec)
            self.assertEqual(deps["kokkos"]["cuda_arch"], arch)
            self.assertTrue(deps["kokkos"]["cuda"])
            self.assertTrue(deps["kokkos"]["cuda_lambda"], "step kernels are device lambdas")
            self.assertFalse(deps["kokkos"]["openmp"], "~openmp turns Kokkos' OpenMP off")
            self.assertFalse(deps["kokkos-kernels"]["openmp"])
            self.assertEqual(deps["kokkos-kernels"]["cuda_arch"], arch)
            self.assertEqual(arg(cmake_args(spec), "CMAKE_CXX_COMPILER"), "/opt/kokkos/bin/nvcc_wrapper")

    def test_rocm_target_reaches_kokkos_and_compiler_is_hipcc(self):
        spec = concretize("+rocm amdgpu_target=gfx90a")
        self.assertEqual(conflicts(spec), [])
        deps = dependencies(spec)
        self.assertTrue(deps["kokkos"]["rocm"])
        self.assertEqual(deps["kokkos"]["amdgpu_target"], "gfx90a")
        self.assertEqual(deps["kokkos-kernels"]["amdgpu_target"], "gfx90a")
        self.assertEqual(arg(cmake_args(spec), "CMAKE_CXX_COMPILER"), "/opt/rocm/bin/hipcc")

    def test_gpu_without_architecture_conflicts(self):
        self.assertTrue(conflicts(concretize("+cuda")))
        self.assertTrue(conflicts(concretize("+rocm")))
        self.assertTrue(conflicts(concretize("+cuda cuda_arch=90 +rocm amdgpu_target=gfx90a")))

    def test_mpi_and_parallel_hdf5(self):
        spec = concretize("+mpi +hdf5")
        self.assertEqual(conflicts(spec), [])
        deps = dependencies(spec)
        self.assertIn("mpi", deps)
        self.assertTrue(deps["hdf5"]["mpi"], "Herd needs parallel HDF5")
        args = cmake_args(spec)
        self.assertEqual(arg(args, "Herd_ENABLE_MPI"), "ON")
        self.assertEqual(arg(args, "Herd_ENABLE_HDF5"), "ON")
        self.assertEqual(arg(args, "MPI_CXX_COMPILER"), "/opt/mpi/bin/mpicxx")

    def test_serial_hdf5_without_mpi(self):
        spec = concretize("+hdf5 ~mpi")
        self.assertEqual(conflicts(spec), [])
        deps = dependencies(spec)
        self.assertNotIn("mpi", deps)
        self.assertFalse(deps["hdf5"]["mpi"], "one process needs no MPI in HDF5")
        args = cmake_args(spec)
        self.assertEqual(arg(args, "Herd_ENABLE_MPI"), "OFF")
        self.assertEqual(arg(args, "Herd_ENABLE_HDF5"), "ON")

    def test_metis_and_gpu_aware_mpi(self):
        spec = concretize("+mpi +metis +gpu_aware_mpi")
        self.assertEqual(conflicts(spec), [])
        self.assertIn("metis", dependencies(spec))
        args = cmake_args(spec)
        self.assertEqual(arg(args, "Herd_ENABLE_METIS"), "ON")
        self.assertEqual(arg(args, "Herd_MPI_DEVICE_BUFFERS"), "ON")
        self.assertEqual(arg(cmake_args(concretize()), "Herd_ENABLE_METIS"), "OFF")
        self.assertNotIn("metis", dependencies(concretize()))
        self.assertEqual(len(conflicts(concretize("+gpu_aware_mpi ~mpi"))), 1)

    def test_without_kokkos_kernels(self):
        spec = concretize("~kokkos_kernels")
        self.assertNotIn("kokkos-kernels", dependencies(spec))
        args = cmake_args(spec)
        self.assertEqual(arg(args, "Herd_ENABLE_KOKKOSKERNELS"), "OFF")
        self.assertFalse(any(a.startswith("-DKokkosKernels_ROOT") for a in args))

    def test_tests_follow_spack_test_root(self):
        spec = concretize()
        self.assertEqual(arg(cmake_args(spec, run_tests=True), "Herd_ENABLE_TESTS"), "ON")
        tests = dependencies(spec, deptype="test")
        for package in ["googletest", "python", "py-matplotlib", "py-numpy"]:
            self.assertIn(package, tests)
        self.assertNotIn("py-h5py", tests)
        self.assertIn("py-h5py", dependencies(concretize("+mpi +hdf5"), deptype="test"))

    def test_a_licensed_versioned_release(self):
        directives = {kind: [args for k, args, _ in Herd.directives if k == kind] for kind in ["license", "version"]}
        self.assertEqual(directives["license"], [("BSD-3-Clause",)])
        versions = [args[0] for args in directives["version"]]
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            project_version = re.search(r"project\(Herd VERSION ([\d.]+)", f.read()).group(1)
        self.assertIn(project_version, versions, "the recipe lists the release CMakeLists.txt names")

    def test_every_herd_option_exists_in_cmake(self):
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            cmake_lists = f.read()
        options = set(re.findall(r"option\((Herd_\w+)", cmake_lists))
        options |= set(re.findall(r"set\((Herd_\w+) \S+ CACHE", cmake_lists))
        for text in ("", "+mpi+hdf5+benchmarks+metis+gpu_aware_mpi", "+cuda cuda_arch=90", "~kokkos_kernels~strict_fp"):
            for a in cmake_args(concretize(text), run_tests=True):
                name = re.match(r"-D(\w+):", a).group(1)
                if name.startswith("Herd_"):
                    self.assertIn(name, options, f"recipe passes {name}, which CMakeLists.txt does not define")


def print_args(text):
    """The recipe's CMake arguments for `herd <text>` with this machine's Kokkos install."""
    kokkos = os.environ["Kokkos_ROOT"]
    prefixes = {"kokkos": kokkos, "kokkos-kernels": os.environ.get("KokkosKernels_ROOT", kokkos)}
    mpicxx = shutil.which("mpicxx") or "mpicxx"
    spec = concretize(text, prefixes, cxx=shutil.which(os.environ.get("CXX", "g++")), mpicxx=mpicxx)
    problems = conflicts(spec)
    if problems:
        sys.exit(f"herd {text}: {'; '.join(problems)}")
    print("\n".join(cmake_args(spec)))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--print-args":
        print_args(" ".join(sys.argv[2:]))
    else:
        unittest.main()
