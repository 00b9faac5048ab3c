"""Processes opening one fresh store at the same moment (workers started
together, a cron job beside a run) all succeed: the schema migrations are
applied once, under the store's write lock, by whichever process comes first,
and the others find them done (no "migration to schema v1 failed: table repos
already exists")."""
import os
import subprocess

import common

args = common.parse_args()
common.skip_unless_backend_available()
ROUNDS = 12
PROCESSES = 4


def test_processes_opening_a_fresh_store_together_all_succeed():
    failures = []
    for r in range(ROUNDS):
        db = common.store(args, f"round{r}")
        if not common.is_pg(db):
            os.makedirs(os.path.dirname(db), exist_ok=True)
        procs = [subprocess.Popen([args.binary, "--db", db, "repos", "list"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(PROCESSES)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            if p.returncode != 0:
                failures.append(f"round {r}: exit {p.returncode}: {err.decode(errors='replace')}")
        # The store is whole afterwards: a second open finds nothing to migrate.
        common.Binary(args.binary, db).run("repos", "list")
    assert not failures, f"{len(failures)} of {ROUNDS * PROCESSES} runs failed: {failures[:3]}"


common.main([test_processes_opening_a_fresh_store_together_all_succeed])
