"""Line charts as inline SVG for the pages: geometry only, drawn by templates (no script,
nothing loaded from the internet). One place for the bot latency chart and the league charts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Series colours, taken in turn (readable on white, told apart by hue and lightness).
PALETTE = ("#2f5fd0", "#d0432f", "#2f9e55", "#b07a10", "#7a3fc0", "#108a9e", "#c03f8a",
           "#5b6b2f", "#404040", "#e07b00")


def line_chart(series: Mapping[Any, Sequence[float | None]], *, width: int = 600,
               height: int = 160, low: float | None = None, high: float | None = None,
               downward: bool = False, pad: float = 6.0,
               labels: Mapping[Any, str] | None = None) -> dict[str, Any] | None:
    """Polylines for ``series`` (key -> values by x; None = no value there; ``labels`` names
    the keys, which are their own labels by default: two series may share a name), scaled into
    ``width`` x ``height`` between ``low`` and ``high`` (default: the values' range). With
    ``downward`` the low values are drawn at the top (a rank: 1st on top). None when there is
    nothing to draw (no value, or fewer than two x positions)."""
    values = [v for row in series.values() for v in row if v is not None]
    steps = max((len(row) for row in series.values()), default=0)
    if not values or steps < 2:
        return None
    low = min(values) if low is None else low
    high = max(values) if high is None else high
    span = (high - low) or 1.0
    dx = (width - 2 * pad) / (steps - 1)

    def y(value: float) -> float:
        share = (value - low) / span
        return pad + (share if downward else 1 - share) * (height - 2 * pad)

    lines = []
    for i, (key, row) in enumerate(series.items()):
        points = [(pad + x * dx, y(v)) for x, v in enumerate(row) if v is not None]
        if not points:
            continue
        lines.append({"label": labels[key] if labels is not None else key, "colour": PALETTE[i % len(PALETTE)],
                      "points": " ".join(f"{px:.1f},{py:.1f}" for px, py in points),
                      "end": points[-1]})
    top, bottom = (low, high) if downward else (high, low)
    return {"width": width, "height": height, "low": low, "high": high, "steps": steps,
            "lines": lines, "top": top, "bottom": bottom}
