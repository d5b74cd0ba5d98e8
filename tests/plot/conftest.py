"""Plots are drawn with the Agg backend (no display); each test's figures are closed after it."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure


@pytest.fixture
def ax() -> Iterator[Axes]:
    """A fresh Axes on its own (non-pyplot) figure."""
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot()
    yield axes
    figure.draw_without_rendering()  # layout and text placement work on the final plot


@pytest.fixture(autouse=True)
def _close_pyplot_figures() -> Iterator[None]:
    yield
    plt.close("all")
