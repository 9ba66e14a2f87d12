#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""spack-check.py - the Spack recipe (contrib/spack/package.py) checked
without Spack: it is imported with stand-in spack modules that record its
directives, and its configure_args() is called for every variant
combination.  Prints TAP lines.

    spack-check.py --recipe FILE --configure-ac FILE --configure FILE
                   [--tarball FILE]

What it is checked against comes from elsewhere: the version from
configure.ac's AC_INIT, the dependencies from what configure.ac requires,
the options from `configure --help`, the checksum from the tarball.
"""
import argparse
import contextlib
import hashlib
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import types

n = 0
failed = 0


def check(what, cond, diag=None):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - {what}")
    else:
        failed += 1
        print(f"not ok {n} - {what}")
        if diag:
            for line in str(diag).splitlines():
                print(f"# {line}")


# ---- stand-ins for Spack --------------------------------------------------

RECORD = {"versions": [], "variants": [], "depends_on": [], "requires": [],
          "conflicts": [], "licenses": []}
_when_stack = []


def _when(kw):
    w = kw.get("when")
    outer = " ".join(_when_stack)
    return " ".join(x for x in (outer, w) if x) or None


def version(ver, checksum=None, **kw):
    RECORD["versions"].append({"version": str(ver), "checksum": checksum, **kw})


def variant(name, default=None, description="", values=None, multi=False, **kw):
    RECORD["variants"].append({"name": name, "default": default,
                               "description": description, "when": _when(kw)})


def depends_on(spec, when=None, type=None, **kw):
    RECORD["depends_on"].append({"spec": spec, "when": _when({"when": when}),
                                 "type": type})


def requires(*specs, policy="one_of", when=None, msg=None):
    RECORD["requires"].append({"specs": specs, "policy": policy,
                               "when": _when({"when": when}), "msg": msg})


def conflicts(spec, when=None, msg=None):
    RECORD["conflicts"].append({"spec": spec, "when": _when({"when": when})})


def license(lic, **kw):
    RECORD["licenses"].append(lic)


@contextlib.contextmanager
def when(cond):
    _when_stack.append(cond)
    try:
        yield
    finally:
        _when_stack.pop()


def _decorator_factory(*a, **k):
    return lambda f: f


class Prefix(str):
    """A path that extends by attribute, as Spack's Prefix does."""
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Prefix(os.path.join(self, name))

    def join(self, name):
        return Prefix(os.path.join(self, name))


class AutotoolsPackage:
    """Enough of Spack's AutotoolsPackage for configure_args()."""
    def __init__(self, spec, prefix):
        self.spec = spec
        self.prefix = prefix

    def enable_or_disable(self, name, activation_value=None, variant=None):
        on = self.spec.satisfies("+" + name)
        return [f"--{'enable' if on else 'disable'}-{name}"]

    def with_or_without(self, name, activation_value=None, variant=None):
        on = self.spec.satisfies("+" + name)
        return [f"--{'with' if on else 'without'}-{name}"]


def _install_stubs():
    spack = types.ModuleType("spack")
    spack.__path__ = []
    pkg = types.ModuleType("spack.package")
    names = dict(version=version, variant=variant, depends_on=depends_on,
                 requires=requires, conflicts=conflicts, license=license,
                 when=when, run_after=_decorator_factory,
                 run_before=_decorator_factory,
                 on_package_attributes=_decorator_factory, Prefix=Prefix,
                 AutotoolsPackage=None)
    for k, v in names.items():
        if v is not None:
            setattr(pkg, k, v)
    pkg.__all__ = [k for k, v in names.items() if v is not None]
    spack.package = pkg
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = pkg
    chain = ["spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"]
    for name in chain:
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    at = types.ModuleType("spack_repo.builtin.build_systems.autotools")
    at.AutotoolsPackage = AutotoolsPackage
    sys.modules[at.__name__] = at


# ---- a concrete spec for configure_args() ---------------------------------

class FakeLibs:
    def __init__(self, prefix, name):
        self.ld_flags = f"-L{prefix}/lib -l{name}"


class FakeDep:
    def __init__(self, name, provider=None):
        self.name = provider or name
        self.prefix = Prefix(f"/spack/opt/{self.name}-hash")
        self.mpicc = f"{self.prefix}/bin/mpicc"
        self.libs = FakeLibs(self.prefix, self.name)


