"""What a reader of a PDF page does not see (hidden-text evasion): text drawn invisible, white, tiny
or off the page, found by walking the page's content stream (pypdf's :class:`ContentStream`) with
the part of the graphics state that decides it.

A text-showing operator (``Tj``, ``TJ``, ``'``, ``"``) is hidden when

* ``invisible``: its render mode draws nothing (``3 Tr``, or ``7 Tr``: a clip only), or the
  colour it is drawn with is fully transparent (an ExtGState's ``/ca`` or ``/CA`` of 0);
* ``white``: the colour it is drawn with (fill for modes 0 and 4, stroke for 1 and 5, both for 2
  and 6) is white or nearly (every channel at least :data:`NEAR_WHITE`: ``1 g``, ``1 1 1 rg``,
  ``0 0 0 0 k``, the same by ``sc``/``scn`` in a device or ICC colour space), and it does not
  start over something painted before it on the page that is not white — a filled path, an
  image, a shading, a form (white text on a dark box or a photo is read);
* ``tiny``: its size on the page (the font size times the scale of the text and current
  matrices) is at most :data:`TINY_POINTS`;
* ``offpage``: it starts outside the page's crop box by more than one em.

:func:`split_page` gives the page's content stream with the hidden operators taken out (the
moves they make kept, so the rest reads as before) and, for each kind found, one with only
that kind's operators: pypdf's own extraction reads each, so the visible text is laid out
exactly as :func:`neardup.inputs.office.extract_text` lays out a page, and what was dropped is
counted
in characters of the same extraction. Text inside form XObjects is read as it is (not looked
at): a form is drawn with the state of the page that calls it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

#: A colour channel at least this (of 1) is taken for the page's white (``0xF0``, as .docx).
NEAR_WHITE = 0xF0 / 0xFF
#: Text of at most this size on the page, in points, is not read.
TINY_POINTS = 1.0
#: Operators walked between two looks at the clock.
_TICK_EVERY = 256

Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_SHOWS = frozenset((b"Tj", b"TJ", b"'", b'"'))
_FILLS = frozenset((b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"))
_ENDS = frozenset((b"n", b"S", b"s", *_FILLS))
#: Colour spaces whose ``sc``/``scn`` operands are read as gray, RGB or CMYK by their count.
_COUNTED = frozenset(("/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/CalGray", "/CalRGB"))


_DEVICE = {b"g": 1, b"G": 1, b"rg": 3, b"RG": 3, b"k": 4, b"K": 4}


def _matrix(values: list[float]) -> Matrix:
    return (values[0], values[1], values[2], values[3], values[4], values[5])


def _mult(m: Matrix, n: Matrix) -> Matrix:
    """``m × n`` of two PDF matrices ``[a b c d e f]``."""
    return (
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    )


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _numbers(operands: Any, count: int) -> list[float] | None:
    try:
        values = [float(v) for v in operands[:count]]
    except (TypeError, ValueError):
        return None
    return values if len(values) == count and all(map(math.isfinite, values)) else None


def _white(channels: list[float]) -> bool:
    """Whether a gray, RGB or CMYK colour (by the number of its channels) is near white."""
    if len(channels) == 1 or len(channels) == 3:
        return min(channels) >= NEAR_WHITE
    if len(channels) == 4:
        c, m, y, k = channels
        return min((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)) >= NEAR_WHITE
    return False


@dataclass
class _State:
    """The graphics state a ``q`` saves: what decides whether text shows."""

    cm: Matrix = _IDENTITY
    fill_white: bool = False
    stroke_white: bool = False
    fill_counted: bool = True
    stroke_counted: bool = True
    fill_clear: bool = False
    stroke_clear: bool = False
    render: int = 0
    font_size: float = 0.0
    leading: float = 0.0


@dataclass
class _Walk:
    """One content stream walked: its state, what has been painted, what was found."""

    resources: Any
    box: tuple[float, float, float, float]
    tick: Callable[[], None]
    state: _State = field(default_factory=_State)
    saved: list[_State] = field(default_factory=list)
    tm: Matrix = _IDENTITY
    tlm: Matrix = _IDENTITY
    path: list[float] = field(default_factory=list)  # x0, y0, x1, y1 of the current path
    painted: list[tuple[float, float, float, float]] = field(default_factory=list)
    kinds: list[str | None] = field(default_factory=list)  # per operator: why hidden

    # --- resources ---------------------------------------------------------------------------

    def _resource(self, category: str, name: Any) -> Any:
        try:
            table = self.resources[category].get_object()
            return table[name].get_object()
        except (KeyError, TypeError, AttributeError, IndexError):
            return None

    def _counted(self, name: Any) -> bool:
        """Whether the colour space named ``name`` takes gray, RGB or CMYK operands."""
        if str(name) in _COUNTED:
            return True
        space = self._resource("/ColorSpace", name)
        try:
            family = str(space[0]) if isinstance(space, list) else str(space)
        except (IndexError, TypeError):
            return False
        return family in _COUNTED or family in ("/ICCBased", "/CalGray", "/CalRGB")

    # --- painting ----------------------------------------------------------------------------

    def _extend(self, points: list[tuple[float, float]]) -> None:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        if self.path:
            xs += self.path[0::2]
            ys += self.path[1::2]
        self.path = [min(xs), min(ys), max(xs), max(ys)]

    def _paint_area(self, corners: list[tuple[float, float]]) -> None:
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        self.painted.append((min(xs), min(ys), max(xs), max(ys)))

    def _unit_square(self, m: Matrix) -> list[tuple[float, float]]:
        return [_apply(m, x, y) for x, y in ((0, 0), (1, 0), (0, 1), (1, 1))]

    def _draw_object(self, name: Any) -> None:
        """``Do``: an image covers the unit square of the current matrix, a form its box."""
        xobject = self._resource("/XObject", name)
        cm = self.state.cm
        try:
            if xobject is not None and str(xobject.get("/Subtype")) == "/Form":
                bbox = _numbers(xobject.get("/BBox"), 4)
                matrix = _numbers(xobject.get("/Matrix", list(_IDENTITY)), 6)
                if bbox is not None:
                    m = _mult(tuple(matrix), cm) if matrix is not None else cm  # type: ignore[arg-type]
                    x0, y0, x1, y1 = bbox
                    self._paint_area(
                        [_apply(m, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
                    )
                    return
        except (AttributeError, TypeError):
            pass
        self._paint_area(self._unit_square(cm))

    # --- text --------------------------------------------------------------------------------

    def _move(self, tx: float, ty: float) -> None:
        self.tlm = _mult((1.0, 0.0, 0.0, 1.0, tx, ty), self.tlm)
        self.tm = self.tlm

    def _hidden(self) -> str | None:
        """Why text shown now is not seen, or ``None``."""
        state = self.state
        mode = state.render
        if mode in (3, 7):
            return "invisible"
        fills = mode in (0, 2, 4, 6)
        strokes = mode in (1, 2, 5, 6)
        if (not fills or state.fill_clear) and (not strokes or state.stroke_clear):
            return "invisible"
        m = _mult(self.tm, state.cm)
        size = abs(state.font_size) * math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        if size <= TINY_POINTS:
            return "tiny"
        x, y = m[4], m[5]
        x0, y0, x1, y1 = self.box
        if x < x0 - size or x > x1 + size or y < y0 - size or y > y1 + size:
            return "offpage"
        white = (not fills or state.fill_white or state.fill_clear) and (
            not strokes or state.stroke_white or state.stroke_clear
        )
        if white and not any(a <= x <= c and b <= y <= d for a, b, c, d in self.painted):
            return "white"
        return None

    # --- the walk ----------------------------------------------------------------------------

    def step(self, operands: Any, operator: bytes) -> str | None:
        """Take one operator into the state; for a text-showing one, why it is hidden."""
        if operator in _SHOWS:
            if operator in (b"'", b'"'):  # to the next line, then show
                self._move(0.0, -self.state.leading)
            return self._hidden()
        if operator == b"q":
            self.saved.append(replace(self.state))
        elif operator == b"Q":
            self.state = self.saved.pop() if self.saved else _State()
        elif operator == b"cm":
            m = _numbers(operands, 6)
            if m is not None:
                self.state.cm = _mult(_matrix(m), self.state.cm)
        elif not self._text(operands, operator) and not self._colours(operands, operator):
            self._paint(operands, operator)
        return None

    def _text(self, operands: Any, operator: bytes) -> bool:
        """The text state and matrices; whether ``operator`` was one of theirs."""
        state = self.state
        if operator == b"BT":
            self.tm = self.tlm = _IDENTITY
        elif operator == b"Tm":
            m = _numbers(operands, 6)
            if m is not None:
                self.tm = self.tlm = _matrix(m)
        elif operator in (b"Td", b"TD"):
            m = _numbers(operands, 2)
            if m is not None:
                if operator == b"TD":
                    state.leading = -m[1]
                self._move(m[0], m[1])
        elif operator == b"T*":
            self._move(0.0, -state.leading)
        elif operator == b"TL":
            m = _numbers(operands, 1)
            state.leading = m[0] if m is not None else state.leading
        elif operator == b"Tf":
            m = _numbers(operands[1:], 1)
            state.font_size = m[0] if m is not None else state.font_size
        elif operator == b"Tr":
            m = _numbers(operands, 1)
            state.render = int(m[0]) if m is not None else state.render
        else:
            return False
        return True

    def _colours(self, operands: Any, operator: bytes) -> bool:
        """The fill and stroke colours and alphas; whether ``operator`` was one of theirs."""
        state = self.state
        stroke = operator in (b"G", b"RG", b"K", b"CS", b"SC", b"SCN")
        if operator in _DEVICE:
            values = _numbers(operands, _DEVICE[operator])
            self._colour(stroke, values is not None and _white(values), True)
        elif operator in (b"cs", b"CS"):
            counted = bool(operands) and self._counted(operands[0])
            self._colour(stroke, False, counted)  # the initial colour of a space is black
        elif operator in (b"sc", b"scn", b"SC", b"SCN"):
            counted = state.stroke_counted if stroke else state.fill_counted
            values = _numbers(operands, len(operands)) if counted else None
            self._colour(stroke, values is not None and _white(values), counted)
        elif operator == b"gs":
            ext = self._resource("/ExtGState", operands[0]) if operands else None
            try:
                if ext is not None and "/ca" in ext:
                    state.fill_clear = float(ext["/ca"]) <= 0.0
                if ext is not None and "/CA" in ext:
                    state.stroke_clear = float(ext["/CA"]) <= 0.0
            except (TypeError, ValueError):
                pass
        else:
            return False
        return True

    def _paint(self, operands: Any, operator: bytes) -> None:
        """Paths, fills, shadings, images and forms: what text may be drawn over."""
        state = self.state
        if operator == b"re":
            r = _numbers(operands, 4)
            if r is not None:
                x, y, w, h = r
                corners = ((x, y), (x + w, y), (x, y + h), (x + w, y + h))
                self._extend([_apply(state.cm, a, b) for a, b in corners])
        elif operator in (b"m", b"l", b"c", b"v", b"y"):
            values = _numbers(operands, len(operands))
            if values:
                pairs = list(zip(values[0::2], values[1::2], strict=False))
                self._extend([_apply(state.cm, a, b) for a, b in pairs])
        elif operator in _ENDS:
            if operator in _FILLS and self.path and not state.fill_white and not state.fill_clear:
                x0, y0, x1, y1 = self.path
                self.painted.append((x0, y0, x1, y1))
            self.path = []
        elif operator == b"sh":
            self.painted.append((-math.inf, -math.inf, math.inf, math.inf))
        elif operator == b"Do" and operands:
            self._draw_object(operands[0])
        elif operator == b"INLINE IMAGE":
            self._paint_area(self._unit_square(state.cm))

    def _colour(self, stroke: bool, white: bool, counted: bool) -> None:
        if stroke:
            self.state.stroke_white, self.state.stroke_counted = white, counted
        else:
            self.state.fill_white, self.state.fill_counted = white, counted


def _page_box(page: Any) -> tuple[float, float, float, float]:
    try:
        box = page.cropbox
        x0, y0, x1, y1 = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    except (AttributeError, TypeError, ValueError, KeyError):
        return (-math.inf, -math.inf, math.inf, math.inf)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


@dataclass(frozen=True)
class Split:
    """A page's operators as :func:`split_page` found them: ``visible`` (the hidden shows taken
    out) and, by kind, the operators that show only that kind's text."""

    visible: list[tuple[Any, bytes]]
    hidden: dict[str, list[tuple[Any, bytes]]]


