"""Each setting declared once: a dataclass field carries its flag, type, default and help.

The command lines of ``train.py`` and ``evaluate.py`` are *derived* from their settings dataclasses
(:class:`pontoon_tools.training.TrainSettings`, :class:`pontoon_tools.evaluation.EvaluateSettings`),
as CleanRL derives its CLI from ``@dataclass Args``: there is no second list of flags to keep in
step, and ``--help`` documents every field. A field is declared with :func:`setting`::

    @dataclass
    class Settings:
        rounds: int = setting(20_000, "rounds per policy", group="what to measure")
        options: dict[str, Any] = setting(help="override one rules option (repeatable)", flag="--option",
                                          default_factory=dict, parse=parse_option, repeat=True)

How a field becomes a flag (``--`` + the field name with ``-`` for ``_`` unless ``flag`` says otherwise):

* ``bool``: a switch. A field that defaults to ``True`` is turned off by ``--no-<name>``, one that
  defaults to ``False`` is turned on by ``--<name>``; a ``bool | None`` field that defaults to
  ``None`` (decided later, e.g. by the rules) takes both, ``--<name>`` and ``--no-<name>``.
* ``int``, ``float``, ``str`` (or ``X | None``): one value, converted by the type (or by ``parse``).
* ``list[...]``: one or more values after the flag (``nargs="+"``), unless ``parse`` turns one
  string into the list (``--net-arch 64,64``).
* ``repeat=True``: the flag may be given again and again; each value goes through ``parse``, and a
  ``dict`` field collects the ``(key, value)`` pairs ``parse`` returns.

:func:`build_parser` makes the :class:`argparse.ArgumentParser`, :func:`from_args` the dataclass
from what it parsed; :func:`flag` names a field's flag for error messages.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_META = "pontoon_setting"
"""The key of a field's metadata that holds its CLI description."""


class SettingsError(ValueError):
    """A value that is not valid for a setting (the message names the flag, what was expected and got)."""


def setting(
    default: Any = dataclasses.MISSING,
    help: str = "",  # noqa: A002 (argparse's own word)
    *,
    default_factory: Callable[[], Any] | Any = dataclasses.MISSING,
    flag: str | None = None,
    group: str | None = None,
    metavar: str | None = None,
    choices: Sequence[Any] | None = None,
    parse: Callable[[str], Any] | None = None,
    repeat: bool = False,
    default_text: str | None = None,
) -> Any:
    """A dataclass field that is also a command-line flag.

    Args:
        default: the field's default (or ``default_factory`` for a mutable one).
        help: what the setting does; ``(default X)`` is appended unless ``default_text`` is ``""``.
        flag: the flag (default ``--`` + the field name with dashes; ``--no-<name>`` for a ``True`` switch).
        group: the ``--help`` section it is listed in.
        metavar, choices: as in :meth:`argparse.ArgumentParser.add_argument`.
        parse: turns one command-line string into the value (or, with ``repeat``, into one item);
            it may raise ``ValueError`` or any error with a readable message.
        repeat: the flag may be repeated; each occurrence adds one item.
        default_text: how ``--help`` shows the default (``""`` to show none).
    """
    if not help:
        raise TypeError("setting(): every setting needs a help text (it is the only documentation of the flag)")
    meta = {
        "help": help,
        "flag": flag,
        "group": group,
        "metavar": metavar,
        "choices": tuple(choices) if choices is not None else None,
        "parse": parse,
        "repeat": repeat,
        "default_text": default_text,
    }
    if default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=default_factory, metadata={_META: meta})
    return dataclasses.field(default=default, metadata={_META: meta})


_METAVARS = {int: "N", float: "X", str: "TEXT"}
"""How ``--help`` shows a value of each type when the setting names no metavar."""


def _fields(cls: type) -> list[tuple[dataclasses.Field[Any], dict[str, Any], Any]]:
    """Every CLI field of ``cls`` with its description and resolved type hint."""
    hints = typing.get_type_hints(cls)
    return [(field, field.metadata[_META], hints[field.name]) for field in dataclasses.fields(cls)
            if _META in field.metadata]


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return field.default_factory()  # type: ignore[misc]
    return field.default


def _strip_optional(hint: Any) -> Any:
    """``X | None`` -> ``X`` (and ``Optional[X]``)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(types, "UnionType", typing.Union)):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def flag(cls: type, name: str) -> str:
    """The command-line flag of field ``name`` of settings class ``cls`` (for error messages)."""
    for field, meta, hint in _fields(cls):
        if field.name == name:
            return _flag_of(field, meta, hint)
    raise KeyError(f"{cls.__name__} has no setting {name!r}")


def _flag_of(field: dataclasses.Field[Any], meta: dict[str, Any], hint: Any) -> str:
    if meta["flag"]:
        return str(meta["flag"])
    dashed = field.name.replace("_", "-")
    if _strip_optional(hint) is bool and _default(field) is True:
        return f"--no-{dashed}"
    return f"--{dashed}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)


def _checked(parse: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """``parse`` with its error message kept: argparse would replace a ``ValueError``'s by its own."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except argparse.ArgumentTypeError:
            raise
        except Exception as error:  # any parser's complaint becomes argparse's "argument --x: ..."
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = name  # argparse names the type in some messages
    return convert


