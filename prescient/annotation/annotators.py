"""Every annotator's ratings file, loaded and validated together for the agreement stage.

:mod:`prescient.annotation.ratings` reads and writes one annotator's file (the
annotation server and the import command need no more); the checks that span files
(one person in two files, too few annotators) belong to the agreement, which needs the
whole set at once, and report every offending row of every file in one error.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from prescient.annotation.ratings import (
    RATINGS_SUFFIX,
    AnnotationError,
    AnnotatorRatings,
    Problem,
    check_annotator_name,
    ratings_files,
    read_ratings_file,
)


def load_ratings(
    ratings_dir: Path, known_items: Iterable[str], min_annotators: int = 2
) -> list[AnnotatorRatings]:
    """Load and validate every annotator file in ``ratings_dir``.

    Raises:
        AnnotationError: listing every offending row: invalid JSON, a score outside 0-2 or
            a missing principle, an unknown item id, a line naming another annotator,
            the same annotator's ratings in two files (duplicate ratings), an annotator
            file with no rating, or fewer than ``min_annotators`` annotators.
    """
    known = list(known_items)
    files = ratings_files(ratings_dir)
    loaded: list[AnnotatorRatings] = []
    problems: list[Problem] = []
    for path in files:
        try:
            check_annotator_name(path.name[: -len(RATINGS_SUFFIX)])
        except ValueError as exc:
            problems.append(Problem(str(path), None, None, str(exc)))
            continue
        ann, errs = read_ratings_file(path, known)
        problems += errs
        if ann.lines == 0:
            problems.append(
                Problem(str(path), None, None, f"annotator {ann.annotator!r} rated nothing")
            )
        loaded.append(ann)
    # Names that differ only in case are one person in two files (alice.jsonl, Alice.jsonl).
    by_name: dict[str, list[AnnotatorRatings]] = {}
    for ann in loaded:
        by_name.setdefault(ann.annotator.casefold(), []).append(ann)
    for group in by_name.values():
        if len(group) > 1:
            pair = " and ".join(str(a.path) for a in group)
            common = sorted(set.intersection(*(set(a.ratings) for a in group)))
            msg = "duplicate ratings: one annotator's ratings in two files"
            problems += [Problem(pair, None, item_id, msg) for item_id in common]
            if not common:
                problems.append(Problem(pair, None, None, msg))
    if problems:
        raise AnnotationError(f"invalid annotation files in {ratings_dir}", problems)
    if len(loaded) < min_annotators:
        raise AnnotationError(
            f"agreement needs at least {min_annotators} annotators; found {len(loaded)} in "
            f"{ratings_dir}",
            [Problem(str(a.path), None, None, f"{len(a.ratings)} item(s) rated") for a in loaded],
        )
    return loaded
