"""`python -m tilec ARGS`: tilec's command line tool (docs/cli.md), the one
the wheel carries (tilec/_lib/tilec), else $TILEC_TOOL, else the checkout's
build/bin/tilec or build-static/bin/tilec, else `tilec` on PATH."""

import os
import shutil
import sys


def tool():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    for path in (os.environ.get("TILEC_TOOL"), os.path.join(here, "_lib", "tilec"),
                 os.path.join(root, "build", "bin", "tilec"),
                 os.path.join(root, "build-static", "bin", "tilec"), shutil.which("tilec")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = tool()
    if path is None:
        sys.stderr.write("python -m tilec: no tilec tool found (set TILEC_TOOL, or build it: "
                         "scripts/build.sh)\n")
        return 2
    if argv[:1] == ["--python-version"]:
        import tilec
        print(f"tilec {tilec.version()} (Python package), library {tilec._capi.lib()._name}, "
              f"tool {path}, backend {tilec.backend()}")
        return 0
    os.execv(path, [path] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
