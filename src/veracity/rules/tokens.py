"""Code-like tokens of a text: paths, URLs, identifiers, flags, versions, quoted strings.

Each token is a :class:`~veracity.rules.values.Value` of kind ``code``; its ``unit``
is its class, and tokens compare only within a class (see :func:`compare_tokens`):

- ``path``: ``/bin/bash``, ``~/.bashrc``, ``./configure``, ``C:\\Windows``, ``src/main.py`` (a
  relative path needs two slashes or a file extension) and file names with a known extension
  (``squid.conf``, ``README.md``);
- ``url``: ``https://gnu.org/software/gzip/``, ``www.squid-cache.org``, ``gnu.org``; normalised
  without scheme, ``www.`` and trailing slash, host in lower case;
- ``email``: ``bug-gzip@gnu.org``, in lower case;
- ``flag``: ``--verbose``, ``--level=9``, ``-rf`` (one dash: one or two letters);
- ``version``: ``1.2.13``, ``v2.0`` (two dots, or one after a ``v``); a plain ``3.11`` is a
  number of :mod:`.values`;
- ``symbol``: ``cache_effective_user``, ``getElementById``, ``PowerPoint`` (an inner capital;
  not ``McDonald``), ``os.path.join`` (two dots, or a call ``re.compile()``); compared without
  case;
- ``name``: a lower-case name that the text marks as one: hyphenated with a digit
  (``utf-8``) or right after a cue noun (``user www-data``, ``command apt-get``: see
  :data:`CUE_NOUNS`; not before one, where hyphenated adjectives are: "third-party
  library"), the value of a configuration line (``cache_effective_user proxy``,
  ``user=proxy``), or a single word in backticks or quotes (```sync```, ``'proxy'``);
- ``quoted``: several words in backticks or quotes (``"In God We Trust"``), without case,
  spacing or end punctuation.

Text in backticks or quotes takes the class of its content when that is one token (``\\`/bin/sh\\```
is a ``path``). Spans never overlap: the first rule in the order above wins, and a token never cuts
through a value of :func:`~veracity.rules.values.extract_values` (``3.11`` stays a
number; ``--level=9`` is a flag holding the number 9).

>>> [(t.unit, t.value) for t in extract_tokens("Run `gzip -9` as user www-data, see /etc/gzip.")]
[('quoted', 'gzip -9'), ('name', 'www-data'), ('path', '/etc/gzip')]
>>> compare_tokens(extract_tokens("/bin/bash")[0], extract_tokens("/bin/sync")[0])
'conflict'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veracity.rules.values import Relation, Value, extract_values
from veracity.types import Span

__all__ = ["CUE_NOUNS", "TOKEN_CLASSES", "compare_tokens", "extract_tokens"]

#: The classes of code-like tokens (``Value.unit`` of a ``code`` value), in order of precedence.
TOKEN_CLASSES = ("url", "email", "path", "flag", "version", "symbol", "name", "quoted")
#: Nouns that mark the lower-case hyphenated word right after them as a name ("user www-data").
CUE_NOUNS = frozenset(
    "user users group account package packages command commands program utility tool binary "
    "daemon service module library function method variable option flag setting directive "
    "parameter field key host hostname branch tag image container repository repo file "
    "directory folder shell".split()
)

# File extensions that are not English words, so that "it works.so then" is no file name.
_EXTENSIONS = (
    "conf|cfg|ini|txt|md|rst|py|pyc|js|ts|json|yaml|yml|toml|xml|html|css|csv|log|sh|"
    "bash|zsh|c|h|cc|cpp|hpp|java|rb|rs|php|sql|db|sqlite|gz|tgz|bz2|xz|zip|tar|"
    "deb|rpm|exe|dll|dylib|jar|whl|pem|crt|pdf|png|jpg|jpeg|gif|svg|cmake|bat|"
    "ps1|lua|swift|kt|vim"
)
_TLDS = "com|org|net|io|edu|gov|dev|info|co\\.uk|de|fr|uk"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "url",
        re.compile(
            r"(?<![\w@/.])(?:https?|ftp)://[^\s<>\"'`)\]]+"
            r"|(?<![\w@/.])www\.[\w-]+(?:\.[\w-]+)+(?:/[^\s<>\"'`)\]]*)?"
            r"|(?<![\w@/.-])[a-z][\w-]*(?:\.[a-z][\w-]*)*\.(?:"
            + _TLDS
            + r")(?:/[^\s<>\"'`)\]]*)?(?![\w@-])"
        ),
    ),
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    (
        "path",
        re.compile(
            r"(?<![\w/\\.<-])(?:~|\.{1,2})?/(?:[\w.+@-]+/)*[\w.+@-]*[\w+@-]/?(?!>)"
            r"|(?<![\w/\\])[A-Za-z]:\\(?:[\w .+-]+\\)*[\w.+-]+"
            r"|(?<![\w/\\.-])[\w.+-]+(?:/[\w.+-]+){2,}"
            r"|(?<![\w/\\.-])(?:[\w+-]+/)*[\w+-]+\.(?:" + _EXTENSIONS + r")(?![\w/-])"
        ),
    ),
    (
        "flag",
        re.compile(
            r"(?<![\w-])--[A-Za-z][\w-]*(?:=[^\s,;)\]]+)?|(?<![\w-])-[A-Za-z]{1,2}"
            r"(?=[\s,;)\]]|\Z)"
        ),
    ),
    (
        "version",
        re.compile(
            r"(?<![\w.])(?:v\d+(?:\.\d+)+|\d+\.\d+\.\d+(?:\.\d+)*)"
            r"(?:[-+][0-9A-Za-z.]+)?(?![\w.]*\w)"
        ),
    ),
    (
        "symbol",
        re.compile(
            r"(?<![\w.])_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*(?![\w])"
            r"|(?<![\w.])[a-z]+[A-Z][A-Za-z0-9]*(?![\w])"
            r"|(?<![\w.])(?!Mc|Mac|De|Di|Da|La|Le|Van|Von)[A-Z][a-z0-9]+"
            r"[A-Z][A-Za-z0-9]*[a-z0-9][A-Za-z0-9]*(?![\w'’])"
            r"|(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}(?![\w.]*\w)"
            r"|(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?=\()"
        ),
    ),
)
_HYPHENATED = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_CONFIG_LINE = re.compile(
    r"^[ \t]*#?[ \t]*(?P<key>[A-Za-z][\w.-]*[_.][\w.-]*)(?:[ \t]*[=:][ \t]*"
    r"|[ \t]+)(?P<value>[^\s#=:]+)[ \t]*$",
    re.MULTILINE,
)
_ASSIGNMENT = re.compile(r"(?<![\w.-])[A-Za-z][\w.-]*=(?P<value>[\w/-]+(?:\.[\w/-]+)*)")
_QUOTED = re.compile(
    r"`(?P<bt>[^`\n]{1,80})`|(?<![\w\"])\"(?P<dq>[^\"\n]{1,80})\"(?![\w\"])"
    r"|“(?P<cq>[^”\n]{1,80})”|(?<![\w'’])'(?P<sq>[^'\n]{1,80})'(?![\w'])"
    r"|(?<![\w'’])‘(?P<csq>[^’\n]{1,80})’(?![\w])"
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_PLAIN_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_END_PUNCTUATION = ".,;:!?)]}>'\""


def extract_tokens(text: str, *, values: Sequence[Value] | None = None) -> tuple[Value, ...]:
    """Every code-like token of ``text``, in order of position (see the module docstring).

    ``values`` are the text's :func:`~veracity.rules.values.extract_values`, when
    the caller has them already.

    >>> [(t.unit, t.text) for t in extract_tokens("Set cache_effective_user=proxy in squid.conf")]
    [('symbol', 'cache_effective_user'), ('name', 'proxy'), ('path', 'squid.conf')]
    """
    taken = [value.span for value in (extract_values(text) if values is None else values)]
    found: list[Value] = []
    for match in _QUOTED.finditer(text):
        group = next(name for name in ("bt", "dq", "cq", "sq", "csq") if match[name] is not None)
        inner = _trimmed(text, match.start(group), match.end(group))
        if inner is None or inner in taken:  # "'45%'" is a value; "`gzip -9`" is code
            continue
        content = inner.of(text)
        token = _single(content) or _classify_word(content, quoted=True)
        if token is None:
            token = ("quoted", " ".join(content.lower().split()).strip(_END_PUNCTUATION))
        if token[1] and (token[0] != "quoted" or sum(c.isalnum() for c in content) > 1):
            found.append(Value("code", content, inner, token[1], token[0]))
    for cls, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = _trimmed(text, match.start(), match.end())
            if cls == "symbol" and _abbreviation(match.group()):
                continue
            if (
                span is None
                or _overlaps(span, [v.span for v in found])
                or _overlaps(span, [v for v in taken if not _inside(v, span)])
            ):
                continue  # a token may hold a number ("--level=9"), not cut one ("5.2.x")
            found.append(Value("code", span.of(text), span, _normalise(cls, span.of(text)), cls))
    for span in _marked_names(text):
        if not _overlaps(span, taken) and not _overlaps(span, [v.span for v in found]):
            found.append(Value("code", span.of(text), span, span.of(text).lower(), "name"))
    return tuple(sorted(found, key=lambda value: value.span.start))


def _abbreviation(text: str) -> bool:
    """ "U.S.A." and "U.S.S.R.": dotted letters, not a dotted name."""
    return "." in text and all(len(part) <= 1 for part in text.split("."))


def _trimmed(text: str, start: int, end: int) -> Span | None:
    """The span without surrounding spaces and sentence punctuation (a URL's last dot)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".,;:!?"):
        end -= 1
    return Span(start, end) if end > start else None


def _inside(inner: Span, outer: Span) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end and inner != outer


def _overlaps(span: Span, others: Sequence[Span]) -> bool:
    return any(span.start < other.end and other.start < span.end for other in others)


def _single(content: str) -> tuple[str, str] | None:
    """The class and normalised form of ``content`` when it is exactly one token."""
    for cls, pattern in _PATTERNS:
        match = pattern.fullmatch(content.strip())
        if match is not None:
            return cls, _normalise(cls, match.group())
    return None


def _classify_word(content: str, *, quoted: bool) -> tuple[str, str] | None:
    """A single lower-case word (``"proxy"``, ```sync```) in quotes is a ``name``."""
    word = content.strip()
    if quoted and len(word) > 1 and _PLAIN_WORD.fullmatch(word):
        return "name", word
    return None


def _marked_names(text: str) -> list[Span]:
    """Lower-case names marked by their surroundings (see ``name`` in the module docstring)."""
    spans = [
        Span(m.start("value"), m.end("value"))
        for m in _CONFIG_LINE.finditer(text)
        if _PLAIN_WORD.fullmatch(m["value"])
    ]
    spans += [
        Span(m.start("value"), m.end("value"))
        for m in _ASSIGNMENT.finditer(text)
        if _PLAIN_WORD.fullmatch(m["value"])
    ]
    for match in _HYPHENATED.finditer(text):
        if any(c.isdigit() for c in match.group()) or _next_to_cue(text, match):
            spans.append(Span(match.start(), match.end()))
    return spans


def _next_to_cue(text: str, match: re.Match[str]) -> bool:
    before = list(_WORD.finditer(text, max(0, match.start() - 30), match.start()))
    return (
        bool(before)
        and before[-1].group().lower() in CUE_NOUNS
        and text[before[-1].end() : match.start()].strip() == ""
    )


def _normalise(cls: str, text: str) -> str:
    if cls == "url":
        value = re.sub(r"^(?:https?|ftp)://", "", text, flags=re.IGNORECASE)
        value = re.sub(r"^www\.", "", value, flags=re.IGNORECASE).rstrip("/")
        host, slash, rest = value.partition("/")
        return host.lower() + slash + rest
    if cls == "path":
        if re.match(r"[A-Za-z]:\\", text):
            return text.lower().rstrip("\\")
        return text.rstrip("/") or "/"
    if cls == "version":
        return text.lstrip("v")
    if cls == "flag":
        return text
    return text.lower()


# --- comparison ---------------------------------------------------------------------------------


def compare_tokens(claim: Value, evidence: Value) -> Relation:
    """How a claim token stands to an evidence token: match, conflict, vaguer or incomparable.

    Tokens of different classes are ``incomparable``; equal normalised forms ``match``.
    Otherwise they ``conflict``, except: a path that ends the other at a ``/`` (``squid.conf``
    in ``/etc/squid/squid.conf``) matches when the evidence is the longer one and is ``vaguer``
    otherwise, and a path that is a directory of the other (``/bin`` of ``/bin/sync``) is
    ``incomparable``; URLs likewise by prefix; a version is ``vaguer`` than one that extends it
    (``1.2`` vs ``1.2.13`` matches, ``1.2.13`` vs ``1.2`` is ``vaguer``).

    >>> gnu = extract_tokens("https://www.gnu.org/software/gzip/")[0]
    >>> compare_tokens(gnu, extract_tokens("gnu.org/software/gzip")[0])
    'match'
    """
    if claim.kind != "code" or evidence.kind != "code" or claim.unit != evidence.unit:
        return "incomparable"
    mine, theirs = claim.value, evidence.value
    if mine == theirs:
        return "match"
    if claim.unit == "path":
        if _ends_with(theirs, mine, "/\\"):
            return "match"
        if _ends_with(mine, theirs, "/\\"):
            return "vaguer"
        if _starts_with(mine, theirs, "/\\") or _starts_with(theirs, mine, "/\\"):
            return "incomparable"
    if claim.unit == "url":
        if _starts_with(theirs, mine, "/"):
            return "match"
        if _starts_with(mine, theirs, "/"):
            return "vaguer"
    if claim.unit == "version":
        if _starts_with(theirs, mine, "."):
            return "match"
        if _starts_with(mine, theirs, "."):
            return "vaguer"
    return "conflict"


def _ends_with(longer: str, shorter: str, separators: str) -> bool:
    return (
        len(longer) > len(shorter)
        and longer.endswith(shorter)
        and (longer[-len(shorter) - 1] in separators or shorter[0] in separators)
    )


def _starts_with(longer: str, shorter: str, separators: str) -> bool:
    return (
        len(longer) > len(shorter)
        and longer.startswith(shorter)
        and (longer[len(shorter)] in separators or shorter[-1] in separators)
    )
