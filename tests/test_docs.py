"""The generated presets table must match the code."""

from pontoon_tools.docs import DEFAULT_PATH, presets_markdown
from pontoon_env.game.rules import OPTION_NAMES, PRESETS


def test_presets_doc_is_up_to_date() -> None:
    committed = DEFAULT_PATH.read_text(encoding="utf-8")
    assert committed == presets_markdown(), "docs/presets.md is stale: run `python -m pontoon_tools.docs`"


def test_presets_doc_lists_every_option_and_preset() -> None:
    text = presets_markdown()
    for option in OPTION_NAMES:
        if option != "preset":
            assert f"| `{option}` |" in text
    for name in PRESETS:
        assert f"`{name}`" in text


RULES_DOC = DEFAULT_PATH.parent / "rules.md"
SHARED_RULES = DEFAULT_PATH.parent.parent.parent / "shared" / "rules" / "RULES.md"


def test_the_rules_spec_in_the_repository_is_the_shared_one() -> None:
    import pytest

    if not SHARED_RULES.is_file():
        pytest.skip("../shared/rules/RULES.md is not beside this checkout")
    ours = RULES_DOC.read_text(encoding="utf-8")
    body = ours.split("-->\n\n", 1)[1]  # after the header comment saying where it comes from
    assert body == SHARED_RULES.read_text(encoding="utf-8"), "docs/rules.md is out of step with shared/rules/RULES.md"


def test_the_rules_spec_names_every_decision_the_presets_cite() -> None:
    text = RULES_DOC.read_text(encoding="utf-8")
    for number in range(1, 23):
        assert f"| D{number} |" in text
