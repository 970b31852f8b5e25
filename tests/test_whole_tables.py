"""The rest of a table for a question comparing counts of rows (`core.whole_tables`): the
page's table parts are added after the retrieved rows, and the comparison then counts every
row, English and German."""

from __future__ import annotations

from collections.abc import Sequence

from core.answer import source_header, source_text
from core.compose import compose
from core.pages import Evidence, EvidenceKind
from core.whole_tables import table_parts
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "Laptop Hardware Testing"
MODELS = (
    ("OEM", "Model N"),
    ("HP", "EliteDesk 800 G2"),
    ("Dell", "Latitude E7470"),
    ("Dell", "Precision Tower 3420"),
    ("Dell", "Latitude 7480"),
    ("HP", "Folio 9470m"),
)


def _row(number: int, table: int = 1) -> str:
    vendor, model = MODELS[number - 1]
    return f"Row {number} in Table {table}: Vendor is {vendor}, Model is {model}, and INST is Y"


def _evidence(position: int, kind: EvidenceKind, text: str) -> Evidence:
    return page_evidence(position, text, title=TITLE, kind=kind)


class Store(PageStore):
    """A page's evidences: the passage, the table in one part, then one evidence a row."""

    def __init__(self):
        header = "Table 1: Vendor, Model, INST"
        whole = "\n".join([header, *(_row(n) for n in range(1, len(MODELS) + 1))])
        self.evidences = [
            _evidence(0, "passage", "This page lists the tested laptops."),
            _evidence(1, "table", whole),
            *(_evidence(1 + n, "row", _row(n)) for n in range(1, len(MODELS) + 1)),
        ]
        super().__init__(*self.evidences)

    def rows(self, *numbers: int) -> list[Evidence]:
        return [self.evidences[1 + n] for n in numbers]


def _answer(question: str, evidences: Sequence[Evidence]) -> str | None:
    sources = [(n, source_header(e), source_text(e)) for n, e in enumerate(evidences, 1)]
    composed = compose(question, sources)
    return composed.text if composed else None


def test_a_count_comparison_reads_the_whole_table():
    store = Store()
    found = store.rows(2, 5)  # one row of each kind: as many, no answer
    question = "Were more Latitudes compared or EliteDesks?"
    assert _answer(question, found) is None
    added = table_parts(question, found, store)
    assert [e.kind for e in added] == ["table"]
    assert _answer(question, [*found, *added]) == (
        "More Latitudes (2: Latitude E7470 [3] and Latitude 7480 [2]) than EliteDesks"
        " (1: EliteDesk 800 G2 [1])."
    )


def test_german_count_comparison_reads_the_whole_table():
    store = Store()
    found = store.rows(2, 5)
    question = "Wurden mehr Latitudes verglichen oder EliteDesks?"
    added = table_parts(question, found, store)
    assert _answer(question, [*found, *added]) == (
        "Mehr Latitudes (2: Latitude E7470 [3] und Latitude 7480 [2]) als EliteDesks"
        " (1: EliteDesk 800 G2 [1])."
    )


def test_other_questions_and_single_rows_read_nothing_more():
    store = Store()
    # not a comparison of counts: the retrieved evidences alone
    assert table_parts("Which model did HP test?", store.rows(2, 5), store) == []
    # one retrieved row of the table: it may only share a word with the question
    assert table_parts("Were more Latitudes or EliteDesks tested?", store.rows(2), store) == []
    assert store.reads == 0


def test_parts_already_given_are_not_added_twice():
    store = Store()
    given = [*store.rows(2, 5), store.evidences[1]]
    assert table_parts("Were more Latitudes or EliteDesks tested?", given, store) == []


def test_pass_or_fail_comparisons_read_nothing_more():
    # which kind failed more needs each row's verdict, which `more_rows` does not read
    store = Store()
    asked = "Did more Latitudes or EliteDesks fail?"
    assert table_parts(asked, store.rows(2, 5), store) == []
    assert (
        table_parts("Sind mehr Latitudes oder EliteDesks fehlgeschlagen?", store.rows(2, 5), store)
        == []
    )


