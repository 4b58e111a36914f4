"""Plots of our numbers (the optional `plots` extra: matplotlib), drawn from the same data the text
shows: a forest plot of a `benchscore table` (each system's value with its interval, and its
paired difference against the baseline) and the slice bars of a single run (as its Space shows
them). Labelled axes, the metric's name in each panel, the signature in the caption.
"""

import os
import textwrap

from benchscore.core.registry import Benchmark

WIDTH_PER_PANEL, HEIGHT_PER_ROW, DPI = 3.6, 0.42, 100
ENDINGS = (".png", ".svg")


def add_plot_option(parser) -> None:
    """`--plot FILE` of a single-run command: its slice bars."""
    parser.add_argument("--plot", metavar="FILE", help="also draw the run's per-slice bars (.png or .svg; needs the "
                                                       "`plots` extra: matplotlib)")


def check_path(path: str | None, *inputs: str, output: str | None = None) -> None:
    """A plot file name checked before anything is scored: its ending, not an input nor the command's
    other output, writable."""
    from benchscore.core.readers import check_output, check_writable

    if path is None:
        return
    if os.path.splitext(path)[1].lower() not in ENDINGS:
        raise ValueError(f"--plot {path}: expected a .png or .svg file name")
    if output and os.path.abspath(output) == os.path.abspath(path):
        raise ValueError(f"the output and --plot are both {path}; expected two files")
    check_output(path, *inputs)
    check_writable(path)


def plot_run(args, result: dict, name: str) -> None:
    """The slice bars of a single run when `--plot` was given."""
    if getattr(args, "plot", None):
        import benchscore

        slices(result, benchscore.benchmark(name), args.plot)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--plot needs matplotlib: pip install 'benchscore[plots]'") from None
    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def _caption(fig, text: str, width_inches: float) -> None:
    fig.text(0.01, 0.01, "\n".join(textwrap.wrap(text, int(width_inches * 16))), fontsize=7, va="bottom",
             ha="left", family="monospace")


def _save(fig, path: str) -> None:
    """Saves through a temporary file beside `path`, so a failure leaves nothing half written."""
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.part{os.path.splitext(name)[1]}")
    try:
        fig.savefig(tmp, dpi=DPI)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def forest(table: dict, bench: Benchmark, path: str, alpha: float = 0.05) -> None:
    """Top row: each system's value and interval per headline metric; bottom row (two or more systems):
    each system's paired difference from the baseline with its interval, a line at 0."""
    plt = _pyplot()
    keys, rows = list(table["metrics"]), table["rows"]
    others = [row for row in rows if row["system"] != table["baseline"]]
    n_rows = 2 if others else 1
    width = WIDTH_PER_PANEL * len(keys) + 1.5
    height = HEIGHT_PER_ROW * (len(rows) + len(others)) + 1.6 * n_rows + 0.8
    fig, axes = plt.subplots(n_rows, len(keys), figsize=(width, height), squeeze=False)
    for column, key in enumerate(keys):
        _forest_column([row[column] for row in axes], table, key, bench.table.scale, others, alpha)
    for ax in (ax for row in axes for ax in row[1:]):
        ax.set_yticklabels([])
    caption = f"{bench.title}. * p < {alpha} ({table['test']} test). Signature: {table['signature']}"
    fig.tight_layout(rect=(0, 0.1 if n_rows == 1 else 0.06, 1, 1))
    _caption(fig, caption, width)
    _save(fig, path)
    plt.close(fig)


def _forest_column(axes, table: dict, key: str, scale: float, others: list, alpha: float) -> None:
    """One metric's panels: the values, then (with other systems) the differences from the baseline."""
    label, unit = table["metrics"][key], " (x100)" if scale == 100 else ""
    _intervals(axes[0], [(row["system"], row["metrics"][key]) for row in table["rows"]], scale, alpha)
    axes[0].set_title(label, fontsize=9)
    axes[0].set_xlabel(f"{label}{unit}, {table['level']:.0%} interval", fontsize=8)
    if others:
        cells = [(row["system"], row["metrics"][key]["difference"] | {"p_value": row["metrics"][key]["p_value"]})
                 for row in others]
        _intervals(axes[1], cells, scale, alpha)
        axes[1].axvline(0, color="grey", linewidth=0.8, linestyle="--")
        axes[1].set_title(f"{label}: difference from {table['baseline']}", fontsize=9)
        axes[1].set_xlabel(f"system - baseline{unit}", fontsize=8)
    for ax in axes:
        ax.tick_params(labelsize=7)


def _scaled(cell: dict, scale: float) -> tuple:
    return tuple(None if cell.get(k) is None else cell[k] * scale for k in ("value", "low", "high"))


def _intervals(ax, cells, scale: float, alpha: float) -> None:
    """Horizontal points with interval bars, the first cell on top; a `*` beside a marked one."""
    cells = cells[::-1]
    for y, (_, cell) in enumerate(cells):
        value, low, high = _scaled(cell, scale)
        if value is None:
            continue
        if low is not None and high is not None:
            ax.plot([low, high], [y, y], color="tab:blue", linewidth=2)
        ax.plot([value], [y], "o", color="tab:blue", markersize=4)
        marked = cell.get("p_value") is not None and cell["p_value"] < alpha
        if marked:
            ax.annotate("*", (high if high is not None else value, y), xytext=(3, -3), textcoords="offset points")
    ax.set_yticks(range(len(cells)))
    ax.set_yticklabels([name for name, _ in cells])
    ax.set_ylim(-0.7, len(cells) - 0.3)


def slices(result: dict, bench: Benchmark, path: str) -> None:
    """The per-slice bars of a single run (the benchmark's `Table.slices` found in `result`)."""
    found = [(name, pairs) for name, pairs in bench.table.slices.items() if name in result]
    if not found:
        what = ", ".join(bench.table.slices) or "none"
        raise ValueError(f"--plot draws a run's slices, and this result has none (the {bench.name} slices: {what}); "
                         "for several systems use `benchscore table`")
    plt = _pyplot()
    width = max(5.0, 1.2 + 0.55 * max(len(result[name]) for name, _ in found) * len(found[0][1]))
    fig, axes = plt.subplots(len(found), 1, figsize=(width, 2.9 * len(found) + 0.6), squeeze=False)
    for ax, (name, pairs) in zip((row[0] for row in axes), found):
        _slice_panel(ax, bench, name, pairs, result[name])
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    _caption(fig, f"Signature: {result.get('signature', '')}", width)
    _save(fig, path)
    plt.close(fig)


def _slice_panel(ax, bench: Benchmark, name: str, pairs: tuple, cells: dict) -> None:
    """One slicing's bars: a group of bars (one per metric) for each slice."""
    groups = list(cells)
    bar = 0.8 / len(pairs)
    for offset, (key, label) in enumerate(pairs):
        values = [_at(cells[group], key) for group in groups]
        positions = [i + (offset - (len(pairs) - 1) / 2) * bar for i in range(len(groups))]
        ax.bar(positions, [0 if v is None else v for v in values], width=bar, label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups], rotation=30, ha="right", fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("score", fontsize=8)
    axis = name.replace("extension_per_", "per ").replace("by_", "by ").replace("_", " ")
    ax.set_xlabel(axis, fontsize=8)
    ax.set_title(f"{bench.title}: {', '.join(label for _, label in pairs)} {axis}", fontsize=9)
    ax.legend(fontsize=7)


def _at(cell: dict, key: str):
    for part in key.split("/"):
        cell = cell[part]
    return cell
