"""The escaping helpers (costbook.system.escape) on random text: what comes out is the text, never markup.

Each helper's output holds no "<" but the MathJax-ignoring span it may add, and reads back as the
text it was given: Markdown through the offline renderer's Markdown and through pandoc (Quarto's),
HTML text and attributes through an HTML parser, JSON in a <script> through json.loads.
"""
from __future__ import annotations

import html
import json
import re

import pytest
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings, strategies as st

from costbook.system.escape import html_attribute, html_text, markdown_text, script_json

from test_hostile_input import FIXTURE, HOSTILE, NOTE_TAGS, markup_problems, words


def examples(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


#: any text, and text made mostly of the characters markup is made of
TEXT = st.text() | st.text(alphabet=st.sampled_from(list("<>&\"'`*_[](){}#|~^@:$\\!-+=.\n\r\t /ax1é\u2028\u2029")))
SPAN = re.compile(r'\A<span class="tex2jax_ignore">(.*)</span>\Z', re.S)


def unwrapped(escaped: str) -> str:
    """The escaped text without the span that keeps MathJax off it, which only text with $ or \\ gets."""
    m = SPAN.match(escaped)
    return m.group(1) if m else escaped


@pytest.fixture(scope="module")
def offline_markdown():
    from costbook.book.markdown import ChapterMarkdown
    from costbook.book.render import load_book
    return ChapterMarkdown(load_book(FIXTURE)[1][1])


def sentence(phrase: str) -> str:
    return f"The machine is {phrase} here."


def check_markdown(text: str, rendered: str) -> None:
    assert markup_problems(rendered, NOTE_TAGS) == []
    shown = re.sub(r"[\x00-\x08\x0a-\x1f\x7f]", " ", text)        # control characters: spaces
    assert words(BeautifulSoup(rendered, "html.parser").get_text()) == words(sentence(shown))


def test_ordinary_names_are_left_as_they_are():
    for name in ("AMD EPYC 7B13, 2 cores (measurement file reference-amd-epyc-2core)",
                 "reference-amd-epyc-2core", "Intel(R) Xeon(R) CPU @ 2.20GHz",
                 "published/seed-002-cs03-estimates", "the author's computer (model not stated)"):
        assert markdown_text(name) == name
        assert html_text(name) == html.escape(name)


@examples(300)
@given(TEXT)
def test_markdown_text_reads_as_the_text_offline(offline_markdown, text):
    escaped = markdown_text(text)
    assert "<" not in unwrapped(escaped) and "\n" not in escaped
    check_markdown(text, offline_markdown(sentence(escaped)))


@examples(40)
@given(TEXT)
def test_markdown_text_reads_as_the_text_in_pandoc(text):
    import pypandoc
    check_markdown(text, pypandoc.convert_text(sentence(markdown_text(text)), "html", format="markdown-smart",
                                               extra_args=["--mathjax"]))


@examples(300)
@given(TEXT)
def test_html_text_reads_as_the_text(text):
    escaped = html_text(text)
    assert "<" not in unwrapped(escaped) and '"' not in unwrapped(escaped)
    assert html.unescape(unwrapped(escaped)) == text
    assert markup_problems(f"<p>{escaped}</p>", {"p", "span"}) == []


@examples(300)
@given(TEXT)
def test_html_attribute_reads_as_the_text(text):
    escaped = html_attribute(text)
    assert not set('<>"') & set(escaped)
    assert html.unescape(escaped) == text
    tag = BeautifulSoup(f'<a title="{escaped}">x</a>', "html.parser").a
    assert list(tag.attrs) == ["title"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12)


@examples(300)
@given(JSON, st.booleans())
def test_script_json_reads_back_as_the_same_object(value, ascii_only):
    data = script_json(json.dumps(value, ensure_ascii=ascii_only, indent=None if ascii_only else 1))
    assert json.loads(data) == value
    for bad in ("<", ">", "&", "</", "<!--", "\u2028", "\u2029"):
        assert bad not in data
    page = f'<script type="application/json" id="d">{data}</script><script src="live.js"></script>'
    assert [s.get("src") for s in BeautifulSoup(page, "html.parser").find_all("script")] == [None, "live.js"]


def test_the_hostile_string_through_each_helper():
    assert json.loads(script_json(json.dumps({"name": HOSTILE}, ensure_ascii=False))) == {"name": HOSTILE}
    assert html.unescape(unwrapped(html_text(HOSTILE))) == HOSTILE
    assert unwrapped(markdown_text(HOSTILE)).startswith("&lt;img src=x onerror=alert(1)&gt;")
