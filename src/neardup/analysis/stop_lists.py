"""neardup's own stop lists for shingling: the function words of Russian and English, by name.

A shingle should be made of the words that carry a text's content, and the words that only
hold a sentence together (articles, prepositions, conjunctions, auxiliary verbs and copulas,
pronouns, particles) add nothing to it but noise: "the cat sat on the mat" and "a cat sat on
a mat" should share their shingles. The general-purpose lists of the ``stop-words`` package
(1,333 English and 417 Russian words) go much further — numerals, ``said``, ``new``,
``year``, ``million``, ``state``, ``сказал``, ``год``, ``человек`` — and drop about half of a
news sentence, so that "I don't know whether that means two years or four years." has no word
left to compare. These lists drop function words only; numbers, quantities and every content
word stay.

Negation stays too (``not``, ``no``, ``never``, ``nor``, ``neither``, ``don't``): "the plan
was approved" and "the plan was not approved" are not the same text. (The ``ru`` preset's
``pos`` filter drops the particle ``не`` with the other particles; these lists do not.)

Each list is named and never changes once released: a changed list is a new name
(``function-2``), so a spec — which names its list — analyses a text the same way for good.
The words are written as the ``stop`` filter compares them (:func:`resources.canonical_word`:
lowercase, ``ё`` as ``е``), as word forms, since the filter runs before lemmas and stems.
"""

from __future__ import annotations

#: The list the presets use.
DEFAULT_LIST = "function-1"

_EN_ARTICLES_DETERMINERS = "a an the this that these those"
_EN_PRONOUNS = (
    "i me my mine myself you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself we us our ours ourselves they them their theirs themselves "
    "who whom whose which what whoever whomever whatever whichever"
)
_EN_PREPOSITIONS = (
    "about above across after against along amid amidst among amongst around as at before "
    "behind below beneath beside besides between beyond by despite down during except for "
    "from in inside into of off on onto out outside over per since than through throughout "
    "till to toward towards under underneath until unto up upon via with within without"
)
_EN_CONJUNCTIONS = (
    "and or but so yet because although though while whilst whereas if unless whether either that"
)
_EN_AUXILIARIES = (
    "be am is are was were been being have has had having do does did "
    "will would shall should can could may might must ought"
)
#: ``there`` as in "there is"; ``to`` (of the infinitive) is among the prepositions.
_EN_PARTICLES = "there"
#: Pronoun and auxiliary run together; the negated ones (``don't``, ``isn't``) are not here.
_EN_CONTRACTIONS = (
    "i'm i've i'll i'd you're you've you'll you'd he's he'll he'd she's she'll she'd "
    "it's it'll it'd we're we've we'll we'd they're they've they'll they'd "
    "that's that'll that'd there's there'll there'd who's who'll who'd what's what'll "
    "let's"
)


def _en() -> frozenset[str]:
    words = " ".join(
        (
            _EN_ARTICLES_DETERMINERS,
            _EN_PRONOUNS,
            _EN_PREPOSITIONS,
            _EN_CONJUNCTIONS,
            _EN_AUXILIARIES,
            _EN_PARTICLES,
        )
    ).split()
    contractions = _EN_CONTRACTIONS.split()
    # the typographic apostrophe, which NFKC leaves as it is
    words += contractions + [w.replace("'", "\u2019") for w in contractions]
    return frozenset(words)


_RU_PREPOSITIONS = (
    "в во на с со к ко по о об обо от ото до из изо у за над надо под подо при про без безо "
    "для через чрез перед передо пред предо между меж сквозь среди средь около возле кроме "
    "вместо ради из-за из-под вдоль вокруг после против"
)
_RU_CONJUNCTIONS = (
    "и а но да или либо что чтобы чтоб как если когда хотя хоть будто словно пока "
    "также тоже зато однако причем притом поэтому потому ибо"
)
_RU_PARTICLES = "бы б же ж ли ль ведь вот вон лишь даже разве неужели уж"
#: The copula (forms of ``быть``) and the particle of the conditional (``бы``, above).
_RU_COPULA = "быть есть был была было были буду будешь будет будем будете будут будь будьте"
_RU_PERSONAL = (
    "я меня мне мной мною ты тебя тебе тобой тобою "
    "он его него ему нему им ним нем она ее нее ей ней ею нею оно "
    "мы нас нам нами вы вас вам вами они их них ими ними "
    "себя себе собой собою"
)
_RU_WHO_WHAT = "кто кого кому кем ком что чего чему чем"


def _paradigm(stem: str, endings: str) -> list[str]:
    return [stem + e for e in endings.split()]


def _ru() -> frozenset[str]:
    words = " ".join(
        (_RU_PREPOSITIONS, _RU_CONJUNCTIONS, _RU_PARTICLES, _RU_COPULA, _RU_PERSONAL, _RU_WHO_WHAT)
    ).split()
    # possessives: мой твой свой (мо-й, мо-его …), наш ваш (наш, наш-его …)
    soft = "й я е и его ей ему им ем ю их ими"
    for stem in ("мо", "тво", "сво"):
        words += _paradigm(stem, soft)
    hard = "_ а е и его ей ему им ем у их ими"
    for stem in ("наш", "ваш"):
        words += [w.replace("_", "") for w in _paradigm(stem, hard)]
    # demonstratives: этот, тот; the relative который
    words += "этот эта это эти этого этой этому этим этом эту этих этими".split()
    words += "тот та то те того той тому тем том ту тех теми".split()
    words += _paradigm("котор", "ый ая ое ые ого ой ому ым ом ую ых ыми")
    return frozenset(words)


#: Every released list: name → language → words.
LISTS: dict[str, dict[str, frozenset[str]]] = {"function-1": {"en": _en(), "ru": _ru()}}
