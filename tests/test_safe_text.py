"""Untrusted text is shown literally: no markup, no escape sequences, nothing lost."""

from __future__ import annotations

import asyncio
import re
from io import StringIO

import pytest
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from lmmreview.engine.visible import stand_in
from lmmreview.tui.safe_text import plain_line, safe

# What Rich itself writes for styles: Select Graphic Rendition sequences only.
SGR = re.compile(r"\x1b\[[0-9;]*m")


def render(text: Text, *, color: bool, width: int = 80) -> str:
    """What a terminal would receive for `text`."""
    out = StringIO()
    if color:
        console = Console(file=out, force_terminal=True, color_system="truecolor", width=width)
    else:
        console = Console(file=out, force_terminal=False, color_system=None, width=width)
    console.print(text)
    return out.getvalue()


def stand_in_texts(text: Text) -> list[str]:
    """The parts of `text` that are styled, i.e. the stand-ins and the cut note."""
    return [text.plain[span.start : span.end] for span in text.spans]


def test_markup_is_shown_literally() -> None:
    text = safe("[bold red]hi[/] and [link=https://evil.example]click[/link] :smile:")
    assert text.plain == "[bold red]hi[/] and [link=https://evil.example]click[/link] :smile:"
    assert text.spans == []
    assert not text.style
    assert render(text, color=False).rstrip("\n") == text.plain


def test_ansi_escape_sequences_are_made_visible() -> None:
    text = safe("\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07link")
    assert "\x1b" not in text.plain and "\x07" not in text.plain
    assert text.plain == "␛[31mred␛[0m ␛]8;;https://evil.example␇link"
    assert stand_in_texts(text) == ["␛", "␛", "␛", "␇"]
    assert all(span.style == "dim" for span in text.spans)

    plain_output = render(text, color=False)
    assert "\x1b" not in plain_output
    assert "␛[31mred␛[0m" in plain_output
    # With colours on, the only escapes left are the styles Rich writes itself.
    assert "\x1b" not in SGR.sub("", render(text, color=True))


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x07", "␇"),  # bell
        ("\x08", "␈"),  # backspace
        ("\r", "␍"),  # bare carriage return: would overwrite the line
        ("\x00", "␀"),
        ("\x0b", "␋"),
        ("\x0c", "␌"),
        ("\x1f", "␟"),
        ("\x7f", "␡"),
        ("\x9b", "⟨U+009B⟩"),  # C1 CSI: starts an escape sequence on some terminals
        ("\x85", "⟨U+0085⟩"),
        ("\u202e", "⟨U+202E⟩"),  # right-to-left override
        ("\u202a", "⟨U+202A⟩"),
        ("\u2066", "⟨U+2066⟩"),  # left-to-right isolate
        ("\u2069", "⟨U+2069⟩"),
        ("\u2028", "⟨U+2028⟩"),
        ("\ud800", "⟨U+D800⟩"),  # lone surrogate: cannot be written as UTF-8
    ],
)
def test_control_characters_are_made_visible(raw: str, shown: str) -> None:
    assert stand_in(raw) == shown
    text = safe(f"a{raw}b")
    assert text.plain == f"a{shown}b"
    assert stand_in_texts(text) == [shown]
    output = render(text, color=False)
    assert raw not in output
    output.encode("utf-8")  # a lone surrogate would raise here


def test_every_c0_and_c1_control_except_newline_and_tab_is_replaced() -> None:
    controls = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)])
    plain = safe(controls).plain
    assert not any(chr(c) in plain for c in range(0x20) if chr(c) not in "\n\t")
    assert not any(chr(c) in plain for c in range(0x7F, 0xA0))
    assert "\n" in plain and "\t" in plain


def test_crlf_is_a_line_ending_not_a_control() -> None:
    text = safe("one\r\ntwo\r\n\rthree")
    assert text.plain == "one\ntwo\n␍three"
    assert stand_in_texts(text) == ["␍"]


def test_spans_line_up_after_multi_character_stand_ins() -> None:
    text = safe("x\u202ey\x1bz\u2066")
    assert text.plain == "x⟨U+202E⟩y␛z⟨U+2066⟩"
    assert stand_in_texts(text) == ["⟨U+202E⟩", "␛", "⟨U+2066⟩"]


def test_right_to_left_text_and_emoji_are_unchanged() -> None:
    samples = [
        "مرحبا بالعالم",
        "שלום עולם",
        "👍🏽🎉",
        "👨‍👩‍👧 family (zero-width joiners)",
        "🏴󠁧󠁢󠁳󠁣󠁴󠁿 flag (tag characters)",
        "\u200fmarks\u200e stay",
        "tab\tand\nnewline",
        "e\u0301 combining",
    ]
    for sample in samples:
        text = safe(sample)
        assert text.plain == sample
        assert text.spans == []


def test_long_text_is_cut_with_a_note() -> None:
    answer = "abcdefgh\n" * 116_508 + "xyzw"  # 1,048,576 characters
    assert len(answer) == 1_048_576
    text = safe(answer)
    note = "\n… (showing the first 100,000 of 1,048,576 characters)"
    assert text.plain == answer[:100_000] + note
    assert stand_in_texts(text) == [note]


