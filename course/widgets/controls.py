"""Control layout shared by the course widgets: a slider whose description is long still gets a usable track.

ipywidgets draws a slider in a fixed 300 px box; with description_width "initial" a long label takes that width
and leaves the track 0 px wide (dragging then jumps to an end). `fit` sets the label width from its text and widens
the box so the track keeps at least `track` pixels, and the slider never shrinks; `row` lays controls side by side
and moves one to the next line when they do not fit (instead of squeezing their tracks)."""
import unicodedata

import ipywidgets as W

FONT_PX = 13                  # --jp-widgets-font-size
READOUT_PX = 96               # the number after the track and the track's own margins (measured in JupyterLab 4)
TRACK_PX = 200                # the smallest track a slider gets


def text_px(text, size=FONT_PX):
    """An upper estimate of the rendered width of `text` in px: wide (Hangul, CJK) characters count as `size`."""
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return int(wide * size + (len(text) - wide) * 0.62 * size) + 8


def fit(control, track=TRACK_PX):
    """Give `control` (a slider) a label as wide as its description and a track of at least `track` px; `control`."""
    label = text_px(control.description) if control.description else 0
    control.style.description_width = f"{label}px"
    control.layout.width = f"{label + track + READOUT_PX}px"
    control.layout.flex = "0 0 auto"
    return control


def row(children, **layout):
    """An HBox that wraps its controls onto the next line rather than shrink them."""
    return W.HBox(children, layout=W.Layout(flex_flow="row wrap", **layout))


def track_px(control):
    """The track width (px) `control`'s layout leaves: its width less label and readout (what a test checks)."""
    width = int(str(control.layout.width).removesuffix("px"))
    label = int(str(control.style.description_width).removesuffix("px") or 0)
    return width - label - READOUT_PX
