"""What the API and the page do, over one open collection.

One :class:`Service` per process holds the collection and a lock: storage work (candidates,
verification, writes, reading stored texts) runs one request at a time per process, while the
costly analysis of texts and the alignment of passages run outside the lock, in parallel.
Several processes (``neardup serve --workers N``) share a PostgreSQL collection.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from neardup import inputs
from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import DEFAULTS
from neardup.errors import (
    ConfigurationError,
    DamagedCheckError,
    InputError,
    NotFoundError,
    StorageError,
    TooLargeError,
    UnsupportedTypeError,
)
from neardup.index import CheckResult, Collection
from neardup.passages.align import Aligner, Alignment
from neardup.report.check_record import check_record, record_damage, source_info
from neardup.score.comparison import Comparison
from neardup.score.comparison import compare as compare_texts
from neardup.score.matrix import METHODS, SimilarityMatrix, similarity_matrix
from neardup.spec import INDEX_POLICIES
from neardup.storage.checks import CheckStore, KeptCheck, KeptSummary, check_store, new_check_id
from neardup.web.limits import RateLimit
from neardup.web.texts import refuse_bad_characters, refuse_bidi

if TYPE_CHECKING:
    from neardup.index.checking import LookedUp

DAY = 86400.0
_log = logging.getLogger("neardup.web")

#: Files the service takes: every one-text format of the reader's suffix table.
UPLOAD_SUFFIXES = tuple(s for s, f in inputs.SUFFIXES.items() if not f.records)
#: Uploads decode like files; invalid UTF-8 sequences are replaced without a warning to log.
_UPLOAD_READING = inputs.ReadOptions(on_warning=lambda _: None)

MiB = 1 << 20


@dataclass(frozen=True)
class ServiceConfig:
    """How ``neardup serve`` was started.

    ``token``: the token writes need (None: writes are refused). ``reads``: ``open`` (anyone
    may read) or ``token`` (reads need it too). ``max_body``: bytes of a request body;
    ``max_text``: characters of one text (given or extracted); ``max_matrix``: texts in one
    matrix; ``top``: sources listed, with their passages (the figure counts every source
    found); ``keep_checks_days``: days a check is kept
    under its own id and page (0: none is kept); ``keep_checks_max``/``keep_checks_bytes``:
    the most kept checks and bytes in all, ``owner_checks_max``/``owner_checks_bytes``: of one
    browser (the oldest are removed first to make room); ``check_rate``: checks a client
    without the token may make a minute (0: no limit). ``public_url``: the address readers reach
    the service at (``https://checks.example.org``), for the links printed in reports (never
    the request's ``Host`` header) and as an origin writes may come from. ``secret``: the key
    the page's form tokens are signed with (random per start unless given, shared by the
    worker processes through their environment).
    """

    db: str
    token: str | None = None
    reads: str = "open"
    max_body: int = 20 * MiB
    max_text: int = 1_000_000
    max_matrix: int = 20
    top: int = DEFAULTS.top
    keep_checks_days: int = 30
    keep_checks_max: int = 10_000
    keep_checks_bytes: int = 1024 * MiB
    owner_checks_max: int = 200
    owner_checks_bytes: int = 100 * MiB
    check_rate: int = 30
    public_url: str | None = None
    secret: str = dataclasses.field(
        default_factory=lambda: secrets.token_urlsafe(32), repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.reads not in ("open", "token"):
            raise ConfigurationError(f"reads must be 'open' or 'token', got {self.reads!r}")
        if self.reads == "token" and not self.token:
            raise ConfigurationError("reads need a token, but no token was given (--token)")
        for name in ("max_body", "max_text", "max_matrix", "top"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1")
        if self.keep_checks_days < 0:
            raise ConfigurationError("keep_checks_days must be 0 (keep none) or more")
        for name in ("keep_checks_max", "keep_checks_bytes", "owner_checks_max"):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be at least 1")
        if self.owner_checks_bytes < 1 or self.check_rate < 0:
            raise ConfigurationError("owner_checks_bytes must be at least 1, check_rate 0 or more")
        if self.public_url is not None:
            object.__setattr__(self, "public_url", public_base(self.public_url))
        if len(self.secret) < 16:
            raise ConfigurationError("the service's secret must have at least 16 characters")

    def to_env(self) -> dict[str, str]:
        """The settings as environment variables, for worker processes."""
        out = {f"NEARDUP_SERVE_{k.upper()}": str(v) for k, v in dataclasses.asdict(self).items()}
        out.pop("NEARDUP_SERVE_TOKEN")
        if self.public_url is None:
            out.pop("NEARDUP_SERVE_PUBLIC_URL")
        if self.token:
            out["NEARDUP_TOKEN"] = self.token
        return out

    @classmethod
    def from_env(cls, env: Any = None) -> ServiceConfig:
        env = os.environ if env is None else env
        if "NEARDUP_SERVE_DB" not in env:
            raise ConfigurationError("NEARDUP_SERVE_DB is not set: start with `neardup serve DB`")
        ints: dict[str, Any] = {
            name: int(env[f"NEARDUP_SERVE_{name.upper()}"])
            for name in (
                "max_body",
                "max_text",
                "max_matrix",
                "top",
                "keep_checks_days",
                "keep_checks_max",
                "keep_checks_bytes",
                "owner_checks_max",
                "owner_checks_bytes",
                "check_rate",
            )
            if f"NEARDUP_SERVE_{name.upper()}" in env
        }
        config = cls(
            db=env["NEARDUP_SERVE_DB"],
            token=env.get("NEARDUP_TOKEN") or None,
            reads=env.get("NEARDUP_SERVE_READS", "open"),
            public_url=env.get("NEARDUP_SERVE_PUBLIC_URL") or None,
            **ints,
        )
        if env.get("NEARDUP_SERVE_SECRET"):  # every worker signs the form tokens alike
            config = dataclasses.replace(config, secret=env["NEARDUP_SERVE_SECRET"])
        return config


def public_base(url: str) -> str:
    """``url`` as a base for links: ``http(s)://host[:port][/path]`` without a trailing slash,
    query or fragment (ConfigurationError otherwise)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigurationError(
            f"the public URL must be http(s)://host[:port][/path], got {url[:200]!r}"
        )
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class Checked:
    """A text checked against the collection (its passages listed when asked for)."""

    text: str
    result: CheckResult
    #: ``{id: {"title", "url"}}`` of the matches whose metadata names them.
    info: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    #: The ids the check left out.
    exclude: tuple[str, ...] = ()

    @property
    def alignment(self) -> Alignment | None:
        return self.result.alignment

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``neardup index check --json`` (``--fragments`` adds ``fragments``)."""
        return self.result.to_dict()

    def record(self) -> dict[str, Any]:
        """The JSON it is kept as (:func:`neardup.report.check_record.check_record`)."""
        return check_record(self.result, self.info, self.exclude)


def upload(data: bytes, filename: str) -> tuple[str, Tricks]:
    """The text of an uploaded file, read by the project's reader as a file of that name would
    be (``.docx``/``.pdf`` extracted as a reader sees them, text and HTML decoded with charset
    detection), and the text hidden in it (a ``hidden_text`` trick)."""
    name = filename or ""
    if not name.lower().endswith(UPLOAD_SUFFIXES):
        suffix = os.path.splitext(name.lower())[1] or "(none)"
        raise UnsupportedTypeError(
            f"cannot read a file of type {suffix!r}; expected one of {', '.join(UPLOAD_SUFFIXES)}",
            params={"suffix": suffix, "allowed": ", ".join(UPLOAD_SUFFIXES)},
        )
    decoded = inputs.text_from_bytes(data, name, _UPLOAD_READING)
    return decoded.text, inputs.hidden_in(decoded)


#: The suffix of an upload named without one ("file"), by its part's declared type…
_TYPE_SUFFIX = {
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/html": ".html",
    "application/pdf": ".pdf",
    "application/rtf": ".rtf",
    "text/rtf": ".rtf",
    "application/msword": ".doc",
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}
#: …else by its first bytes (an OLE2 file is a .doc; a zip is a .docx or an .odt, which the
#: reader tells apart by what is inside; anything else is read as text, decoded or refused).
_MAGIC_SUFFIX = ((b"%PDF-", ".pdf"), (b"{\\rtf", ".rtf"), (b"\xd0\xcf\x11\xe0", ".doc"))


def upload_name(filename: str, content_type: str | None, data: bytes) -> str:
    """The name an upload is read by: its own when it has a suffix, else with the suffix its
    declared type or its first bytes say (an upload named ``file`` is read, not refused)."""
    name = filename or "upload"
    if os.path.splitext(name)[1]:
        return name
    declared = (content_type or "").split(";")[0].strip().lower()
    suffix = _TYPE_SUFFIX.get(declared)
    if suffix is None:
        suffix = next((s for magic, s in _MAGIC_SUFFIX if data.startswith(magic)), None)
    if suffix is None and data.startswith(b"PK\x03\x04"):
        suffix = ".odt" if b"application/vnd.oasis.opendocument" in data[:200] else ".docx"
    return name + (suffix or ".txt")


def upload_text(data: bytes, filename: str) -> str:
    """The text of an uploaded file (:func:`upload`)."""
    return upload(data, filename)[0]


def document_dict(doc: Any) -> dict[str, Any]:
    """A stored :class:`~neardup.index.Document` as JSON (its fields, as ``export`` writes them)."""
    return dataclasses.asdict(doc)


class Service:
    """The collection behind the API and the page."""

    def __init__(self, config: ServiceConfig, collection: Collection | None = None) -> None:
        self.config = config
        self.collection = collection if collection is not None else Collection.open(config.db)
        self.lock = threading.Lock()
        self.aligner = Aligner(self.collection.spec)
        self.checks: CheckStore = check_store(self.collection.storage)
        self.rate = RateLimit(config.check_rate)

    def close(self) -> None:
        self.collection.close()

    def warm_up(self) -> None:
        """Load the analyzer's dictionaries and the kernels once, before the first request
        (each worker process pays this at start, not on a request's time)."""
        sample = (
            "Каждый год в городском парке у реки проводят праздник, и жители приходят "
            "на набережную всей семьёй, чтобы погулять и послушать музыку. " * 3
        )
        self.check(sample, top=1)
        self.aligner.align(sample, [("warm-up", sample)])

    # --- limits ------------------------------------------------------------------------------
    def limit_text(self, text: str, what: str = "the text") -> str:
        refuse_bad_characters(text, what)  # NUL, lone surrogates: 422
        if len(text) > self.config.max_text:
            raise TooLargeError(
                f"{what} has {len(text):,} characters; this service takes at most "
                f"{self.config.max_text:,}",
                code="text_too_long",
                params={"n": len(text), "max": self.config.max_text},
            )
        return text

    # --- verbs -------------------------------------------------------------------------------
    def check(
        self,
        text: str,
        *,
        top: int | None = None,
        fragments: bool = DEFAULTS.fragments,
        exclude: Sequence[str] = (),
        hidden: Tricks = NONE,
        on_stage: Callable[[str], None] | None = None,
    ) -> Checked:
        """:meth:`Collection.check <neardup.index.Collection.check>`'s one orchestration
        (:meth:`~neardup.index.checking.Checker.run`) with the storage lock held only while the
        storage is read: the text is analysed before, and the passages aligned after, in
        parallel with other requests. The titles of the matches are read under the lock too.
        ``on_stage`` is told each stage as it starts (``analysing``, ``looking_up``,
        ``aligning``: :mod:`neardup.web.progress`)."""
        col = self.collection
        self.limit_text(text)
        refuse_bad_characters(list(exclude), "exclude")  # as every text the service takes: 422
        info: dict[str, dict[str, str]] = {}
        stage = on_stage if on_stage is not None else _no_stage
        stage("analysing")

        def titles(found: LookedUp) -> None:
            # the sentence candidates too: those the second stage marks are shown after them
            shown = [m.id for m in found.matches] + [m.id for m, _ in found.to_align]
            info.update(source_info(col, shown))
            stage("aligning")

        result = col.checker.run(
            text,
            top=top or self.config.top,
            policy=None,
            fragments=fragments,
            aligner=self.aligner,
            exclude=exclude,
            hidden=hidden,
            guard=_announced(self.lock, lambda: stage("looking_up")),
            while_held=titles,
        )
        return Checked(text, result, info, tuple(sorted(set(exclude))))

    # --- kept checks -------------------------------------------------------------------------
    @property
    def keeps(self) -> bool:
        """Whether checks are kept (``keep_checks_days`` above 0)."""
        return self.config.keep_checks_days > 0

    def keep(self, checked: Checked, *, owner: str = "", name: str = "") -> KeptCheck | None:
        """Keep a check under a new id (None when checks are not kept); checks older than the
        retention are removed on the way."""
        if not self.keeps:
            return None
        now = time.time()
        kept = KeptCheck(
            new_check_id(),
            now,
            owner,
            name,
            self.collection.spec.fingerprint(),
            checked.text,
            checked.record(),
        )
        try:
            with self.lock:
                self.checks.purge(now - self.config.keep_checks_days * DAY)
                self.checks.keep(kept)
                self._make_room(kept, now)
        except StorageError as exc:  # a read-only file, a role that may not create a table…
            _log.warning("a check could not be kept, its result is shown unkept: %s", exc)
            return None
        return kept

    def _make_room(self, kept: KeptCheck, now: float) -> None:
        """Remove the oldest checks past the quotas (the browser's own, then all), never the
        one just kept; each removed one is marked gone, so its page says why."""
        config = self.config
        for owner, most, room in (
            (kept.owner, config.owner_checks_max, config.owner_checks_bytes),
            (None, config.keep_checks_max, config.keep_checks_bytes),
        ):
            if owner == "":  # a check made without a browser's key has no quota of its own
                continue
            count = used = 0
            over: list[str] = []
            for check_id, size in self.checks.sizes(owner):  # newest first
                count += 1
                used += size
                if check_id != kept.id and (over or count > most or used > room):
                    over.append(check_id)
            if over:
                self.checks.evict(over, now)
                _log.info("%d kept checks removed for room (oldest first)", len(over))

    def kept_gone(self, check_id: str) -> bool:
        """Whether a check of that id was removed to make room for newer ones."""
        with self.lock:
            return self.checks.gone(check_id)

    def kept(self, check_id: str) -> KeptCheck:
        """A kept check (NotFoundError when there is none of that id, or it is too old;
        DamagedCheckError when its row or its record cannot be read back)."""
        with self.lock:
            found = self.checks.get(check_id)
        oldest = time.time() - self.config.keep_checks_days * DAY
        if found is None and self.kept_gone(check_id):
            raise NotFoundError(
                f"the kept check {check_id[:80]!r} was removed to make room for newer ones "
                "(the oldest go first)",
                code="kept_gone",
            )
        if found is None or found.created < oldest:
            raise NotFoundError(f"no kept check {check_id[:80]!r}")
        damage = record_damage(found.result)
        if damage is not None:
            raise DamagedCheckError(
                f"the kept check {check_id[:80]!r} is damaged ({damage}); it cannot be shown, "
                "only removed",
                params={"id": check_id[:80], "why": damage},
            )
        return found

    def kept_owner(self, check_id: str) -> str:
        """Who made a kept check, read even from a damaged row (what its removal needs);
        NotFoundError when there is none of that id."""
        with self.lock:
            owner = self.checks.owner(check_id)
        if owner is None:
            raise NotFoundError(f"no kept check {check_id[:80]!r}")
        return owner

    def kept_list(
        self, *, owner: str | None, limit: int = 100, offset: int = 0
    ) -> list[KeptSummary]:
        """Kept checks, newest first, within the retention; a damaged row is listed (marked)
        whatever its time, so that it can be found and removed."""
        oldest = time.time() - self.config.keep_checks_days * DAY
        with self.lock:
            found = self.checks.list(owner=owner, limit=limit, offset=offset)
        return [s for s in found if s.damaged or s.created >= oldest]

    def forget(self, check_id: str) -> bool:
        with self.lock:
            return self.checks.delete(check_id)

    def add(
        self,
        documents: list[tuple[str, str, dict[str, Any]]],
        *,
        policy: str | None = None,
        check: bool = True,
    ) -> dict[str, Any]:
        """Check and add documents (``check=False``: store them unchecked, a bulk load); the
        JSON of ``neardup index add --json``. The texts are analysed in one batch before the
        collection's lock is taken, so other requests go on meanwhile."""
        if policy is not None and policy not in INDEX_POLICIES:
            raise InputError(f"policy must be one of {', '.join(INDEX_POLICIES)}, got {policy!r}")
        col = self.collection
        ids = [d[0] for d in documents]
        if len(set(ids)) != len(ids):
            twice = next(i for i in ids if ids.count(i) > 1)
            raise InputError(f"the id {twice!r} appears twice in the request; nothing was added")
        for doc_id, text, _ in documents:
            if not doc_id or not doc_id.strip():
                raise InputError("a document id must not be empty", code="empty_id")
            refuse_bad_characters(doc_id, "a document id")
            refuse_bidi(doc_id, f"the id {doc_id.encode('unicode_escape').decode()[:80]!r}")
            self.limit_text(text, f"the text of {doc_id!r}")
        for doc_id, _, meta in documents:
            refuse_bad_characters(meta, f"the meta of {doc_id!r}")
        analyses = col.analyze_many([text for _, text, _ in documents])
        analyzed = [
            (doc_id, analysis, meta)
            for (doc_id, _, meta), analysis in zip(documents, analyses, strict=True)
        ]
        with self.lock:
            decisions = col.add_many(analyzed, policy=policy, check=check)
            total = len(col)
        counts: Counter[str] = Counter()
        for dec in decisions:
            counts["accepted" if dec.accepted else "rejected"] += 1
            counts[dec.reason] += 1
        return {
            "accepted": counts["accepted"],
            "rejected": counts["rejected"],
            "reasons": {
                k: v for k, v in sorted(counts.items()) if k not in ("accepted", "rejected")
            },
            "documents": total,
            "decisions": [d.to_dict() for d in decisions],
        }

    def remove(self, ids: list[str]) -> dict[str, Any]:
        if not ids:
            raise InputError("give at least one id to remove")
        refuse_bad_characters(ids, "the ids")
        with self.lock:
            removed = self.collection.remove(ids)
            left = len(self.collection)
        return {"removed": removed, "documents": left}

    def get(self, doc_id: str) -> dict[str, Any]:
        refuse_bad_characters(doc_id, "the id")
        with self.lock:
            return document_dict(self.collection.get(doc_id))

    def groups(self, min_size: int = 2) -> list[dict[str, Any]]:
        with self.lock:
            return [g.to_dict() for g in self.collection.groups(min_size=min_size)]

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return self.collection.stats()

    def compare(
        self,
        a: str,
        b: str,
        *,
        fragments: bool = DEFAULTS.fragments,
        b_id: str = "B",
        hidden: tuple[Tricks, Tricks] = (NONE, NONE),
    ) -> tuple[dict[str, Any], Comparison]:
        """Two texts under the collection's spec: the JSON of ``neardup compare --json``
        (:func:`neardup.compare`, the same call with the same defaults), and the comparison."""
        self.limit_text(a, "text A")
        self.limit_text(b, "text B")
        refuse_bad_characters(b_id, "b_id")
        refuse_bidi(b_id, "b_id")
        result = compare_texts(
            a,
            b,
            spec=self.collection.spec,
            fragments=fragments,
            aligner=self.aligner,
            b_id=b_id,
            hidden_a=hidden[0],
            hidden_b=hidden[1],
        )
        return result.to_dict(), result

    def matrix(self, ids: list[str], texts: list[str], method: str) -> SimilarityMatrix:
        if method not in METHODS:
            raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        if len(texts) < 2:
            raise InputError(
                f"a matrix needs at least 2 texts, got {len(texts)}", code="matrix_too_few"
            )
        if len(texts) > self.config.max_matrix:
            raise TooLargeError(
                f"{len(texts)} texts; this service builds matrices of at most "
                f"{self.config.max_matrix}",
                code="matrix_too_many",
                params={"n": len(texts), "max": self.config.max_matrix},
            )
        if len(set(ids)) != len(ids):
            raise InputError("the ids of a matrix's texts must be unique")
        refuse_bad_characters(ids, "the ids")
        refuse_bidi(ids, "an id")
        for doc_id, text in zip(ids, texts, strict=True):
            self.limit_text(text, f"the text {doc_id!r}")
        return similarity_matrix(texts, ids=ids, method=method, spec=self.collection.spec)


def _no_stage(stage: str) -> None:
    """A check nobody follows."""


@contextmanager
def _announced(lock: threading.Lock, reached: Callable[[], None]) -> Iterator[None]:
    """``lock`` held, ``reached`` said first: the text is analysed when the storage is asked."""
    reached()
    with lock:
        yield
