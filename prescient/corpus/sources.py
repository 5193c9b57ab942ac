"""Which files a corpus source names, in reading order, and whether their bytes are the
crawl's.

A source is a file, a directory read through ``corpus.glob``, or (a ``warc`` source) a
crawl manifest (``manifest.jsonl``, written by the crawl stage) whose complete files are
read in the manifest's order, each with the sha256 it must have. Choosing the files is
kept apart from reading them (:mod:`prescient.corpus.readers`): the Ray engine
distributes the same list, and a configuration that cannot work stops here, before any
file is opened, with :class:`CorpusConfigError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prescient.corpus.settings import CorpusSettings
from prescient.crawl.manifest import ManifestError, complete_files


class CorpusConfigError(ValueError):
    """The corpus configuration cannot work (missing file, wrong column mapping...)."""


class ChecksumError(CorpusConfigError):
    """A crawled file's bytes differ from the sha256 its crawl manifest recorded."""


@dataclass(frozen=True)
class InputFile:
    """One file of a corpus source.

    Attributes:
        path: the file.
        sha256: the hex digest its bytes must have (from a crawl manifest), or None.
    """

    path: Path
    sha256: str | None = None


def input_files(path: Path, glob: str | None) -> list[Path]:
    """The files a corpus configuration points at, with a clear error when there are none."""
    if not path.exists():
        raise CorpusConfigError(
            f"{path}: the corpus input does not exist. Fix: create it, or point "
            "corpus.path at your file (e.g. -S corpus.path=data/raw/news.jsonl.gz)."
        )
    if path.is_dir():
        pattern = glob or "*"
        files = sorted(p for p in path.glob(pattern) if p.is_file())
        if not files:
            raise CorpusConfigError(
                f"{path}: no files match corpus.glob={pattern!r}. Fix: set corpus.glob."
            )
        return files
    return [path]


def is_manifest(corpus: CorpusSettings) -> bool:
    """Whether the source is a crawl manifest (a ``warc`` source whose path is ``.jsonl``)."""
    return corpus.format == "warc" and Path(corpus.path).suffix == ".jsonl"


def _manifest_files(corpus: CorpusSettings) -> list[InputFile]:
    path = Path(corpus.path)
    if corpus.glob is not None:
        raise CorpusConfigError(
            f"{path}: corpus.glob={corpus.glob!r} with a crawl manifest; the manifest lists "
            "the files. Fix: -S corpus.glob=null."
        )
    try:
        listed = complete_files(path)
    except ManifestError as exc:
        raise CorpusConfigError(str(exc)) from None
    if not listed:
        raise CorpusConfigError(
            f"{path}: the crawl manifest lists no file. Fix: widen the crawl's date range "
            "(crawl.date_start, crawl.date_end) and run the crawl stage."
        )
    return [InputFile(file, row.sha256) for file, row in listed]


def corpus_files(corpus: CorpusSettings) -> list[InputFile]:
    """The files of a source, in reading order (name order in a directory, the
    manifest's order for a crawl manifest).

    Raises:
        CorpusConfigError: no file, or a crawl that is not complete (the files that are
            missing, failed or of the wrong size are named, with the fix).
    """
    if is_manifest(corpus):
        return _manifest_files(corpus)
    return [InputFile(p) for p in input_files(Path(corpus.path), corpus.glob)]


def check_digest(item: InputFile, sha256: str) -> None:
    """Raise :class:`ChecksumError` unless ``sha256`` is the one the manifest recorded."""
    if item.sha256 is not None and sha256 != item.sha256:
        raise ChecksumError(
            f"{item.path}: its sha256 is {sha256}, the crawl manifest recorded {item.sha256}; "
            "the file changed after it was downloaded. Fix: delete it and run the crawl "
            "stage again (dvc repro pipelines/crawl/dvc.yaml), which fetches it anew."
        )
