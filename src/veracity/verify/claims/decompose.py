"""Rule-based decomposition of one sentence into atomic claims, conservatively.

Three cuts, each made only when the shallow clause reader (:mod:`.grammar`) finds a subject and
a finite verb on both sides:

1. independent clauses joined by ``;``: "Bees dance; wasps sting.";
2. independent clauses joined by ", and", ", but", ", while", ", whereas", ", yet" or a bare
   "and"/"but": "Karl von Frisch was born in 1886 and he died in 1982.";
3. predicates that share a subject, when the second verb agrees with the first: "Bees dance and
   sing." -> "Bees dance.", "Bees sing." (the second claim gets the subject copied).

Left alone: lists of noun phrases ("Bees, wasps and ants are insects.", "maintained by the YAML
and Python communities"), anything after a
subordinator or relative pronoun ("Studies show that bees dance and sing."), sentences that open
with one ("If ..., ..."), negated or modal predicates ("Bees do not hibernate and die."), a
passive followed by an ambiguous participle ("was built in 1887 and opened in 1889"), and
anything in parentheses or quotes. Every part is a sentence ending with a period, its words in
the case they are written in ("wasps sting.", "gzip runs."): the extractor records any recasing.

>>> [part.text for part in RuleDecomposer().run("Bees dance and sing.")]
['Bees dance.', 'Bees sing.']
>>> [part.text for part in RuleDecomposer().run("Bees, wasps and ants are insects.")]
['Bees, wasps and ants are insects.']
"""

from __future__ import annotations

from dataclasses import dataclass

from veracity.text.grammar import (
    ADVERBS,
    SUBORDINATORS,
    Clause,
    Token,
    VerbForm,
    cannot_be_passive,
    finish,
    read_clause,
    tokenize,
    verb_form,
)

__all__ = ["Part", "RuleDecomposer"]

_CLAUSE_JOINERS = frozenset({"and", "but", "while", "whereas", "yet"})
_BARE_JOINERS = frozenset({"and", "but"})
_OPENERS = {"(": ")", "[": "]", '"': '"', "“": "”"}
_NEXT_AFTER_WEAK = frozenset(
    "the a an his her its their this that these those in on at to from by for with into as "
    "about after before during until over it them him her us".split()
)


@dataclass(frozen=True, slots=True)
class Part:
    """One claim cut from a sentence: ``text`` as it will read, whether it is ``verbatim`` (the
    sentence's own words, in order) and the ``edits`` made to get it."""

    text: str
    verbatim: bool = True
    edits: tuple[str, ...] = ()


class RuleDecomposer:
    """Split a sentence (citation markers removed) into atomic claims by rule.

    No options: the reader's reach is ``defaults.CLAIMS_MAX_SUBJECT_WORDS``. ``run`` is pure.
    """

    def load(self) -> RuleDecomposer:
        """Nothing to load; here so every stage has the same shape."""
        return self

    def run(self, sentence: str) -> tuple[Part, ...]:
        """The claims of ``sentence``, in order; one part (the sentence) when nothing splits."""
        body = sentence.strip().rstrip(".!… ")
        tokens = tokenize(body)
        whole = (Part(finish(sentence)),) if finish(sentence) else ()
        if not tokens or tokens[0].lower in SUBORDINATORS:
            return whole
        parts: list[Part] = []
        for clause_tokens in self._clauses(tokens, body):
            parts.extend(self._predicates(clause_tokens, body))
        if len(parts) <= 1:
            return whole
        return tuple(Part(p.text, p.verbatim, ("decomposed", *p.edits)) for p in parts)

    # --- independent clauses --------------------------------------------------------------

    def _clauses(self, tokens: tuple[Token, ...], body: str) -> list[tuple[Token, ...]]:
        depth = _depths(tokens)
        pieces: list[tuple[Token, ...]] = []
        start = 0
        position = 0
        while position < len(tokens):
            cut = self._clause_cut(tokens, depth, start, position, body)
            if cut is None:
                position += 1
                continue
            left_end, right_start = cut
            pieces.append(tokens[start:left_end])
            start = position = right_start
        pieces.append(tokens[start:])
        return [piece for piece in pieces if piece]

    def _clause_cut(
        self, tokens: tuple[Token, ...], depth: list[int], start: int, position: int, body: str
    ) -> tuple[int, int] | None:
        """``(end of the left clause, start of the right one)`` when ``tokens[position]``
        joins two independent clauses, else ``None``."""
        token = tokens[position]
        if depth[position] or position == start:
            return None
        if token.text == ";":
            right = position + 1
        elif (
            token.text == ","
            and position + 1 < len(tokens)
            and tokens[position + 1].lower in _CLAUSE_JOINERS
        ):
            right = position + 2
        elif token.lower in _BARE_JOINERS and tokens[position - 1].text != ",":
            right = position + 1
        else:
            return None
        left = _clause(tokens[start:position], body)
        after = _clause(tokens[right:], body)
        if left is None or after is None:
            return None
        if token.lower in _BARE_JOINERS and _noun_phrase(after):
            return None
        if _subordinate_between(left.tokens, left.verb, len(left.tokens)):
            return None
        return position, right

    # --- predicates sharing a subject -----------------------------------------------------

    def _predicates(self, tokens: tuple[Token, ...], body: str) -> list[Part]:
        text = body[tokens[0].start : tokens[-1].end]
        clause = _clause(tokens, body)
        if (
            clause is None
            or clause.negated
            or clause.form.tense == "modal"
            or tokens[clause.verb].lower in ("do", "does", "did")
            or clause.verb == clause.start
        ):
            return [Part(finish(text))]
        depth = _depths(tokens)
        cuts: list[tuple[int, int]] = []  # (end of the previous predicate, start of the next)
        position = clause.verb_end
        while position < len(tokens):
            token = tokens[position]
            if depth[position]:
                position += 1
                continue
            if token.lower in SUBORDINATORS:
                break
            joined = _predicate_start(tokens, position, clause)
            if joined is not None:
                cuts.append((position, joined))
                position = joined
            position += 1
        if not cuts:
            return [Part(finish(text))]
        subject = clause.subject_text
        parts = [Part(finish(body[tokens[0].start : tokens[cuts[0][0] - 1].end]))]
        for number, (_, begin) in enumerate(cuts):
            end = cuts[number + 1][0] if number + 1 < len(cuts) else len(tokens)
            predicate = body[tokens[begin].start : tokens[end - 1].end]
            parts.append(
                Part(
                    finish(f"{subject} {predicate}"),
                    verbatim=False,
                    edits=(f"subject copied: {subject!r}",),
                )
            )
        return parts


