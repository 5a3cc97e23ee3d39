#!/usr/bin/env python3
"""Imports Anki packages Hearth exported into a fresh collection with the official Anki library
and prints, as JSON, what Anki then holds: notes (guid, note type, fields, tags), cards (note
guid, template, type, queue, due as days from today or a time, interval, reps, lapses, FSRS
memory state), the review log's size, each media file's SHA-256, the note types, and each deck's
New/Learn/Due counts at this moment (own cards only), so the browser test that exported them can
compare them with what Hearth showed.

  check_export.py [--original PACKAGE] PACKAGE...

With --original, that package is imported first, and the note count before and after the
others is reported too (an export imported over its original must add no note).
Time zone: UTC, the browser test's; FSRS on, as in the fixtures.
"""
import hashlib
import json
import os
import sys
import tempfile
import time

os.environ["TZ"] = "UTC"
time.tzset()

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest  # noqa: E402


def import_package(col: Collection, path: str) -> dict:
    request = ImportAnkiPackageRequest(
        package_path=path,
        options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, merge_notetypes=False),
    )
    log = col.import_anki_package(request).log
    return {
        "new": len(log.new),
        "updated": len(log.updated),
        "duplicate": len(log.duplicate),
        "conflicting": len(log.conflicting),
        "firstFieldMatch": len(log.first_field_match),
        "missingNotetype": len(log.missing_notetype),
        "missingDeck": len(log.missing_deck),
        "empty": len(log.empty_first_field),
    }


def counts(col: Collection) -> dict:
    decks = {}

    def walk(node):
        for child in node.children:
            walk(child)
        if node.deck_id in (0, 1):
            return
        decks[col.decks.name(node.deck_id)] = {
            "new": node.new_count - sum(c.new_count for c in node.children),
            "learn": node.learn_count - sum(c.learn_count for c in node.children),
            "review": node.review_count - sum(c.review_count for c in node.children),
        }

    walk(col.sched.deck_due_tree())
    return decks


def main(argv) -> None:
    original = None
    if argv[:1] == ["--original"]:
        original, argv = argv[1], argv[2:]
    with tempfile.TemporaryDirectory() as work:
        col = Collection(os.path.join(work, "collection.anki2"))
        col.set_config("fsrs", True)
        result = {"anki": __import__("anki.buildinfo").buildinfo.version, "imports": []}
        if original:
            result["original"] = import_package(col, original)
            result["notesBefore"] = col.note_count()
        for path in argv:
            result["imports"].append(import_package(col, path))
        today = col.sched.today
        names = {nt["id"]: nt["name"] for nt in col.models.all()}
        result["noteTypes"] = {nt["name"]: [f["name"] for f in nt["flds"]] for nt in col.models.all()}
        result["notes"] = [
            {"guid": guid, "noteType": names.get(mid), "fields": flds.split("\x1f"), "tags": tags.split()}
            for guid, mid, flds, tags in col.db.all("select guid, mid, flds, tags from notes order by id")
        ]
        cards = []
        for guid, deck, ord_, ctype, queue, due, ivl, reps, lapses, data in col.db.all(
            "select n.guid, c.did, c.ord, c.type, c.queue, c.due, c.ivl, c.reps, c.lapses, c.data"
            " from cards c join notes n on n.id = c.nid order by c.nid, c.ord"
        ):
            memory = json.loads(data) if data else {}
            day_based = queue in (2, 3) or (queue < 0 and ctype == 2)
            cards.append({
                "guid": guid,
                "deck": col.decks.name(deck),
                "ord": ord_,
                "type": ctype,
                "queue": queue,
                "dueInDays": due - today if day_based else None,
                "dueAt": due if queue == 1 else None,
                "ivl": ivl,
                "reps": reps,
                "lapses": lapses,
                "stability": memory.get("s"),
                "difficulty": memory.get("d"),
            })
        result["cards"] = cards
        result["reviews"] = col.db.scalar("select count() from revlog")
        result["notesAfter"] = col.note_count()
        media = {}
        for name in sorted(os.listdir(col.media.dir())):
            with open(os.path.join(col.media.dir(), name), "rb") as handle:
                media[name] = hashlib.sha256(handle.read()).hexdigest()
        result["media"] = media
        result["counts"] = counts(col)
        result["now"] = int(time.time() * 1000)
        col.close()
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1:])
