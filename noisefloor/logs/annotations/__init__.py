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
        PYTHON_STRING_DTYPE,
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
    "AnnotationError": "read",
    "LAYOUTS": "read",
    "Layout": "read",
    "PYTHON_STRING_DTYPE": "annotation_table",
    "check_utf8": "annotation_table",
    "detect_layout": "read",
    "first_repeat": "repeats",
    "parse_label": "read",
    "python_string_array": "annotation_table",
    "read_annotations": "read",
    "read_csv_table": "annotation_table",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "AnnotationError",
    "LAYOUTS",
    "Layout",
    "PYTHON_STRING_DTYPE",
    "check_utf8",
    "detect_layout",
    "first_repeat",
    "parse_label",
    "python_string_array",
    "read_annotations",
    "read_csv_table",
]
