"""The vocabulary every benchmark folder implements, written down: one `Protocol` per module of a
folder (what a module must define, by name), and the `Case` that feeds a folder's bundled example
to every entry point (`<folder>/contract.py`), which tests/test_contract.py runs for each folder of
the registry.

The protocols name functions, not their parameters: a benchmark's own options differ (subsets,
a judge's options), while the names, their meaning and their return shapes are shared:

    scoring.item_stats(...)           -> list of the benchmark's ItemStats (one per unit: question, entry, claim)
    scoring.aggregate(stats, ...)     -> {headline name: number, ...}, the official numbers
    scoring.score(...)                -> aggregate's dict + "signature" (+ extensions, "warnings")
    scoring.signature(...)            -> Signature (a str that keeps its fields)
    files.read_references(path)       -> the gold file's checked items (`official:<split>` accepted)
    files.read_predictions(path, ...) -> the prediction file's checked items
    files.file_stats(gold, pred, ...) -> scoring.item_stats of two files
    files.score_files(gold, pred)     -> score's dict of two files, read warnings included
    significance.confidence_intervals(stats, n_resamples, seed, level) -> {name: {"estimate", "low", "high"}}
    significance.paired_test(stats_a, stats_b, n_resamples, seed, level) -> {name: {"a", "b", "difference", ...}}
    significance.add_confidence(result, stats, n_resamples, seed, level) -> the result, intervals added
    cli.add_arguments / run / add_compare_arguments / systems / run_compare: the `benchscore` sub-commands
                                      (`benchscore table <bench>` runs on add_compare_arguments and systems)
    trainer.compute_metrics_for(eval_dataset, ...) -> a `transformers.Trainer` compute_metrics
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ScoringModule(Protocol):
    """`<folder>/scoring.py`: the pure scorer, framework-free, no file IO."""

    VERSION: str
    ItemStats: type
    item_stats: Callable[..., list]
    aggregate: Callable[..., dict]
    score: Callable[..., dict]
    signature: Callable[..., str]


@runtime_checkable
class FilesModule(Protocol):
    """`<folder>/files.py`: the one read path of the official file formats (CLI, compare, Space, loader)."""

    read_references: Callable[..., Any]
    read_predictions: Callable[..., Any]
    file_stats: Callable[..., list]
    score_files: Callable[..., dict]


@runtime_checkable
class SignificanceModule(Protocol):
    """`<folder>/significance.py`: bootstrap intervals and paired tests over the benchmark's units."""

    item_values: Callable[..., Any]
    statistic: Callable[..., dict]
    confidence_intervals: Callable[..., dict]
    paired_test: Callable[..., dict]
    add_confidence: Callable[..., dict]


@runtime_checkable
class CliModule(Protocol):
    """`<folder>/cli.py`: `benchscore <bench>` and `benchscore compare <bench>`."""

    add_arguments: Callable[[Any], None]
    run: Callable[[Any], int]
    add_compare_arguments: Callable[[Any], None]
    systems: Callable[[Any], Any]  # args -> core.compare.Systems (what compare and table report)
    run_compare: Callable[[Any], int]


@runtime_checkable
class TrainerModule(Protocol):
    """`<folder>/trainer.py`: a `compute_metrics` for `transformers.Trainer`."""

    compute_metrics_for: Callable[..., Callable]


PROTOCOLS = {"scoring": ScoringModule, "files": FilesModule, "significance": SignificanceModule,
             "cli": CliModule, "trainer": TrainerModule}


def missing_names(module: object, protocol: type) -> list[str]:
    """The names `protocol` asks for that `module` lacks or has but cannot call (empty when it conforms)."""
    wanted = [name for name in getattr(protocol, "__annotations__", {})]
    absent = [name for name in wanted if not hasattr(module, name)]
    uncallable = [name for name in wanted if name not in absent and name not in ("VERSION",)
                  and not callable(getattr(module, name))]
    return absent + uncallable


class EvalPrediction:
    """What the Trainer helpers read of `transformers.EvalPrediction` (predictions, label_ids)."""

    def __init__(self, predictions: Any, label_ids: Any = None) -> None:
        self.predictions, self.label_ids = predictions, label_ids


@dataclass(frozen=True)
class Case:
    """A folder's bundled example through every entry point (`<folder>/contract.py` defines `CASE`).

    Every path function takes the example's paths (in `files`' order, under `<folder>/examples/`).
    """

    files: tuple[str, ...]  # the bundled example's files, in the CLI's order
    cli_args: Callable[..., list[str]]  # paths -> argv after `benchscore <bench>` (JSON output)
    pure: Callable[..., dict]  # paths -> result dict, without evaluate (files.score_files)
    inputs: Callable[..., dict]  # paths -> the evaluate module's compute() inputs
    trainer: Callable[..., tuple]  # paths -> (compute_metrics, EvalPrediction)
    headline: tuple[str, ...]  # flattened result keys every entry point must agree on
    # headline key -> ({column: value} picking one row of the Space's results table, its column)
    space_cells: dict[str, tuple[dict[str, str], str]] = field(default_factory=dict)
    config_name: str | None = None
    # (compute inputs, EvalPrediction) -> the compute inputs the Trainer helper's predictions amount to,
    # where a classifier cannot express the example's predictions exactly (None: the example's own)
    trainer_inputs: Callable[[dict, EvalPrediction], dict] | None = None


def check_case(case: Case, folder: str) -> None:
    """A `Case` that names its files and a Space cell for each headline number."""
    if not case.files or not case.headline:
        raise ValueError(f"{folder}/contract.py: CASE names no example files or no headline numbers")
    if case.space_cells and set(case.space_cells) != set(case.headline):
        raise ValueError(f"{folder}/contract.py: the Space cells are for {sorted(case.space_cells)}, the headline "
                         f"numbers are {sorted(case.headline)}; expected one cell per headline number")


def flat_keys(result: dict, keys: Sequence[str]) -> dict:
    """The `keys` of a result flattened with "/" (as the Trainer logs it)."""
    from benchscore.core.trainer import flatten_for_logging

    flat = flatten_for_logging(result)
    missing = [key for key in keys if key not in flat]
    if missing:
        raise KeyError(f"the result has no {missing}")
    return {key: flat[key] for key in keys}
