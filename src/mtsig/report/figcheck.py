"""What a paper figure must be, checked on a drawn matplotlib figure: as wide as asked, no text under the size
floor (:data:`~mtsig.report.style.SMALL`, 7 pt), every text inside the figure, no two texts overlapping, and a
legend inside an axes off that axes' data. Used by the tests of every figure kind at one and two columns, and by
``benchmarks/figures.py`` for the PNGs a person looks at."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mtsig.report.style import SMALL, measurable

#: pixels of slack: anti-aliasing and rounding of extents
SLACK = 1.5


@dataclass
class Audit:
    width: float
    height: float
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _undrawn_ticks(fig) -> set[int]:
    """The tick labels an axis has but does not draw (ticks outside the view limits)."""
    out: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            drawn = {id(t) for t in axis._update_ticks()}  # the ticks the axis draws (matplotlib's own choice)
            for t in axis.get_major_ticks() + axis.get_minor_ticks():
                if id(t) not in drawn:
                    out.update({id(t.label1), id(t.label2)})
    return out


def _texts(fig):
    from matplotlib.text import Text

    undrawn = _undrawn_ticks(fig)
    out = []
    for t in fig.findobj(Text):
        if id(t) in undrawn:
            continue
        if not t.get_visible() or not t.get_text().strip() or t.axes is not None and not t.axes.get_visible():
            continue
        if t.get_alpha() == 0:
            continue
        out.append(t)
    return out


def _data_points(ax, renderer) -> np.ndarray:
    """Display coordinates of an axes' data: line vertices, scatter offsets, the corners of bars."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    pts = []
    for a in ax.get_children():
        if isinstance(a, Line2D) and a.get_visible() and a.get_gid() != "guide":
            xy = np.asarray(a.get_xydata(), dtype=float)
            if len(xy) and not (len(xy) == 2 and (xy[0, 0] == xy[1, 0] or xy[0, 1] == xy[1, 1]) and a.get_linestyle()
                                not in ("None", "")):  # fmt: skip
                pts.append(a.get_transform().transform(xy))
        elif isinstance(a, PathCollection) and a.get_visible():
            off = np.asarray(a.get_offsets())
            if len(off):
                pts.append(a.get_offset_transform().transform(off))
        elif isinstance(a, Rectangle) and a.get_visible() and a is not ax.patch and a.get_height() != 0:
            b = a.get_window_extent(renderer)
            pts.append(np.array([[b.x0, b.y1], [b.x1, b.y1], [(b.x0 + b.x1) / 2, b.y1]]))
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def _box(t, extent, renderer) -> tuple[np.ndarray, np.ndarray]:
    """A text's rectangle as drawn, rotated with it: its centre and its two half-axes (display pixels). The
    axis-aligned extent of rotated text (slanted tick labels) is far larger than its glyphs."""
    theta = np.deg2rad(t.get_rotation())
    c = np.array([(extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2])
    if abs(np.sin(theta)) < 1e-9:
        return c, np.array([[extent.width / 2, 0.0], [0.0, extent.height / 2]])
    from matplotlib.text import Text

    flat = Text(text=t.get_text(), fontproperties=t.get_fontproperties(), figure=t.figure)
    e = flat.get_window_extent(renderer)
    w, h = e.width, e.height
    u = np.array([np.cos(theta), np.sin(theta)])
    v = np.array([-np.sin(theta), np.cos(theta)])
    return c, np.array([u * w / 2, v * h / 2])


def _overlap(a, b) -> bool:
    """Whether two rotated rectangles overlap by more than :data:`SLACK` (separating axis test)."""
    (ca, ha), (cb, hb) = a, b
    d = cb - ca
    for axis in (*ha, *hb):
        n = np.linalg.norm(axis)
        if n == 0:
            continue
        k = axis / n
        ra = sum(abs(k @ x) for x in ha)
        rb = sum(abs(k @ x) for x in hb)
        if abs(k @ d) >= ra + rb - SLACK:
            return False
    return True


def _overlaps(texts, extents, renderer) -> list[str]:
    boxes = [_box(t, e, renderer) for t, e in zip(texts, extents)]
    out = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = extents[i], extents[j]
            if min(a.x1, b.x1) - max(a.x0, b.x0) <= SLACK or min(a.y1, b.y1) - max(a.y0, b.y0) <= SLACK:
                continue
            if _overlap(boxes[i], boxes[j]):
                out.append(f"texts {texts[i].get_text()[:30]!r} and {texts[j].get_text()[:30]!r} overlap")
    return out


#: the resolution the audit draws at: a PNG's (``mtsig.report.plots.save``); text measured at the screen's 100 dpi
#: is hinted narrower, so a title that fits there by a few pixels can run off the printed figure
AUDIT_DPI = 300


def audit(fig, width: float | None = None) -> Audit:
    """Draw ``fig`` as its PNG is drawn (:data:`AUDIT_DPI`) and check it (``width``: the width asked for, in
    inches)."""
    dpi = fig.dpi
    fig.set_dpi(AUDIT_DPI)
    try:
        return _audit(fig, width)
    finally:
        fig.set_dpi(dpi)


def _audit(fig, width: float | None) -> Audit:
    measurable(fig).canvas.draw()
    renderer = fig.canvas.get_renderer()
    w, h = fig.get_size_inches()
    out = Audit(float(w), float(h))
    if width is not None and abs(w - width) > 0.01:
        out.problems.append(f"{w:.2f} in wide, {width:.2f} asked")
    box = fig.bbox
    texts = _texts(fig)
    extents = []
    for t in texts:
        label = repr(t.get_text()[:40])
        if t.get_fontsize() < SMALL - 1e-9:
            out.problems.append(f"text {label} at {t.get_fontsize():.1f} pt, under {SMALL:g}")
        e = t.get_window_extent(renderer)
        extents.append(e)
        if e.x0 < box.x0 - SLACK or e.y0 < box.y0 - SLACK or e.x1 > box.x1 + SLACK or e.y1 > box.y1 + SLACK:
            out.problems.append(f"text {label} runs off the figure")
    out.problems += _overlaps(texts, extents, renderer)
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or not leg.get_visible():
            continue
        lb = leg.get_window_extent(renderer)
        if not ax.bbox.overlaps(lb):
            continue
        pts = _data_points(ax, renderer)
        inside = ((pts[:, 0] > lb.x0) & (pts[:, 0] < lb.x1) & (pts[:, 1] > lb.y0) & (pts[:, 1] < lb.y1)).sum()
        if inside:
            out.problems.append(f"the legend of {ax.get_title()[:30]!r} covers {inside} data point(s)")
    return out
