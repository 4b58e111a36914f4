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


# CI sets this: the reference data is always there, so a test that would skip for want of it fails.
REQUIRE_SHARED = os.environ.get("BENCHSCORE_REQUIRE_SHARED") == "1"


def shared_path(*parts):
    """A path under ../shared, or a skip (with the reason) where ../shared is absent."""
    path = SHARED.joinpath(*parts)
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
