"""The character tables of the ``fold`` filter (:mod:`neardup.analysis.evasion`), built from
maintained Unicode data at first use and kept on disk (:mod:`neardup._table_cache`):

* the confusables of Unicode's security mechanisms (UTS #39, ``confusables.txt``) as the
  package ``confusable-homoglyphs`` ships them: which characters look alike;
* the scripts, the general categories and ``Default_Ignorable_Code_Point`` of every code point,
  from the ``regex`` package's Unicode database.

:func:`classes` gives every code point a set of :data:`IGNORABLE`, script, case and fold bits,
which both the filter and the cheap scan of the fast path
(:func:`neardup._kernels.text.might_have_tricks`) read; :func:`fold_targets` maps a character
to its look-alike in each of the three scripts the filter folds into (Latin, Cyrillic, Greek).
"""

from __future__ import annotations

import json
import sys
import unicodedata
from functools import lru_cache
from importlib import resources as importlib_resources

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
from neardup._table_cache import disk_cached
from neardup.analysis.resources import package_version

#: The package holding the UTS #39 confusables data, and the one holding Unicode's properties.
CONFUSABLES_PACKAGE = "confusable-homoglyphs"
PROPERTIES_PACKAGE = "regex"

# Bits of the class table (uint16 per code point): the scan kernel's constants.
IGNORABLE = text_kernels.EV_IGNORABLE  # zero-width characters, soft hyphen, bidi, VS…
LATIN = text_kernels.EV_LATIN  # a letter of the script
CYRILLIC = text_kernels.EV_CYRILLIC
GREEK = text_kernels.EV_GREEK
OTHER_LETTER = text_kernels.EV_OTHER_LETTER  # a letter of any other script
DIGIT = text_kernels.EV_DIGIT  # a decimal digit
MARK = text_kernels.EV_MARK  # a combining mark (continues the word it follows)
STUFF = text_kernels.EV_STUFF  # a private-use or unassigned character
LOWER = text_kernels.EV_LOWER  # a lowercase letter
TO_LATIN = text_kernels.EV_TO_LATIN  # a letter (or ASCII digit) with a Latin look-alike
TO_CYRILLIC = text_kernels.EV_TO_CYRILLIC
TO_GREEK = text_kernels.EV_TO_GREEK
SPACE = text_kernels.EV_SPACE  # white space other than a line break
LINE_BREAK = text_kernels.EV_LINE_BREAK
BREAK = text_kernels.EV_BREAK  # NFKC makes it word characters and others (½ → 1⁄2)

SCRIPTS = (LATIN, CYRILLIC, GREEK)
#: The fold bit of each script: a character with it has a look-alike in that script.
FOLD_INTO = {LATIN: TO_LATIN, CYRILLIC: TO_CYRILLIC, GREEK: TO_GREEK}
LETTERS = LATIN | CYRILLIC | GREEK | OTHER_LETTER
WORD = LETTERS | DIGIT | MARK | IGNORABLE

#: The letters a character is folded into: the base block of each script (English letters, the
#: Cyrillic of U+0400–U+045F that Russian, Ukrainian and Belarusian use, modern Greek), so that a
#: Latin ``a`` becomes Russian ``а`` rather than some rarer look-alike.
_CORE = {
    LATIN: (0x41, 0x7B),
    CYRILLIC: (0x400, 0x460),
    GREEK: (0x370, 0x400),
}


#: Look-alikes UTS #39 leaves out that copies use (its ``χ`` is only a mathematical chi's):
#: joined to the groups of the data, the one place to add more.
EXTRA_LOOK_ALIKES = (("\u03c7", "x"),)


def data_version() -> str:
    """The versions of the data the tables come from (part of their cache key)."""
    return f"{package_version(CONFUSABLES_PACKAGE)}/{package_version(PROPERTIES_PACKAGE)}"


@lru_cache(maxsize=1)
def classes() -> npt.NDArray[np.uint16]:
    """The class bits of every code point (see the module's constants)."""
    return _build_classes(data_version(), sys.maxunicode + 1)


def _confusable_groups() -> dict[int, int]:
    """Each character of the confusables data with the representative of its group: the
    characters UTS #39 relates, closed under the relation (a union of the pairs), since the
    data lists ``0 → O`` and ``О → O`` but not ``0 → О``. Sequences are left out: a fold maps
    one character to one."""
    data = importlib_resources.files("confusable_homoglyphs").joinpath("confusables.json")
    pairs: dict[str, list[dict[str, str]]] = json.loads(data.read_text(encoding="utf-8"))
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, other in EXTRA_LOOK_ALIKES:
        pairs.setdefault(key, []).append({"c": other})
    for key, entries in pairs.items():
        if len(key) != 1:
            continue
        for entry in entries:
            other = entry["c"]
            if len(other) == 1:
                a, b = root(ord(key)), root(ord(other))
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {cp: root(cp) for cp in list(parent)}


