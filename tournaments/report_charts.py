"""Inline SVG charts for the HTML report (no script, no library, no network).

Small and dependable on purpose: bars, stacked bars and lines, each with
its numbers in <title> tooltips and a caption, every label escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

__all__ = ["bar_chart", "stacked_bars", "line_chart", "PALETTE"]

PALETTE = ("#2a62c9", "#d0711b", "#1d8a4a", "#9b3fb8", "#c8372d", "#0f8a8a", "#8a6d00", "#5d6473",
           "#e377c2", "#7f7f7f")


def _esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def bar_chart(labels: Sequence[str], series: Mapping[str, Sequence[int]], *, chart_id: str, title: str,
              x_label: str, width: int = 720, height: int = 220) -> str:
    """Grouped vertical bars: one group per label, one bar per series."""
    left, bottom, top, right = 40, 34, 24, 10
    names = list(series)
    peak = max([v for vals in series.values() for v in vals] + [1])
    n = max(len(labels), 1)
    group = (width - left - right) / n
    bar = max(group * 0.8 / max(len(names), 1), 1.0)
    plot_h = height - top - bottom
    out = [f"<svg id='{_esc(chart_id)}' class=chart xmlns='http://www.w3.org/2000/svg' width='{width}' "
           f"height='{height}' viewBox='0 0 {width} {height}' role='img' aria-label='{_esc(title)}'>",
           f"<text x='{left}' y='14' class=ct>{_esc(title)}</text>",
           f"<line x1='{left}' y1='{height - bottom}' x2='{width - right}' y2='{height - bottom}' class=ax />",
           f"<text x='{left - 4}' y='{top + 4}' text-anchor=end class=tk>{peak}</text>",
           f"<text x='{left - 4}' y='{height - bottom}' text-anchor=end class=tk>0</text>"]
    step = max(1, n // 12)
    for i, label in enumerate(labels):
        x0 = left + i * group + group * 0.1
        for j, name in enumerate(names):
            v = series[name][i]
            h = v / peak * plot_h
            out.append(f"<rect x='{x0 + j * bar:.1f}' y='{height - bottom - h:.1f}' width='{bar:.1f}' height='{h:.1f}'"
                       f" fill='{PALETTE[j % len(PALETTE)]}'><title>{_esc(name)}, {_esc(label)}: {v}</title></rect>")
        if i % step == 0:
            out.append(f"<text x='{left + (i + 0.5) * group:.1f}' y='{height - bottom + 13}' text-anchor=middle"
                       f" class=tk>{_esc(label)}</text>")
    out.append(f"<text x='{(left + width) / 2:.0f}' y='{height - 4}' text-anchor=middle class=tk>{_esc(x_label)}</text>")
    out.append("</svg>")
    if len(names) > 1:
        out.append(_legend(names))
    return "".join(out)


def stacked_bars(rows: Sequence[str], parts: Sequence[str], values: Mapping[str, Sequence[int]], *,
                 chart_id: str, title: str, width: int = 720) -> str:
    """One horizontal bar per row, split into parts (shares of the row's total)."""
    label_w, row_h, top = 170, 24, 24
    height = top + row_h * len(rows) + 8
    plot_w = width - label_w - 50
    out = [f"<svg id='{_esc(chart_id)}' class=chart xmlns='http://www.w3.org/2000/svg' width='{width}' "
           f"height='{height}' viewBox='0 0 {width} {height}' role='img' aria-label='{_esc(title)}'>",
           f"<text x='0' y='14' class=ct>{_esc(title)}</text>"]
    for i, row in enumerate(rows):
        y = top + i * row_h
        vals = values[row]
        total = sum(vals)
        out.append(f"<text x='0' y='{y + 15}' class=tk>{_esc(row[:26])}</text>")
        x = float(label_w)
        for j, part in enumerate(parts):
            w = vals[j] / total * plot_w if total else 0.0
            if w > 0:
                out.append(f"<rect x='{x:.1f}' y='{y + 3}' width='{w:.1f}' height='{row_h - 7}' "
                           f"fill='{PALETTE[j % len(PALETTE)]}'><title>{_esc(row)}: {_esc(part)} {vals[j]} of"
                           f" {total}</title></rect>")
                if w > 22:
                    out.append(f"<text x='{x + w / 2:.1f}' y='{y + 15}' text-anchor=middle class=in>{vals[j]}</text>")
            x += w
        out.append(f"<text x='{label_w + plot_w + 6}' y='{y + 15}' class=tk>{total}</text>")
    out.append("</svg>")
    out.append(_legend(parts))
    return "".join(out)


def line_chart(xs: Sequence[int], series: Mapping[str, Sequence[float]], *, chart_id: str, title: str,
               x_label: str, y_label: str, width: int = 720, height: int = 260) -> str:
    """One line per series over shared x values (with a zero line when the values cross it)."""
    left, bottom, top, right = 52, 34, 24, 10
    vals = [v for s in series.values() for v in s] or [0.0]
    lo, hi = min(vals + [0.0]), max(vals + [0.0])
    if hi == lo:
        hi = lo + 1
    x_lo, x_hi = (xs[0], xs[-1]) if xs else (0, 1)
    x_span = (x_hi - x_lo) or 1

    def px(x: float) -> float:
        return left + (x - x_lo) / x_span * (width - left - right)

    def py(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    out = [f"<svg id='{_esc(chart_id)}' class=chart xmlns='http://www.w3.org/2000/svg' width='{width}' "
           f"height='{height}' viewBox='0 0 {width} {height}' role='img' aria-label='{_esc(title)}'>",
           f"<text x='{left}' y='14' class=ct>{_esc(title)}</text>",
           f"<line x1='{left}' y1='{py(0):.1f}' x2='{width - right}' y2='{py(0):.1f}' class=ax />",
           f"<text x='{left - 4}' y='{top + 4}' text-anchor=end class=tk>{hi:.0f}</text>",
           f"<text x='{left - 4}' y='{height - bottom}' text-anchor=end class=tk>{lo:.0f}</text>",
           f"<text x='{left}' y='{height - bottom + 14}' class=tk>{x_lo}</text>",
           f"<text x='{width - right}' y='{height - bottom + 14}' text-anchor=end class=tk>{x_hi}</text>",
           f"<text x='{(left + width) / 2:.0f}' y='{height - 4}' text-anchor=middle class=tk>{_esc(x_label)}</text>",
           f"<text x='12' y='{(top + height - bottom) / 2:.0f}' class=tk transform='rotate(-90 12 "
           f"{(top + height - bottom) / 2:.0f})' text-anchor=middle>{_esc(y_label)}</text>"]
    for j, (name, ys) in enumerate(series.items()):
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
        out.append(f"<polyline points='{pts}' fill='none' stroke='{PALETTE[j % len(PALETTE)]}' stroke-width='2'>"
                   f"<title>{_esc(name)}: {ys[-1]:.0f} at {xs[-1]}</title></polyline>" if ys else "")
    out.append("</svg>")
    out.append(_legend(list(series)))
    return "".join(out)


def _legend(names: Sequence[str]) -> str:
    items = "".join(f"<span><i style='background:{PALETTE[j % len(PALETTE)]}'></i>{_esc(n)}</span>"
                    for j, n in enumerate(names))
    return f"<div class=legend>{items}</div>"