def _clause(tokens: tuple[Token, ...], body: str) -> Clause | None:
    return read_clause(tokens, body) if tokens else None


def _noun_phrase(clause: Clause) -> bool:
    """Whether ``clause`` may be a noun phrase read as a clause: a verb guessed from an ``-s``
    or ``-ed`` ending with no word right after it ("the YAML and Python communities": not
    "Python communities" doing something; "the rate and the amount deposited, meaning ...")."""
    following = clause.tokens[clause.verb + 1 : clause.verb + 2]
    return clause.form.weak and not any(token.is_word for token in following)


def _depths(tokens: tuple[Token, ...]) -> list[int]:
    """How deep inside parentheses, brackets or quotes each token is (0 outside)."""
    depths: list[int] = []
    stack: list[str] = []
    for token in tokens:
        if stack and token.text == stack[-1]:
            stack.pop()
            depths.append(len(stack) + 1)
            continue
        depths.append(len(stack))
        if token.text in _OPENERS:
            stack.append(_OPENERS[token.text])
            depths[-1] = len(stack)
    return depths


def _subordinate_between(tokens: tuple[Token, ...], start: int, end: int) -> bool:
    return any(token.lower in SUBORDINATORS for token in tokens[start:end])


def _predicate_start(tokens: tuple[Token, ...], position: int, clause: Clause) -> int | None:
    """Where a second predicate starts when ``tokens[position]`` ("and", or a comma before a
    verb) joins one to the clause's first, else ``None``."""
    token = tokens[position]
    if token.lower == "and":
        begin = position + 1
    elif token.text == "," and position + 1 < len(tokens):
        begin = position + 2 if tokens[position + 1].lower == "and" else position + 1
    else:
        return None
    verb = begin
    while verb < len(tokens) and tokens[verb].lower in ADVERBS - {"not", "never"}:
        verb += 1
    if verb >= len(tokens):
        return None
    form = verb_form(tokens[verb], None)
    if form is None or not _agrees(clause, form, tokens[verb]):
        return None
    if form.weak:
        following = tokens[verb + 1] if verb + 1 < len(tokens) else None
        if (
            following is not None
            and following.lower not in _NEXT_AFTER_WEAK
            and not following.text[0].isdigit()
        ):
            return None
    if token.text == "," and tokens[position + 1].lower != "and" and form.weak:
        return None
    return begin


def _agrees(clause: Clause, form: VerbForm, token: Token) -> bool:
    """Whether a second verb ``token`` of ``form`` can share the subject of ``clause``."""
    if form.tense == "modal":
        return True
    if form.tense != clause.form.tense:
        return False
    # "was born in 1886 and raised in Vienna": the participle shares "was"; only a verb that
    # cannot be passive ("died", "became") starts a predicate of its own.
    return not (clause.passive and form.tense == "past" and not cannot_be_passive(token))
