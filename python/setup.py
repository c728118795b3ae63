"""Builds the tilec wheel: the Python package plus the C library (and the
`tilec` command line tool, for `python -m tilec`) copied into tilec/_lib.

Where they come from, first found: $TILEC_LIBRARY / $TILEC_TOOL, then the
checkout's build-static/ (a self-contained libtilec.so, statically linked
against MLIR/LLVM: the wheel then needs nothing installed; scripts/
prepare-gpu-python.sh or `ninja -C build-static TilecShared tilec`), then
build/ (linked against Debian's shared LLVM/MLIR 22: the wheel then works
where those are installed). Without either, the wheel holds the Python code
only and finds libtilec.so at run time ($TILEC_LIBRARY, python/tilec/_capi.py).
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _first(env, relative):
    if os.environ.get(env):
        return os.environ[env]
    for build in ("build-static", "build"):
        path = os.path.join(ROOT, build, relative)
        if os.path.exists(path):
            return path
    return None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "tilec", "_lib")
        os.makedirs(target, exist_ok=True)
        lib = _first("TILEC_LIBRARY", os.path.join("lib", "libtilec.so"))
        tool = _first("TILEC_TOOL", os.path.join("bin", "tilec"))
        for src, name in ((lib, "libtilec.so"), (tool, "tilec")):
            if src is None:
                print(f"tilec wheel: no {name} found; it is looked up at run time")
                continue
            dst = os.path.join(target, name)
            shutil.copyfile(os.path.realpath(src), dst)
            os.chmod(dst, 0o755)
            if shutil.which("strip"):  # symbols are most of an unstripped static build
                subprocess.run(["strip", "--strip-all", dst], check=False)
            print(f"tilec wheel: {name} from {src}")


setup(cmdclass={"build_py": BuildWithLibrary})
