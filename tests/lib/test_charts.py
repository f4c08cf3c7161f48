"""The pages' line charts (lib.charts): scaled into the box, a rank drawn with 1st on top,
gaps skipped, nothing drawn without two points in time."""

from __future__ import annotations

from lib.charts import PALETTE, line_chart


def points(line: dict) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in line["points"].split()]


def test_values_are_scaled_into_the_box_between_low_and_high() -> None:
    chart = line_chart({"a": [0, 5, 10], "b": [10, None, 0]}, width=100, height=50, pad=0)
    a, b = chart["lines"]
    assert points(a) == [(0, 50), (50, 25), (100, 0)], "higher values higher up"
    assert points(b) == [(0, 0), (100, 50)], "a missing value is skipped"
    assert (a["label"], a["colour"], b["colour"]) == ("a", PALETTE[0], PALETTE[1])
    assert (chart["low"], chart["high"], chart["steps"]) == (0, 10, 3)


def test_a_rank_is_drawn_downward_from_the_given_low() -> None:
    chart = line_chart({"x": [1, 3]}, width=10, height=20, pad=0, low=1, downward=True)
    assert points(chart["lines"][0]) == [(0, 0), (10, 20)], "1st at the top"


def test_nothing_to_draw() -> None:
    assert line_chart({}) is None
    assert line_chart({"a": [3]}) is None, "one moment is not a line"
    assert line_chart({"a": [None, None]}) is None
    flat = line_chart({"a": [2, 2]}, height=10, pad=0)
    assert points(flat["lines"][0]) == [(0.0, 10.0), (600.0, 10.0)], "no division by zero"


def test_two_series_may_share_a_label() -> None:
    chart = line_chart({0: [1, 2], 1: [2, 1]}, labels={0: "ref", 1: "ref"})
    assert [line["label"] for line in chart["lines"]] == ["ref", "ref"]


def test_the_axis_says_what_is_at_the_top_and_the_bottom() -> None:
    up = line_chart({"a": [3, 9]})
    down = line_chart({"a": [1, 4]}, low=1, downward=True)
    assert (up["top"], up["bottom"], down["top"], down["bottom"]) == (9, 3, 1, 4)