def build_parser(cls: type, prog: str, description: str = "", epilog: str = "") -> argparse.ArgumentParser:
    """The argument parser of settings dataclass ``cls``: one flag per field (see the module docstring)."""
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    groups: dict[str | None, Any] = {None: parser}
    for field, meta, hint in _fields(cls):
        group_name = meta["group"]
        if group_name not in groups:
            groups[group_name] = parser.add_argument_group(group_name)
        target = groups[group_name]
        default = _default(field)
        base = _strip_optional(hint)
        help_text = str(meta["help"]).replace("%", "%%")
        shown = meta["default_text"]
        if shown is None and default is not None and default != [] and default != {} and base is not bool:
            shown = _show(default)
        if shown:
            help_text += f" (default {shown})"
        kwargs: dict[str, Any] = {"dest": field.name, "help": help_text}
        if meta["metavar"]:
            kwargs["metavar"] = meta["metavar"]
        elif meta["choices"] is None and base in _METAVARS:
            kwargs["metavar"] = _METAVARS[base]
        if meta["choices"] is not None:
            kwargs["choices"] = meta["choices"]
        name = _flag_of(field, meta, hint)
        if base is bool and default is None:  # undecided until the caller decides: both switches
            kwargs["action"] = argparse.BooleanOptionalAction
            kwargs["default"] = None
        elif base is bool:
            kwargs["action"] = "store_false" if default is True else "store_true"
            kwargs["default"] = bool(default)
        elif meta["repeat"]:
            kwargs.update(action="append", default=[], type=_checked(meta["parse"] or str, field.name))
        elif typing.get_origin(base) is list and meta["parse"] is None:
            item = (typing.get_args(base) or (str,))[0]
            kwargs.update(nargs="+", default=default, type=_checked(item, field.name))
        else:
            kwargs.update(default=default, type=_checked(meta["parse"] or base, field.name))
        target.add_argument(name, **kwargs)
    return parser


def from_args(cls: type[T], args: argparse.Namespace) -> T:
    """The settings dataclass from a namespace :func:`build_parser`'s parser returned."""
    values: dict[str, Any] = {}
    for field, meta, hint in _fields(cls):
        value = getattr(args, field.name)
        if meta["repeat"] and typing.get_origin(_strip_optional(hint)) is dict:
            value = dict(value)
        elif isinstance(value, list):
            value = list(value)
        values[field.name] = value
    return cls(**values)


def parse_settings(cls: type[T], argv: Sequence[str] | None, parser: argparse.ArgumentParser) -> T:
    """Parse ``argv`` (``sys.argv[1:]`` when ``None``) with ``parser`` into ``cls``."""
    return from_args(cls, parser.parse_args(argv))


def parse_option(text: str) -> tuple[str, Any]:
    """Parse one rules override ``key=value``: booleans, integers and floats are recognised, else a string.

    Raises:
        SettingsError: no ``=`` in the text, or no name before it.
    """
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise SettingsError(f"--option: expected key=value (for example stick_min=16), got {text!r}")
    lowered = raw.lower()
    if lowered in ("true", "yes", "on"):
        return key, True
    if lowered in ("false", "no", "off"):
        return key, False
    for cast in (int, float):
        try:
            return key, cast(raw)
        except ValueError:
            pass
    return key, raw


def parse_int_list(text: str) -> list[int]:
    """``"64,64"`` -> ``[64, 64]`` (comma-separated integers).

    Raises:
        SettingsError: a part that is not an integer.
    """
    try:
        return [int(part) for part in str(text).split(",") if part.strip()]
    except ValueError:
        raise SettingsError(f"expected comma-separated integers such as 64,64, got {text!r}") from None


def plural(count: int, word: str, many: str | None = None) -> str:
    """``"1 player"``, ``"2 players"`` (``many`` for an irregular plural)."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


__all__ = [
    "SettingsError",
    "build_parser",
    "flag",
    "from_args",
    "parse_int_list",
    "parse_option",
    "parse_settings",
    "plural",
    "setting",
]


def rules_from_flags(preset: Any, options: Any) -> Any:
    """The rules of ``--rules PRESET`` with ``--option NAME=VALUE``s; a refusal names the flag it
    came from (the game layer's :class:`~pontoon_env.game.rules.RulesError` knows no flags)."""
    from pontoon_env.game.rules import RulesError, resolve_rules

    try:
        return resolve_rules(preset, dict(options or {}))
    except RulesError as error:
        where = "--rules" if str(error).startswith("unknown preset") else "--option"
        raise RulesError(f"{where}: {error}") from None


def under_a_file(path: str | Path) -> bool:
    """True when ``path`` is a file or lies under one: no output folder can be made there."""
    folder = Path(path)
    return any(part.is_file() for part in (folder, *folder.parents))


def require_file_out(parser: argparse.ArgumentParser, flag: str, path: str | Path | None) -> None:
    """``parser.error`` (exit 2) when ``path`` cannot be written as a file: a folder, or under a file.

    Checked before a tool's work, not found by the write after it (an existing file is rewritten;
    missing folders above it are made).
    """
    if path is None or str(path) == "":
        return
    if Path(path).is_dir():
        parser.error(f"{flag}: expected a file to write, got {str(path)!r}, a folder")
    if under_a_file(Path(path).parent):
        parser.error(f"{flag}: expected a file path, got {str(path)!r}, which lies under a file")


def require_minimums(parser: argparse.ArgumentParser, *checks: tuple[str, int, int]) -> None:
    """``parser.error`` (exit 2) naming the first ``(flag, value, least)`` whose value is below its least."""
    for name, value, least in checks:
        if value < least:
            parser.error(f"{name}: expected an integer >= {least}, got {value}")