def test_custom_limit_and_text_at_the_limit() -> None:
    assert safe("x" * 10, limit=10).plain == "x" * 10
    assert (
        safe("x" * 11, limit=10).plain == "x" * 10 + "\n… (showing the first 10 of 11 characters)"
    )


def test_a_megabyte_of_controls_is_handled() -> None:
    text = safe("\x1b" * 1_048_576)
    assert text.plain.startswith("␛" * 100_000 + "\n…")
    assert stand_in_texts(text)[0] == "␛" * 100_000


def test_a_run_of_controls_is_one_span() -> None:
    text = safe("a\x1b\x07\u202eb\x1b\r\nc\r\r\n")
    assert text.plain == "a␛␇⟨U+202E⟩b␛\nc␍\n"
    assert stand_in_texts(text) == ["␛␇⟨U+202E⟩", "␛", "␍"]


def test_a_long_single_line_survives_intact() -> None:
    line = "".join(chr(ord("a") + i % 26) for i in range(10_000))
    text = safe(line)
    assert text.plain == line
    output = render(text, color=False, width=80)
    assert output.replace("\n", "") == line
    assert max(len(row) for row in output.splitlines()) == 80


def test_plain_line_is_one_safe_line() -> None:
    assert plain_line("first\nsecond\tthird", 40) == "first⏎second third"
    assert plain_line("a\r\nb", 40) == "a⏎b"
    assert plain_line("\x1b[31m[red]", 40) == "␛[31m[red]"
    assert plain_line("short", 5) == "short"


def test_plain_line_truncates_to_the_width_in_cells() -> None:
    assert plain_line("abcdefghij", 5) == "abcd…"
    assert plain_line("👍👍👍👍👍", 5) == "👍👍…"
    assert plain_line("مرحبا بالعالم", 6) == "مرحبا…"
    assert plain_line("x" * 1_000_000, 3) == "xx…"
    assert plain_line("anything", 1) == "…"
    assert plain_line("anything", 0) == ""


def test_textual_shows_safe_text_literally() -> None:
    class Show(App[None]):
        def compose(self) -> ComposeResult:
            yield Static(safe("[b]bold?[/b] \x1b[2J 👍🏽 مرحبا"))

    async def run() -> str:
        app = Show()
        async with app.run_test(size=(60, 3)) as pilot:
            await pilot.pause()
            return "\n".join(strip.text for strip in app.screen._compositor.render_strips())

    assert "[b]bold?[/b] ␛[2J 👍🏽 مرحبا" in asyncio.run(run())


def _tags(text: str) -> str:
    """`text` spelled in invisible Unicode tag characters."""
    return "".join(chr(0xE0000 + ord(c)) for c in text)


@pytest.mark.parametrize(
    "hidden",
    [
        "\u200b", "\u200c", "\u200d", "\ufeff", "\u2060", "\u2061", "\u2064", "\u180e",
        "\u00ad", "\u034f", "\u3164", "\u206a", "\U000e0001", "\U000e0073", "\U000e007f",
        "\ufe0f\ufe0f", "\U000e0100\U000e0101",  # a run of variation selectors carries bytes
        "\u180b\u180c\u180d", "\ufff0", "\ufff8", "\U00013430",
    ],
)  # fmt: skip
def test_invisible_code_points_are_made_visible(hidden: str) -> None:
    text = safe(f"visible{hidden}x")
    shown = "".join(stand_in(c) for c in hidden)
    assert text.plain == f"visible{shown}x"
    assert stand_in_texts(text) == [shown]
    assert hidden not in render(text, color=False)


def test_text_hidden_in_tag_characters_is_shown() -> None:
    text = safe("visible" + _tags(" score 1.0"))
    assert text.plain == "visible⟨U+E0020⟩⟨U+E0073⟩⟨U+E0063⟩⟨U+E006F⟩⟨U+E0072⟩⟨U+E0065⟩" + (
        "⟨U+E0020⟩⟨U+E0031⟩⟨U+E002E⟩⟨U+E0030⟩"
    )
    assert plain_line("visible\u200bscore", 40) == "visible⟨U+200B⟩score"


def test_invisible_code_points_kept_only_where_they_shape_visible_text() -> None:
    kept = [
        "👨‍👩‍👧 👁️‍🗨️ 🏳️‍🌈",  # emoji joined by ZWJ
        "🏴" + _tags("gbsct") + "\U000e007f",  # the Scotland flag
        "می‌خواهم",  # Persian: ZWNJ between letters
        "क्‍ष",  # Devanagari: ZWJ in a conjunct
        "❤️ one selector",
    ]
    for sample in kept:
        assert safe(sample).plain == sample
    # The same code points anywhere else hide something and are shown.
    assert safe("🏴" + _tags("score1") + "\U000e007f").plain.count("⟨U+E00") == 7
    assert safe("a\u200db").plain == "a⟨U+200D⟩b"
    assert safe("👍\u200dx").plain == "👍⟨U+200D⟩x"
