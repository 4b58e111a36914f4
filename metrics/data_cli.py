"""`benchscore data`: fetch, list, locate and import the official benchmark files (see `benchscore.data`).

    benchscore data fetch mctaco                       # or webnlg, tsver, tempbench; several; or --all
    benchscore data fetch tsver --with-time-series     # + the 400 time-series CSVs (24.5 MB)
    benchscore data fetch tempbench --revision v1.0.1  # a Hub revision (default: the newest)
    benchscore data list                               # present / missing / corrupt, sizes, sources, licences
    benchscore data path mctaco test                   # the file's path (exit 2 if it is not in the store)
    benchscore data import ../shared/data              # fill the store from a local copy, sha256-checked
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
    fetch.add_argument("--with-time-series", action="store_true",
                       help="tsver: also the 400 time-series CSVs and their metadata (model inputs, 24.5 MB)")
    fetch.add_argument("--revision", help="tempbench: the Hub revision (branch, tag or commit; default: main, "
                                          "or $BENCHSCORE_TEMPBENCH_REVISION)")
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
    where.add_argument("split", metavar="SPLIT", help="e.g. mctaco test, webnlg en, tsver dev, tempbench test")

    fill = actions.add_parser("import", help="fill the store from a local copy of the files (no network)",
                              description="Fill the store from a folder laid out like ../shared/data "
                                          "(<bench>/<file>) or like a mirror (<owner>/<repo>/<commit>/<path>); "
                                          "each file is checked against its pinned sha256.")
    fill.add_argument("directory", metavar="DIR")
    fill.add_argument("benchmarks", nargs="*", metavar="BENCH")
    fill.add_argument("--no-time-series", action="store_true", help="tsver: leave the time-series CSVs out")


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
        with_time_series = args.with_time_series and data.benchmark(name).name == "tsver"
        try:
            paths = data.fetch(name, args.files, with_time_series=with_time_series, revision=revision,
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
    """--revision for tempbench, None for the others (an error when one of them was named alone)."""
    revision = args.revision if data.benchmark(name).name == "tempbench" else None
    if args.revision and not args.all and revision is None:
        raise data.DataError(f"--revision applies to tempbench only, not {name}")
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
    detail = row["path"] if row["state"] != "missing" or bench.name != "tempbench" else row["source"]
    return f"  {row['file']:<22}{state:<24}{_size(row['size']):>14}  {detail}"


def _path(args):
    if args.split == data.TIME_SERIES:
        path = data.path(args.benchmark, args.split)
        if not data._time_series_complete(data.benchmark(args.benchmark)):
            raise data.OfflineError(f"the tsver time series are not (all) in the store; run "
                                    f"`{data.fetch_command(args.benchmark, args.split)}`")
        print(path)
        return 0
    print(data._present(args.benchmark, args.split))
    return 0


def _import(args):
    stored = data.fill_from(args.directory, args.benchmarks or None, with_time_series=not args.no_time_series)
    if not stored:
        raise data.DataError(f"no official file found under {args.directory} (expected <bench>/<file> as in "
                             "../shared/data, or <owner>/<repo>/<commit>/<path>)")
    for name, files in stored.items():
        shown = [f for f in files if f != data.TIME_SERIES]
        n_series = files.count(data.TIME_SERIES)
        print(f"{name}: {', '.join(shown)}" + (" + time series" if n_series else ""))
    print(f"store: {data.root()}")
    return 0