def test_a_long_table_is_not_read_whole():
    store = Store()
    part = store.evidences[1]
    many = [
        _evidence(20 + n, "table", part.text.replace("INST is Y", f"INST is {n}")) for n in range(4)
    ]
    evidences = [store.evidences[0], *many, *store.evidences[2:]]
    found = [e for e in evidences if e.kind == "row"][1:5:3]
    store = PageStore(*evidences)
    assert table_parts("Were more Latitudes or EliteDesks tested?", found, store) == []


RPCS = (("RPC Name", "Inputs"), ("add_rule", "string name"), ("remove_rule", "string name"))
RPCS += (("clear_rules", "-"), ("get_rules", "-"))


def _unnamed_row(number: int) -> str:
    name, inputs = RPCS[number - 1]
    return f"Row {number} in Table 1: Column 1 is {name}, and Column 2 is {inputs}"


class UnnamedStore(Store):
    """A page whose table has no header row: the index names its columns "Column 1", ...,
    and its first row holds the names."""

    def __init__(self):
        header = "Table 1: Column 1, Column 2"
        whole = "\n".join([header, *(_unnamed_row(n) for n in range(1, len(RPCS) + 1))])
        self.evidences = [
            _evidence(0, "passage", "XCPMD supports a DBus interface."),
            _evidence(1, "table", whole),
            *(_evidence(1 + n, "row", _unnamed_row(n)) for n in range(1, len(RPCS) + 1)),
        ]
        PageStore.__init__(self, *self.evidences)


def test_a_count_reads_the_whole_table_and_its_first_row_names_the_columns():
    store = UnnamedStore()
    found = store.rows(3, 4)  # two of the table's rows: a count would be a lower bound
    question = "how many rpcs are available in total?"
    added = table_parts(question, found, store)
    assert [e.kind for e in added] == ["table"]
    # "rpcs" is the plural of the first row's "RPC Name"; that row is no RPC
    assert _answer(question, [*found, *added]) == (
        "4 rpcs: add_rule, remove_rule, clear_rules and get_rules [1][2][3]"
    )
    german = "Wie viele RPCs sind insgesamt verfügbar?"
    assert _answer(german, [*found, *table_parts(german, found, store)]) == (
        "4 RPCs: add_rule, remove_rule, clear_rules und get_rules [1][2][3]"
    )


def test_a_table_whose_first_row_is_no_header_keeps_its_rows():
    store = UnnamedStore()
    rows = [e for e in store.evidences if e.kind == "row"]
    first = rows[0].text.replace("Column 2 is Inputs", "Column 2 is -")
    rows[0] = _evidence(2, "row", first)
    # an empty cell names no column: the first row is a row, and no column names RPCs
    assert _answer("how many rpcs are available in total?", rows) is None


def test_a_yes_no_about_every_row_reads_the_whole_table():
    store = Store()
    found = store.rows(3, 5)  # two Dell Latitudes: both say Y
    question = "Was INST always Y for the Dell models?"
    added = table_parts(question, found, store)
    assert [e.kind for e in added] == ["table"]
    # one yes/no about one row reads nothing more
    assert table_parts("Was INST Y for the Dell Latitude 7480?", found, store) == []


def test_a_question_for_several_rows_reads_the_whole_table():
    # "Which Dell models ...?": the Dell rows retrieval left out hold the rest of the list
    store = Store()
    found = store.rows(3, 2)
    added = table_parts("Which Dell models were tested?", found, store)
    assert [e.kind for e in added] == ["table"]
    # one model asked for: the rows found answer
    assert table_parts("Which Dell model was tested first?", found, store) == []


def test_a_count_reads_whole_the_one_row_table_its_heading_names():
    row = "Row 1 in Table 2: Version is 7.0.0 nightly, and Download is http://example.org/7/"
    table = f"Table 2: Version, Download\n{row}"
    store = PageStore(
        page_evidence(1, table, title="Builds", heading="Build Locations", kind="table"),
        page_evidence(2, row, title="Builds", heading="Build Locations", kind="row"),
    )
    found = [store.get(["p1#0002"])[0]]
    added = table_parts("How many build locations were used?", found, store)
    assert [e.kind for e in added] == ["table"]
    assert _answer("How many build locations were used?", [*found, *added]) == (
        "1 build location: 7.0.0 nightly [1]"
    )
    # a heading that does not name the counted things: one row may only share a word
    assert table_parts("How many download mirrors were used?", found, store) == []
