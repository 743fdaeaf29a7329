"""Stand-ins for the parts of Spack that spack/packages/herd/package.py uses.

Spack cannot run on the test machine, so the recipe is loaded with these classes and directives in
place of `spack.package`. They record what the recipe declares (variants, dependencies,
conflicts) and evaluate `when=` conditions and `self.define*` the way Spack does, which is what
the recipe's logic depends on. Only the subset of Spack's spec syntax the recipe uses is
understood: `+v`, `~v`, `name=value` and a leading package name."""

import re
import sys
import types

_pending = []  # directives seen while a class body executes


def _directive(kind):
    def record(*args, **kwargs):
        _pending.append((kind, args, kwargs))
    return record


version = _directive("version")
variant = _directive("variant")
depends_on = _directive("depends_on")
conflicts = _directive("conflicts")
requires = _directive("requires")
license = _directive("license")


class SpecError(ValueError):
    pass


_TOKEN = re.compile(r"([+~])([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)=(\S+)|@(\S+)|([A-Za-z_][\w-]*)")


def parse(text):
    """A constraint: (package or None, {variant: value}); `+v` is True, `~v` False."""
    package, values = None, {}
    for match in _TOKEN.finditer(text.replace(" ", " ")):
        sign, name, key, value, ver, word = match.groups()
        if sign:
            values[name] = sign == "+"
        elif key:
            values[key] = value
        elif ver:
            values["@"] = ver
        elif word:
            if package is not None or values:
                raise SpecError(f"unsupported spec syntax in {text!r}")
            package = word
    leftover = _TOKEN.sub("", text).strip()
    if leftover:
        raise SpecError(f"unparsed {leftover!r} in spec {text!r}")
    return package, values


class Dependency:
    """What `spec['kokkos']` gives: a prefix and the attributes the recipe reads."""

    def __init__(self, name, prefix, **attributes):
        self.name = name
        self.prefix = Prefix(prefix)
        for key, value in attributes.items():
            setattr(self, key, value)


class Prefix(str):
    def __getattr__(self, name):
        return Prefix(f"{self}/{name}")


class Variant:
    def __init__(self, value):
        self.value = value


class Spec:
    """A concrete spec: the package's variant values and its dependencies."""

    def __init__(self, values, dependencies):
        self.values = dict(values)
        self.dependencies = dependencies
        self.variants = {k: Variant(v) for k, v in self.values.items()}

    def satisfies(self, condition):
        _, wanted = parse(condition)
        for key, value in wanted.items():
            if key == "@":
                continue  # one version here: every range in the recipe includes it
            if key not in self.values:
                raise SpecError(f"condition {condition!r} names unknown variant {key!r}")
            have = self.values[key]
            if isinstance(value, bool):
                if bool(have) != value:
                    return False
            elif isinstance(have, (tuple, list)):
                if value not in have:
                    return False
            elif str(have) != value:
                return False
        return True

    def __getitem__(self, name):
        if name not in self.dependencies:
            raise KeyError(f"spec has no dependency {name!r}")
        return self.dependencies[name]


class PackageBase:
    """Collects the directives of each class body, including those of its bases."""

    run_tests = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        inherited = [d for base in cls.__mro__[1:] for d in getattr(base, "directives", [])]
        cls.directives = inherited + list(_pending)
        _pending.clear()

    def __init__(self, spec, run_tests=False):
        self.spec = spec
        self.run_tests = run_tests

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        if isinstance(value, (list, tuple)):
            value = ";".join(str(v) for v in value)
        return f"-D{name}:STRING={value}"

    def define_from_variant(self, name, variant_name):
        if variant_name not in self.spec.values:
            raise SpecError(f"define_from_variant: no variant {variant_name!r}")
        return self.define(name, self.spec.values[variant_name])


class CMakePackage(PackageBase):
    pass


class CudaPackage(PackageBase):
    cuda_arch_values = ("60", "70", "75", "80", "86", "89", "90", "90a", "100")
    variant("cuda", default=False, description="CUDA")
    variant("cuda_arch", default="none", values=cuda_arch_values + ("none",), multi=True)


class ROCmPackage(PackageBase):
    amdgpu_targets = ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx1100")
    variant("rocm", default=False, description="ROCm")
    variant("amdgpu_target", default="none", values=amdgpu_targets + ("none",), multi=True)


def run_after(*_args, **_kwargs):
    return lambda function: function


def on_package_attributes(**_kwargs):
    return lambda function: function


def _unavailable(name):
    def fail(*_args, **_kwargs):
        raise RuntimeError(f"{name} is only available inside Spack")
    return fail


join_path = _unavailable("join_path")
working_dir = _unavailable("working_dir")
Executable = _unavailable("Executable")


def install():
    """Makes `from spack.package import *` load these stand-ins."""
    package = types.ModuleType("spack.package")
    for name in ("version", "variant", "depends_on", "conflicts", "requires", "license", "CMakePackage",
                 "CudaPackage", "ROCmPackage", "run_after", "on_package_attributes", "join_path",
                 "working_dir", "Executable"):
        setattr(package, name, globals()[name])
    package.__all__ = [n for n in vars(package) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = package
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = package