def _script_of(ch: str, scripts: dict[int, object]) -> int:
    for bit, pattern in scripts.items():
        if pattern.match(ch):  # type: ignore[attr-defined]
            return bit
    return OTHER_LETTER


@lru_cache(maxsize=1)
def fold_targets() -> dict[int, dict[int, int]]:
    """For each script bit: ``{code point: its look-alike in the script's base block}``, over
    the letters of other scripts and the ASCII digits; the look-alike of the same case when
    there is one (``a`` → ``а``, ``A`` → ``А``, ``0`` → ``О``)."""
    import regex

    scripts = {
        LATIN: regex.compile(r"\p{Script=Latin}"),
        CYRILLIC: regex.compile(r"\p{Script=Cyrillic}"),
        GREEK: regex.compile(r"\p{Script=Greek}"),
    }
    groups = _confusable_groups()
    members: dict[int, list[int]] = {}
    for cp, root in groups.items():
        members.setdefault(root, []).append(cp)
    targets: dict[int, dict[int, int]] = {bit: {} for bit in SCRIPTS}
    for group in members.values():
        for script, (low, high) in _CORE.items():
            core = [
                cp
                for cp in group
                if low <= cp < high
                and unicodedata.category(chr(cp)).startswith("L")
                and _script_of(chr(cp), scripts) == script
            ]
            if not core:
                continue
            for cp in group:
                ch = chr(cp)
                is_letter = unicodedata.category(ch).startswith("L")
                if not (is_letter or 0x30 <= cp <= 0x39):
                    continue
                if is_letter and _script_of(ch, scripts) == script:
                    continue
                same_case = [t for t in core if chr(t).islower() == ch.islower()]
                targets[script][cp] = min(same_case or core)
    return targets


@disk_cached("evasion_classes", text_kernels)
def _build_classes(version: str, limit: int) -> npt.NDArray[np.uint16]:
    """The table of :func:`classes` (``version``: :func:`data_version`, so that new data
    rebuilds it)."""
    import regex

    table = np.zeros(limit, dtype=np.uint16)
    everything = "".join(chr(cp) if not 0xD800 <= cp < 0xE000 else "\x00" for cp in range(limit))
    for pattern, bit in (
        (r"\p{Default_Ignorable_Code_Point}+", IGNORABLE),
        (r"[\p{L}&&\p{Script=Latin}]+", LATIN),
        (r"[\p{L}&&\p{Script=Cyrillic}]+", CYRILLIC),
        (r"[\p{L}&&\p{Script=Greek}]+", GREEK),
        (r"[\p{L}--[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]]+", OTHER_LETTER),
        (r"\p{Nd}+", DIGIT),
        (r"\p{M}+", MARK),
        # private use and unassigned: nothing or an empty box in a reader's font (a symbol
        # is visible, and people put ═, ♦ or an emoji between words without spaces)
        (r"[\p{Co}\p{Cn}]+", STUFF),
        (r"\p{Ll}+", LOWER),
        (r"[\p{Zs}\t]+", SPACE),
        (r"[\n\r\v\f\x85\u2028\u2029]+", LINE_BREAK),
    ):
        for match in regex.finditer(pattern, everything, flags=regex.V1):
            table[match.start() : match.end()] |= bit
    table[0xD800:0xE000] = 0
    # an ignorable character is only that (variation selectors are marks too)
    table[(table & IGNORABLE) != 0] = IGNORABLE
    for script, targets in fold_targets().items():
        codes = np.fromiter(targets, dtype=np.int64, count=len(targets))
        table[codes[codes < limit]] |= FOLD_INTO[script]
    # A character NFKC changes gets the classes of what it becomes: the filter runs after
    # ``nfkc``, the fast path's scan before it (𝐚, ａ and ﬁ are Latin letters to both).
    own = table.copy()
    for cp in range(limit):
        if 0xD800 <= cp < 0xE000 or own[cp] & IGNORABLE:
            continue
        ch = chr(cp)
        if unicodedata.is_normalized("NFKC", ch):
            continue
        bits = 0
        becomes = unicodedata.normalize("NFKC", ch)
        in_word = [bool(own[ord(x)] & WORD) for x in becomes]
        for x in becomes:
            bits |= int(own[ord(x)])
        if any(in_word) and not all(in_word):
            bits |= BREAK  # ½ → 1⁄2: the scan cannot see the words the filter sees
        table[cp] = bits
    return table
