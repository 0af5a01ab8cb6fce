"""Pictures of layouts and conversions (``llgen show``), drawn with matplotlib.

matplotlib is an extra (``pip install '.[show]'`` in llgen's clone) and is imported only inside the functions
here, so ``import llgen`` and the other commands never pay for it.

Five kinds of picture, each a `Figure` built from panels placed at fixed sizes in inches (so a
PNG's pixel size is known in advance: ``figure_size_px``):

* ``layout_figure``: a distributed layout as the tensor grid. A cell's colour is its owning
  thread (hue per lane, bit-reversed so neighbouring lanes differ; darker for higher warps) and
  its label ``T<lane>:R<reg>`` (second line ``W<warp>`` when there are warps) names the lowest
  (register, lane, warp) that holds it; ``+k`` says k more threads or registers hold a replica.
* ``bank_map_figure``: a memory layout as shared memory: rows are 128-byte segments, columns the
  32 banks (4 bytes each), each cell one element labelled with its logical coordinate. An
  access (a ``WarpAccess``: a distributed layout, one register step of warp 0) is highlighted and the threads
  per bank are drawn under the map; a bank holding more than one distinct word is red.
* ``matrix_figure``: the F2 matrix, rows the logical bits (``n0..`` for the last dim, ``m0..``
  for the first), columns the hardware bits (``r``/``l``/``w`` or ``o``).
* ``conversion_figure``: source and destination grids side by side with the plan's path, then
  the shuffle rounds or the swizzle's bank map.
* ``steps_figure``: a layout and the layouts shape ops make of it (``--op``), side by side.
* ``endpoint_figure``: a shared-memory endpoint (a store or a load): D's grid (and a two-step plan's staging
  layout Q), the plan in words, and S's bank map with one instruction of warp 0 lit (``--step`` picks which),
  the lanes of each phase that share a wavefront listed.

Text stays readable at any size: every label, tick and title is 7 points or more (``FONT``), cells are sized
to fit their labels, long titles wrap, and `_fit_canvas` grows the canvas over anything that would stick out.
A tensor or bank map of more than ``LABEL_CELLS`` cells is drawn in two panels: the whole of it as one raster
image (colours only; a box marks the window below) and a labelled ``WINDOW`` of it, its top-left corner or,
for a bank map with an access, the segments the access touches (``--region`` picks another window).

For counting (tests, tooling), SVG elements carry ids: ``cells`` (one path per drawn cell),
``cells-image`` (the raster of a large tensor or map), ``window`` (its box), ``lbl-<row>-<col>`` (a cell label),
``ones`` (the matrix's set bits), ``row-<bit>``/``col-<bit>`` (matrix labels),
``hits-<bank>`` (a bar) and ``hitcount-<bank>`` (its number), ``round-<i>`` (a shuffle round);
in a conversion the grids' and the bank map's ids start with ``src-``, ``dst-`` and ``smem-``; in an endpoint with
``dist-``, ``staging-`` and ``smem-``, and its text lines are ``path``, ``instruction``, ``wavefronts``, ``phase-<i>`` ....
Output is deterministic: fixed hash salt, no date, text kept as SVG text.

Modules, one idea each: ``inputs`` (output file, ``--region``, size limits), ``text`` (fonts and text fitting),
``figure`` (panels, figures, saving), ``cells`` (drawing on a panel), ``grid`` (distributed layouts),
``banks`` (memory layouts), ``matrix`` (the F2 matrix), ``conversion`` and ``endpoint``.
"""

from llgen.show.banks import (
    BANK_BYTES,
    BANK_MODEL,
    BANKS,
    SEGMENT_BYTES,
    AccessStep,
    WarpAccess,
    access_step,
    bank_map_figure,
    memory_from_swizzle,
)
from llgen.show.cells import lane_hue, thread_colour
from llgen.show.conversion import conversion_figure, steps_figure
from llgen.show.endpoint import endpoint_figure
from llgen.show.figure import DPI, PLAIN, TITLED, Panel, figure_size, figure_size_px, save
from llgen.show.grid import Ownership, images, layout_figure, ownership
from llgen.show.inputs import FORMATS, LABEL_CELLS, MAX_CELLS, WINDOW, Region, check_output, is_memory, parse_region
from llgen.show.matrix import matrices_figure, matrix_figure
from llgen.show.text import AXIS_FONT, CHAR_EM, FONT, PANEL_FONT, TITLE_FONT, TITLE_WIDTH, label_cell, text_width, wrap

__all__ = [
    "AXIS_FONT",
    "AccessStep",
    "BANKS",
    "BANK_BYTES",
    "BANK_MODEL",
    "CHAR_EM",
    "DPI",
    "FONT",
    "FORMATS",
    "LABEL_CELLS",
    "MAX_CELLS",
    "Ownership",
    "PANEL_FONT",
    "PLAIN",
    "Panel",
    "Region",
    "SEGMENT_BYTES",
    "TITLED",
    "TITLE_FONT",
    "TITLE_WIDTH",
    "WINDOW",
    "WarpAccess",
    "access_step",
    "bank_map_figure",
    "check_output",
    "conversion_figure",
    "steps_figure",
    "endpoint_figure",
    "figure_size",
    "figure_size_px",
    "images",
    "is_memory",
    "label_cell",
    "lane_hue",
    "layout_figure",
    "matrices_figure",
    "matrix_figure",
    "memory_from_swizzle",
    "ownership",
    "parse_region",
    "save",
    "text_width",
    "thread_colour",
    "wrap",
]
