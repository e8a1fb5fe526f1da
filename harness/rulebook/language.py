"""The rulebooks' languages (語言): simplified Chinese, traditional Chinese and English, and the
conversion of traditional text to simplified (OpenCC)."""

from __future__ import annotations

import functools
import re
from enum import StrEnum
from typing import Protocol, cast

from harness.errors import UsageError


class Lang(StrEnum):
    """A rulebook language, by its BCP 47 tag."""

    ZH_HANS = "zh-Hans"
    ZH_HANT = "zh-Hant"
    EN = "en"

    @property
    def written(self) -> Lang:
        """The language a template is written in for this one: zh-Hans is converted from
        zh-Hant unless a template writes it."""
        return Lang.ZH_HANT if self is Lang.ZH_HANS else self

    @property
    def chinese(self) -> bool:
        """Whether the language is a Chinese script (no spaces between words)."""
        return self is not Lang.EN


LANGS: tuple[Lang, ...] = tuple(Lang)
"""Every rulebook language, simplified Chinese first (the default for Chinese readers)."""


def parse_lang(text: str) -> Lang:
    """A language from its tag, or a usage error naming the tags there are."""
    try:
        return Lang(text)
    except ValueError:
        tags = ", ".join(lang.value for lang in LANGS)
        raise UsageError(f"unknown language {text!r}: expected one of {tags}") from None


class _Converter(Protocol):
    def convert(self, text: str) -> str: ...


@functools.cache
def _t2s() -> _Converter:
    # OpenCC's own tables (a maintained converter, from PyPI): character and phrase level,
    # which a character table alone gets wrong (乾 in 乾淨 and 乾隆).
    import opencc

    return cast(_Converter, opencc.OpenCC("t2s"))


def simplified(text: str) -> str:
    """Traditional Chinese text in simplified characters (繁轉簡, OpenCC t2s)."""
    return _t2s().convert(text)


_QUOTED = re.compile(r"(「[^「」]*」)")
"""A source's words quoted in Chinese prose, kept as written in every script."""


def simplified_keeping_quotes(text: str) -> str:
    """Traditional Chinese prose in simplified characters, the source's words it quotes
    between 「」 kept as written (OpenCC t2s outside them)."""
    return "".join(p if _QUOTED.fullmatch(p) else simplified(p) for p in _QUOTED.split(text))


def in_script(text: str, lang: Lang) -> str:
    """Chinese source text as the reader of `lang` reads it: simplified for zh-Hans, as
    written otherwise."""
    return simplified(text) if lang is Lang.ZH_HANS else text
