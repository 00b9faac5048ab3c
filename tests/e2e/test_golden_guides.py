"""Golden test: the offline guides (zh and en) of the sample repository's
changes must equal the approved copies in tests/golden/guides/. After an
intended change to the writer, re-approve with scripts/approve-golden.sh and
review the diff."""
import difflib
import os

import common
import golden_guides

args = common.parse_args()
common.skip_unless_backend_available()
rendered = golden_guides.render(args)
golden_dir = os.path.join(args.source_dir, "tests", "golden", "guides")


def test_every_guide_matches_its_approved_copy():
    problems = []
    for name, text in sorted(rendered.items()):
        path = os.path.join(golden_dir, name)
        if not os.path.exists(path):
            problems.append(f"{name}: no approved copy (run scripts/approve-golden.sh)")
            continue
        with open(path, encoding="utf-8") as f:
            want = f.read()
        if want != text:
            diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                f"approved/{name}", f"written/{name}", n=1))
            problems.append(diff[:3000])
    assert not problems, "\n".join(problems[:5]) + f"\n({len(problems)} guides differ)"


def test_no_approved_copy_is_orphaned():
    approved = set()
    for lang in ("zh", "en"):
        d = os.path.join(golden_dir, lang)
        if os.path.isdir(d):
            approved |= {f"{lang}/{n}" for n in os.listdir(d)}
    assert approved == set(rendered), sorted(approved ^ set(rendered))[:10]


def test_chinese_guides_are_chinese_and_english_ones_english():
    for name, text in rendered.items():
        cjk = any("\u4e00" <= ch <= "\u9fff" for ch in text.split("[原始 PR]")[0].split("[Original PR]")[0])
        if name.startswith("zh/"):
            assert "**结论**" in text and cjk, name
        else:
            assert "**Verdict**" in text, name


common.main([test_every_guide_matches_its_approved_copy, test_no_approved_copy_is_orphaned,
             test_chinese_guides_are_chinese_and_english_ones_english])
