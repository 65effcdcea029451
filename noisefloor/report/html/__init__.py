"""Self-contained HTML pages of noisefloor's results and the tax transcript viewer.

:func:`html_report` renders any registered result (``AuditRun``, ``FloorRun``,
``ContrastRun``, ``TaxReport``, ...) as one HTML page with its CSS, script and figures inline
and no network access; :func:`write_html` writes it to a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.report.html.command_docs import (
        agreement_doc,
        leaderboard_compare_doc,
        leaderboard_listing_doc,
        leaderboard_tiers_doc,
        plan_doc,
    )
    from noisefloor.report.html.page import Markup, Page, Table, cells, render_page, render_table
    from noisefloor.report.html.render import (
        FORMATS,
        PAGES,
        html_report,
        page_for,
        resolve,
        write_html,
    )
    from noisefloor.report.html.report_doc import fill
    from noisefloor.report.html.svg import ForestRow, Series, bars_svg, curves_svg, forest_svg
    from noisefloor.report.html.viewer import ViewerData, make_server, serve

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "FORMATS": "render",
    "ForestRow": "svg",
    "Markup": "page",
    "PAGES": "render",
    "Page": "page",
    "Series": "svg",
    "Table": "page",
    "ViewerData": "viewer",
    "agreement_doc": "command_docs",
    "bars_svg": "svg",
    "cells": "page",
    "curves_svg": "svg",
    "fill": "report_doc",
    "forest_svg": "svg",
    "html_report": "render",
    "leaderboard_compare_doc": "command_docs",
    "leaderboard_listing_doc": "command_docs",
    "leaderboard_tiers_doc": "command_docs",
    "make_server": "viewer",
    "page_for": "render",
    "plan_doc": "command_docs",
    "render_page": "page",
    "render_table": "page",
    "resolve": "render",
    "serve": "viewer",
    "write_html": "render",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
