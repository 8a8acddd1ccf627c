"""A part of a screen drawn from its state by Flet's declarative renderer: a redraw changes only what changed.

``Drawn(draw)`` wraps ``draw`` (a function that builds controls from the state it reads) in an ``@ft.component``.
Each :meth:`Drawn.redraw` calls it again and Flet diffs the result into the controls the client already has: a
button keeps its identity (a click that lands while an answer streams is not lost to a new button), a tool card
stays open, a list keeps its scroll offset, and only changed values travel. The component is memoized, so a
``page.update()`` elsewhere on the screen does not draw it again behind the client's back (measured: without the
memo, the page's update made new controls the client was never sent).

The screens still own their state and call ``redraw`` when it changed; Flet's hooks (``use_state``) are not used
because that state lives in view models shared with worker threads and with tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import flet as ft
from flet.components.component import Component, Renderer


@ft.component
def _drawn(draw: Callable[[], ft.Control]) -> ft.Control:
    return draw()


@ft.component
def _keyed(key: object, draw: Callable[[], ft.Control]) -> ft.Control:
    return draw()


def keyed(key: object, draw: Callable[[], ft.Control]) -> ft.Control:
    """Inside a drawn part: ``draw()``'s controls, drawn again only when ``key`` changed, a value of exactly what
    they show (Flet's memo compares it with ``==``). ``draw`` must be equal from one drawing to the next (a bound
    method of one object: a new lambda each time would draw them every time)."""
    made: Any = ft.memo(_keyed)(key, draw)  # type: ignore[no-untyped-call]
    return cast(ft.Control, made)


class Drawn:
    """``control`` goes into the screen once; :meth:`redraw` draws it again in place."""

    def __init__(self, draw: Callable[[], ft.Control]) -> None:
        # a component made outside a render, with a renderer of its own (Flet's component API has no type hints)
        with Renderer().with_context():  # type: ignore[no-untyped-call]
            made: Any = ft.memo(_drawn)(draw)  # type: ignore[no-untyped-call]
        assert isinstance(made, Component)
        self._component = made
        self.control = cast(ft.Control, made)  # a control like any other, to put in a screen

    def redraw(self) -> None:
        """Draw again and send the difference (nothing before the control is on a page: it is drawn then)."""
        self._component.update()  # type: ignore[no-untyped-call]  # Flet skips a component not mounted yet
