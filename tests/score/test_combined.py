"""The combined score: one artefact, the features exact, the model by hand, every entry point
alike, and the calibration's promises on texts written here (a paragraph copied into a long
document is a duplicate at 0.5; two long texts on one subject without a shared passage are
not)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from neardup import compare
from neardup.cli.main import main
from neardup.eval import methods
from neardup.fingerprints.pipeline import default_spec, make_spec
from neardup.score.combined import (
    FEATURE_FUNCTIONS,
    IDF_ONE_SIDE,
    MEASURES,
    MODEL,
    PASSAGE_SCALE,
    CombinedFeatures,
    combined_explained,
    combined_score,
    combined_scores,
    known,
    pair_features,
    pair_measures,
)
from neardup.score.matrix import similarity_matrix
from neardup.score.model import MODEL_PATH, CombinedModel, Regime, regime_names

SHORT_A = "Мама мыла раму утром, а папа читал газету."
SHORT_B = "Утром мама мыла раму, пока папа читал газету."
LONG = " ".join(f"{c}{v}{e}lin" for c in "bdfgk" for v in "aeiou" for e in "mnrst")
LONG_EDITED = LONG.replace("bamlin", "zorlin").replace("kusrlin", "kusrlin kusrlin")
TEXTS = [SHORT_A, SHORT_B, LONG, LONG_EDITED, "The cat sat on the mat."]

# Two long texts on one subject (one city's transport; one town's floods) written for these
# tests, and a paragraph of the first.
RU_SOURCE = (
    "Городские власти Северодольска представили план реформы общественного транспорта, которая "
    "должна завершиться к концу следующего года. Главная идея состоит в том, чтобы отказаться от "
    "дублирующих друг друга автобусных маршрутов и заменить их сетью магистральных линий с "
    "частыми рейсами. По словам заместителя мэра Ольги Карповой, сейчас в городе работает сто "
    "двенадцать маршрутов, причём почти половина из них проходит по одним и тем же улицам "
    "центра. Пассажиры жалуются на длинные интервалы вечером и в выходные, а перевозчики — на "
    "низкую выручку. Новая схема предполагает сорок два маршрута, из которых девять станут "
    "магистральными: автобусы по ним будут ходить каждые пять–семь минут с раннего утра до "
    "полуночи. Остальные линии свяжут спальные районы с ближайшими пересадочными узлами. Для "
    "этого на окраинах построят четыре крытых терминала с кассами, туалетами и стоянками для "
    "велосипедов.\n\n"
    "Оплата проезда тоже изменится: вместо разовых билетов мэрия предлагает единый тариф на "
    "девяносто минут с бесплатными пересадками. Студенты и пенсионеры сохранят льготы, а "
    "ежемесячный проездной подешевеет на десять процентов.\n\n"
    "Общественные слушания по проекту пройдут в конце месяца во Дворце культуры "
    "железнодорожников. Жители смогут оставить замечания и на сайте администрации, где уже "
    "опубликованы подробные карты будущей сети. Карпова признала, что часть привычных "
    "маршрутов исчезнет, однако пообещала, что время поездки для большинства горожан "
    "сократится в среднем на двенадцать минут."
)
RU_PARAGRAPH = RU_SOURCE.split("\n\n")[1]
RU_SAME_SUBJECT = (
    "В Северодольске начали строить первую за сорок лет трамвайную линию. Она соединит "
    "железнодорожный вокзал с новым микрорайоном Лесная Поляна, где за последние годы "
    "поселились почти тридцать тысяч человек. Протяжённость пути составит одиннадцать "
    "километров, на нём разместят семнадцать остановок. Подрядчик, местная компания "
    "«Дорстрой-Север», обязался уложить рельсы за два строительных сезона. Стоимость работ "
    "оценивается в шесть миллиардов рублей, большую часть денег выделит федеральный бюджет по "
    "программе обновления городского электротранспорта. Вагоны закупят на заводе в "
    "Усть-Катаве: это низкопольные трёхсекционные машины с кондиционерами и розетками для "
    "зарядки телефонов. Депо разместится на месте заброшенной овощной базы возле кольцевой "
    "дороги.\n\n"
    "Во время строительства движение по проспекту Металлургов будет частично ограничено, "
    "поэтому водителям советуют заранее выбирать объездные пути через улицу Гагарина. Экологи "
    "поддержали проект, напомнив, что трамвай не выбрасывает выхлопных газов и меньше шумит. "
    "Противники стройки опасаются, что вырубят старые тополя вдоль проспекта, но в мэрии "
    "заверили, что на месте каждого спиленного дерева посадят три новых. Первые пассажиры "
    "смогут проехать по линии, если работы не задержатся, через два с половиной года. "
    "Стоимость поездки пока не определена."
)
EN_SOURCE = (
    "The council of Millbrook has approved a forty-million-pound plan to protect the town "
    "centre from the River Wend, which burst its banks twice in the past three winters. "
    "Engineers will raise the embankment along Quay Street by almost a metre and install steel "
    "flood gates that can be closed within an hour when the water rises.\n\n"
    "Upstream, three farms have agreed to let the river spill onto their fields during heavy "
    "rain, storing water that would otherwise reach the shops and houses downstream. The "
    "farmers will be paid for every acre they set aside, and the money will come from a "
    "national fund for natural flood management.\n\n"
    "Council leader Priya Malhotra said the project balanced concrete walls with greener "
    "measures that also create habitat for birds and otters. Residents of the lower terraces, "
    "whose homes were flooded in January, welcomed the decision but asked why work will not "
    "begin until next spring. Officials replied that the embankment cannot be rebuilt while "
    "the ground is saturated and that contracts still have to be tendered. In the meantime, "
    "sandbag stores will be placed at the end of each affected street, and a text message alert "
    "system will warn households when the gauge at Ferry Bridge passes a critical level. "
    "Insurance companies have been invited to a public meeting next month to explain how the "
    "new defences could lower premiums for the worst hit properties."
)
EN_PARAGRAPH = EN_SOURCE.split("\n\n")[1]
EN_SAME_SUBJECT = (
    "Three months after the January floods, many traders on Millbrook's high street are still "
    "waiting to reopen. The bakery run by Tom and Ellen Hargreaves lost its ovens, its stock "
    "and most of its furniture when brown water filled the ground floor to the height of the "
    "counters. Their insurer has so far paid less than a third of the claim, arguing that part "
    "of the damage was caused by a leaking roof rather than the river. Similar disputes have "
    "left a dozen businesses in limbo, according to the local chamber of commerce, which "
    "estimates total losses at six million pounds.\n\n"
    "Volunteers spent weeks pumping out cellars, carrying ruined carpets to skips and scrubbing "
    "walls with disinfectant. The town's football club opened its clubhouse as a depot for "
    "donated clothes, bedding and tinned food. Some families have moved into caravans parked on "
    "the school playing field while builders dry out their houses, a process that can take half "
    "a year in old brick cottages. The district hospital treated several people for infections "
    "picked up during the clean-up. A charity concert in the parish church raised eleven "
    "thousand pounds for those without insurance. Shopkeepers say footfall has collapsed "
    "because visitors assume the town is still under water, and they have asked the regional "
    "tourist board to pay for an advertising campaign announcing that Millbrook is open for "
    "business again."
)


def host(document: str, paragraph: str) -> str:
    """``document`` with ``paragraph`` inserted between its two paragraphs."""
    first, second = document.split("\n\n")
    return f"{first}\n\n{paragraph}\n\n{second}"


CASES = {
    "ru": (RU_SOURCE, RU_PARAGRAPH, RU_SAME_SUBJECT),
    "en": (EN_SOURCE, EN_PARAGRAPH, EN_SAME_SUBJECT),
}


def test_the_shipped_artefact_is_the_model() -> None:
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert CombinedModel.from_dict(raw) == MODEL == CombinedModel.load()
    assert CombinedModel.from_dict(MODEL.to_dict()) == MODEL
    assert MODEL.version == 5  # the one version: a refit bumps it (fit_combined.py)
    assert "fit_combined.py" in MODEL.trained_on and MODEL.fit is not None
    assert [r.name for r in MODEL.regimes] == ["part", "sentence", "paragraph", "document"]
    assert MODEL.token_bounds == (32, 128) and set(MODEL.features) <= set(FEATURE_FUNCTIONS)
    # evidence never lowers a score: only the context (the lengths) may weigh below 0
    for regime in MODEL.regimes:
        for weights in regime.weights:
            for name, w in zip(MODEL.features, weights, strict=True):
                assert w >= 0 or name in MODEL.context, (regime.name, name)


def _model(weights: dict[str, tuple[float, float]], slope: float, offset: float) -> CombinedModel:
    features = ("shared_word5", "tfidf_pair", "length_ratio")
    one = Regime(
        "x",
        tuple(tuple(weights[f][c] for f in features) for c in range(2)),  # type: ignore[arg-type]
        (-2.0, -3.0),
        slope,
        offset,
    )
    regimes = tuple(Regime(n, one.weights, one.intercepts, slope, offset) for n in regime_names(2))
    return CombinedModel(features, regimes, (32, 128), 0.3333, "by hand", 1)


def test_the_model_is_a_calibrated_noisy_or_by_hand() -> None:
    model = _model(
        {"shared_word5": (4.0, 0.0), "tfidf_pair": (0.0, 5.0), "length_ratio": (0.0, 1.0)},
        0.8,
        -0.3,
    )
    row = np.array([[0.5, 0.6, 0.9]])
    a = 1 / (1 + math.exp(-(-2.0 + 4.0 * 0.5)))
    b = 1 / (1 + math.exp(-(-3.0 + 5.0 * 0.6 + 1.0 * 0.9)))
    p = 1 - (1 - a) * (1 - b)
    expected = 1 / (1 + math.exp(-(0.8 * math.log(p / (1 - p)) - 0.3)))
    for regime in range(4):
        assert model.apply(row, np.array([regime]))[0] == pytest.approx(expected, abs=1e-12)
    explained = model.explain(row[0], 2)
    assert explained.regime == "paragraph" and explained.score == pytest.approx(expected)
    assert [c.probability for c in explained.channels] == pytest.approx([a, b])
    assert explained.drove.name == "vocabulary"  # b > a
    # the context is no evidence: it is left out of what drove the score
    assert [c.feature for c in explained.channels[1].top()] == ["tfidf_pair"]
    with pytest.raises(ValueError):
        known(CombinedModel(("no such feature", "b", "c"), model.regimes, (32, 128), 0.3, "x", 1))
    with pytest.raises(ValueError):  # a weight a feature
        CombinedModel(("shared_word5",), model.regimes, (32, 128), 0.3, "x", 1)
    with pytest.raises(ValueError):
        CombinedModel(model.features, model.regimes[:2], (32, 128), 0.33, "x", 1)


def test_a_pair_is_routed_by_its_lengths() -> None:
    shorter = np.array([10, 10, 40, 200, 200, 127, 128])
    ratio = np.array([0.5, 0.2, 0.9, 0.9, 0.1, 0.34, 0.34])
    assert MODEL.regime_of(shorter, ratio).tolist() == [1, 0, 2, 3, 0, 2, 3]


def test_features_of_identical_and_disjoint_texts() -> None:
    table = CombinedFeatures(default_spec()).table([LONG, LONG, "The cat sat on the mat."])
    n = int(table.tokens[0])
    assert n == 125
    same = dict(zip(FEATURE_FUNCTIONS, pair_features(table, [0], [1])[0], strict=True))
    assert same["shared_word5"] == pytest.approx((n - 4) / (n - 4 + PASSAGE_SCALE))
    assert same["shortness"] == pytest.approx(16 / (16 + n))
    others = {k: v for k, v in same.items() if k not in ("shared_word5", "shortness")}
    assert set(others.values()) == {1.0}
    disjoint = dict(zip(FEATURE_FUNCTIONS, pair_features(table, [0], [2])[0], strict=True))
    assert disjoint["length_ratio"] == table.tokens[2] / n
    evidence = {k: v for k, v in disjoint.items() if k not in ("length_ratio", "shortness")}
    assert set(evidence.values()) == {0.0}
    measures = pair_measures(table, [0], [1])[0]
    assert measures[MEASURES.index("word5_shared")] == n - 4 == measures[MEASURES.index("word5_a")]


def _char3(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}


def test_the_written_text_keeps_what_a_reader_sees() -> None:
    features = CombinedFeatures(default_spec())
    html = "<html><body><p>Ёлка,  в 2024 г.\n\tстояла</p> — <b>ТАМ</b>!</body></html>"
    written = features.written(html)
    assert written.text == "елка, в 2024 г. стояла — там!"
    # Latin look-alikes in a Russian word and a zero-width space are undone first
    tricked = features.written("Ёлкa,\u200b  в 2024 г.\n\tстоялa — ТАМ!")
    assert tricked.text == "елка, в 2024 г. стояла — там!"
    table = features.table([SHORT_A, SHORT_B])
    a3, b3 = (_char3(features.written(t).text) for t in (SHORT_A, SHORT_B))
    written3 = pair_features(table, [0], [1], ("resemblance_written3",))[0, 0]
    assert written3 == pytest.approx(len(a3 & b3) / len(a3 | b3), abs=1e-12)


def test_the_pair_tfidf_cosine_by_hand() -> None:
    # a: x x y; b: x z — after the en chain these stay three distinct stems
    table = CombinedFeatures(make_spec("plain")).table(["xa xa yb", "xa zc"])
    names = ("tfidf_pair", "resemblance_word1", "containment_word1")
    tfidf, resemblance, containment = pair_features(table, [0], [1], names)[0]
    w = IDF_ONE_SIDE
    assert tfidf == pytest.approx(2 / (math.sqrt(4 + w**2) * math.sqrt(1 + w**2)), abs=1e-12)
    assert resemblance == pytest.approx(1 / 3)  # {xa} of {xa, yb, zc}
    assert containment == pytest.approx(1 / 2)  # {xa} of the smaller {xa, zc}


def test_every_entry_point_gives_the_same_combined_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = default_spec()
    matrix = similarity_matrix(TEXTS, method="combined").matrix
    scorer = methods.build("combined", spec)
    features = scorer.features(TEXTS)
    files = []
    for i, text in enumerate(TEXTS):
        path = tmp_path / f"{i}.txt"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    for i in range(len(TEXTS)):
        for j in range(len(TEXTS)):
            if i == j:
                continue
            library = compare(TEXTS[i], TEXTS[j]).combined
            assert library == combined_score(TEXTS[i], TEXTS[j], spec)
            assert matrix[i, j] == pytest.approx(library, abs=1e-12)
            evaluated = scorer.score(features, np.array([i]), np.array([j]))[0]
            assert evaluated == pytest.approx(library, abs=1e-12)
    capsys.readouterr()
    assert main(["compare", files[0], files[1], "--method", "combined", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["combined"] == pytest.approx(compare(SHORT_A, SHORT_B).combined)


def test_the_combined_score_ranks_a_rewrite_above_a_stranger() -> None:
    rewrite = compare(SHORT_A, SHORT_B).combined
    stranger = compare(SHORT_A, TEXTS[4]).combined
    assert rewrite is not None and stranger is not None
    assert rewrite > 0.5 > stranger
    assert compare(SHORT_A, SHORT_B, method="sets").combined is None
    assert "combined" not in compare(SHORT_A, SHORT_B, method="sets").to_dict()


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_paragraph_copied_into_a_long_document_is_a_duplicate(lang: str) -> None:
    source, paragraph, other = CASES[lang]
    copied = host(other, paragraph)
    for a in (paragraph, source):  # the paragraph itself, and the document it comes from
        score, why = combined_explained(a, copied, default_spec())
        assert score > 0.5, (lang, a[:30], score)
        assert why.drove.name == "verbatim"
        assert why.drove.top()[0].feature in ("shared_word5", "containment_word5")
    assert combined_explained(paragraph, copied, default_spec())[1].regime == "part"


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_two_long_texts_on_one_subject_without_a_shared_passage_are_not(lang: str) -> None:
    source, paragraph, other = CASES[lang]
    table = CombinedFeatures(default_spec()).table([source, other, paragraph])
    assert min(table.tokens[:2]) >= 100  # long texts: whole documents, not sentences
    assert pair_features(table, [0], [1], ("shared_word5",))[0, 0] == 0.0  # no 5-word run
    assert pair_features(table, [0], [1], ("tfidf_pair",))[0, 0] > 0  # but one subject
    scores = combined_scores(table, np.array([0, 2]), np.array([1, 1]))
    assert scores.max() < 0.5, (lang, scores)


def test_compare_explains_the_score(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(EN_PARAGRAPH, encoding="utf-8")
    b.write_text(host(EN_SAME_SUBJECT, EN_PARAGRAPH), encoding="utf-8")
    result = compare(EN_PARAGRAPH, host(EN_SAME_SUBJECT, EN_PARAGRAPH), explain=True)
    assert result.explanation is not None
    said = result.to_dict()["combined_explain"]
    assert said["regime"] == "part" and said["drove"] == "verbatim"
    assert said["channels"]["verbatim"]["top"][0]["feature"] in (
        "shared_word5",
        "containment_word5",
    )
    assert "combined_explain" not in compare(a.read_text(), b.read_text()).to_dict()
    assert main(["compare", str(a), str(b), "--json", "--explain"]) == 0
    assert json.loads(capsys.readouterr().out)["combined_explain"] == said
    assert main(["compare", str(a), str(b), "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    why = next(i for i, line in enumerate(lines) if line.startswith("why "))
    assert "a short text against a much longer one" in lines[why]
    assert "the stronger evidence: word runs copied verbatim" in lines[why]
    assert lines[why + 1].startswith("  word runs copied verbatim: probability 1.00: ")
    assert "5-word runs in common: 26" in lines[why + 1]  # every 5-word run of the 30 words
    assert lines[why + 2].startswith("  shared vocabulary: probability ")


def test_the_collection_scores_its_matches_alike() -> None:
    from neardup.errors import ConfigurationError
    from neardup.index import Collection, IndexSpec

    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as col:
        assert col.spec == default_spec()  # the length-adaptive rule is kept (index.short)
        col.add("long", LONG)
        col.add("edited", LONG_EDITED)
        result = col.check(LONG, combined=True)
        by_id = {m.id: m.combined for m in result.matches}
        assert by_id["long"] == pytest.approx(combined_score(LONG, LONG, default_spec()))
        assert by_id["long"] > 0.999
        assert by_id["edited"] == pytest.approx(combined_score(LONG, LONG_EDITED, default_spec()))
        assert "combined" in result.to_dict()["matches"][0]
        assert col.check(LONG).matches[0].combined is None
    spec = default_spec()
    with Collection.create("memory:", spec, IndexSpec(store_text=False)) as bare:
        with pytest.raises(ConfigurationError):
            bare.check(LONG, combined=True)
