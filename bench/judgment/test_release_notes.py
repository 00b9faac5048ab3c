#!/usr/bin/env python3
"""Checks of release_notes.py's two parsers (run: python3 -m unittest test_release_notes)."""

import datetime as dt
import unittest

import release_notes as rn

MD = """# Release note

## v1.2.0 - 2026.03.04

### Highlights
- A new backend [#120](https://github.com/o/r/pull/120), see upstream
  [#9](https://github.com/up/stream/pull/9999).

### Other changes
- Fix a leak #131.

## v1.1.0 - 2026.01.02

### Highlights
- First release (#101).
"""

RST = """project 0.3.0 (2025-12-20)
==========================

New Features
------------

- Add ``thing`` (`#7375 <https://github.com/o/r/pull/7375>`_).

Maintenance
-----------

- Bump a pin (`#7400 <https://github.com/o/r/pull/7400>`_); see
  `SPEC <https://github.com/other/specs/pull/180>`_.

project 0.2.1 (2025-02-18)
==========================

Bug Fixes
---------

- Fix ``other`` (`#7001 <https://github.com/o/r/pull/7001>`_).
"""


XARRAY_LIKE = """What's New
==========

v2026.07.1 (unreleased)
-----------------------

New Features
~~~~~~~~~~~~
- Not released yet (:pull:`900`).

v2026.07.0 (Jul 9, 2026)
------------------------

New Features
~~~~~~~~~~~~
- A thing (:issue:`10`, :pull:`811`). See also `#12 <https://github.com/o/r/issues/12>`_.

Bug Fixes
~~~~~~~~~
- A fix (gh-812, :pr:`813`).

.. dropdown:: Additional changes

  - Other (:pr:`814`, :pr-distributed:`9`).
"""

NESTED_MD = """# Changelog

## [2.1.0] - 2026-02-01

### What's Changed

#### New Features

* Add it by @a in [#41](https://github.com/o/r/pull/41)

#### Fixes

* Fix it in [#42](https://github.com/o/r/pull/42)
"""


class ReleaseNotes(unittest.TestCase):
    def test_markdown_sections_and_dates(self):
        releases = rn.parse_markdown(MD, "o/r")
        self.assertEqual([(v, d) for v, d, _ in releases],
                         [("1.2.0", dt.date(2026, 3, 4)), ("1.1.0", dt.date(2026, 1, 2))])
        top, named, span = rn.labels(releases)
        self.assertEqual(top, {120, 101})  # the upstream link is not this repository's PR
        self.assertEqual(named, {120, 131, 101})
        self.assertEqual(span, (dt.date(2026, 1, 2), dt.date(2026, 3, 4)))

    def test_rst_headings(self):
        releases = rn.parse_rst(RST, "o/r")
        self.assertEqual([v for v, _, _ in releases], ["0.3.0", "0.2.1"])
        self.assertEqual(releases[0][2], {"new features": {7375}, "maintenance": {7400}})
        top, named, _ = rn.labels(releases, "highlight|new feature")
        self.assertEqual(top, {7375})
        self.assertEqual(named, {7375, 7400, 7001})

    def test_word_dates_roles_and_unreleased(self):
        releases = rn.parse_rst(XARRAY_LIKE, "o/r")
        self.assertEqual([(v, d) for v, d, _ in releases], [("2026.07.0", dt.date(2026, 7, 9))])
        self.assertEqual(releases[0][2], {"new features": {811}, "bug fixes": {812, 813},
                                              "additional changes": {814}})

    def test_nested_sections_keep_their_parents(self):
        releases = rn.parse_markdown(NESTED_MD, "o/r")
        self.assertEqual(releases[0][:2], ("2.1.0", dt.date(2026, 2, 1)))
        top, named, _ = rn.labels(releases, "new feature")
        self.assertEqual((top, named), ({41}, {41, 42}))

    def test_pools_run_from_one_release_point_to_the_next(self):
        releases = [("1.1", None, {"highlights": {5}}), ("1.0", None, {"highlights": {1}}),
                    ("1.0.1", None, {"highlights": {9}})]
        pools = rn.pools(releases, {"1.0": 100, "1.1": 200, "1.0.1": 100})
        self.assertEqual([(p["version"], p["lo"], p["hi"], p["highlights"]) for p in pools],
                         [("1.1", 100, 200, {5})])  # 1.0 opens; 1.0.1 left the branch with it

    def test_without_a_repository_every_link_counts(self):
        self.assertIn(9999, rn.labels(rn.parse_markdown(MD))[0])


if __name__ == "__main__":
    unittest.main()
