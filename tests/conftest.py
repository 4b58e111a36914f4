"""Shared test helpers: absolute paths, the ../shared reference data, and module loading."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
# BENCHSCORE_METRICS: another copy of the package (tests/test_template.py runs the contract on one)
METRICS = pathlib.Path(os.environ.get("BENCHSCORE_METRICS", REPO / "metrics")).resolve()
# CI lays ../shared beside the checkout; BENCHSCORE_SHARED points elsewhere if needed.
SHARED = pathlib.Path(os.environ.get("BENCHSCORE_SHARED", REPO.parent / "shared")).resolve()

# Everything runs offline: evaluate must never try the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")


# CI sets this: the reference data is always there, so a test that would skip for want of it fails.
REQUIRE_SHARED = os.environ.get("BENCHSCORE_REQUIRE_SHARED") == "1"


def _from_store(parts):
    """The data store's verified copy of an official file under ../shared/data, when BENCHSCORE_DATA is set.

    So the parity tests read the official files the way a user does after `benchscore data fetch`
    (CI fills its store from ../shared with `benchscore data import`); recorded outputs and our
    own derived files are not in the store and stay in ../shared.
    """
    if not os.environ.get("BENCHSCORE_DATA") or len(parts) < 3 or parts[0] != "data":
        return None
    from benchscore import data

    name, relative = parts[1], "/".join(str(p) for p in parts[2:])
    if name not in data.BENCHMARKS:
        return None
    for split, entry in data.BENCHMARKS[name].files.items():
        if getattr(entry, "shared", None) == relative:
            try:
                return pathlib.Path(data.present(name, split))
            except data.OfflineError:
                return None  # not in this store: ../shared's copy, if any
    return None


def shared_path(*parts):
    """A path under ../shared (an official file: the data store's copy when BENCHSCORE_DATA is set), or
    a skip (with the reason) where it is absent."""
    path = _from_store(parts) or SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"reference data not available: {path} (../shared is laid beside the checkout in CI)"
        if REQUIRE_SHARED:
            pytest.fail(f"{reason}; BENCHSCORE_REQUIRE_SHARED=1 forbids skipping")
        pytest.skip(reason)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With BENCHSCORE_REQUIRE_SHARED=1, a skipped parity test is a failure: parity cannot vanish."""
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_SHARED and report.skipped and item.get_closest_marker("parity") is not None:
        report.outcome = "failed"
        report.longrepr = f"parity test skipped under BENCHSCORE_REQUIRE_SHARED=1: {report.longrepr}"


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
        return pathlib.Path(data.present(benchmark, split))
    except data.ChecksumError:
        raise
    except data.DataError as err:
        pytest.skip(f"official data not in the store: {err}")


@pytest.fixture(scope="session")
def _tsver_template_store(tmp_path_factory):
    """A store holding TSVer's official prompt template: CI's (BENCHSCORE_DATA) when it has it, else
    one filled once from ../shared (a skip, or a failure under BENCHSCORE_REQUIRE_SHARED, without it)."""
    from benchscore import data

    configured = os.environ.get("BENCHSCORE_DATA")
    if configured:
        try:
            data.present("tsver", "prompt_templates")
            return configured
        except data.DataError:
            pass
    store = tmp_path_factory.mktemp("tsver-template-store")
    shared = shared_path("data")
    previous = os.environ.get("BENCHSCORE_DATA")
    os.environ["BENCHSCORE_DATA"] = str(store)
    try:
        data.fill_from(shared, ["tsver"], skip_sets=("time_series",))
    finally:
        if previous is None:
            os.environ.pop("BENCHSCORE_DATA")
        else:
            os.environ["BENCHSCORE_DATA"] = previous
    return str(store)


@pytest.fixture
def tsver_store(_tsver_template_store, monkeypatch):
    """The official TSVer judge protocol's template within reach (BENCHSCORE_DATA), offline; loopback
    requests go straight to the fake judge servers whatever proxy the machine sets."""
    monkeypatch.setenv("BENCHSCORE_DATA", _tsver_template_store)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    return pathlib.Path(_tsver_template_store)
