"""`benchscore data`: fetch, list, locate and import the official benchmark files (see `benchscore.data`).

    benchscore data fetch BENCH [BENCH ...]   # or --all; --with-<set> adds a file set, --revision a Hub revision
    benchscore data list                      # present / missing / corrupt, sizes, sources, licences
    benchscore data path BENCH SPLIT          # the file's path (exit 2 if it is not in the store)
    benchscore data import ../shared/data     # fill the store from a local copy, sha256-checked

The benchmarks, their files, file sets and hosts come from the registry (`benchscore.BENCHMARKS`).
"""

import json
import sys

from . import data

SUB_HELP = "the official benchmark files: fetch (pinned, sha256-checked), list, path, import"


def add_arguments(parser):
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    fetch = actions.add_parser("fetch", help="download official files into the store ($BENCHSCORE_DATA)",
                               description="Download a benchmark's official files into the store, each checked "
                                           "against its pinned sha256 before it is moved into place.")
    fetch.add_argument("benchmarks", nargs="*", metavar="BENCH", help=f"one or more of {', '.join(data.BENCHMARKS)}")
    fetch.add_argument("--all", action="store_true", help="every benchmark")
    fetch.add_argument("--file", action="append", dest="files", metavar="NAME",
                       help="only this file/split (repeatable; `benchscore data list` names them)")
    for owner, file_set in _file_sets():
        fetch.add_argument(file_set.option, action="append_const", const=file_set.name, dest="sets",
                           help=f"{owner}: also {file_set.help}")
    fetch.set_defaults(sets=[])
    hub = [bench for bench in data.BENCHMARKS.values() if bench.host == "hub"]
    variables = " / ".join(f"${b.revision_env}" for b in hub) or "$BENCHSCORE_<NAME>_REVISION"
    fetch.add_argument("--revision", help=f"{', '.join(b.name for b in hub) or 'a Hub dataset'}: the Hub revision "
                                          f"(branch, tag or commit; default: main, or {variables})")
    fetch.add_argument("--force", action="store_true", help="download again even if the stored copy is intact")
    fetch.add_argument("--no-progress", action="store_true", help="no progress bars")

    listing = actions.add_parser("list", help="what the store holds: present, missing or corrupt, with sources",
                                 description="Every official file: present, missing or corrupt, with its size, "
                                             "source, licence and citation.")
    listing.add_argument("benchmarks", nargs="*", metavar="BENCH")
    listing.add_argument("--json", action="store_true", help="print the rows as JSON")

    where = actions.add_parser("path", help="print the stored path of one official file",
                               description="Print the path of an official file in the store (exit 2 if it is "
                                           "missing or corrupt).")
    where.add_argument("benchmark", metavar="BENCH")
    where.add_argument("split", metavar="SPLIT", help="a file or split the benchmark names (`benchscore data list`)")

    fill = actions.add_parser("import", help="fill the store from a local copy of the files (no network)",
                              description="Fill the store from a folder laid out like ../shared/data "
                                          "(<bench>/<file>) or like a mirror (<owner>/<repo>/<commit>/<path>); "
                                          "each file is checked against its pinned sha256.")
    fill.add_argument("directory", metavar="DIR")
    fill.add_argument("benchmarks", nargs="*", metavar="BENCH")
    fill.set_defaults(skip_sets=[])
    for owner, file_set in _file_sets():
        fill.add_argument("--no-" + file_set.option[len("--with-"):], action="append_const", const=file_set.name,
                          dest="skip_sets", help=f"{owner}: leave the {file_set.words} out")


def _file_sets():
    """(benchmark name, FileSet) of every file set in the registry (each one a `--with-<set>` option)."""
    return [(name, s) for name, bench in data.BENCHMARKS.items() for s in bench.file_sets.values()]


def run(args):
    try:
        return {"fetch": _fetch, "list": _list, "path": _path, "import": _import}[args.action](args)
    except KeyboardInterrupt:
        print("benchscore data: error: interrupted; no partial file was left in the store", file=sys.stderr)
        return 130


