"""Tables as a reader sees them: no Python reprs, citations readable without the renderer and
turned back into pandoc markers by it."""
from costbook.book.citations import table_citations_as_markers
from costbook.report import Table, cite, fmt_number


def test_cells_never_show_python_reprs():
    t = Table(["a", "b", "c", "d", "e"])
    t.add(True, None, ["arkworks", "sage"], 2.0e8, -1.1e-13)
    assert t.rows == [["yes", "—", "arkworks, sage", "2.00 × 10⁸", "0"]]
    assert fmt_number(1234.5) == "1,234" and fmt_number(0.5) == "0.5"


def test_a_cited_cell_reads_as_author_year_and_renders_as_a_marker_again():
    t = Table(["source", "value"])
    t.add(cite("seed-cs03", "line 60"), "6.17 ms")
    t.add("as printed " + cite("rfc9496"), "")
    text, html = t.to_text(), t.to_html()
    assert "[@" not in text and "(Takahashi and Zaverucha 2023, line 60)" in text
    assert "[@" not in html and "(de Valence et al. 2023)" in html
    assert table_citations_as_markers(html).count("[@seed-cs03, line 60]") == 1
    assert "[@rfc9496]" in table_citations_as_markers(html)
