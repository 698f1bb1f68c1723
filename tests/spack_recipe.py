# SPDX-License-Identifier: BSD-3-Clause
"""spack_recipe.py - loads contrib/spack/package.py with stand-ins for the
names it imports from Spack, and prints, one a line, the arguments its
configure_args() gives configure for a spec described on the command line.

    python3 spack_recipe.py RECIPE [--variant +NAME]... [--prefix DEP=DIR]...
        [--libs DEP=FILE[,FILE...]]... [--headers DEP=DIR]... [--help-of FILE]
        [--run CONFIGURE [ARG...]]

DEP is what the recipe indexes the spec with ("cuda", "blas:c", "lapack"):
--prefix gives its prefix, --libs its libraries (full paths), --headers its
include folder. --help-of FILE: `configure --help`'s text; then every
--with-X or --enable-X argument must be an option it lists and every
VAR=VALUE argument a variable it lists. --run CONFIGURE ARG...: then runs
CONFIGURE with ARG... and the recipe's arguments, in the current folder.

Exit status: configure's with --run, else 0; 1 with a message on standard
error where the recipe names a directive the stand-ins lack, indexes the
spec with a DEP not given, or emits an argument the --help text does not
list, or where an item is not DEP=VALUE; 2 for an unknown option.
"""

import argparse
import os
import re
import subprocess
import sys
import types


class LibraryList(list):
    """Spack's LibraryList as configure_args uses it: full paths of
    libraries, + without repeats, and ld_flags ("-L dirs -l names")."""

    def __add__(self, other):
        return LibraryList(dict.fromkeys(list(self) + list(other)))

    @property
    def ld_flags(self):
        dirs = dict.fromkeys(os.path.dirname(f) for f in self)
        names = [re.sub(r"^lib|\.(so|a|dylib)(\.[0-9.]*)?$", "", os.path.basename(f)) for f in self]
        return " ".join(["-L" + d for d in dirs] + ["-l" + n for n in names])


class HeaderList:
    """Spack's HeaderList as configure_args uses it: include_flags."""

    def __init__(self, dirs):
        self.directories = dirs

    @property
    def include_flags(self):
        return " ".join("-I" + d for d in self.directories)


class Prefix(str):
    """Spack's Prefix: attributes are subfolders (prefix.bin.gnuplot)."""

    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class Dependency:
    """spec[DEP]: the prefix, libs and headers given for DEP."""

    def __init__(self, dep, given):
        self.dep, self.given = dep, given

    def _get(self, what):
        if self.dep not in self.given[what]:
            raise SystemExit("spack_recipe: the recipe asks for the %s of %s, which the command line does not give"
                             % (what, self.dep))
        return self.given[what][self.dep]

    prefix = property(lambda self: Prefix(self._get("prefix")))
    libs = property(lambda self: LibraryList(self._get("libs")))
    headers = property(lambda self: HeaderList(self._get("headers")))


class Spec:
    """The spec: its variants (+NAME) and its dependencies by DEP."""

    def __init__(self, variants, given):
        self.variants, self.given = variants, given

    def __getitem__(self, dep):
        return Dependency(dep, self.given)

    def satisfies(self, constraint):
        if not re.fullmatch(r"[+~][A-Za-z0-9_-]+", constraint):
            raise SystemExit("spack_recipe: satisfies(%r) is not a +variant or ~variant" % constraint)
        on = constraint[1:] in self.variants
        return on if constraint[0] == "+" else not on


def stand_ins(directives):
    """Modules spack.package and spack_repo.builtin.build_systems.autotools:
    the directives record their arguments in directives; AutotoolsPackage
    is a plain class."""
    package = types.ModuleType("spack.package")
    for name in ("version", "variant", "depends_on", "conflicts", "license", "maintainers"):
        setattr(package, name, lambda *a, _name=name, **k: directives.append((_name, a, k)))
    autotools = types.ModuleType("spack_repo.builtin.build_systems.autotools")
    autotools.AutotoolsPackage = type("AutotoolsPackage", (), {})
    modules = {"spack": types.ModuleType("spack"), "spack.package": package,
               "spack_repo": types.ModuleType("spack_repo"),
               "spack_repo.builtin": types.ModuleType("spack_repo.builtin"),
               "spack_repo.builtin.build_systems": types.ModuleType("spack_repo.builtin.build_systems"),
               "spack_repo.builtin.build_systems.autotools": autotools}
    sys.modules.update(modules)
    return autotools.AutotoolsPackage


def pairs(items, split):
    """{DEP: value} from DEP=VALUE items, value split(VALUE)."""
    out = {}
    for item in items:
        dep, sep, value = item.partition("=")
        if not sep:
            raise SystemExit("spack_recipe: %r is not DEP=VALUE" % item)
        out[dep] = split(value)
    return out


def unlisted(args, help_text):
    """The arguments in args that help_text (configure --help) does not list."""
    options = set(re.findall(r"^\s+(--(?:with|enable)-[A-Za-z0-9_-]+)", help_text, re.M))
    variables = set(re.findall(r"^  ([A-Z_][A-Z0-9_]*)(?:\s|$)", help_text, re.M))
    bad = []
    for a in args:
        name = a.split("=", 1)[0]
        if not (name in options if a.startswith("--") else name in variables):
            bad.append(a)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recipe")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--prefix", action="append", default=[])
    ap.add_argument("--libs", action="append", default=[])
    ap.add_argument("--headers", action="append", default=[])
    ap.add_argument("--help-of")
    ap.add_argument("--run", nargs=argparse.REMAINDER)
    o = ap.parse_args()
    given = {"prefix": pairs(o.prefix, str), "libs": pairs(o.libs, lambda v: v.split(",")),
             "headers": pairs(o.headers, lambda v: [v])}
    directives = []
    base = stand_ins(directives)
    scope = {"__name__": "symvtune_recipe"}
    try:
        with open(o.recipe) as f:
            exec(compile(f.read(), o.recipe, "exec"), scope)
    except NameError as e:
        sys.exit("spack_recipe: %s (a name the stand-ins for Spack lack)" % e)
    classes = [c for c in scope.values() if isinstance(c, type) and issubclass(c, base) and c is not base]
    if len(classes) != 1:
        sys.exit("spack_recipe: %s defines %d AutotoolsPackage classes, not 1" % (o.recipe, len(classes)))
    pkg = classes[0].__new__(classes[0])
    pkg.spec = Spec({v.lstrip("+") for v in o.variant}, given)
    args = pkg.configure_args()
    print("\n".join(args))
    if o.help_of:
        with open(o.help_of) as f:
            bad = unlisted(args, f.read())
        if bad:
            sys.exit("spack_recipe: configure --help lists no option or variable for: %s" % " ".join(bad))
    if o.run:
        sys.stdout.flush()
        sys.exit(subprocess.call(o.run + args))


if __name__ == "__main__":
    main()