def _without_show(operands: Any, operator: bytes) -> list[tuple[Any, bytes]]:
    """What a text-showing operator does besides showing: ``'`` and ``"`` move to the next
    line (``"`` sets the spacings first)."""
    if operator == b"'":
        return [([], b"T*")]
    if operator == b'"' and len(operands) >= 3:
        return [([operands[0]], b"Tw"), ([operands[1]], b"Tc"), ([], b"T*")]
    return []


def split_page(
    operations: list[tuple[Any, bytes]], page: Any, tick: Callable[[], None]
) -> Split | None:
    """The visible and hidden operators of a page's content stream (``operations`` as pypdf's
    :class:`ContentStream` parses it), or ``None`` when nothing on it is hidden."""
    resources = page.get("/Resources")
    walk = _Walk(resources.get_object() if resources is not None else {}, _page_box(page), tick)
    reasons: list[str | None] = []
    for number, (operands, operator) in enumerate(operations):
        if number % _TICK_EVERY == 0:
            tick()
        reasons.append(walk.step(operands, operator))
    found = sorted({r for r in reasons if r is not None})
    if not found:
        return None
    visible: list[tuple[Any, bytes]] = []
    hidden: dict[str, list[tuple[Any, bytes]]] = {kind: [] for kind in found}
    for (operands, operator), why in zip(operations, reasons, strict=True):
        if operator not in _SHOWS:
            visible.append((operands, operator))
            for ops in hidden.values():
                ops.append((operands, operator))
            continue
        moved = _without_show(operands, operator)
        visible.extend([(operands, operator)] if why is None else moved)
        for kind, ops in hidden.items():
            ops.extend([(operands, operator)] if why == kind else moved)
    return Split(visible, hidden)
