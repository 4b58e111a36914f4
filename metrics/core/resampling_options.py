"""The resampling options every benchmark's intervals and tests take (`resampling` computes them): their
defaults, their check and what a result's signature gains with them. Apart from `resampling` because it
needs no numpy: every command's options read it, and only those that resample load numpy (~50 ms and
~10 MiB of a command's start-up)."""

from benchscore.core.checks import is_int, is_real

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
DEFAULT_LEVEL = 0.95

MAX_RESAMPLES = 100_000  # time grows with resamples x items: 100,000 over 1,332 items takes ~3 s


def check_options(n_resamples, seed, level):
    """Validates the resampling options with a message that says what is expected."""
    if not is_int(n_resamples) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive int, found {n_resamples!r}")
    if n_resamples > MAX_RESAMPLES:
        raise ValueError(f"n_resamples is {n_resamples:,}; expected at most {MAX_RESAMPLES:,} (1,000 is plenty "
                         "for 95% intervals; more only costs time)")
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative int (the run must be reproducible), found {seed!r}")
    if not is_real(level) or not 0 < level < 1:
        raise ValueError(f"confidence level must be a number strictly between 0 and 1 (e.g. 0.95), found {level!r}")


def signature_fields(n_resamples, seed, level):
    """{"bootstrap": R, "seed": seed, "confidence": level}: what a result's signature gains with intervals."""
    return {"bootstrap": n_resamples, "seed": seed, "confidence": level}