def _fetch(args):
    names = _names_to_fetch(args)
    failed = []  # one benchmark that cannot be fetched (the Hub offline, say) stops none of the others
    for name in names:
        revision = _revision_for(args, name)
        sets = tuple(s for s in args.sets if s in data.benchmark(name).file_sets)
        try:
            paths = data.fetch(name, args.files, sets=sets, revision=revision,
                               force=args.force, progress=not args.no_progress)
        except data.DataError as err:
            if len(names) == 1:
                raise
            failed.append(f"{data.benchmark(name).name}: {err}")
            continue
        for file_name, path in paths.items():
            print(f"{data.benchmark(name).name} {file_name}: {path}")
    print(f"store: {data.root()}")
    if failed:
        raise data.DataError("; ".join(failed))
    return 0


def _names_to_fetch(args):
    """The benchmarks `args` asks for, every name checked before any download."""
    names = list(data.BENCHMARKS) if args.all else args.benchmarks
    if not names:
        raise data.DataError(f"name a benchmark to fetch ({', '.join(data.BENCHMARKS)}) or give --all")
    for name in names:
        data.benchmark(name)  # unknown names fail before any download
    if args.files and len(names) != 1:
        raise data.DataError("--file names the files of one benchmark; give exactly one")
    return names


def _revision_for(args, name):
    """--revision for a Hub dataset, None for the others (an error when one of them was named alone)."""
    revision = args.revision if data.benchmark(name).host == "hub" else None
    if args.revision and not args.all and revision is None:
        raise data.DataError(f"--revision applies to {data.hosted_on('hub')} only, not {name}")
    return revision


def _size(n):
    return "" if n is None else f"{n:,} B"


def _list(args):
    names = args.benchmarks or list(data.BENCHMARKS)
    rows = data.status(names)
    if args.json:
        print(json.dumps({"store": str(data.root()), "files": rows}, indent=1, ensure_ascii=False))
        return 0
    print(f"store: {data.root()}")
    for name in names:
        _print_benchmark(data.benchmark(name), [r for r in rows if r["benchmark"] == data.benchmark(name).name])
    return 0


def _print_benchmark(bench, rows):
    """One benchmark of `benchscore data list`: its header, a line per file, its revision if any."""
    print()
    print(f"{bench.name}: {bench.title}")
    print(f"  source:  {bench.source}")
    print(f"  licence: {data.licence(bench.name)}")
    print(f"  cite:    {bench.cite}")
    for row in rows:
        print(_file_line(bench, row))
    revision = next((r["revision"] for r in rows if r.get("revision")), None)
    if revision:
        print(f"  revision: {revision}")


def _file_line(bench, row):
    state = row["state"]
    if "counts" in row:
        state = f"{state} ({row['counts']['present']}/{sum(row['counts'].values())} files)"
    detail = row["path"] if row["state"] != "missing" or bench.host != "hub" else row["source"]
    return f"  {row['file']:<22}{state:<24}{_size(row['size']):>14}  {detail}"


def _path(args):
    file_set = data.file_set(args.benchmark, args.split)
    if file_set is not None:
        path = data.path(args.benchmark, args.split)
        if not data.set_complete(args.benchmark, args.split):
            raise data.OfflineError(f"the {data.benchmark(args.benchmark).name} {file_set.words} are not (all) in "
                                    f"the store; run `{data.fetch_command(args.benchmark, args.split)}`")
        print(path)
        return 0
    print(data.present(args.benchmark, args.split))
    return 0


def _import(args):
    stored = data.fill_from(args.directory, args.benchmarks or None, skip_sets=tuple(args.skip_sets))
    if not stored:
        raise data.DataError(f"no official file found under {args.directory} (expected <bench>/<file> as in "
                             "../shared/data, or <owner>/<repo>/<commit>/<path>)")
    for name, files in stored.items():
        sets = data.benchmark(name).file_sets
        shown = [f for f in files if f not in sets]
        print(f"{name}: {', '.join(shown)}" + "".join(f" + {sets[f].words}" for f in files if f in sets))
    print(f"store: {data.root()}")
    return 0
