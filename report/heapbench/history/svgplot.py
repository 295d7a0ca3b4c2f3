"""svgplot.py - one series drawn as a small inline SVG: median line, rep spread band, change points and library changes marked.

Always holds: the SVG is text built here (no file, no external reference: it inlines in a
self-contained page) and every label in it is XML-escaped; the band spans each point's
25th..75th percentile of its reps (Point.lo, Point.hi); change points are red dashed verticals before the first point
after the change, library changes blue dotted ones, each with a <title> tooltip; a series of one
point or with equal values still draws (a flat range is widened). Hand-written rather than
matplotlib because a history report draws ~1,000 plots and must take seconds.
"""
import numpy as np

from heapbench.page import esc


def _fmt(v):
    return f"{v:.4g}"


def plot(points, changes=(), libraries=(), width=260, height=110, title=""):
    """The SVG of a series of Points; changes: indexes of first points after a change (with a text),
    libraries: (index, text) of library changes."""
    n = len(points)
    med = np.array([p.median for p in points], dtype=float)
    lo = np.array([p.lo for p in points], dtype=float)
    hi = np.array([p.hi for p in points], dtype=float)
    top, bottom = float(max(hi.max(), med.max())), float(min(lo.min(), med.min()))
    if top == bottom:
        top, bottom = top + abs(top) * 0.01 + 1e-9, bottom - abs(bottom) * 0.01 - 1e-9
    left, right, up, down = 44, 6, 16 if title else 6, 14
    w, h = width - left - right, height - up - down

    def x(i):
        return left + (w * i / (n - 1) if n > 1 else w / 2)

    def y(v):
        return up + h * (top - v) / (top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="9">']
    if title:
        out.append(f'<text x="{left}" y="11" font-size="10" font-weight="bold">{esc(title)}</text>')
    out.append(f'<rect x="{left}" y="{up}" width="{w}" height="{h}" fill="#fafafa" stroke="#ccc"/>')
    out.append(f'<text x="{left - 3}" y="{up + 8}" text-anchor="end">{_fmt(top)}</text>')
    out.append(f'<text x="{left - 3}" y="{up + h}" text-anchor="end">{_fmt(bottom)}</text>')
    area = [f"{x(i):.1f},{y(hi[i]):.1f}" for i in range(n)] + [f"{x(i):.1f},{y(lo[i]):.1f}" for i in reversed(range(n))]
    out.append(f'<polygon points="{" ".join(area)}" fill="#9ecae1" fill-opacity="0.5" stroke="none"/>')
    for index, text in libraries:
        xv = (x(index - 1) + x(index)) / 2
        out.append(f'<line x1="{xv:.1f}" y1="{up}" x2="{xv:.1f}" y2="{up + h}" stroke="#2060d0" stroke-dasharray="1,2">'
                   f'<title>{esc(text)}</title></line>')
    for index, text in changes:
        xv = (x(index - 1) + x(index)) / 2
        out.append(f'<line x1="{xv:.1f}" y1="{up}" x2="{xv:.1f}" y2="{up + h}" stroke="#d02020" stroke-width="1.5" '
                   f'stroke-dasharray="4,2"><title>{esc(text)}</title></line>')
    line = " ".join(f"{x(i):.1f},{y(med[i]):.1f}" for i in range(n))
    out.append(f'<polyline points="{line}" fill="none" stroke="#08519c" stroke-width="1.2"/>')
    if n:
        out.append(f'<text x="{left}" y="{height - 3}">{esc(points[0].label)}</text>')
        out.append(f'<text x="{left + w}" y="{height - 3}" text-anchor="end">{esc(points[-1].label)}</text>')
    out.append("</svg>")
    return "".join(out)
