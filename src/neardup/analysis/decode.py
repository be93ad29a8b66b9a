"""Bytes to text: encoding detection, with byte offsets back into the input.

``decode(data)`` turns raw bytes into a ``str`` and says which codec it used. The order of
decisions, cheapest and most certain first:

1. An explicit ``encoding`` is obeyed literally (an unknown codec name is an ``InputError``;
   bytes it cannot decode are a ``DecodeError``). ``"utf-16"``/``"utf-32"`` are resolved to
   the byte order actually used, so that the reported codec can decode any slice of the data.
2. A byte order mark wins: UTF-32 LE/BE (checked before UTF-16, whose LE mark is a prefix of
   UTF-32 LE's), UTF-8 (reported as ``"utf-8-sig"``), UTF-16 LE/BE. The mark is not part of
   ``text``; ``bom_length`` says how many bytes it took. UTF-16/32 are reported with their
   explicit byte order (``"utf-16-le"``...), so slices after the mark decode with that name.
3. Strict UTF-8. Most text today is UTF-8, and legacy 8-bit text with non-ASCII letters is
   practically never valid UTF-8 by accident, so a successful strict decode is trusted
   (unless it is full of control characters, see below).
4. BOM-less UTF-16/32, tried only when at least an eighth of the bytes are 0x00-0x08 (the
   high bytes of UTF-16 Latin, Cyrillic, Greek... text; 8-bit text has none): the byte order
   whose decoding is printable and concentrated in few Unicode blocks wins.
4a. UTF-8 with a few damaged bytes. When the valid multi-byte UTF-8 characters outnumber the
   invalid sequences at least ``UTF8_MAJORITY`` to one, the data is UTF-8 with damage, not a
   legacy code page (cp1251 or koi8-r Russian read as UTF-8 is invalid at nearly every
   letter, so its ratio is far below one). The replacement policy: each invalid sequence
   becomes U+FFFD (Python's ``errors="replace"``, one U+FFFD per maximal invalid subpart),
   and ``Decoded.replaced`` counts them; ``decode(..., strict=True)`` refuses such data with
   a ``DecodeError`` that says where the first invalid byte is.
5. Russian 8-bit code pages. ``charset-normalizer`` alone confuses cp1251, koi8-r, cp866 and
   mac-cyrillic on short texts (a sentence in koi8-r is often reported as Shift-JIS), so
   every Cyrillic single-byte codec (cp1251, koi8-r, cp866, mac-cyrillic, iso8859-5,
   koi8-u) that decodes the data is scored first. The score is a log-likelihood-like sum per
   non-ASCII byte, computed with numpy from 256-entry tables per codec (first 64 KiB only):

   * the log-frequency of the Russian letter each non-ASCII byte becomes (a wrong Cyrillic
     codec permutes the alphabet, so common letters turn into rare ones); symbols, box
     drawing and control characters cost much more, typographic punctuation (« » — … №)
     a little more than a letter;
   * a bonus for each frequent Russian letter bigram;
   * case: a small cost per capitalised word not starting a sentence (koi8-r read as
     cp1251 and vice versa swaps case, so Russian prose turns mostly capital), a cost for a
     lowercase letter starting a sentence, a large cost for a lowercase letter followed by
     an uppercase one ("пРИВЕТ");
   * a cost for a symbol glued to a letter ("–ены", "€блоко", "З„обро": capitals of
     mac-cyrillic read as cp1251 and vice versa).

   If the best codec makes the non-ASCII bytes read like Russian prose (at least 90% of
   them Russian/Ukrainian letters or typographic punctuation, not inside Latin words, with a
   Russian-like letter distribution and sane case), it is used without asking anyone else.
   Earlier codecs in the list above win ties. Limitation: a single ALL-CAPS word may be misjudged.
6. Otherwise ``charset-normalizer`` decides. If its answer is a Cyrillic codec, the best
   score above picks among the Cyrillic codecs instead.

Detected (not explicit) results that contain many control characters (NUL and friends) are
rejected as binary with a ``DecodeError``.

``Decoded.byte_offsets()`` gives, for each character index, the byte offset in the input,
computed from code points with numpy: UTF-8 1-4 bytes a character, UTF-16 2 or 4, UTF-32 4,
single-byte codecs 1, other stateless codecs by encoding each distinct character once, and
stateful ones (ISO-2022, UTF-7, HZ) with an incremental encoder.
"""

