"""What a person reads: text, Markdown, figures and HTML pages of results.

Everything here renders result objects and tidy frames and computes no statistics: the
terminal and Markdown views (:mod:`~noisefloor.report.text`), the forest plots
(:mod:`~noisefloor.report.forest`), the power curves (:mod:`~noisefloor.report.power_figure`),
the agreement forest (:mod:`~noisefloor.report.agreement_figure`) and the self-contained HTML
pages and transcript viewer (:mod:`noisefloor.report.html`). The names below are imported on
first use, so importing the package loads neither matplotlib nor the HTML templates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.report.agreement_figure import (
        BAND_COLORS,
        PLOT_FORMATS,
        agreement_forest_plot,
        agreement_plot_rows,
        save_agreement_plot,
    )
    from noisefloor.report.forest import (
        BUNDLED_CLAIMS_SECTION,
        CLAIMS_SECTION,
        LABEL_WIDTH,
        MAX_FOREST_ROWS,
        NULL_COLOR,
        VERDICT_COLORS,
        audit_forest,
        audit_rows,
        cap_forest_rows,
        forest_plot,
        interval_text,
        ratio_text,
        save_figure,
        shorten,
    )
    from noisefloor.report.html import PAGES, Page, html_report, page_for, write_html
    from noisefloor.report.power_figure import power_plot, save_power_plot
    from noisefloor.report.text import (
        POOLING_TEXT,
        TAU_METHOD_TEXT,
        above_note,
        audit_markdown,
        audit_text,
        certification_line,
        claim_facts,
        contrast_table,
        contrast_text,
        count_noun,
        floor_facts,
        floor_table,
        floor_text,
        left_out_line,
        level_text,
        log_contrast_facts,
        markdown_table,
        null_gaps_beyond_envelope,
        p_cell,
        p_phrase,
        pooling_line,
        pp,
        pp_or_why,
        reported_text,
        skipped_line,
        text_table,
        verdict_table,
    )

#: Public name -> the module of this package that defines it.
_HOMES: dict[str, str] = {
    "BAND_COLORS": "agreement_figure",
    "BUNDLED_CLAIMS_SECTION": "forest",
    "CLAIMS_SECTION": "forest",
    "LABEL_WIDTH": "forest",
    "MAX_FOREST_ROWS": "forest",
    "NULL_COLOR": "forest",
    "PAGES": "html",
    "PLOT_FORMATS": "agreement_figure",
    "POOLING_TEXT": "text",
    "Page": "html",
    "TAU_METHOD_TEXT": "text",
    "VERDICT_COLORS": "forest",
    "above_note": "text",
    "agreement_forest_plot": "agreement_figure",
    "agreement_plot_rows": "agreement_figure",
    "audit_forest": "forest",
    "audit_markdown": "text",
    "audit_rows": "forest",
    "audit_text": "text",
    "cap_forest_rows": "forest",
    "certification_line": "text",
    "claim_facts": "text",
    "contrast_table": "text",
    "contrast_text": "text",
    "count_noun": "text",
    "floor_facts": "text",
    "floor_table": "text",
    "floor_text": "text",
    "forest_plot": "forest",
    "html_report": "html",
    "interval_text": "forest",
    "left_out_line": "text",
    "level_text": "text",
    "log_contrast_facts": "text",
    "markdown_table": "text",
    "null_gaps_beyond_envelope": "text",
    "p_cell": "text",
    "p_phrase": "text",
    "page_for": "html",
    "pooling_line": "text",
    "power_plot": "power_figure",
    "pp": "text",
    "pp_or_why": "text",
    "ratio_text": "forest",
    "reported_text": "text",
    "save_agreement_plot": "agreement_figure",
    "save_figure": "forest",
    "save_power_plot": "power_figure",
    "shorten": "forest",
    "skipped_line": "text",
    "text_table": "text",
    "verdict_table": "text",
    "write_html": "html",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
