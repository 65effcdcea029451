"""The frozen-result base: its conversion rules, its hooks, and that every result class uses it.

:class:`noisefloor.results.FrozenResult` gives every frozen result ``to_dict()`` and
``to_frame()``. The rules are pinned one assertion each; the walk over ``noisefloor/`` and
``harness/`` fails on a result class that writes its own views without deriving from the base
(or being on the exception list below, with its reason), on a hand-written view without a
comment saying why, and on a hook naming something the class does not have. The ``--json``
documents built from these results keep the shapes their command tests pin
(``tests/test_contrast_table.py``, ``tests/cli/``, ``tests/test_floor.py``, ...).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib
import math
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np
import pandas as pd
import pytest

from noisefloor.results import FrozenResult, plain
from tests.source_tree import PACKAGES, ROOT, nodes, package_files, source

# Result classes that write their own views and do not derive from the base, with the reason.
EXCEPTIONS = {
    # to_dict is the --json document the page was built from, whatever its shape; no table
    "noisefloor/report/html/report_doc.py:ReportDoc": "to_dict returns the page's data as is",
}


# ---------------------------------------------------------------------------------------------
# the conversion rules, one assertion each

@dataclass(frozen=True)
class Inner(FrozenResult):
    x: float
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlainInner:  # a dataclass that is not a result
    y: int


class Colour(enum.Enum):
    RED = "red"


class WithToDict:
    def to_dict(self) -> dict:
        return {"own": True}


def test_a_nested_result_becomes_its_to_dict():
    assert plain(WithToDict()) == {"own": True}


def test_a_nested_base_result_is_converted_by_the_same_rules():
    assert plain(Inner(0.5, ("a",))) == {"x": 0.5, "tags": ["a"]}


def test_a_plain_dataclass_becomes_a_dict_of_its_fields():
    assert plain(PlainInner(3)) == {"y": 3}


def test_a_dataframe_becomes_a_list_of_records():
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert plain(frame) == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


def test_a_dataframe_records_hold_python_scalars():
    frame = pd.DataFrame({"a": np.array([1], dtype=np.int64)})
    assert type(plain(frame)[0]["a"]) is int


def test_a_numpy_array_becomes_a_nested_list():
    assert plain(np.arange(4).reshape(2, 2)) == [[0, 1], [2, 3]]


def test_a_zero_dimensional_array_becomes_its_scalar():
    assert plain(np.array(2.5)) == 2.5


@pytest.mark.parametrize("value, kind", [(np.int64(3), int), (np.float32(0.5), float),
                                         (np.bool_(True), bool)])
def test_a_numpy_scalar_becomes_the_python_scalar(value, kind):
    assert type(plain(value)) is kind


def test_a_tuple_becomes_a_list_at_every_depth():
    assert plain((1, (2, (3,)))) == [1, [2, [3]]]


def test_a_set_becomes_a_sorted_list():
    assert plain(frozenset({"b", "a"})) == ["a", "b"]


def test_a_mapping_keeps_its_keys_and_converts_its_values():
    assert plain({None: (1,), 2: np.int64(4)}) == {None: [1], 2: 4}


def test_an_enum_becomes_its_value():
    assert plain(Colour.RED) == "red"


def test_a_path_becomes_its_string():
    assert plain(PurePosixPath("runs/a.jsonl")) == "runs/a.jsonl"


def test_nan_stays_nan():
    # the NaN policy: the library keeps NaN (undefined, with a reason beside it); the CLI's
    # JSON writer turns it into null
    assert math.isnan(plain(float("nan")))


def test_numpy_nan_stays_nan_as_a_python_float():
    out = plain(np.float64("nan"))
    assert type(out) is float and math.isnan(out)


def test_a_missing_value_in_records_stays_missing():
    # never a number: pandas gives None or pd.NA for a nullable integer's NA (by version)
    frame = pd.DataFrame({"seed": pd.array([1, None], dtype="Int64")})
    seed = plain(frame)[1]["seed"]
    assert seed is None or seed is pd.NA


# ---------------------------------------------------------------------------------------------
# to_dict and to_frame, and the hooks

@dataclass(frozen=True)
class Outer(FrozenResult):
    b: int
    a: str
    inner: Inner
    table: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    items: tuple[Inner, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class Keyed(Outer):
    _dict_keys = ("a", "doubled", "b")
    _frame_field = "table"

    @property
    def doubled(self) -> int:
        return 2 * self.b


@dataclass(frozen=True)
class Excluding(Outer):
    _dict_exclude = ("table", "items")
    _frame_field = "items"


@dataclass(frozen=True)
class Delegating(Outer):
    _frame_field = "inner"


def _outer(cls=Outer):
    table = pd.DataFrame({"k": [1, 2]})
    return cls(2, "z", Inner(0.1), table, (Inner(0.2), Inner(0.3, ("t",))))


def test_to_dict_keys_are_the_fields_in_declaration_order():
    assert list(_outer().to_dict()) == ["b", "a", "inner", "table", "items", "reason"]


def test_to_dict_converts_every_value():
    d = _outer().to_dict()
    assert (d["inner"], d["table"], d["items"]) == (
        {"x": 0.1, "tags": []}, [{"k": 1}, {"k": 2}],
        [{"x": 0.2, "tags": []}, {"x": 0.3, "tags": ["t"]}])


def test_dict_keys_choose_and_order_the_keys_and_may_name_properties():
    assert _outer(Keyed).to_dict() == {"a": "z", "doubled": 4, "b": 2}
    assert list(_outer(Keyed).to_dict()) == ["a", "doubled", "b"]


def test_dict_exclude_leaves_fields_out():
    assert list(_outer(Excluding).to_dict()) == ["b", "a", "inner", "reason"]


def test_the_default_frame_is_one_row_of_the_dict():
    frame = Inner(0.5, ("a", "b")).to_frame()
    assert frame.to_dict(orient="records") == [{"x": 0.5, "tags": ["a", "b"]}]


def test_the_default_frame_keeps_nan():
    assert math.isnan(Inner(float("nan")).to_frame().loc[0, "x"])


def test_a_frame_field_holding_a_dataframe_gives_a_copy():
    result = _outer(Keyed)
    frame = result.to_frame()
    frame.loc[0, "k"] = 99
    assert result.table["k"].tolist() == [1, 2]


def test_a_frame_field_holding_results_gives_one_row_per_item():
    assert _outer(Excluding).to_frame().to_dict(orient="list") == {
        "x": [0.2, 0.3], "tags": [[], ["t"]]}


def test_a_frame_field_holding_no_results_gives_an_empty_frame():
    assert Excluding(1, "a", Inner(0.0)).to_frame().empty


def test_a_frame_field_holding_a_result_gives_its_frame():
    assert _outer(Delegating).to_frame().columns.tolist() == ["x", "tags"]


def test_the_base_adds_no_dataclass_fields():
    assert [f.name for f in dataclasses.fields(Inner)] == ["x", "tags"]


# ---------------------------------------------------------------------------------------------
# every result class of the packages uses the base (or is an explained exception)

def _classes():
    """``(key, path, module, ClassDef)`` of every dataclass of noisefloor/ and harness/."""
    for package in PACKAGES:
        for path in package_files(package):
            rel = path.relative_to(ROOT).as_posix()
            module = rel[:-3].replace("/", ".").removesuffix(".__init__")
            for node in nodes(path):
                if not isinstance(node, ast.ClassDef):
                    continue
                decos = [ast.unparse(d) for d in node.decorator_list]
                if any(d.split("(")[0].endswith("dataclass") for d in decos):
                    yield f"{rel}:{node.name}", path, module, node


def _views(node: ast.ClassDef) -> list[ast.FunctionDef]:
    return [n for n in node.body if isinstance(n, ast.FunctionDef)
            and n.name in ("to_dict", "to_frame")]


def _derives(node: ast.ClassDef) -> bool:
    return any(ast.unparse(b).split(".")[-1] == "FrozenResult" for b in node.bases)


CLASSES = list(_classes())
RESULTS = [(key, path, module, node) for key, path, module, node in CLASSES
           if _views(node) or _derives(node)]


def test_the_walk_finds_the_result_classes():
    keys = {key for key, *_ in RESULTS}
    # one of each kind: a stats result, a floor result, a pipeline result, a harness result
    assert {"noisefloor/stats/paired.py:SignTest", "noisefloor/floor/estimate.py:NoiseFloor",
            "noisefloor/pipelines/contrast.py:ContrastRun",
            "harness/runner/merge.py:MergeResult"} <= keys
    assert len(RESULTS) >= 60


@pytest.mark.parametrize("key, path, module, node", RESULTS, ids=[r[0] for r in RESULTS])
def test_every_result_class_derives_from_the_base(key, path, module, node):
    if key in EXCEPTIONS:
        assert not _derives(node), f"{key} uses the base now: take it off EXCEPTIONS"
        return
    assert _derives(node), (f"{key} writes to_dict/to_frame without deriving from "
                            "noisefloor.results.FrozenResult")


def test_every_exception_still_exists():
    keys = {key for key, *_ in RESULTS}
    assert set(EXCEPTIONS) <= keys


@pytest.mark.parametrize("key, path, module, node", RESULTS, ids=[r[0] for r in RESULTS])
def test_a_hand_written_view_says_why(key, path, module, node):
    if key in EXCEPTIONS:
        return
    lines = source(path).splitlines()
    for view in _views(node):
        above = lines[view.lineno - 2].strip()
        assert above.startswith("# hand-written:"), (
            f"{key}.{view.name} (line {view.lineno}) overrides the base: say why in a "
            "'# hand-written: ...' comment line above it, or use the base's hooks")


@pytest.mark.parametrize("key, path, module, node",
                         [r for r in RESULTS if r[0] not in EXCEPTIONS],
                         ids=[r[0] for r in RESULTS if r[0] not in EXCEPTIONS])
def test_the_hooks_name_what_the_class_has(key, path, module, node):
    cls = getattr(importlib.import_module(module), node.name)
    assert issubclass(cls, FrozenResult) and dataclasses.is_dataclass(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    properties = {n for n in dir(cls) if isinstance(getattr(cls, n, None), property)}
    assert set(cls._dict_keys or ()) <= names | properties, key
    assert set(cls._dict_exclude) <= names, key
    assert cls._frame_field is None or cls._frame_field in names, key