from __future__ import annotations

import codecs
import functools
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from neardup.errors import DecodeError, InputError

IntArray = npt.NDArray[np.int64]

__all__ = ["Decoded", "decode", "read_text"]


@dataclass(frozen=True, slots=True)
class Decoded:
    """Decoded text, the Python codec that produced it, and the length of a skipped BOM."""

    text: str
    encoding: str
    bom_length: int = 0
    #: Invalid UTF-8 sequences replaced by U+FFFD (step 4a of the module docstring).
    replaced: int = 0

    def byte_offsets(self) -> IntArray:
        """Byte offset in the original data of each character index, ``len(text) + 1`` long.

        A character span ``[a, b)`` came from bytes ``[off[a], off[b])``; ``off[0]`` is
        ``bom_length``. With ``replaced`` sequences each U+FFFD counts the three bytes of its
        own UTF-8 form, so offsets after a replacement are shifted by the difference.
        """
        lengths = _char_byte_lengths(self.text, self.encoding)
        out = np.empty(len(self.text) + 1, dtype=np.int64)
        out[0] = self.bom_length
        np.cumsum(lengths, out=out[1:])
        out[1:] += self.bom_length
        return out


# --------------------------------------------------------------------------- byte lengths

_STATEFUL_PREFIXES = ("iso2022", "utf-7", "hz")


def _code_points(text: str) -> npt.NDArray[np.uint32]:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


@functools.lru_cache(maxsize=64)
def _is_single_byte(encoding: str) -> bool:
    """Every byte is either undefined or one whole character (no multi-byte sequences)."""
    for b in range(256):
        dec = codecs.getincrementaldecoder(encoding)()
        try:
            out = dec.decode(bytes([b]), final=False)
        except UnicodeDecodeError:
            continue
        if len(out) != 1:
            return False
    return True


def _char_byte_lengths(text: str, encoding: str) -> IntArray:
    """Number of bytes each character of ``text`` takes in ``encoding``."""
    n = len(text)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if encoding in ("utf-8", "utf-8-sig"):
        cp = _code_points(text)
        return (
            1
            + (cp >= 0x80).astype(np.int64)
            + (cp >= 0x800).astype(np.int64)
            + (cp >= 0x10000).astype(np.int64)
        )
    if encoding.startswith("utf-16"):
        return 2 + 2 * (_code_points(text) >= 0x10000).astype(np.int64)
    if encoding.startswith("utf-32"):
        return np.full(n, 4, dtype=np.int64)
    if encoding.startswith(_STATEFUL_PREFIXES):
        enc = codecs.getincrementalencoder(encoding)()
        lengths = np.fromiter((len(enc.encode(ch)) for ch in text), dtype=np.int64, count=n)
        lengths[-1] += len(enc.encode("", final=True))
        return lengths
    if _is_single_byte(encoding):
        return np.ones(n, dtype=np.int64)
    # Other stateless codecs (Shift-JIS, GBK, Big5...): encode each distinct character once
    # and look the lengths up.
    cp = _code_points(text)
    uniq, inverse = np.unique(cp, return_inverse=True)
    table = np.empty(uniq.shape[0], dtype=np.int64)
    for k, code in enumerate(uniq.tolist()):
        try:
            table[k] = len(chr(code).encode(encoding))
        except (UnicodeEncodeError, ValueError):
            table[k] = 1
    return table[inverse.reshape(-1)]


# --------------------------------------------------------------------------- codec names


