"""Draw a table: as text (:func:`render_ansi`) or as an RGB image (:func:`render_rgb`).

Both take the game and an optional ``seat``. With a seat they draw what that seat may see (through
:func:`pontoon_env.game.observation.observe`, the single filter for hidden information): face-down cards
show as ``??`` or a card back. With ``seat=None`` they draw everything (omniscient, for debugging
and videos of self-play).

The image has a fixed size (:data:`RGB_SHAPE`) whatever the number of players or cards, so that
Gymnasium's ``RecordVideo`` can stack frames. It is drawn with Pillow when it is installed and with
a small pure-numpy rasteriser (rectangles and a 3x5 bitmap font) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pontoon_env.game.actions import AMOUNT_KINDS, LegalAction, Phase
from pontoon_env.game.cards import CARD_RANK, RANK_NAMES, SUIT_NAMES, card_name
from pontoon_env.game.engine import Hand, PontoonGame
from pontoon_env.game.hands import FIVE_CARDS, hand_total
from pontoon_env.game.observation import HIDDEN, HandView, observe

RGB_SHAPE: tuple[int, int, int] = (540, 960, 3)
"""(height, width, channels) of every :func:`render_rgb` frame."""


# ---------------------------------------------------------------------------- a table snapshot


@dataclass(frozen=True)
class _Table:
    """What the renderers draw: the table as one seat (or an omniscient observer) sees it."""

    title: str
    banker: int
    banker_hands: tuple[HandView, ...]
    players: tuple[tuple[int, tuple[HandView, ...]], ...]
    to_act: int
    active_hand: int
    viewer: int | None
    balances: tuple[int, ...]
    kitty: int
    shoot: bool


def _full_view(hand: Hand) -> HandView:
    """A hand with every card shown (the omniscient view)."""
    return HandView(
        cards=tuple(hand.cards),
        stake=hand.stake,
        initial=hand.initial,
        last_buy=hand.last_buy,
        buys=hand.buys,
        twisted=hand.twisted,
        doubled=hand.doubled,
        split=hand.split,
        shoot=hand.shoot,
        done=hand.done,
        bust=hand.bust,
        declared=hand.declared,
    )


def _snapshot(game: PontoonGame, seat: int | None) -> _Table:
    phase = game.phase.name
    title = f"Pontoon [{game.rules.preset}]  round {game.round_index}  phase {phase}"
    to_act = game.current_seat
    active = game.active_hand_index if to_act >= 0 else 0
    banker = game.banker_seat_of_round if game.players else game.banker
    if seat is None:
        banker_hands = tuple(_full_view(hand) for hand in game.banker_hands)
        players = tuple(
            (player.seat, tuple(_full_view(hand) for hand in player.hands)) for player in game.players
        )
    else:
        view = observe(game, seat)
        banker_hands, players = view.banker_hands, view.players
    return _Table(
        title=title,
        banker=banker,
        banker_hands=banker_hands,
        players=players,
        to_act=to_act,
        active_hand=active,
        viewer=seat,
        balances=tuple(game.balances),
        kitty=game.kitty,
        shoot=game.rules.shoot,
    )


# ---------------------------------------------------------------------------- text


def card_text(code: int) -> str:
    """A card as text, ``"??"`` when it is face down."""
    return "??" if code == HIDDEN else card_name(code)


def hand_summary(hand: HandView, five_card_trick: bool = False) -> str:
    """Total (of the visible cards), status and money of a hand, for one line of text.

    ``five_card_trick``: the hand's owner can make the trick (for the banker: the dealer's
    five-card trick too), so a finished hand of five visible cards says so rather than "stands".
    """
    known = hand.known_cards
    hidden = len(hand.cards) - len(known)
    total, soft = hand_total(known)
    parts = []
    if known:
        parts.append(
            ("shows " if hidden else "total ") + ("soft " if soft and not hidden else "") + str(total)
        )
    if hand.declared:
        parts.append("PONTOON")
    elif hand.bust or (known and not hidden and total > 21):  # the engine flags players' busts only
        parts.append("BUST")
    elif five_card_trick and len(known) >= FIVE_CARDS and total <= 21:
        parts.append("FIVE-CARD TRICK")
    elif hand.done and hand.cards:
        parts.append("stands")
    if hand.stake:
        parts.append(f"stake {hand.stake}")
    if hand.buys:
        parts.append(f"{hand.buys} bought (last for {hand.last_buy})")
    if hand.twisted:
        parts.append("twisted")
    if hand.doubled:
        parts.append("doubled")
    if hand.split:
        parts.append("split")
    if hand.shoot:
        parts.append(f"shoot {hand.shoot}")
    return ", ".join(parts)


def describe_option(option: LegalAction) -> str:
    """A legal action for a person: ``"buy 2..4 chips"``, ``"stick"``."""
    name = option.kind.name.lower()
    if option.kind in AMOUNT_KINDS:
        if option.min_amount == option.max_amount:
            return f"{name} {option.min_amount} chips"
        return f"{name} {option.min_amount}..{option.max_amount} chips"
    return name


def render_ansi(game: PontoonGame, seat: int | None = None) -> str:
    """The table as text, from ``seat``'s point of view (``None``: every card shown).

    Shows the phase, whose turn it is, the banker's hands, every player's hands with their stakes,
    buys and shoot bets, the kitty, the chips of every seat and, when it is ``seat``'s turn (or
    always with ``seat=None``), the legal actions.
    """
    table = _snapshot(game, seat)
    lines = [table.title]
    if table.to_act >= 0:
        who = "banker" if table.to_act == table.banker else "player"
        you = " (you)" if table.to_act == seat else ""
        lines.append(f"to act: seat {table.to_act} ({who}){you}")
    else:
        lines.append("the round is over" if game.round_index else "no round dealt yet")
    if table.shoot:
        lines.append(f"kitty: {table.kitty} chips ({game.shoot_room} open for shoot bets)")

    def label(player_seat: int, role: str) -> str:
        marks = " (you)" if player_seat == seat else ""
        return f"{role} seat {player_seat}{marks}"

    rows: list[tuple[str, str, str, str]] = []
    player_trick = game.rules.five_card_trick
    banker_trick = player_trick and game.rules.dealer_five_card_trick
    banker_active = game.phase == Phase.BANKER_TURN
    for index, hand in enumerate(table.banker_hands):
        marker = ">" if banker_active and index == table.active_hand else " "
        name = label(table.banker, "Banker") if index == 0 else ""
        rows.append((marker, name, " ".join(card_text(card) for card in hand.cards), hand_summary(hand, banker_trick)))
    if not table.banker_hands:
        rows.append((" ", label(table.banker, "Banker"), "", ""))
    for player_seat, hands in table.players:
        if not hands:
            rows.append((" ", label(player_seat, "Player"), "", "sits out"))
        for index, hand in enumerate(hands):
            acting = (
                game.phase == Phase.PLAYER_TURN and player_seat == table.to_act and index == table.active_hand
            )
            name = label(player_seat, "Player") if index == 0 else f"  hand {index + 1}"
            rows.append(
                (
                    ">" if acting else " ",
                    name,
                    " ".join(card_text(card) for card in hand.cards),
                    hand_summary(hand, player_trick),
                )
            )
    name_width = max(len(row[1]) for row in rows)
    card_width = max(len(row[2]) for row in rows)
    for marker, name, cards, summary in rows:
        lines.append(f"{marker} {name:<{name_width}} | {cards:<{card_width}} | {summary}".rstrip())
    lines.append(
        "chips: " + "  ".join(f"seat {index} {chips:+d}" for index, chips in enumerate(table.balances))
    )
    if table.to_act >= 0 and (seat is None or seat == table.to_act):
        lines.append("legal: " + ", ".join(describe_option(option) for option in game.legal_actions()))
    elif table.to_act >= 0:
        lines.append(f"waiting for seat {table.to_act}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- pixels

_FELT = (18, 92, 48)
_CARD = (250, 250, 245)
_BACK = (40, 70, 160)
_BACK_MARK = (200, 210, 240)
_RED = (200, 20, 30)
_BLACK = (10, 10, 10)
_WHITE = (240, 240, 240)
_GOLD = (250, 210, 60)
_GREY = (150, 150, 150)

# A 3x5 bitmap font for the pure-numpy fallback: enough for card names, seats and numbers.
_FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    "?": ("###", "..#", ".#.", "...", ".#."),
    "+": ("...", ".#.", "###", ".#.", "..."),
    "-": ("...", "...", "###", "...", "..."),
    ":": ("...", ".#.", "...", ".#.", "..."),
    ".": ("...", "...", "...", "...", ".#."),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    ">": ("#..", ".#.", "..#", ".#.", "#.."),
    "(": (".#.", "#..", "#..", "#..", ".#."),
    ")": (".#.", "..#", "..#", "..#", ".#."),
    "=": ("...", "###", "...", "###", "..."),
}


class _NumpyCanvas:
    """Rectangles and 3x5 bitmap text on a numpy image (the fallback without Pillow)."""

    def __init__(self, shape: tuple[int, int, int]) -> None:
        self.image = np.empty(shape, dtype=np.uint8)
        self.image[:] = _FELT

    def rect(
        self,
        box: tuple[int, int, int, int],
        fill: tuple[int, int, int],
        outline: tuple[int, int, int] | None = None,
        width: int = 1,
    ) -> None:
        x0, y0, x1, y1 = (max(0, value) for value in box)
        self.image[y0:y1, x0:x1] = fill
        if outline is not None:
            self.image[y0 : y0 + width, x0:x1] = outline
            self.image[max(y0, y1 - width) : y1, x0:x1] = outline
            self.image[y0:y1, x0 : x0 + width] = outline
            self.image[y0:y1, max(x0, x1 - width) : x1] = outline

    def text(self, xy: tuple[int, int], text: str, color: tuple[int, int, int], size: int = 12) -> None:
        scale = max(1, size // 6)
        x, y = xy
        height, width, _ = self.image.shape
        for char in text.upper():
            glyph = _FONT.get(char)
            if glyph is not None:
                for row, bits in enumerate(glyph):
                    for col, bit in enumerate(bits):
                        if bit == "#":
                            top, left = y + row * scale, x + col * scale
                            if 0 <= top < height and 0 <= left < width:
                                self.image[top : top + scale, left : left + scale] = color
            x += 4 * scale

    def result(self) -> np.ndarray:
        return self.image


class _PillowCanvas:
    """The same drawing calls on a Pillow image (nicer text)."""

    def __init__(self, shape: tuple[int, int, int]) -> None:
        from PIL import Image, ImageDraw, ImageFont

        self.image = Image.new("RGB", (shape[1], shape[0]), _FELT)
        self.draw = ImageDraw.Draw(self.image)
        self._fonts: dict[int, object] = {}
        self._font_factory = ImageFont

    def _font(self, size: int) -> object:
        if size not in self._fonts:
            try:
                self._fonts[size] = self._font_factory.load_default(size=size)
            except TypeError:  # Pillow < 10.1: one fixed bitmap font
                self._fonts[size] = self._font_factory.load_default()
        return self._fonts[size]

    def rect(
        self,
        box: tuple[int, int, int, int],
        fill: tuple[int, int, int],
        outline: tuple[int, int, int] | None = None,
        width: int = 1,
    ) -> None:
        x0, y0, x1, y1 = box
        self.draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill, outline=outline, width=width)

    def text(self, xy: tuple[int, int], text: str, color: tuple[int, int, int], size: int = 12) -> None:
        self.draw.text(xy, text, fill=color, font=self._font(size))  # type: ignore[arg-type]

    def result(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


def _canvas(shape: tuple[int, int, int], use_pillow: bool | None) -> _NumpyCanvas | _PillowCanvas:
    if use_pillow is not False:
        try:
            return _PillowCanvas(shape)
        except ImportError:
            if use_pillow:
                raise
    return _NumpyCanvas(shape)


def _draw_card(canvas: _NumpyCanvas | _PillowCanvas, x: int, y: int, w: int, h: int, code: int) -> None:
    if code == HIDDEN:
        canvas.rect((x, y, x + w, y + h), _BACK, _WHITE, 2)
        canvas.rect((x + w // 4, y + h // 4, x + w - w // 4, y + h - h // 4), _BACK_MARK)
        return
    canvas.rect((x, y, x + w, y + h), _CARD, _BLACK, 1)
    suit = SUIT_NAMES[code % 4]
    color = _RED if suit in ("H", "D") else _BLACK
    size = max(10, h // 4)
    canvas.text((x + 4, y + 3), RANK_NAMES[CARD_RANK[code]], color, size)
    canvas.text((x + 4, y + 3 + size + 2), suit, color, size)


def _draw_hands(
    canvas: _NumpyCanvas | _PillowCanvas,
    hands: Sequence[HandView],
    x: int,
    y: int,
    width: int,
    card_h: int,
    active: int | None,
    five_card_trick: bool = False,
) -> None:
    """Lay out ``hands`` left to right in a strip of ``width`` pixels, overlapping cards if needed."""
    card_w = int(card_h * 0.7)
    gap = 14
    counts = [max(1, len(hand.cards)) for hand in hands] or [1]
    # Spread the strip over the hands in proportion to their card counts.
    room = max(1, width - gap * (len(counts) - 1))
    left = x
    for index, hand in enumerate(hands):
        share = room * counts[index] // sum(counts)
        step = (
            card_w + 3
            if len(hand.cards) * (card_w + 3) <= share
            else max(6, (share - card_w) // max(1, len(hand.cards) - 1))
        )
        if index == active:
            span = card_w + step * max(0, len(hand.cards) - 1)
            canvas.rect((left - 4, y - 4, left + span + 4, y + card_h + 4), _GOLD)
        for position, card in enumerate(hand.cards):
            _draw_card(canvas, left + position * step, y, card_w, card_h, card)
        summary = hand_summary(hand, five_card_trick)
        canvas.text((left, y + card_h + 6), summary[: max(8, share // 6)], _WHITE, 11)
        left += share + gap


def render_rgb(game: PontoonGame, seat: int | None = None, *, use_pillow: bool | None = None) -> np.ndarray:
    """The table as an image of shape :data:`RGB_SHAPE` (``uint8``), from ``seat``'s point of view.

    Args:
        game: the table.
        seat: whose view (hidden cards drawn as card backs); ``None`` shows every card.
        use_pillow: ``None`` uses Pillow when installed; ``False`` forces the numpy fallback.
    """
    table = _snapshot(game, seat)
    height, width, _ = RGB_SHAPE
    canvas = _canvas(RGB_SHAPE, use_pillow)
    header = 30
    canvas.text((10, 8), table.title, _WHITE, 14)
    if table.to_act >= 0:
        canvas.text((width - 260, 8), f"to act: seat {table.to_act}", _GOLD, 14)
    rows = 1 + max(1, len(table.players))
    row_h = (height - header - 10) // rows
    card_h = max(18, min(80, row_h - 30))
    label_w = 150
    strip = width - label_w - 20

    def label(row: int, text: str, detail: str, highlight: bool) -> int:
        top = header + row * row_h
        canvas.rect((6, top + 2, width - 6, top + row_h - 2), (24, 110, 58) if row % 2 else (20, 100, 52))
        canvas.text((12, top + 6), text, _GOLD if highlight else _WHITE, 13)
        canvas.text((12, top + 24), detail, _GREY, 11)
        return top + 6

    top = label(
        0,
        f"BANKER seat {table.banker}" + (" (you)" if table.viewer == table.banker else ""),
        f"chips {table.balances[table.banker]:+d}" + (f"  kitty {table.kitty}" if table.shoot else ""),
        table.to_act == table.banker,
    )
    banker_active = table.active_hand if game.phase == Phase.BANKER_TURN else None
    tricks = game.rules.five_card_trick
    _draw_hands(canvas, table.banker_hands, label_w, top, strip, card_h, banker_active,
                tricks and game.rules.dealer_five_card_trick)
    for row, (player_seat, hands) in enumerate(table.players, start=1):
        top = label(
            row,
            f"SEAT {player_seat}" + (" (you)" if table.viewer == player_seat else ""),
            f"chips {table.balances[player_seat]:+d}",
            table.to_act == player_seat,
        )
        active = (
            table.active_hand if game.phase == Phase.PLAYER_TURN and table.to_act == player_seat else None
        )
        _draw_hands(canvas, hands, label_w, top, strip, card_h, active, tricks)
    image = canvas.result()
    assert image.shape == RGB_SHAPE and image.dtype == np.uint8
    return image
