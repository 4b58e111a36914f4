"""The sub-packages are found, not listed (pyproject.toml holds the rest of the configuration):
metrics/ is `benchscore`, and each folder of it with an `__init__.py` is `benchscore.<folder>`, so a
new benchmark folder needs no edit here."""

from setuptools import find_packages, setup

setup(packages=["benchscore"] + [f"benchscore.{name}" for name in find_packages("metrics")])
