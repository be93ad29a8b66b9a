"""A collection whose documents carry a title and a URL, and a text that copies two of them."""

from __future__ import annotations

from pathlib import Path

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TITLES = {
    "school.txt": ("Кабинет робототехники в сельской школе", "https://example.org/news/school"),
    "bakery.txt": ("Пекарня на окраине посёлка", "https://example.org/news/bakery"),
    # a URL that must never become a link
    "park.txt": ("Набережная в городском парке", "javascript:alert(1)"),
}

#: Written for the tests: a paragraph of its own, then school.txt and bakery.txt copied whole.
OWN = (
    "Эту заметку я собрала для районной газеты из того, что услышала за неделю в поездках "
    "по району, и добавила немного своих наблюдений о том, как живут сёла осенью."
)


def copied_text() -> str:
    school = (EXAMPLES / "collection" / "school.txt").read_text(encoding="utf-8")
    bakery = (EXAMPLES / "collection" / "bakery.txt").read_text(encoding="utf-8")
    return f"{OWN}\n\n{school.strip()}\n\n{bakery.strip()}\n"


def make_titled_collection(path: Path) -> str:
    db = str(path / "районные новости.db")
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="allow")) as col:
        items = []
        for file in sorted((EXAMPLES / "collection").glob("*.txt")):
            title, url = TITLES.get(file.name, ("", ""))
            meta = {"title": title, "url": url} if title else {}
            items.append((file.name, file.read_text(encoding="utf-8"), meta))
        col.add_many(items)
    return db
