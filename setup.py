"""The sub-packages are found, not listed (pyproject.toml holds the rest of the configuration):
metrics/ is `benchscore`, and each folder of it with an `__init__.py` is `benchscore.<folder>`, so a
new benchmark folder needs no edit here.

The kernels (`KERNELS`: plain typed Python with no error path of their own, each beside the checked
path it shortcuts) are compiled by mypyc when a wheel or a regular install is built with mypyc and a C
compiler at hand (pyproject.toml's build requirements bring mypyc). They are a speed-up, never a
requirement: without mypyc, with BENCHSCORE_PURE_PYTHON=1, or when compiling fails, the same files
install as Python and give the same numbers and messages. An editable install keeps them as Python
(a compiled copy beside the source would hide later edits) unless BENCHSCORE_COMPILE=1.
"""

import os
import pathlib
import sys

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

KERNELS = ["metrics/core/json_kernel.py", "metrics/tempbench_trp/kernel.py", "metrics/mctaco/kernel.py",
           "metrics/tsver/kernel.py", "metrics/webnlg_rdf/kernel.py"]


def compiled_kernels():
    if os.environ.get("BENCHSCORE_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    # mypyc names a module after its folders up to the first without __init__.py: seen through a link
    # named benchscore, metrics/x/kernel.py is benchscore.x.kernel, as installed.
    root = pathlib.Path("build", "mypyc-src")
    try:
        root.mkdir(parents=True, exist_ok=True)
        link = root / "benchscore"
        if link.is_symlink():  # made by an earlier build, perhaps of a checkout elsewhere: point it here
            link.unlink()
        link.symlink_to(pathlib.Path("metrics").resolve(), target_is_directory=True)
        sources = [str(root / "benchscore" / pathlib.Path(path).relative_to("metrics")) for path in KERNELS]
        # Modules other than the kernels are skipped (their imports, e.g. huggingface_hub, crashed mypy 2.4.1). The
        # kernels share one runtime library, benchscore/kernels__mypyc (unnamed, it would be a hash at the top level).
        return mypycify(["--follow-imports=skip", "--ignore-missing-imports", *sources], opt_level="3",
                        group_name="benchscore.kernels")
    except BaseException as err:  # mypyc exits on a type error: install the Python files instead
        print(f"benchscore: the kernels stay Python (mypyc: {err})", file=sys.stderr)
        return []


class OptionalBuildExt(build_ext):
    """Builds the compiled kernels, or none of them: a failed compile leaves no half-built module behind."""

    def run(self):
        if getattr(self, "editable_mode", False) and os.environ.get("BENCHSCORE_COMPILE") != "1":
            return
        try:
            super().run()
        except Exception as err:  # no compiler, missing headers, ...
            print(f"benchscore: the kernels stay Python (compiling failed: {err})", file=sys.stderr)
            for output in self.get_outputs():
                pathlib.Path(output).unlink(missing_ok=True)


setup(packages=["benchscore"] + [f"benchscore.{name}" for name in find_packages("metrics")],
      ext_modules=compiled_kernels(), cmdclass={"build_ext": OptionalBuildExt})
