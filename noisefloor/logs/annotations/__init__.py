"""Human annotation tables (item, rater, label) in, one tidy long DataFrame out.

These are not trial logs but the ratings that :mod:`noisefloor.agreement` and the tax cascade
read. :func:`read_annotations` (:mod:`~noisefloor.logs.annotations.read`) takes a long or wide
CSV, or a JSONL file, and names file, line and field for every bad input; a CSV whose rows are
one line each is read as a table, by one CSV-engine call and checks over whole columns
(:mod:`~noisefloor.logs.annotations.annotation_table`), and an item rated twice by one rater is
found over whole columns too (:mod:`~noisefloor.logs.annotations.repeats`). The names below are
imported on first use.
"""

from typing import TYPE_CHECKING

from noisefloor.lazy import lazy_exports

if TYPE_CHECKING:
    from noisefloor.logs.annotations.annotation_table import (
        check_utf8,
        python_string_array,
        read_csv_table,
    )
    from noisefloor.logs.annotations.read import (
        LAYOUTS,
        AnnotationError,
        Layout,
        detect_layout,
        parse_label,
        read_annotations,
    )
    from noisefloor.logs.annotations.repeats import first_repeat

#: Public name -> the module of this package that defines it (imported on first use).
_HOMES = {
    "check_utf8": "annotation_table", "python_string_array": "annotation_table",
    "read_csv_table": "annotation_table",
    "AnnotationError": "read", "LAYOUTS": "read", "Layout": "read", "detect_layout": "read",
    "parse_label": "read", "read_annotations": "read",
    "first_repeat": "repeats",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "LAYOUTS",
    "AnnotationError",
    "Layout",
    "check_utf8",
    "detect_layout",
    "first_repeat",
    "parse_label",
    "python_string_array",
    "read_annotations",
    "read_csv_table",
]