class FakeSpec:
    def __init__(self, variants, deps):
        self.variants = variants
        self.deps = deps

    def satisfies(self, cond):
        for sign, name in re.findall(r"([+~])(\w+)", cond):
            if self.variants.get(name) != (sign == "+"):
                return False
        return True

    def __getitem__(self, name):
        if name not in self.deps:
            raise KeyError(f"spec has no dependency {name} (variants {self.variants})")
        return self.deps[name]


def when_holds(when, variants):
    if not when:
        return True
    return FakeSpec(variants, {}).satisfies(when)


# ---- what the recipe is checked against ----------------------------------

def configure_ac_facts(path):
    text = open(path).read()
    m = re.search(r"AC_INIT\(\[([^\]]+)\],\s*\[([^\]]+)\]", text)
    name, ver = m.group(1), m.group(2)
    # PKG_CHECK_MODULES whose not-found action is NP_NEED (an error) are
    # required; the others (PMIx) optional.
    required, optional = set(), set()
    for m in re.finditer(r"PKG_CHECK_MODULES\(\[\w+\],\s*\[([\w-]+)", text):
        module = m.group(1)
        rest = text[m.end():]
        nxt = rest.find("PKG_CHECK_MODULES")
        block = rest[:nxt if nxt >= 0 else len(rest)].split("\n\n")[0]
        (required if "NP_NEED" in block.split("AS_IF")[0] else optional).add(module)
    return name, ver, required, optional


def configure_options(configure):
    out = subprocess.run([configure, "--help"], capture_output=True, text=True).stdout
    opts = set(re.findall(r"^\s+--((?:with|without|enable|disable)-[\w-]+)", out, re.M))
    precious = set(re.findall(r"^\s{2}([A-Z][A-Z0-9_]+)\s", out, re.M))
    return opts, precious


