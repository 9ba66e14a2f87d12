# SPDX-License-Identifier: BSD-3-Clause
#
# Spack recipe for numaplan (INSTALL.md, "Spack").  Spack >= 1.0
# (package API v2).  `make spack-recipe` in a build tree writes this
# recipe with the version and sha256 of the tarball `make dist` made into
# a Spack repository of its own (spack-repo/spack_repo/numaplan_local):
#
#     spack repo add spack-repo/spack_repo/numaplan_local
#     spack mirror add numaplan file:///path/to/mirror   # holding numaplan/numaplan-X.Y.Z.tar.gz
#     spack install numaplan +slurm ^slurm@23.11   # the Slurm the cluster runs
#
# The plugin is built against the Slurm of the spec and installed in this
# package's prefix (lib/slurm/numaplan.so): Spack prefixes are never
# written to by another package, and plugstack.conf names a plugin by its
# full path.  A different Slurm release is a different spec, so every
# Slurm upgrade gets its own numaplan build, as the SPANK ABI requires.

from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

from spack.package import *


class Numaplan(AutotoolsPackage):
    """NUMA- and HCA-aware rank placement for Slurm clusters: libnumaplan
    (hwloc-based placement planner), the numaplan command, the Slurm SPANK
    plugin numaplan.so (srun --numa-plan) and MPI benchmark kernels."""

    homepage = "https://github.com/numaplan/numaplan"
    url = "https://github.com/numaplan/numaplan/releases/download/v0.4.0/numaplan-0.4.0.tar.gz"

    license("BSD-3-Clause")

    # One line per release tarball; `make spack-recipe` rewrites this block
    # with the version and sha256 of the tarball it made.
    # BEGIN versions
    version("0.4.0")
    # END versions

    variant("slurm", default=True, description="Build the Slurm SPANK plugin numaplan.so")
    variant(
        "kernels",
        default=True,
        description="Build the benchmark kernels (STREAM, and with +mpi Himeno, OSU-style, HPL-style)",
    )
    variant("mpi", default=True, description="Build the MPI kernels and numaplan-probe-mpi")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    # configure requires cmocka: the unit tests of make check
    depends_on("cmocka", type="build")

    # hwloc finds the InfiniBand adapters through its PCI and Linux I/O
    # discovery
    depends_on("hwloc@2: +pci")
    depends_on("numactl")
    depends_on("jansson@2.10:")
    depends_on("slurm", when="+slurm")
    depends_on("mpi", when="+mpi")
    # numaplan-hpl calls CBLAS
    depends_on("blas", when="+kernels+mpi")
    requires(
        "^[virtuals=blas] openblas",
        "^[virtuals=blas] blis",
        "^[virtuals=blas] amdblis",
        policy="one_of",
        when="+kernels+mpi",
        msg="numaplan-hpl needs the CBLAS of OpenBLAS or BLIS",
    )

    def configure_args(self):
        spec = self.spec
        # Spack's compiler wrapper adds the target's -march; the kernels'
        # own default would be the build host's (-march=native).
        args = ["--enable-portable-kernels"]
        args += self.enable_or_disable("kernels")
        if spec.satisfies("+slurm"):
            args += [
                f"--with-slurm={spec['slurm'].prefix}",
                f"--with-slurm-plugindir={self.prefix.lib.slurm}",
            ]
        else:
            args.append("--without-slurm")
        if spec.satisfies("+mpi"):
            args += ["--with-mpi", f"MPICC={spec['mpi'].mpicc}"]
        else:
            args.append("--without-mpi")
        if spec.satisfies("+kernels+mpi"):
            blas = spec["blas"]
            if blas.name in ("blis", "amdblis"):
                args += ["--with-blas=blis", f"BLAS_CFLAGS=-I{blas.prefix.include.blis}"]
            else:
                args += ["--with-blas=openblas", f"BLAS_CFLAGS=-I{blas.prefix.include}"]
            args.append(f"BLAS_LIBS={blas.libs.ld_flags}")
        return args
