"""The argument checks every benchmark shares: one rule, one place.

A bool is never a number here (`True` is an int to Python, never a count, a size or a setting), and
numpy's integers and floats are numbers like Python's (a value read from an array or a DataFrame).
"""

import numbers
import operator


def is_int(value) -> bool:
    """An integer (Python's or numpy's) that is not a bool."""
    # A plain int answers before the ABC check, which costs a microsecond (it runs per value of a file).
    return type(value) is int or isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value) -> bool:
    """A real number (int or float, Python's or numpy's) that is not a bool; NaN and infinities included."""
    return type(value) in _PLAIN_REALS or isinstance(value, numbers.Real) and not isinstance(value, bool)


_PLAIN_REALS = (int, float)


def as_int(value):
    """`value` as a Python int when `is_int(value)`, else None."""
    return operator.index(value) if is_int(value) else None
