"""The pipeline end to end: encodings and HTML give the same fingerprints as plain UTF-8."""

from __future__ import annotations

import re

from neardup import Pipeline, make_spec
from neardup.analysis.decode import read_text

PARAGRAPH = (
    "Городской совет утвердил план благоустройства набережной. Работы начнутся весной: "
    "заменят освещение, положат новую плитку и высадят двести молодых лип. "
    "Жители смогут следить за ходом ремонта на сайте администрации."
)

PAGE = """<!DOCTYPE html>
<html><head><title>Новости</title><style>p { color: red }</style>
<script>var x = "Городской совет";</script></head>
<body><div class="text"><p>Городской совет утвердил план благоустройства набережной.
Работы начнутся весной: заменят освещение, положат новую плитку и высадят
двести&nbsp;молодых <b>лип</b>.</p>
<p>Жители смогут следить за ходом ремонта на сайте администрации.</p></div></body></html>"""


def test_cp1251_koi8_utf16_twins_have_identical_fingerprints(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pipeline = Pipeline(make_spec("ru"))
    expected = pipeline.fingerprints(PARAGRAPH).values.tolist()
    assert expected
    for encoding in ("utf-8", "utf-8-sig", "cp1251", "koi8-r", "utf-16"):
        path = tmp_path / f"text.{encoding}.txt"
        path.write_bytes(PARAGRAPH.encode(encoding))
        decoded = read_text(path)
        assert decoded.text == PARAGRAPH, encoding
        assert pipeline.fingerprints(path.read_bytes()).values.tolist() == expected, encoding


def test_html_page_and_its_text_have_identical_fingerprints() -> None:
    for preset in ("ru", "plain"):
        pipeline = Pipeline(make_spec(preset))
        assert (
            pipeline.fingerprints(PAGE).values.tolist()
            == pipeline.fingerprints(PARAGRAPH).values.tolist()
        ), preset


def test_html_spans_point_at_the_words_inside_the_html() -> None:
    canonical = Pipeline(make_spec("plain")).canonical(PAGE)
    words = re.findall(r"\w+", PARAGRAPH.lower())
    assert canonical.terms == words
    originals = [PAGE[a:b] for a, b in zip(canonical.starts.tolist(), canonical.ends.tolist())]
    assert [o.lower() for o in originals] == words
    # and they really are the positions in the body, not in <title> or <script>
    assert canonical.starts[0] > PAGE.index("<body>")
