"""Tables as a reader sees them: no Python reprs, citations readable without the renderer and
turned back into pandoc markers by it."""
from costbook.book.citations import table_citations_as_markers
from costbook.writing.report import Table, cite, column_alignments, fmt_number, fmt_time


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
    # the label is the book's, with the year suffix the whole bibliography gives it
    assert "[@" not in text and "(Takahashi and Zaverucha 2023a, line 60)" in text
    # in HTML each citation is a data-qmd span (Quarto formats its Markdown) around the readable label
    assert '<span data-qmd="[@seed-cs03, line 60]">(Takahashi and Zaverucha 2023a, line 60)</span>' in html
    assert '<span data-qmd="[@rfc9496]">(de Valence et al. 2023)</span>' in html
    assert "<cite" not in html
    assert table_citations_as_markers(html).count("[@seed-cs03, line 60]") == 1
    assert "[@rfc9496]" in table_citations_as_markers(html)


def test_a_locator_with_markup_characters_stays_one_escaped_attribute():
    html = Table(["source"]).add(cite("seed-cs03", 'lines 91–94 & "110"')).to_html()
    assert 'data-qmd="[@seed-cs03, lines 91–94 &amp; &quot;110&quot;]"' in html
    assert table_citations_as_markers(html).count('[@seed-cs03, lines 91–94 &amp; "110"]') == 1


def test_columns_are_aligned_by_type_numbers_right_text_left():
    t = Table(["step", "time", "change", "source", "note"])
    t.add("encrypt", "6.51\u00a0ms", "+4.2%", cite("seed-cs03", "line 60"), "—")
    t.add("verify", "2.0 × 10⁸", "−1.1%", cite("seed-cs03", "line 61"), "3 of 4")
    t.add("decrypt", "—", "", cite("seed-cs03", "line 62"), "rejected")
    assert column_alignments(t.rows, 5) == ["left", "right", "right", "left", "left"]
    html = t.to_html()
    assert html.count('style="text-align: right"') == 2 * 4 and html.count('style="text-align: left"') == 3 * 4
    assert '<th style="text-align: right">time</th>' in html


def test_a_time_takes_its_unit_after_rounding():
    """999.6 µs rounds to 1 ms; written in µs it became "1e+03 µs"."""
    nb = "\u00a0"
    assert fmt_time(999.6e-6) == f"1{nb}ms" and fmt_time(999.4e-6) == f"999{nb}µs"
    assert fmt_time(0.99996) == f"1{nb}s" and fmt_time(999.7) == f"1,000{nb}s"
    assert fmt_time(48.24e-6) == f"48.2{nb}µs" and fmt_time(43400.0) == f"43,400{nb}s"
    for x in (9.9951e-10, 9.9996e-7, 0.0009996, 0.99951, 999.51):
        assert "e+" not in fmt_time(x) and "e-" not in fmt_time(x), fmt_time(x)


def test_a_chapter_names_its_measured_machine_and_says_whether_it_is_the_reference(tmp_path):
    import dataclasses, json
    from costbook.prices import measurements
    from costbook.writing.report import measured_machine
    ref = measurements.load_source("reference")
    said = measured_machine(ref)
    assert "AMD EPYC, 2 cores" in said and ref.name in said and said.endswith("the book's reference machine.")
    # another machine's file (a copy with another CPU): named, and the reference machine named beside it
    data = json.loads(ref.path.read_text())
    data["provenance"]["machine"] = {**data["provenance"]["machine"], "cpu": "Example CPU", "cores": 8}
    other = tmp_path / "mine.json"
    other.write_text(json.dumps(data))
    mine = dataclasses.replace(measurements.load(other), name="mine")
    said = measured_machine(mine)
    assert "Example CPU, 8 cores (measurement file mine)" in said
    assert "reference machine, AMD EPYC, 2 cores." in said and not measurements.is_reference(mine)


def test_a_section_heads_its_rows_once_across_the_table():
    t = Table(["line", "value"])
    t.section("Punch cards " + cite("seed-punchcard")).add("line 7", "1 ms").add("line 8", "2 ms")
    t.section("Vector commitments").add("line 5", "3 ms")
    html = t.to_html()
    assert html.count('<tr class="costbook-section"><td colspan="2">') == 2
    assert html.index("Punch cards") < html.index("line 7") < html.index("Vector commitments") < html.index("line 5")
    assert '<span data-qmd="[@seed-punchcard]">(Eskandarian 2021a)</span>' in html      # the heading cites
    lines = t.to_text().splitlines()
    assert lines[2].startswith("Punch cards (") and lines[5] == "Vector commitments", lines
    assert column_alignments(t.rows, 2) == ["left", "right"]            # headings are not cells of a column


def test_an_interval_beside_a_printed_figure_never_reads_as_another_number():
    """Table 2.12 printed "10.99 ms [11–11]": bounds rounded to three digits where the point had four."""
    from costbook.writing.report import fmt_bounds_like
    assert fmt_bounds_like(10.987e-3, 10.994e-3, 10.85, "ms") == "[10.99–10.99]"
    assert fmt_bounds_like(10.94e-3, 11.03e-3, 10.85, "ms") == "[10.9–11.0]"           # three digits do
    assert fmt_bounds_like(137.1768e-6, 151.8514e-6, 134.3669, "us") == "[137–152]"     # no false precision
    assert fmt_bounds_like(1.0e-3, 1.1e-3, 4.00, "ms", decimals=2) == "[1.00–1.10]"