def option_known(arg, opts, precious):
    if arg.startswith("--"):
        key = arg[2:].split("=", 1)[0]
        kind, _, feat = key.partition("-")
        twins = {"with": "without", "without": "with", "enable": "disable", "disable": "enable"}
        return key in opts or f"{twins.get(kind, kind)}-{feat}" in opts
    var = arg.split("=", 1)[0]
    return var in precious


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--configure-ac", required=True)
    ap.add_argument("--configure", required=True)
    ap.add_argument("--tarball")
    a = ap.parse_args()

    try:
        compile(open(a.recipe).read(), a.recipe, "exec")
        check(f"{os.path.basename(a.recipe)}: valid Python", True)
    except SyntaxError as e:
        check(f"{os.path.basename(a.recipe)}: valid Python", False, e)
        return

    _install_stubs()
    try:
        spec = importlib.util.spec_from_file_location("numaplan_recipe", a.recipe)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        cls = getattr(mod, "Numaplan", None)
        check("imports with Spack's package API, class Numaplan(AutotoolsPackage)",
              cls is not None and issubclass(cls, AutotoolsPackage))
    except Exception as e:  # noqa: BLE001 - any failure of the recipe is the finding
        check("imports with Spack's package API, class Numaplan(AutotoolsPackage)", False,
              f"{type(e).__name__}: {e}")
        return
    if cls is None:
        return

    pkgname, pkgver, required, optional = configure_ac_facts(a.configure_ac)
    versions = {v["version"]: v for v in RECORD["versions"]}
    check(f"version {pkgver} (configure.ac's AC_INIT) is in the recipe "
          f"({', '.join(versions) or 'none'})", pkgver in versions)
    check("license BSD-3-Clause, as LICENSE", RECORD["licenses"] == ["BSD-3-Clause"])
    url_for = cls.url.replace("0.1.0", pkgver) if "0.1.0" in cls.url else cls.url
    check(f"url names the release tarball {pkgname}-{pkgver}.tar.gz",
          os.path.basename(url_for) == f"{pkgname}-{pkgver}.tar.gz", url_for)

    if a.tarball:
        digest = hashlib.sha256(open(a.tarball, "rb").read()).hexdigest()
        tv = re.match(rf"{re.escape(pkgname)}-(.+)\.tar\.gz$", os.path.basename(a.tarball))
        v = versions.get(tv.group(1) if tv else "")
        check(f"the recipe's version is the tarball's ({os.path.basename(a.tarball)})", v is not None)
        got = v and (v.get("sha256") or v.get("checksum"))
        check("its sha256 is the tarball's", got == digest, f"recipe {got}, tarball {digest}")

    variants = {v["name"]: v for v in RECORD["variants"]}
    check(f"variants slurm, kernels, mpi (got: {', '.join(sorted(variants))})",
          set(variants) == {"slurm", "kernels", "mpi"})
    check("every variant on by default (as configure builds everything it finds)",
          all(v["default"] is True for v in variants.values()))

    deps = {}
    for d in RECORD["depends_on"]:
        name = re.match(r"[\w-]+", d["spec"]).group(0)
        deps.setdefault(name, []).append(d)
    want = {"slurm": "+slurm", "hwloc": None, "numactl": None, "jansson": None,
            "mpi": "+mpi", "blas": "+kernels+mpi"}
    for name, cond in want.items():
        got = deps.get(name, [])
        check(f"depends_on {name}" + (f" when {cond}" if cond else " always"),
              len(got) == 1 and (got[0]["when"] or None) == cond and got[0]["type"] in (None, ("build", "link")),
              got)
    check("hwloc 2 or later, as configure requires", "hwloc@2:" in deps.get("hwloc", [{}])[0].get("spec", ""))
    # configure.ac's required pkg-config modules, by their Spack names
    spack_name = {"hwloc": "hwloc", "jansson": "jansson", "numa": "numactl", "cmocka": "cmocka"}
    for module in sorted(required):
        check(f"configure.ac requires {module}: the recipe depends on {spack_name.get(module, module)}",
              spack_name.get(module, module) in deps)
    for module in sorted(optional):
        if module in ("openblas", "blis"):   # the BLAS of numaplan-hpl: Spack's blas virtual
            check(f"configure.ac's {module} (numaplan-hpl): the recipe's blas", "blas" in deps)
        else:
            check(f"configure.ac's optional {module} is not forced on Spack users",
                  module not in deps)
    check("the compiler and pkg-config are build dependencies",
          all(deps.get(x) and deps[x][0]["type"] == "build" for x in ("c", "pkgconfig")))
    blas_req = [r for r in RECORD["requires"] if r["when"] == "+kernels+mpi"]
    check("a BLAS with CBLAS (OpenBLAS or BLIS) for numaplan-hpl",
          blas_req and blas_req[0]["policy"] == "one_of"
          and all(re.search(r"(openblas|blis)$", s) for s in blas_req[0]["specs"]))

    opts, precious = configure_options(a.configure)
    prefix = Prefix("/spack/opt/numaplan-hash")
    bad = []
    for combo in itertools.product([True, False], repeat=3):
        vs = dict(zip(("slurm", "kernels", "mpi"), combo))
        present = {n: FakeDep(n, "openblas" if n == "blas" else ("mpich" if n == "mpi" else None))
                   for n, ds in deps.items() if any(when_holds(d["when"], vs) for d in ds)}
        label = "".join(("+" if on else "~") + k for k, on in vs.items())
        try:
            args = cls(FakeSpec(vs, present), prefix).configure_args()
        except Exception as e:  # noqa: BLE001
            bad.append(f"{label}: configure_args() raised {type(e).__name__}: {e}")
            continue
        unknown = [x for x in args if not option_known(x, opts, precious)]
        if unknown:
            bad.append(f"{label}: not in configure --help: {unknown}")
        expect = {
            "--enable-portable-kernels": True,
            "--with-slurm=" + present["slurm"].prefix if vs["slurm"] else "--without-slurm": True,
            f"--with-slurm-plugindir={prefix}/lib/slurm": vs["slurm"],
            "--without-mpi": not vs["mpi"],
            "--disable-kernels": not vs["kernels"],
        }
        if vs["mpi"]:
            expect["MPICC=" + present["mpi"].mpicc] = True
        for arg, should in expect.items():
            if (arg in args) != should:
                bad.append(f"{label}: {arg} {'missing' if should else 'unexpected'} in {args}")
        if any(x.startswith("BLAS_") for x in args) != (vs["kernels"] and vs["mpi"]):
            bad.append(f"{label}: BLAS flags {'missing' if vs['kernels'] and vs['mpi'] else 'unexpected'}")
    check("configure_args() for all 8 variant combinations: options configure knows, "
          "the plugin in the package's own prefix, ~variants switch parts off", not bad, "\n".join(bad))


if __name__ == "__main__":
    main()
    print(f"1..{n}")
    sys.exit(1 if failed else 0)