def _normalize(encoding: str) -> str:
    """Python's canonical name for a codec; ``InputError`` if there is no such codec."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown text encoding {encoding!r}") from None
    if not getattr(info, "_is_text_encoding", True):  # bytes-to-bytes, e.g. "base64"
        raise InputError(f"{encoding!r} is not a text encoding")
    return info.name


# --------------------------------------------------------------------------- BOMs

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _try_bom(data: bytes) -> Decoded | None:
    for bom, codec in _BOMS:
        if not data.startswith(bom):
            continue
        body = data[len(bom) :]
        try:
            text = body.decode(codec)
        except UnicodeDecodeError:
            continue  # e.g. FF FE 00 00 that is really UTF-16 LE text starting with NUL
        name = "utf-8-sig" if codec == "utf-8" else codec
        return Decoded(text, name, len(bom))
    return None


def _decode_explicit(data: bytes, encoding: str) -> Decoded:
    name = _normalize(encoding)
    bom_length = 0
    body = data
    codec = name
    if name == "utf-8-sig":
        bom_length = 3 if data.startswith(codecs.BOM_UTF8) else 0
        body, codec = data[bom_length:], "utf-8"
    elif name in ("utf-16", "utf-32"):
        width = 2 if name == "utf-16" else 4
        le = codecs.BOM_UTF16_LE if width == 2 else codecs.BOM_UTF32_LE
        be = codecs.BOM_UTF16_BE if width == 2 else codecs.BOM_UTF32_BE
        if data.startswith(le):
            order, bom_length = "le", width
        elif data.startswith(be):
            order, bom_length = "be", width
        else:  # Python assumes the machine's byte order when there is no mark
            order = "le" if sys.byteorder == "little" else "be"
        codec = name = f"{name}-{order}"
        body = data[bom_length:]
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"the data is not valid {name}: byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start + bom_length} cannot be decoded ({exc.reason})"
        ) from None
    except Exception as exc:  # some codecs raise other errors on bad input
        raise DecodeError(f"the data cannot be decoded as {name}: {exc}") from None
    return Decoded(text, name, bom_length)


# --------------------------------------------------------------------------- binary check

_WS_CONTROLS = frozenset(b"\t\n\r\x0b\x0c")
_CONTROL_CODES = np.array(
    [c for c in range(0x20) if c not in _WS_CONTROLS] + [0x7F], dtype=np.uint32
)


#: Characters whose code points one scan holds at a time (4 bytes each, and a few masks).
_SCAN_CHARS = 1 << 20


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    bad = 0
    for lo in range(0, len(text), _SCAN_CHARS):  # a slice at a time: memory stays flat
        cp = _code_points(text[lo : lo + _SCAN_CHARS])
        bad += int(np.isin(cp, _CONTROL_CODES).sum()) + int(((cp >= 0x80) & (cp < 0xA0)).sum())
    return float(bad) / len(text)


def _looks_binary(text: str) -> bool:
    """Text with control characters in more than 1% of its characters (or a NUL and few
    characters) is taken for binary data."""
    share = _control_share(text)
    return share > 0.01 or ("\x00" in text and len(text) < 100)


# --------------------------------------------------------------------------- UTF-16/32 sans BOM


def _wide_quality(text: str) -> float:
    """How text-like a UTF-16/32 decoding is: the share of characters that are not
    control/private/unassigned-looking, times the share that falls in the two most used
    128-code-point blocks (a wrong byte order scatters characters all over Unicode)."""
    if not text:
        return 0.0
    cp = _code_points(text).astype(np.int64)
    bad = (
        np.isin(cp, _CONTROL_CODES)
        | ((cp >= 0x80) & (cp < 0xA0))
        | ((cp >= 0xD800) & (cp < 0xF900))  # surrogates and private use
        | ((cp & 0xFFFE) == 0xFFFE)
        | (cp >= 0xF0000)
    )
    counts = np.bincount(cp >> 7)
    top2 = np.sort(counts)[-2:].sum()
    return float(1.0 - bad.mean()) * float(top2) / cp.shape[0]


def _try_wide_without_bom(data: bytes) -> Decoded | None:
    """UTF-16/32 without a byte order mark.

    Only tried when at least an eighth of the bytes are 0x00-0x08: the high bytes of
    UTF-16 Latin, Greek, Cyrillic, Hebrew or Arabic text, which 8-bit text never has.
    """
    n = len(data)
    if n < 4 or n % 2:
        return None
    low = int(np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256)[:9].sum())
    if low < max(2, n // 8):
        return None
    best: tuple[float, str, str] | None = None
    for codec in ("utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be"):
        if n % (4 if codec.startswith("utf-32") else 2):
            continue
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        q = _wide_quality(text)
        if q >= 0.9 and (best is None or q > best[0]):
            best = (q, codec, text)
    if best is None:
        return None
    return Decoded(best[2], best[1], 0)


# --------------------------------------------------------------------------- Cyrillic scoring

# Relative frequencies (per cent) of Russian letters in ordinary prose ("ё" as in texts
# that spell it; many write "е" instead).
_RU_FREQ: dict[str, float] = {
    "о": 10.97, "е": 8.45, "а": 8.01, "и": 7.35, "н": 6.70, "т": 6.26, "с": 5.47,
    "р": 4.73, "в": 4.54, "л": 4.40, "к": 3.49, "м": 3.21, "д": 2.98, "п": 2.81,
    "у": 2.62, "я": 2.01, "ы": 1.90, "ь": 1.74, "г": 1.70, "з": 1.65, "б": 1.59,
    "ч": 1.44, "й": 1.21, "х": 0.97, "ж": 0.94, "ш": 0.73, "ю": 0.64, "ц": 0.48,
    "щ": 0.36, "э": 0.32, "ф": 0.26, "ъ": 0.04, "ё": 0.30,
}  # fmt: skip

# Frequent Russian letter pairs (inside words).
_RU_BIGRAMS = frozenset(
    "ст но то на ен ов ни ра во ко ро ал ре ер пр ли по ос ть ан не го ор от ка ел ет ла "
    "ло те ог ны ол ва де ле ит ес ве ри ск ми он ом ой ый ий ая ие ое ем ым их ых ся ат "
    "из за да ил ин ак ам ас мо об од ок ру та ти ту чт че бы ль ма ме мы сл тр ук ую ча "
    "ше щи ют яз ия же св вы ки ди ви зн им ег ед ек ез ты бо па ар ку су ду ис уд пе ик ир "
    "кр нн эт ят ще ри ль бе ге ди дн до зд иц ич ле мн нт оз ощ ру сп тв ул ум ус чн".split()
)

_PUNCT_OK = frozenset("«»—–…№„“”‘’\u00a0")
# Ukrainian and Belarusian letters: absent from Russian, so scored as rare letters (a
# Ukrainian text still prefers the codec that has them over one giving box drawing).
_UK_BE_LETTERS = frozenset("іїєґў")

_CYRILLIC_CODECS = ("cp1251", "koi8-r", "cp866", "mac-cyrillic", "iso8859-5", "koi8-u")
_CYRILLIC_FAMILY = frozenset(
    {"cp1251", "koi8-r", "koi8-u", "koi8-t", "cp866", "mac-cyrillic", "iso8859-5", "cp855",
     "cp1125", "ptcp154", "kz1048", "mac-ukraine"}
)  # fmt: skip

_LOGP_UK_BE = math.log(0.001)
_LOGP_OTHER_CYRILLIC = math.log(0.0002)
_LOGP_OTHER_LETTER = math.log(0.0003)
_LOGP_PUNCT = -4.5
_LOGP_SYMBOL = -9.0
_LOGP_CONTROL = -12.0
# Case and context terms, in the same log-probability-like units (per event).
_COST_UPPER = -1.0  # a capitalised word that does not start a sentence (once per word)
_COST_LOWER_START = -1.0  # a lowercase letter starting the text or a sentence
_COST_FLIP = -5.0  # a lowercase letter followed by an uppercase one: "пРИВЕТ"
_COST_GLUED = -2.0  # a symbol glued to a letter: "–ены", "€блоко", "З„обро", "ьИ»"
_GAIN_BIGRAM = 1.5  # a frequent Russian bigram
_OPEN_QUOTES = frozenset("«„")
_CLOSE_QUOTES = frozenset("»“”")
_QUOTES = _OPEN_QUOTES | _CLOSE_QUOTES | frozenset("‘’")


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


@dataclass(frozen=True, slots=True)
class _CodecTables:
    valid: npt.NDArray[np.bool_]  # byte decodes to something
    value: npt.NDArray[np.float64]  # per-byte log-probability-like value (ASCII: 0)
    russian: npt.NDArray[np.bool_]  # byte is a Russian letter
    cyrillic: npt.NDArray[np.bool_]  # byte is a Russian, Ukrainian or Belarusian letter
    lower: npt.NDArray[np.bool_]  # byte is a lowercase letter
    upper: npt.NDArray[np.bool_]  # byte is an uppercase letter
    ascii_letter: npt.NDArray[np.bool_]  # byte is a-z or A-Z
    symbol: npt.NDArray[np.bool_]  # non-ASCII byte that is neither a letter nor a quote
    punct: npt.NDArray[np.bool_]  # typographic punctuation common in Russian text
    open_quote: npt.NDArray[np.bool_]  # « „: not after a letter
    close_quote: npt.NDArray[np.bool_]  # » “ ”: not before a letter
    bigram: npt.NDArray[np.bool_]  # 256x256 flattened: frequent Russian bigram


_TABLES: dict[str, _CodecTables] = {}


def _bigram_table(russian: npt.NDArray[np.bool_], chars: list[str]) -> npt.NDArray[np.bool_]:
    """``[b1 * 256 + b2]``: the two bytes decode to a frequent Russian letter bigram."""
    bigram = np.zeros(256 * 256, dtype=bool)
    ru_bytes = np.flatnonzero(russian).tolist()
    for b1 in ru_bytes:
        for b2 in ru_bytes:
            if (chars[b1] + chars[b2]).lower() in _RU_BIGRAMS:
                bigram[b1 * 256 + b2] = True
    return bigram


def _tables(codec: str) -> _CodecTables:
    t = _TABLES.get(codec)
    if t is not None:
        return t
    valid = np.ones(256, dtype=bool)
    value = np.zeros(256, dtype=np.float64)
    russian = np.zeros(256, dtype=bool)
    cyrillic = np.zeros(256, dtype=bool)
    lower = np.zeros(256, dtype=bool)
    upper = np.zeros(256, dtype=bool)
    ascii_letter = np.zeros(256, dtype=bool)
    symbol = np.zeros(256, dtype=bool)
    punct = np.zeros(256, dtype=bool)
    open_quote = np.zeros(256, dtype=bool)
    close_quote = np.zeros(256, dtype=bool)
    chars: list[str] = []
    for b in range(256):
        try:
            ch = bytes([b]).decode(codec)
        except UnicodeDecodeError:
            valid[b] = False
            chars.append("")
            continue
        chars.append(ch)
        lower[b] = ch.islower()
        upper[b] = ch.isupper()
        if b < 0x80:
            ascii_letter[b] = ch.isalpha()
            continue
        low = ch.lower()
        if low in _RU_FREQ:
            russian[b] = cyrillic[b] = True
            value[b] = math.log(_RU_FREQ[low] / 100.0)
        elif low in _UK_BE_LETTERS:
            cyrillic[b] = True
            value[b] = _LOGP_UK_BE
        elif ch.isalpha():
            value[b] = _LOGP_OTHER_CYRILLIC if _is_cyrillic(ch) else _LOGP_OTHER_LETTER
        elif ch in _PUNCT_OK:
            value[b] = _LOGP_PUNCT
            punct[b] = True
            symbol[b] = ch not in _QUOTES
            open_quote[b] = ch in _OPEN_QUOTES
            close_quote[b] = ch in _CLOSE_QUOTES
        elif ord(ch) < 0xA0:
            value[b] = _LOGP_CONTROL
            symbol[b] = True
        else:
            value[b] = _LOGP_SYMBOL
            symbol[b] = True
    bigram = _bigram_table(russian, chars)
    t = _CodecTables(
        valid,
        value,
        russian,
        cyrillic,
        lower,
        upper,
        ascii_letter,
        symbol,
        punct,
        open_quote,
        close_quote,
        bigram,
    )
    _TABLES[codec] = t
    return t


@dataclass(frozen=True, slots=True)
class _CyrScore:
    codec: str
    score: float  # higher is more Russian-like: log-likelihood-like, per non-ASCII byte
    mean_logp: float  # mean per-byte letter value over non-ASCII bytes
    cyrillic_share: float  # share of non-ASCII bytes that are Cyrillic letters or « — …
    lower_share: float  # share of those letters that are lowercase
    bigram_share: float  # share of letter pairs that are frequent Russian bigrams
    n_pairs: int  # Russian letter pairs seen
    n_distinct_pairs: int  # distinct Russian letter pairs seen
    flip_rate: float  # lowercase-then-uppercase pairs per letter
    mixed_rate: float  # letter pairs mixing ASCII and non-ASCII letters, per non-ASCII byte
    glued_rate: float  # symbols glued to letters, per non-ASCII byte


_SAMPLE_BYTES = 1 << 16
_SENTENCE_END = np.zeros(256, dtype=bool)
_SENTENCE_END[list(b".!?")] = True
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\r\n\f\v")] = True


def _score_cyrillic(
    data: bytes, codec: str, full_hist: npt.NDArray[np.int64] | None = None
) -> _CyrScore | None:
    """Score how much ``data`` decoded with ``codec`` looks like Russian text.

    Vectorised over the bytes (at most the first 64 KiB are scored) with 256-entry tables;
    ``None`` if the codec cannot decode the data or there are no non-ASCII bytes.
    """
    t = _tables(codec)
    arr = np.frombuffer(data, dtype=np.uint8)
    if full_hist is None:
        full_hist = np.bincount(arr, minlength=256)
    if (full_hist[~t.valid] > 0).any():
        return None
    x = arr[:_SAMPLE_BYTES].astype(np.int64)
    hist = np.bincount(x, minlength=256)
    n_hi = int(hist[0x80:].sum())
    if n_hi == 0:
        return None
    letter_sum = float((hist * t.value).sum())
    n_cyr = int(hist[t.cyrillic].sum())
    n_cyr_lower = int(hist[t.cyrillic & t.lower].sum())
    # Sentence starts: the first byte, or a byte after ".!?" and whitespace, or a newline.
    prev = np.concatenate(([ord(".")], x[:-1]))
    prev2 = np.concatenate(([ord(".")], [ord(".")], x[:-2]))[: x.shape[0]]
    start = (prev == ord("\n")) | (_SPACE[prev] & _SENTENCE_END[prev2])
    start[0] = True
    cyr = t.cyrillic[x]
    upper = t.upper[x]
    prev_upper = np.concatenate(([False], upper[:-1]))
    n_upper_mid = int((cyr & upper & ~prev_upper & ~start).sum())
    n_lower_start = int((cyr & t.lower[x] & start).sum())
    a, b = x[:-1], x[1:]
    ru_pairs = t.russian[a] & t.russian[b]
    n_pairs = int(ru_pairs.sum())
    n_distinct_pairs = int(np.unique((a * 256 + b)[ru_pairs]).shape[0])
    n_bigrams = int(t.bigram[a * 256 + b].sum())
    n_flips = int((t.lower[a] & t.upper[b] & (t.cyrillic[a] | t.cyrillic[b])).sum())
    letter_a = t.lower[a] | t.upper[a]
    letter_b = t.lower[b] | t.upper[b]
    n_glued = int(
        (
            (t.symbol[a] & t.cyrillic[b])
            | (t.cyrillic[a] & t.symbol[b])
            | (letter_a & t.open_quote[b])
            | (t.close_quote[a] & letter_b)
        ).sum()
    )
    letter_hi_a = (a >= 0x80) & letter_a
    letter_hi_b = (b >= 0x80) & letter_b
    n_mixed = int(((t.ascii_letter[a] & letter_hi_b) | (letter_hi_a & t.ascii_letter[b])).sum())
    total = (
        letter_sum
        + _COST_UPPER * n_upper_mid
        + _COST_LOWER_START * n_lower_start
        + _COST_FLIP * n_flips
        + _COST_GLUED * n_glued
        + _GAIN_BIGRAM * n_bigrams
    )
    return _CyrScore(
        codec=codec,
        score=total / n_hi,
        mean_logp=letter_sum / n_hi,
        cyrillic_share=(n_cyr + int(hist[t.punct].sum())) / n_hi,
        lower_share=n_cyr_lower / n_cyr if n_cyr else 0.0,
        bigram_share=n_bigrams / n_pairs if n_pairs else 0.0,
        n_pairs=n_pairs,
        n_distinct_pairs=n_distinct_pairs,
        flip_rate=n_flips / n_cyr if n_cyr else 0.0,
        mixed_rate=n_mixed / n_hi,
        glued_rate=n_glued / n_hi,
    )


def _cyrillic_candidates(data: bytes) -> list[_CyrScore]:
    """Scores of the Cyrillic codecs that decode ``data``, best first (earlier codecs in
    ``_CYRILLIC_CODECS`` win ties: cp1251 is the most common)."""
    hist = np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256)
    scored = [s for c in _CYRILLIC_CODECS if (s := _score_cyrillic(data, c, hist)) is not None]
    order = sorted(range(len(scored)), key=lambda k: (-scored[k].score, k))
    return [scored[k] for k in order]


def _looks_russian(s: _CyrScore) -> bool:
    """The best Cyrillic decoding reads like Russian (or Ukrainian) prose.

    Nearly all non-ASCII bytes are letters of whole Cyrillic words (accented Latin letters
    decoded as Cyrillic sit inside Latin words), the letters are distributed like Russian,
    and the case pattern is sane: mostly lowercase, or all capitals with Russian bigrams.
    Given enough distinct letter pairs, 30% of them must be frequent Russian bigrams (over half
    are in Russian; a wrong alphabet, e.g. Hebrew cp1255 read as cp1251, gives a few in 100).
    """
    return (
        s.cyrillic_share >= 0.9
        and s.mixed_rate <= 0.1
        and s.glued_rate <= 0.05
        and (s.n_distinct_pairs < 15 or s.bigram_share >= 0.3)
        and s.mean_logp >= -4.3
        and (
            (s.lower_share >= 0.5 and s.flip_rate <= 0.05)
            or (s.flip_rate <= 0.01 and s.bigram_share >= 0.35)
        )
    )


# --------------------------------------------------------------------------- detection


def _detect(data: bytes) -> Decoded:
    candidates = _cyrillic_candidates(data)
    # The best decoding among those that read like Russian; a wrong codec that scores
    # higher but turns the text into, say, capitals in odd places does not count.
    for cand in candidates:
        if _looks_russian(cand):
            text = data.decode(cand.codec)
            if not _looks_binary(text):
                return Decoded(text, cand.codec, 0)
            break
    cyr = candidates[0] if candidates else None

    import charset_normalizer

    match = charset_normalizer.from_bytes(data).best()
    if match is None:
        raise DecodeError(
            "the data could not be decoded as text: it is not UTF-8 and no known encoding "
            "fits it (is it a binary file?)"
        )
    name = _normalize(match.encoding)
    if name in _CYRILLIC_FAMILY and cyr is not None:
        name = cyr.codec  # our tie-breaker knows Russian code pages better
    try:
        text = data.decode(name)
    except (UnicodeDecodeError, LookupError):
        raise DecodeError(
            f"the data could not be decoded as text: the likeliest encoding, {name}, "
            "does not fit all of it (is it a binary file?)"
        ) from None
    if _looks_binary(text):
        raise DecodeError(
            f"the data looks binary: decoded as {name} it is full of control characters"
        )
    return Decoded(text, name, 0)


#: Valid multi-byte UTF-8 characters needed per invalid sequence to read data as damaged UTF-8.
UTF8_MAJORITY = 2


def _damaged_utf8(data: bytes, strict: bool) -> Decoded | None:
    """Step 4a: mostly valid UTF-8 with a few invalid sequences, replaced (or refused)."""
    text = data.decode("utf-8", "replace")
    # a U+FFFD already in the data (its valid bytes EF BF BD) is not a replacement
    replaced = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    valid_multibyte = len(text) - text.count("\ufffd") - _ascii_count(data)
    if replaced <= 0 or valid_multibyte < UTF8_MAJORITY * replaced or _looks_binary(text):
        return None
    if strict:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"not valid UTF-8: {replaced} invalid byte sequence(s), the first at byte "
                f"{exc.start} ({exc.reason}); strict decoding refuses them, the default "
                "replaces each by U+FFFD"
            ) from None
    return Decoded(text, "utf-8", 0, replaced)


def _ascii_count(data: bytes) -> int:
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) < 0x80))


def decode(data: bytes, encoding: str | None = None, *, strict: bool = False) -> Decoded:
    """Decode ``data`` to text, detecting the encoding unless ``encoding`` is given.

    Raises ``InputError`` for an unknown ``encoding`` and ``DecodeError`` for bytes that
    cannot be decoded (or that look like binary data rather than text). Mostly valid UTF-8
    with a few invalid sequences gets U+FFFD for each (counted in ``Decoded.replaced``)
    unless ``strict``, which refuses it.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"decode() needs bytes, not {type(data).__name__}")
    data = bytes(data)
    if encoding is not None:
        return _decode_explicit(data, encoding)
    if not data:
        return Decoded("", "utf-8", 0)
    bom = _try_bom(data)
    if bom is not None:
        return bom
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if not _looks_binary(text):
            return Decoded(text, "utf-8", 0)
        wide = _try_wide_without_bom(data)
        if wide is not None:
            return wide
        raise DecodeError(
            "the data looks binary: it is full of control characters such as NUL bytes"
        )
    wide = _try_wide_without_bom(data)
    if wide is not None:
        return wide
    damaged = _damaged_utf8(data, strict)
    if damaged is not None:
        return damaged
    return _detect(data)


def read_text(
    path: str | os.PathLike[str], encoding: str | None = None, *, strict: bool = False
) -> Decoded:
    """Read and decode a file; ``InputError`` names the path if it cannot be read."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such file: {str(p)!r}") from None
    except IsADirectoryError:
        raise InputError(f"{str(p)!r} is a directory, not a file") from None
    except PermissionError:
        if p.is_dir():  # Windows reports a directory this way
            raise InputError(f"{str(p)!r} is a directory, not a file") from None
        raise InputError(f"permission denied reading {str(p)!r}") from None
    except OSError as exc:
        if p.is_dir():
            raise InputError(f"{str(p)!r} is a directory, not a file") from None
        raise InputError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    try:
        return decode(data, encoding, strict=strict)
    except DecodeError as exc:
        raise DecodeError(f"{str(p)!r}: {exc}") from None
