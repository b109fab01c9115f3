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
