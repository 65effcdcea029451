"""Shared machinery of the Relational family: disjoint facts over a shared vocabulary.

Every relational task has the same shape. A generator draws a hidden structure (a family tree,
an org chart, a rail network, a dependency graph, an order of events, ...) and writes it down as
atomic *facts*, each owned by one agent (``"a"`` or ``"b"``). Each agent reads only its own facts,
written in its own surface conventions (name format, direction of the relation's wording, date
format, code or title, listing orientation); both read the same questions, also in their own
conventions. The full rendering (what the solo control reads) states every fact in view ``a``'s
conventions. Ground truth comes from graph search or a topological sort with networkx.

``instance.data`` holds

``entities``
    ``{id: {"a": form, "b": form}}``: how each agent writes each entity (id == the ``a`` form).
``facts``
    list of dicts, each with ``"owner"`` (``"a"`` or ``"b"``) and canonical, task-specific fields.
``queries``
    list of dicts (question tasks) or the target of an order task.

Answers come in two kinds:

question tasks (``kind = "queries"``)
    one entry per question, written ``1: answer; 2: answer``. The parsed answer is a list whose
    item ``i`` answers question ``i + 1`` (``None`` where no entry was given). Score: the mean
    over questions of the per-question score (1 or 0; set-valued questions score their Jaccard
    index), so a query error stays local to its query.
order tasks (``kind = "order"``)
    a sequence of names separated by commas. Score documented by each task.

Names are matched after case-folding and dropping everything but letters and digits, against
both agents' forms of every entity, so an answer written in either agent's convention counts.

References
----------
.. [1] *The Collaboration Tax*, EMNLP 2026, section 1: relational agents "hold disjoint facts
   over a shared vocabulary".
"""

from __future__ import annotations

import random
import re
import zlib
from abc import abstractmethod
from typing import Any, ClassVar

from harness.base import (
    SIDES,
    UNPARSED,
    Instance,
    Task,
    View,
    check_keep,
    check_seed_difficulty,
)

#: Largest question number the question parser accepts (bigger numbers are ignored).
MAX_QUESTION = 50
#: The answer written when a question has no answer (no such person, station unreachable, ...).
NONE = "none"
#: Written forms accepted for :data:`NONE` (after :func:`compact`).
NONE_WORDS = frozenset({"none", "nobody", "noone", "impossible", "unreachable", "nothing"})
#: Restarts before a generator gives up (a bug guard; never reached in the tests).
MAX_ATTEMPTS = 500

GIVEN_NAMES = (
    "Anna", "Bruno", "Clara", "Dmitri", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas",
    "Katya", "Lars", "Mira", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Stefan", "Tilda",
    "Umar", "Vera", "Willem", "Xenia", "Yusuf", "Zora", "Aldo", "Bianca", "Cyrus", "Dalia",
    "Emil", "Freya", "Gideon", "Hana", "Ivo", "Jana", "Kofi", "Lena", "Marek", "Noor",
    "Oskar", "Petra", "Rafael", "Sanna", "Tomas", "Ulla", "Viktor", "Wanda", "Yara", "Zeno",
)
SURNAMES = (
    "Berg", "Castillo", "Dahl", "Eriksen", "Fontaine", "Gallo", "Hartmann", "Ibsen", "Jansen",
    "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quist", "Romano", "Sato",
    "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz", "Zeller", "Abbott", "Brandt", "Costa",
    "Duval", "Engel", "Falk", "Gruber", "Holm", "Ito", "Keller", "Lund", "Mendes", "Nagy",
    "Ortiz", "Pires", "Rask", "Strand", "Toivonen", "Vidal", "Wolff", "Zamora",
)


# ----- validation -----------------------------------------------------------------------




