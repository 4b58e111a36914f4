"""Start a benchmark from the template: copy templates/accuracy/ to metrics/<folder>/ and name it.

    python scripts/new_benchmark.py my_bench                      # into metrics/my_bench
    python scripts/new_benchmark.py my_bench --title "My Bench" --metrics /path/to/a/copy/of/metrics

It does the three steps of CONTRIBUTING.md's "Adding a benchmark" that make the copy a working
benchmark of its own (the CLI command, `official:`, compare, evaluate.load, the Trainer helper, the
Space and the contract test all run it): copy the folder, name the module file after the folder,
and set `name`/`folder`/`title` in its `benchmark.toml` (the registry). No other file changes.
"""

import argparse
import pathlib
import re
import shutil
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
TEMPLATE = REPO / "templates" / "accuracy"


def new_benchmark(folder: str, metrics: pathlib.Path, title: str | None = None, name: str | None = None) -> pathlib.Path:
    """The new folder `metrics/<folder>`, copied from the template and named; an error if it exists."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", folder):
        raise ValueError(f"folder {folder!r}: expected a Python package name (lower case, digits, _)")
    target = metrics / folder
    if target.exists():
        raise ValueError(f"{target} exists; expected a new folder")
    shutil.copytree(TEMPLATE, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / f"{TEMPLATE.name}.py").rename(target / f"{folder}.py")
    record = target / "benchmark.toml"
    text = record.read_text(encoding="utf-8")
    for key, value in (("name", name or folder), ("folder", folder), ("title", title or folder)):
        text = re.sub(rf'^{key} = ".*"$', f"{key} = {value!r}".replace("'", '"'), text, count=1, flags=re.M)
    record.write_text(text, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="the new folder's name (also the evaluate module's)")
    parser.add_argument("--name", help="the CLI command and registry name (default: the folder)")
    parser.add_argument("--title", help="the benchmark's title (default: the folder)")
    parser.add_argument("--metrics", type=pathlib.Path, default=REPO / "metrics", help="the package folder")
    args = parser.parse_args(argv)
    try:
        target = new_benchmark(args.folder, args.metrics, args.title, args.name)
    except (ValueError, OSError) as err:
        print(f"new_benchmark: error: {err}", file=sys.stderr)
        return 2
    print(f"{target}: a working copy of the template; now replace its rule, formats and card (CONTRIBUTING.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
