"""A generated multi-file WARC set with every kind of trouble, for comparing engines.

    from tests.support.warc_set import write_warc_set

    files = write_warc_set(tmp_path / "warc", n_files=5, pages=6, damaged=True)

Each file holds a warcinfo record, HTML pages of distinct stories (dated, a few undated,
a few too short), a request, an image and a 404; pages repeat across files (the same URL
and the same text, on other days), so de-duplication depends on the order in which
files are read. With ``damaged``, the files are hurt in the ways real downloads are: one
is cut inside a record, one has a flipped byte in a gzip member, one (plain WARC) has
garbage between records and a block that fails its digest. The bytes are a function of
the arguments alone.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.corpus import Warc, page

OUTLETS = ("velden-post.example", "harbour-times.example", "www.north-ledger.example")


def _file(k: int, pages: int, gz: bool, rng: random.Random) -> Warc:
    w = Warc(gz)
    w.info()
    for i in range(pages):
        story = (k * 7 + i) % (pages * 3)  # stories recur in later files
        day = 1 + (k + i) % 27
        outlet = OUTLETS[story % len(OUTLETS)]
        date = None if story % 11 == 5 else f"2024-05-{day:02d}"
        paragraphs = 1 if story % 13 == 7 else 4 + story % 4
        w.response(
            f"https://{outlet}/2024/05/story-{story}",
            page(f"Story {story} on harbour works", paragraphs, date),
            warc_date=f"2024-05-{min(day + 1, 28):02d}T{rng.randrange(24):02d}:00:00Z",
        )
        if i == pages // 2:
            w.request(f"https://{outlet}/2024/05/story-{story}")
            w.response(f"https://{outlet}/logo.png", b"\x89PNG....", ctype="image/png")
            w.response(f"https://{outlet}/gone", b"<html>gone</html>", status="404 Not Found")
    return w


def write_warc_set(directory: Path, n_files: int, pages: int, damaged: bool) -> list[Path]:
    """Write ``n_files`` WARC files (``.warc.gz``, one plain ``.warc`` when damaged) of
    ``pages`` article pages each into ``directory``; return their paths in name order."""
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(n_files * 1000 + pages)
    paths = []
    for k in range(n_files):
        plain = damaged and k == 2
        w = _file(k, pages, not plain, rng)
        data = w.bytes()
        if damaged and k == 1:  # a download cut inside its last record
            data = data[: w.starts[-1] + 40]
        elif damaged and k == 3:  # a flipped byte in the deflate data of a page's member
            at = w.starts[w.pages[1]] + 30
            data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
        elif plain:  # garbage between records, then a block that fails its digest
            cut = w.starts[w.pages[1]]
            data = data[:cut] + b"junk" * 40 + data[cut:]
            at = data.index(b"Paragraph 2", w.starts[w.pages[2]] + 160)
            data = data[:at] + b"p" + data[at + 1 :]
        path = directory / f"CC-NEWS-20240501{k:06d}-{k:05d}.warc{'' if plain else '.gz'}"
        path.write_bytes(data)
        paths.append(path)
    return paths
