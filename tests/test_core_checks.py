"""One rule for "an int, not a bool" (core.checks), the same at every option that takes a count (issue 21:
three helpers disagreed, e.g. a numpy integer was taken for n_resamples and refused for top_k)."""

import numpy as np
import pytest

from benchscore.core import checks
from benchscore.core import resampling
from benchscore.tempbench_trp import scoring as tempbench_scoring
from benchscore.tsver.http_judge import _check_settings


@pytest.mark.parametrize("value, whole, real", [(3, True, True), (np.int64(3), True, True), (np.uint8(3), True, True),
                                                (True, False, False), (np.bool_(True), False, False),
                                                (3.0, False, True), (np.float32(3), False, True), ("3", False, False),
                                                (None, False, False), (float("nan"), False, True)])
def test_the_rule(value, whole, real):
    assert (checks.is_int(value), checks.is_real(value)) == (whole, real)
    assert checks.as_int(value) == (3 if whole else None) and type(checks.as_int(value)) is (int if whole else type(None))


@pytest.mark.parametrize("option", [
    lambda n: tempbench_scoring.check_options(top_k=n),
    lambda n: resampling.check_options(n, 0, 0.95),
    lambda n: resampling.check_options(1000, n, 0.95),
    lambda n: _check_settings(concurrency=n, max_retries=0, timeout=1.0, backoff=0.0, samples=1),
    lambda n: _check_settings(concurrency=1, max_retries=n, timeout=1.0, backoff=0.0, samples=1),
    lambda n: _check_settings(concurrency=1, max_retries=0, timeout=1.0, backoff=0.0, samples=n),
], ids=["top_k", "n_resamples", "seed", "concurrency", "max_retries", "samples"])
def test_every_count_option_takes_numpy_ints_and_refuses_bools(option):
    option(np.int64(2))
    option(2)
    with pytest.raises((ValueError, TypeError)):
        option(True)
    with pytest.raises((ValueError, TypeError)):
        option(2.0)
