#!/usr/bin/env python3
"""Whether two stores hold the same facts for every change: the facts table
(version, verdict, importance, insight, lines_worth_reading and the stored
document, byte for byte), joined on the change id. Prints the counts and the
first differing ids; exits 1 when any differs or a change is missing on a side.
  python3 bench/context/same_facts.py BEFORE.db AFTER.db"""
import sqlite3
import sys

a, b = sys.argv[1], sys.argv[2]
db = sqlite3.connect(a)
db.execute("attach database ? as b", (b,))
cols = "version, verdict, importance, insight, lines_worth_reading, doc"
total = db.execute("select count(*) from main.facts").fetchone()[0]
other = db.execute("select count(*) from b.facts").fetchone()[0]
diff = [r[0] for r in db.execute(
    f"select x.change_id from main.facts x join b.facts y using (change_id) "
    f"where (x.version, x.verdict, x.importance, x.insight, x.lines_worth_reading, x.doc) "
    f"is not (y.version, y.verdict, y.importance, y.insight, y.lines_worth_reading, y.doc)")]
missing = db.execute("select count(*) from main.facts x where x.change_id not in "
                     "(select change_id from b.facts)").fetchone()[0]
print(f"changes: {total} / {other}; differing: {len(diff)}; missing in the second: {missing}")
if diff:
    print("first differing change ids:", diff[:20])
sys.exit(1 if diff or missing or total != other else 0)
