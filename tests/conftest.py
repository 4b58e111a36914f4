"""Shared test helpers: absolute paths, the ../shared reference data, and module loading."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
METRICS = REPO / "metrics"
# CI lays ../shared beside the checkout; BENCHSCORE_SHARED points elsewhere if needed.
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")).resolve()

# Everything runs offline: evaluate must never try the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")


def shared_path(*parts):
    """A path under ../shared, or a skip (with the reason) where ../shared is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not available: {path} (../shared is laid beside the checkout in CI)")
    return path


def load_metric(folder, config_name=None, **kwargs):
    """`evaluate.load` on the metric folder by absolute path (never the Hub, never the cwd)."""
    import evaluate

    return evaluate.load(str(METRICS / folder), config_name, **kwargs)


def official_path(benchmark, split):
    """An official file read through the data store (`benchscore.data`), or a skip with the reason.

    CI fills a store from ../shared (`benchscore data import ../shared/data`) and points
    BENCHSCORE_DATA at it; a user who ran `benchscore data fetch --all` runs the same tests. Never
    downloads: a file missing from the store is a skip, a corrupt one a failure.
    """
    from benchscore import data

    try:
        return pathlib.Path(data._present(benchmark, split))
    except data.ChecksumError:
        raise
    except data.DataError as err:
        pytest.skip(f"official data not in the store: {err}")
