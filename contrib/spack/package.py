# SPDX-License-Identifier: BSD-3-Clause
"""A Spack recipe for symvtune, built from the release tarball that
`make dist` writes (symvtune-VERSION.tar.gz).

Written for Spack 1.0 and later, whose build systems are imported from
spack_repo.builtin (an older Spack has AutotoolsPackage in spack.package).
A site copies this file to the folder symvtune/ under packages/ of a
Spack package repository of its own, sets `url` below to where it keeps the
tarballs, and adds one version line per tarball with the sha256 that
`sha256sum symvtune-VERSION.tar.gz` (or `spack checksum symvtune VERSION`)
prints, for example

    version("0.1.0", sha256="<sha256 of symvtune-0.1.0.tar.gz>")

The recipe names no version itself: `make dist` does not write the same
bytes twice, so only the site's own tarball has a checksum to name.
"""

from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

from spack.package import *


class Symvtune(AutotoolsPackage):
    """Autotuner for the BLAS SYMV and HEMV routines on NVIDIA GPUs: it
    measures kernel candidates on the GPU it runs on, fits their times over
    n with d-splines, and generates libsymv, a drop-in library for cuBLAS's
    symv and hemv."""

    # Placeholders: the site's own pages and the folder (or server) that
    # holds its tarballs; Spack finds symvtune-VERSION.tar.gz beside this one.
    homepage = "https://example.org/symvtune"
    url = "file:///opt/src/symvtune/symvtune-0.1.0.tar.gz"

    license("BSD-3-Clause")

    variant("plot", default=False, description="gnuplot for `symvtune plot`")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    # nvcc, cuBLAS and NVRTC: linked, and nvcc run by `symvtune build`
    depends_on("cuda@12:", type=("build", "link", "run"))
    # The host BLAS through its CBLAS interface (the CPU reference of every
    # routine), and LAPACKE (the d-spline fit's banded solves): the lapack
    # provider must include LAPACKE, as OpenBLAS and MKL do, and
    # netlib-lapack does with +lapacke.
    depends_on("blas")
    depends_on("lapack")
    conflicts("^netlib-lapack~lapacke", msg="symvtune calls LAPACKE: use netlib-lapack+lapacke")
    depends_on("sqlite@3.31:")
    depends_on("gnuplot", type="run", when="+plot")
    # `make check` (spack install --test=root) needs Criterion where
    # pkg-config finds it; Spack has no package for it, so a site gives it
    # as an external or a package of its own, and without it configure
    # builds symvtune and `make check` says that Criterion is missing.

    def configure_args(self):
        """configure's arguments: the CUDA prefix, the blas provider's CBLAS
        as --with-blas linker flags, and the lapack provider's LAPACKE (with
        LAPACK and BLAS after it) as LAPACKE_CFLAGS and LAPACKE_LIBS, so that
        configure takes them instead of asking pkg-config."""
        spec = self.spec
        blas = spec["blas:c"]
        lapack = spec["lapack:c"]
        lapacke_libs = lapack.libs + spec["lapack"].libs + blas.libs
        args = [
            "--with-cuda={0}".format(spec["cuda"].prefix),
            "--with-blas={0}".format(blas.libs.ld_flags),
            "BLAS_CFLAGS={0}".format(blas.headers.include_flags),
            "LAPACKE_CFLAGS={0}".format(lapack.headers.include_flags),
            "LAPACKE_LIBS={0}".format(lapacke_libs.ld_flags),
        ]
        if spec.satisfies("+plot"):
            args.append("GNUPLOT={0}".format(spec["gnuplot"].prefix.bin.gnuplot))
        return args
