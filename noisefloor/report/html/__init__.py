"""Self-contained HTML pages of noisefloor's results and the tax transcript viewer.

:func:`html_report` renders any registered result (``AuditRun``, ``FloorRun``,
``ContrastRun``, ``TaxReport``, ...) as one HTML page with its CSS, script and figures inline
and no network access; :func:`write_html` writes it to a file.
"""

from noisefloor.report.html.page import Page
from noisefloor.report.html.render import PAGES, html_report, page_for, write_html

__all__ = ["PAGES", "Page", "html_report", "page_for", "write_html"]