def make_rng(task: str, seed: int, difficulty: int, salt: str = "") -> random.Random:
    """A private ``random.Random`` for (task, seed, difficulty, salt); never global state.

    The task name enters through CRC-32 (stable across machines and Python runs, unlike
    ``hash``), so two tasks given the same seed draw different instances.

    Examples
    --------
    >>> make_rng("x", 3, 1).random() == make_rng("x", 3, 1).random()
    True
    """
    key = zlib.crc32(f"{task}|{salt}".encode())
    return random.Random(int(seed) * 1_000_003 + int(difficulty) * 7_919 + key * 104_729)


# ----- names ----------------------------------------------------------------------------
def compact(text: Any) -> str:
    """Case-folded text with everything but letters and digits removed (the matching key).

    Examples
    --------
    >>> compact("BERG, Anna"), compact("data-core"), compact("DataCore")
    ('berganna', 'datacore', 'datacore')
    """
    return re.sub(r"[^0-9a-z]", "", str(text).casefold())


def draw_people(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """``n`` (given name, surname) pairs with every given name and every surname unique."""
    given = rng.sample(GIVEN_NAMES, n)
    family = rng.sample(SURNAMES, n)
    return list(zip(given, family))


def balanced_owners(rng: random.Random, n: int) -> list[str]:
    """Owners for ``n`` facts: half ``"a"``, half ``"b"`` (a random side gets the odd one), in
    random order, so neither agent holds almost everything.

    Examples
    --------
    >>> sorted(balanced_owners(random.Random(0), 4))
    ['a', 'a', 'b', 'b']
    """
    first, second = SIDES if rng.random() < 0.5 else SIDES[::-1]
    owners = [first] * ((n + 1) // 2) + [second] * (n // 2)
    rng.shuffle(owners)
    return owners


def name_index(data: dict[str, Any]) -> dict[str, str]:
    """Map ``compact(form) -> entity id`` over both agents' forms of every entity."""
    index: dict[str, str] = {}
    for ent_id, forms in data["entities"].items():
        index[compact(ent_id)] = ent_id
        for form in forms.values():
            index[compact(form)] = ent_id
    return index


def resolve(index: dict[str, str], value: Any) -> str | None:
    """The entity id a written name refers to, or ``None`` if it names no entity."""
    if value is None:
        return None
    return index.get(compact(value))


# ----- parsing --------------------------------------------------------------------------
_ENTRY = re.compile(r"(?:[-*\u2022]\s+)?(?:q(?:uestion)?\s*)?#?\s*(\d{1,6})\s*[:.)=]\s*([^;\n]*)",
                    re.IGNORECASE)
#: What an answer value may hold: names, numbers, words, with commas, hyphens, apostrophes,
#: full stops, slashes and ampersands; a parenthesis, colon or other remark is not an answer.
_VALUE = re.compile(r"[^\W_][\w\s,'\u2019\-./&]*")


def _clean(value: str) -> str:
    value = value.strip().strip("`*").strip()
    value = value.strip("\"'").strip()
    return value.rstrip(".").strip()


def parse_numbered(text: Any) -> list[str | None] | Any:
    """Parse ``1: answer; 2: answer`` (semicolons or new lines between entries).

    Returns a list whose item ``i`` is the text given for question ``i + 1`` (``None`` if the
    question has no entry), or :data:`~harness.base.UNPARSED` if no entry can be read or any
    part of the text is not an entry (the text must be read completely). A
    question number above :data:`MAX_QUESTION` is ignored; a repeated number keeps its first
    entry. Never raises.

    Examples
    --------
    >>> parse_numbered("1: sibling; 3: cousin.")
    ['sibling', None, 'cousin']
    >>> parse_numbered("I think the answer is obvious")
    UNPARSED
    >>> parse_numbered("1: sibling; 2: cousin (not sure)")
    UNPARSED
    """
    if not isinstance(text, str):
        return UNPARSED
    found: dict[int, str] = {}
    for chunk in re.split(r"[;\n]", text.strip()):
        if not chunk.strip():
            continue
        match = _ENTRY.fullmatch(chunk.strip())
        if match is None:
            return UNPARSED  # a chunk that is not an entry: the text is not read completely
        value = _clean(match.group(2))
        if not _VALUE.fullmatch(value):
            return UNPARSED
        number = int(match.group(1))
        if 1 <= number <= MAX_QUESTION and number not in found:
            found[number] = value
    if not found:
        return UNPARSED
    return [found.get(i) for i in range(1, max(found) + 1)]


_SEQ_SPLIT = re.compile(r"\s*(?:,|;|->|=>|>|\n|\u2192)\s*")
_ENUM = re.compile(r"^\s*(?:\d{1,3}\s*[.)]|[-*\u2022])\s+")


def parse_sequence(text: Any) -> list[str] | Any:
    """Parse a sequence of names separated by commas (also ``;``, ``>``, ``->`` or new lines).

    List numbering such as ``1.`` and bullets are dropped. Returns the list of names, or
    :data:`~harness.base.UNPARSED` if there is none or an item is not a name (holds a
    parenthesis, a colon, ...). Never raises.

    Examples
    --------
    >>> parse_sequence("the flood, the fair -> the eclipse.")
    ['the flood', 'the fair', 'the eclipse']
    >>> parse_sequence("   ")
    UNPARSED
    >>> parse_sequence("the flood, the fair (probably)")
    UNPARSED
    """
    if not isinstance(text, str):
        return UNPARSED
    items = []
    for part in _SEQ_SPLIT.split(text.strip()):
        part = _clean(_ENUM.sub("", part))
        if not part:
            continue
        if not _VALUE.fullmatch(part):
            return UNPARSED  # a remark among the names: the text is not read completely
        items.append(part)
    return items if items else UNPARSED


def split_set(value: Any) -> list[str]:
    """Items of a set-valued answer: a list as is, or text split on commas, ``&`` and ``and``;
    ``none`` / ``nobody`` / ``-`` is the empty set."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(v) for v in value]
    text = str(value).strip()
    if compact(text) in {"none", "nobody", "noone", "empty", ""}:
        return []
    parts = re.split(r"\s*(?:,|&|/|\band\b)\s*", text)
    return [p.strip() for p in parts if p.strip()]


# ----- scoring --------------------------------------------------------------------------
def pair_concordance(truth: list[str], answer_ids: list[str | None]) -> float:
    """Fraction of the C(n, 2) item pairs of ``truth`` that ``answer_ids`` puts in the same order.

    Unknown items (``None``) and repeats after the first occurrence are ignored; a pair with an
    item missing from the answer counts as discordant. Equals 1 exactly for the true order; a
    fully reversed order scores 0. (This is (1 + Kendall's tau) / 2 when nothing is missing.)

    Examples
    --------
    >>> pair_concordance(["x", "y", "z"], ["x", "z", "y"])
    0.6666666666666666
    >>> pair_concordance(["x", "y", "z"], ["x", "y"])
    0.3333333333333333
    """
    n = len(truth)
    if n < 2:
        return 1.0 if list(answer_ids[:1]) == truth else 0.0
    pos: dict[str, int] = {}
    for item in answer_ids:
        if item is not None and item not in pos:
            pos[item] = len(pos)
    good = 0
    for i in range(n):
        for j in range(i + 1, n):
            pi, pj = pos.get(truth[i]), pos.get(truth[j])
            if pi is not None and pj is not None and pi < pj:
                good += 1
    return good / (n * (n - 1) / 2)


def jaccard(truth: set[str], got: set[str]) -> float:
    """Jaccard index |T & G| / |T | G|, with two empty sets scoring 1."""
    union = truth | got
    return 1.0 if not union else len(truth & got) / len(union)


# ----- the base class -------------------------------------------------------------------
class RelationalTask(Task):
    """Base of the relational tasks: splitting, rendering, parsing and grading in one place.

    A subclass sets ``name``, ``description``, ``kind`` (``"queries"`` or ``"order"``),
    ``conventions`` (the declared surface conventions of each view), ``convention_text`` (how
    each view's text explains them), ``setting`` (the puzzle's opening paragraph) and
    ``templates`` (one sentence template per view, ``str.format`` over the view-form fact), and
    implements the abstract hooks ``_build``, ``_encode``, ``_solve``, ``_regenerate`` and
    ``_misread``, and ``_ask`` unless it overrides ``_questions``. The hooks follow the style of
    the Spatial and CSP bases (template methods, underscore-prefixed, declared here; the roles
    the three families share have the same names: ``_build`` draws the hidden problem,
    ``_misread`` is the naive reading of view ``b`` in view ``a``'s conventions). The text
    reader :meth:`read_text` has hooks ``_text_entities``, ``_text_facts``, ``_text_fact`` and
    ``_text_queries`` with defaults.
    """

    family = "relational"
    kind: ClassVar[str] = "queries"
    conventions: ClassVar[dict[str, dict[str, str]]]
    convention_text: ClassVar[dict[str, str]]
    setting: ClassVar[str]
    templates: ClassVar[dict[str, str]]
    roster_heading: ClassVar[str] = "People"
    facts_heading: ClassVar[str] = "Facts"
    questions_heading: ClassVar[str] = "Questions"

    # ----- subclass hooks ------------------------------------------------------------
    @abstractmethod
    def _build(self, rng: random.Random, difficulty: int) -> dict[str, Any]:
        """Canonical instance data (see the module docstring)."""

    @abstractmethod
    def _encode(self, fact: dict[str, Any], agent: str, data: dict[str, Any]) -> list[str]:
        """A fact in ``agent``'s conventions: the arguments of ``templates[agent]``."""

    def _ask(self, query: Any, agent: str, data: dict[str, Any]) -> str:
        """A question in ``agent``'s conventions (needed unless :meth:`_questions` is
        overridden, as the order tasks do)."""
        raise NotImplementedError(f"{self.name}: implement _ask or override _questions")

    def _roster(self, data: dict[str, Any], agent: str) -> list[str]:
        """The shared vocabulary as ``agent`` writes it (default: every entity's form)."""
        return [forms[agent] for forms in data["entities"].values()]

    @abstractmethod
    def _solve(self, data: dict[str, Any]) -> Any:
        """The answer of canonical ``data`` by graph search; robust to inconsistent data."""

    @abstractmethod
    def _regenerate(self, data: dict[str, Any], keep: str, rng: random.Random) -> dict[str, Any]:
        """New data keeping every fact owned by ``keep`` and the shared vocabulary/questions."""

    @abstractmethod
    def _misread(self, data: dict[str, Any]) -> dict[str, Any]:
        """Data as a solver reads it when view ``b`` is pasted under view ``a``'s conventions."""

    def _score_order(self, data: dict[str, Any], truth: list[str], ids: list[str | None]) -> float:
        """Score of an order answer (order tasks); default :func:`pair_concordance`."""
        return pair_concordance(truth, ids)

    # ----- the problem ---------------------------------------------------------------
    def generate(self, seed: int, difficulty: int = 1) -> Instance:
        check_seed_difficulty(seed, difficulty)
        rng = make_rng(self.name, seed, difficulty)
        data = self._build(rng, difficulty)
        return Instance(self.name, int(seed), difficulty, data,
                        {side: dict(self.conventions[side]) for side in SIDES})

    def _view_data(self, data: dict[str, Any], agent: str, owners: tuple[str, ...]) -> dict:
        return {
            "roster": self._roster(data, agent),
            "facts": [self._encode(f, agent, data) for f in data["facts"] if f["owner"] in owners],
            "questions": self._questions(data, agent),
        }

    def _questions(self, data: dict[str, Any], agent: str) -> list[str]:
        return [self._ask(q, agent, data) for q in data["queries"]]

    def split(self, instance: Instance) -> tuple[View, View]:
        a, b = (View(side, self._view_data(instance.data, side, (side,)),
                     dict(instance.conventions[side]))
                for side in SIDES)
        return a, b

    def _fact_lines(self, facts: list[list[str]], agent: str) -> list[str]:
        return [self.templates[agent].format(*f) for f in facts]

    def _text(self, vdata: dict[str, Any], agent: str, opening: str) -> str:
        lines = [self.setting, "", opening + " " + self.convention_text[agent], ""]
        lines.append(f"{self.roster_heading}: " + "; ".join(vdata["roster"]) + ".")
        lines += ["", f"{self.facts_heading}:"]
        lines += [f"- {line}" for line in self._fact_lines(vdata["facts"], agent)]
        lines += ["", f"{self.questions_heading}:"]
        if self.kind == "order":
            lines += list(vdata["questions"])
        else:
            lines += [f"{i}. {q}" for i, q in enumerate(vdata["questions"], start=1)]
        return "\n".join(lines)

    def render(self, instance: Instance) -> str:
        vdata = self._view_data(instance.data, "a", SIDES)
        return self._text(vdata, "a", "You hold all the facts.")

    def render_view(self, view: View) -> str:
        return self._text(view.data, view.agent,
                          "You hold only some of the facts; your partner holds the others.")

    def oracle(self, instance: Instance) -> Any:
        return self._solve(instance.data)

    def counterfactual(self, instance: Instance, keep: str, seed: int) -> Instance:
        check_keep(keep)
        check_seed_difficulty(seed, instance.difficulty)
        rng = make_rng(self.name, seed, instance.difficulty, salt=f"counterfactual-{keep}")
        data = self._regenerate(instance.data, keep, rng)
        data["counterfactual"] = {"of_seed": instance.seed, "keep": keep, "seed": int(seed)}
        return Instance(self.name, instance.seed, instance.difficulty, data,
                        {side: dict(instance.conventions[side]) for side in SIDES})

    def naive_answer(self, instance: Instance) -> Any:
        return self._solve(self._misread(instance.data))

    # ----- reading the full rendering back (solo-tractability probe) --------------------
    #: Names of the arguments of ``templates["a"]``, in order (canonical fact fields).
    fact_fields: ClassVar[tuple[str, ...]] = ()
    #: ``(regex, fixed fields)`` pairs that read one question of the full rendering.
    question_patterns: ClassVar[tuple[tuple[str, dict[str, Any]], ...]] = ()

    def _text_entities(self, items: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Entities (and extra data fields) from the roster line of the full rendering."""
        return {x: {"a": x, "b": x} for x in items}, {}

    def _text_facts(self, lines: list[str]) -> list[dict[str, Any]]:
        """Canonical facts from the fact lines of the full rendering (view ``a`` wording)."""
        pattern = re.escape(self.templates["a"])
        for i in range(len(self.fact_fields)):
            pattern = pattern.replace(re.escape("{" + str(i) + "}"), f"(?P<f{i}>.+?)")
        regex = re.compile(pattern + "$")
        facts = []
        for line in lines:
            m = regex.match(line)
            if m is None:
                raise ValueError(f"unreadable fact line: {line!r}")
            facts.append(self._text_fact([m.group(f"f{i}") for i in range(len(self.fact_fields))]))
        return facts

    def _text_fact(self, args: list[str]) -> dict[str, Any]:
        return {"owner": "a", **dict(zip(self.fact_fields, args))}

    def _text_queries(self, lines: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        queries = []
        for line in lines:
            line = re.sub(r"^\d+\.\s*", "", line)
            for pattern, fixed in self.question_patterns:
                m = re.fullmatch(pattern, line)
                if m:
                    queries.append({**fixed, **m.groupdict()})
                    break
            else:
                raise ValueError(f"unreadable question: {line!r}")
        return queries, {}

    def read_text(self, text: str) -> dict[str, Any]:
        """Rebuild canonical instance data from the full rendering ``render(instance)`` alone.

        Raises
        ------
        ValueError
            If a line of the rendering cannot be read.
        """
        lines = text.splitlines()
        roster_prefix = f"{self.roster_heading}: "
        roster = next(line for line in lines if line.startswith(roster_prefix))
        items = roster[len(roster_prefix):].rstrip(".").split("; ")
        start = lines.index(f"{self.facts_heading}:")
        stop = lines.index(f"{self.questions_heading}:")
        fact_lines = [line[2:] for line in lines[start + 1:stop] if line.startswith("- ")]
        question_lines = [line for line in lines[stop + 1:] if line.strip()]
        entities, extra = self._text_entities(items)
        queries, extra_q = self._text_queries(question_lines)
        return {"entities": entities, **extra, "facts": self._text_facts(fact_lines),
                "queries": queries, **extra_q}

    def solve_text(self, text: str) -> Any:
        """Solve from the full rendering alone: :meth:`read_text`, then the graph search."""
        return self._solve(self.read_text(text))

    # ----- answers -------------------------------------------------------------------
    def parse(self, text: str) -> Any:
        if self.kind == "order":
            return parse_sequence(text)
        return parse_numbered(text)

    def recognises(self, instance: Instance, answer: Any) -> bool:
        """An order answer is read only if every item names an entity of the instance (its
        grader would skip an unknown item, so a remark read as a name would earn partial
        credit); question answers are checked by their parser's structure alone."""
        if self.kind != "order" or not isinstance(answer, (list, tuple)):
            return True
        index = name_index(instance.data)
        return all(resolve(index, item) is not None for item in answer)

    def format_answer(self, answer: Any) -> str:
        if answer is None or answer is UNPARSED:
            return ""
        if self.kind == "order":
            return ", ".join(str(x) for x in answer)
        parts = []
        for i, value in enumerate(answer, start=1):
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                value = ", ".join(str(v) for v in value) if value else "none"
            parts.append(f"{i}: {value}")
        return "; ".join(parts)

    def corrupt(self, instance: Instance, answer: Any) -> Any:
        """A wrong answer: the order's first two items swapped, or question 1 answered by a
        value that differs from the correct one."""
        if self.kind == "order":
            items = list(answer)
            return items[1:2] + items[:1] + items[2:] if len(items) >= 2 else []
        items = list(answer)
        items[0] = self._wrong_value(instance.data, 0, items[0])
        return items

    def _wrong_value(self, data: dict[str, Any], qi: int, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return list(value)[1:] if value else [next(iter(data["entities"]))]
        if isinstance(value, int) and not isinstance(value, bool):
            return value + 1
        return "<corrupted>"

    def grade(self, instance: Instance, answer: Any) -> float:
        if answer is None or answer is UNPARSED or isinstance(answer, (str, bytes, dict)):
            return 0.0
        if not isinstance(answer, (list, tuple)):
            return 0.0
        data = instance.data
        truth = self._solve(data)
        index = name_index(data)
        if self.kind == "order":
            ids = [resolve(index, item) for item in answer]
            return float(min(1.0, max(0.0, self._score_order(data, truth, ids))))
        total = 0.0
        for qi, query in enumerate(data["queries"]):
            given = answer[qi] if qi < len(answer) else None
            if given is None:
                continue
            total += self._score_query(query, truth[qi], given, index)
        return float(total / len(data["queries"]))

    def _score_query(self, query: dict[str, Any], truth: Any, given: Any,
                     index: dict[str, str]) -> float:
        qtype = query.get("type", "name")
        if isinstance(truth, str) and truth == NONE and qtype in ("name", "int"):
            return 1.0 if compact(given) in NONE_WORDS else 0.0
        if qtype == "set":
            want = {resolve(index, t) or compact(t) for t in truth}
            got = {resolve(index, g) or "?" + compact(g) for g in split_set(given)}
            return jaccard(want, got)
        if qtype == "int":
            text = str(given).strip()
            m = re.fullmatch(r"[+]?(\d{1,6})", text)
            return 1.0 if m and int(m.group(1)) == truth else 0.0
        if qtype == "term":
            return 1.0 if self._term_key(given) == self._term_key(truth) else 0.0
        return 1.0 if resolve(index, given) == resolve(index, truth) else 0.0

    def _term_key(self, value: Any) -> str:
        return compact(value)
