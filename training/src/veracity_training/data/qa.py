"""Claims made from question-answer sets: SQuAD (+SQuADShifts), QED (NQ), CPKC and HaluEval.

For one (paragraph, question, answer) the question and answer are rewritten as a statement
(:mod:`veracity_training.data.qa_rules`) and paired four ways:

* ``qa_statement`` (supported): the statement against its paragraph;
* ``qa_answer_swap`` (contradicted): the answer replaced by another span of the same type (year,
  date, number, capitalised name) found in the same paragraph;
* ``qa_sentence_removed`` (neither): the paragraph without the one sentence that holds the answer;
* ``qa_other_paragraph`` (neither): another paragraph of the same article that lacks the answer.

CPKC passages state a counterfactual answer: the statement with the passage's answer is
``qa_counterfactual`` (supported) and with the real-world answer ``qa_real_world_answer``
(contradicted) - judged by the document, not by memory.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from veracity.text.verbs import AUXILIARIES, BASE_VERBS, IRREGULAR_PAST
from veracity_training.data.perturb import attributive
from veracity_training.data.qa_answers import answer_fits, answer_ok
from veracity_training.data.qa_rules import Statement, fallback, rewrite
from veracity_training.data.schema import DataLabel, Row
from veracity_training.data.sources import digest, read_jsonl
from veracity_training.data.text import (
    DATE,
    MONTHS,
    NUMBER,
    YEAR,
    clean,
    content_tokens,
    core_words,
    detokenize,
    entities,
    name_class,
    novel_tokens,
    sentences,
    word_count,
)

__all__ = [
    "QAItem",
    "answer_type",
    "build_halueval",
    "build_qa",
    "load_cpkc",
    "load_qed",
    "load_squad",
    "remove_answer_sentence",
    "swap_answer",
]

SQUAD_FILES = (
    "amazon_reviews_v1.0.json",
    "new_wiki_v1.0.json",
    "nyt_v1.0.json",
    "reddit_v1.0.json",
    "squaddev_v1.1.json",
)
#: Articles with more paragraphs than this are collections of unrelated texts (SQuADShifts
#: Reddit is one "article" of 2,035 comments): each paragraph is then its own group.
_MAX_ARTICLE_PARAGRAPHS = 120
_MAX_PREMISE_WORDS = 600
#: At most this share of the statements may use the fallback wording.
FALLBACK_SHARE = 0.08


@dataclass(frozen=True, slots=True)
class QAItem:
    """One question whose answer is in ``paragraphs[index]`` of an article.

    ``real_answer`` is only set for CPKC: the real-world answer the passage does not support.
    """

    qid: str
    question: str
    answer: str
    paragraphs: tuple[str, ...]
    index: int
    group: str
    real_answer: str = ""


# --- loading ----------------------------------------------------------------------------------


def load_squad(folder: Path, stats: Counter[str]) -> list[QAItem]:
    """SQuAD v1.1 dev and SQuADShifts, minus the paragraphs listed in eval_overlap_paragraphs."""
    overlap = json.loads((folder / "eval_overlap_paragraphs.json").read_text(encoding="utf-8"))
    skip = {(str(o["file"]), str(o["title"]), int(o["paragraph_index"])) for o in overlap}
    items: list[QAItem] = []
    for name in SQUAD_FILES:
        data = json.loads((folder / "original" / name).read_text(encoding="utf-8"))
        removed_path = folder / "original" / name.replace(".json", "_removed.json")
        removed: set[str] = set()
        if removed_path.exists():
            removed = set(json.loads(removed_path.read_text(encoding="utf-8"))["removed"])
        for article in data["data"]:
            title = str(article["title"])
            kept = []
            for i, p in enumerate(article["paragraphs"]):
                if (name, title, i) in skip:
                    stats["dropped_eval_overlap_paragraph"] += 1
                else:
                    kept.append((i, p))
            paragraphs = tuple(clean(str(p["context"])) for _, p in kept)
            split_up = len(paragraphs) > _MAX_ARTICLE_PARAGRAPHS
            for position, (i, paragraph) in enumerate(kept):
                group = f"squad:{name}:{title}" + (f":{i}" if split_up else "")
                scope = (paragraphs[position],) if split_up else paragraphs
                for qa in paragraph["qas"]:
                    if qa["id"] in removed or not qa["answers"]:
                        continue
                    items.append(
                        QAItem(
                            qid=str(qa["id"]),
                            question=str(qa["question"]),
                            answer=clean(str(qa["answers"][0]["text"])),
                            paragraphs=scope,
                            index=0 if split_up else position,
                            group=group,
                        )
                    )
    return items


def load_qed(path: Path, stats: Counter[str]) -> list[QAItem]:
    """QED (Natural Questions): paragraphs grouped by Wikipedia title."""
    raws = [r for r in read_jsonl(path, stats=stats) if r.get("answers")]
    by_title: dict[str, list[str]] = {}
    for raw in raws:
        paragraph = detokenize(str(raw["paragraph"]))
        siblings = by_title.setdefault(str(raw["title"]), [])
        if paragraph not in siblings:
            siblings.append(paragraph)
    frozen = {title: tuple(ps) for title, ps in by_title.items()}
    items: list[QAItem] = []
    for raw in raws:
        title = str(raw["title"])
        paragraph = detokenize(str(raw["paragraph"]))
        items.append(
            QAItem(
                qid=str(raw["id"]),
                question=detokenize(str(raw["question"])),
                answer=detokenize(str(raw["answers"][0])),
                paragraphs=frozen[title],
                index=frozen[title].index(paragraph),
                group=f"qed:{title}",
            )
        )
    return items


def load_cpkc(path: Path, stats: Counter[str]) -> list[QAItem]:
    """CPKC: NQ passages whose answer entity was substituted."""
    items: list[QAItem] = []
    for raw in read_jsonl(path, stats=stats):
        options = raw.get("other_options") or []
        if not options:
            continue
        context = detokenize(str(raw["context"]))
        items.append(
            QAItem(
                qid=str(raw["id"]),
                question=detokenize(str(raw["question"])),
                answer=detokenize(str(raw["context_answer"])),
                paragraphs=(context,),
                index=0,
                group=f"cpkc:{raw['id']}",
                real_answer=detokenize(str(options[0])),
            )
        )
    return items


# --- the four pairings --------------------------------------------------------------------------


def answer_type(answer: str) -> str | None:
    """``year``, ``date``, ``number`` or ``name`` when the whole answer is one such span."""
    if YEAR.fullmatch(answer):
        return "year"
    if DATE.fullmatch(answer):
        return "date"
    wordy = re.search(r"[A-Za-z]{3,}.*[A-Za-z]{3,}.*[A-Za-z]{3,}", answer)
    if len(answer.split()) <= 4 and len(NUMBER.findall(answer)) == 1 and not wordy:
        return "number"
    spans = entities(answer)
    if len(spans) == 1 and spans[0][2] == answer and answer.split()[0] not in MONTHS:
        return "name"
    return None


def _date_form(text: str) -> str:
    """Which spelling a date uses: "dmy", "mdy" or "my" (month and year only)."""
    match = DATE.fullmatch(text)
    if match is None:
        return ""
    return "dmy" if match.group("dmy_d") else "mdy" if match.group("mdy_d") else "my"


def _number_value(text: str) -> float | None:
    match = NUMBER.search(text)
    if not match:
        return None
    return float(match.group(0).replace(",", ""))


def swap_answer(
    statement: Statement,
    passage: str,
    question: str,
    rng: random.Random,
    *,
    sibling_answers: frozenset[str] = frozenset(),
) -> Statement | None:
    """The statement with its answer swapped for another same-type span of the passage.

    For a name the replacement is, by preference, the answer to another question of the same
    article asked with the same wh-word (so a person stays a person); failing that, another name
    of the passage of the same keyword class (organisation, place, event). Plain capitalised
    names with no class ("Super Bowl", "Cam Newton") are never swapped for one another blindly.
    """
    answer = statement.answer
    kind = answer_type(answer)
    if kind is None:
        return None
    candidates: set[str] = set()
    if kind == "year":
        candidates = {m.group(0) for m in YEAR.finditer(passage)}
    elif kind == "date":
        form = _date_form(answer)
        candidates = {m.group(0) for m in DATE.finditer(passage) if _date_form(m.group(0)) == form}
    elif kind == "number":
        value = _number_value(answer)
        match = NUMBER.search(answer)
        year_like = match is not None and YEAR.fullmatch(match.group(0)) is not None
        for found in NUMBER.finditer(passage):
            other = float(found.group(0).replace(",", ""))
            if match is None or other == value:
                continue
            if (YEAR.fullmatch(found.group(0)) is not None) != year_like:
                continue  # a year only for a year, a count only for a count
            if re.search(rf"(?:{'|'.join(MONTHS)})\s*$", passage[: found.start()]):
                continue  # the day of a date ("July 5") is not a count
            candidates.add(answer[: match.start()] + found.group(0) + answer[match.end() :])
    else:
        if question.lower().startswith("where"):
            return None  # places nest ("Santa Clara" is in "the Bay Area"): a swap may stay true
        answer_words = core_words(answer)
        text_low = statement.text.lower()
        passage_low = f" {passage.lower()} "
        n = len(answer.split())
        kind_of_name = name_class(answer)
        siblings = {
            s
            for s in sibling_answers
            if s.lower() in passage_low
            and not core_words(s) & answer_words
            and s.lower() not in text_low
            and answer_type(s) == "name"
        }
        if siblings:
            return statement.with_answer(rng.choice(sorted(siblings)))
        if kind_of_name not in {"org", "place", "event"}:
            return None
        for sentence in sentences(passage):
            for _, end, name in entities(sentence):
                words = name.split()
                if abs(len(words) - n) > 1 or core_words(name) & answer_words:
                    continue
                if name.lower() in text_low or name.split()[0] in MONTHS:
                    continue
                if name_class(name) != kind_of_name or attributive(sentence, end):
                    continue
                if len(words) == 1 and f" {name.lower()} " in passage_low:
                    continue  # also written in lower case: a common word, not a name
                candidates.add(name)
    candidates.discard(answer)
    candidates = {c for c in candidates if c.lower() not in answer.lower()}
    if not candidates:
        return None
    return statement.with_answer(rng.choice(sorted(candidates)))


def remove_answer_sentence(premise: str, answer: str) -> str | None:
    """The premise without the one sentence that holds the answer, or ``None`` when the answer
    is in no sentence or in more than one, or when a content word of the answer survives."""
    low_answer = answer.lower()
    hits = [(p, s) for p in premise.split("\n\n") for s in sentences(p) if low_answer in s.lower()]
    if len(hits) != 1:
        return None
    paragraph, sentence = hits[0]
    kept = [
        p if p != paragraph else paragraph.replace(sentence, " ") for p in premise.split("\n\n")
    ]
    rest = clean("\n\n".join(kept))
    if word_count(rest) < 12:
        return None
    rest_low = rest.lower()
    if any(token in rest_low for token in content_tokens(answer)) or low_answer in rest_low:
        return None
    return rest


def _premise(item: QAItem, rng: random.Random) -> str:
    """The answering paragraph, sometimes with its neighbour (a document is rarely one
    paragraph)."""
    own = item.paragraphs[item.index]
    n = len(item.paragraphs)
    if n > 1 and rng.random() < 0.3:
        j = item.index + 1 if item.index + 1 < n else item.index - 1
        pair = [own, item.paragraphs[j]] if j > item.index else [item.paragraphs[j], own]
        joined = "\n\n".join(pair)
        if word_count(joined) <= _MAX_PREMISE_WORDS:
            return joined
    return own


_YES_NO = re.compile(
    r"^(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b", re.IGNORECASE
)


def _fallback_ok(question: str, answer: str) -> bool:
    """The fallback wording only for wh-questions with a short phrase as the answer."""
    return (
        not _YES_NO.match(question.strip())
        and answer_fits(question, answer)
        and answer_ok(question, answer)
    )


def _statement(item: QAItem, passage: str) -> Statement | None:
    statement = rewrite(item.question, item.answer, passage=passage)
    if statement is None and _fallback_ok(item.question, item.answer):
        statement = fallback(item.question, item.answer)
    if statement is None or word_count(statement.text) > 60:
        return None
    return statement


def _wh_word(question: str) -> str:
    """The question word ("who", "which", ...), skipping a leading preposition."""
    for token in question.lower().split()[:3]:
        if token in {"who", "whom", "what", "which", "when", "where", "why", "how"}:
            return token
    return ""


def build_qa(
    items: list[QAItem],
    *,
    source: str,
    quotas: Mapping[str, int],
    seed: int,
    stats: Counter[str],
) -> list[Row]:
    """Rows for one QA source: questions visited in a seeded order until every quota is full."""
    rng = random.Random(f"{seed}:qa:{source}")
    order = sorted(items, key=lambda it: (it.group, it.qid))
    collected: dict[tuple[str, str], set[str]] = {}
    for it in order:
        collected.setdefault((it.group, _wh_word(it.question)), set()).add(it.answer)
    siblings = {key: frozenset(values) for key, values in collected.items()}
    rng.shuffle(order)
    counts: Counter[str] = Counter()
    rows: list[Row] = []
    statements = 0
    fallbacks = 0

    def add(kind: str, premise: str, hypothesis: str, label: DataLabel, item: QAItem) -> None:
        counts[kind] += 1
        rows.append(
            Row(
                id=f"{source}-{kind}-{digest(item.qid + premise + hypothesis)}",
                premise=premise,
                hypothesis=hypothesis,
                label=label,
                source=source,
                kind=kind,
                group=item.group,
            )
        )

    def room(kind: str) -> bool:
        return counts[kind] < quotas.get(kind, 0)

    for item in order:
        if all(not room(kind) for kind in quotas):
            break
        premise = _premise(item, rng)
        if word_count(premise) > _MAX_PREMISE_WORDS:
            stats["skipped_long_premise"] += 1
            continue
        if item.answer.lower() not in premise.lower():
            stats["skipped_answer_not_in_premise"] += 1
            continue
        statement = _statement(item, premise)
        if statement is None:
            stats["skipped_no_rule"] += 1
            continue
        if statement.rule == "fallback":
            if fallbacks >= FALLBACK_SHARE * max(statements, 50):
                stats["skipped_fallback_cap"] += 1
                continue
            fallbacks += 1
        statements += 1
        stats[f"rule:{statement.rule}"] += 1
        claim = statement.text
        if item.real_answer:
            real = item.real_answer
            if real.lower() in premise.lower() or real.lower() == item.answer.lower():
                continue
            if room("qa_counterfactual"):
                add("qa_counterfactual", premise, claim, "supported", item)
            if room("qa_real_world_answer"):
                add("qa_real_world_answer", premise, statement.with_answer(real).text,
                    "contradicted", item)  # fmt: skip
        elif room("qa_statement"):
            add("qa_statement", premise, claim, "supported", item)
        if room("qa_answer_swap"):
            key = (item.group, _wh_word(item.question))
            swapped = swap_answer(
                statement,
                premise,
                item.question,
                rng,
                sibling_answers=siblings.get(key, frozenset()),
            )
            if swapped is not None:
                add("qa_answer_swap", premise, swapped.text, "contradicted", item)
        if room("qa_sentence_removed"):
            rest = remove_answer_sentence(premise, item.answer)
            if rest is not None and novel_tokens(claim, rest):
                add("qa_sentence_removed", rest, claim, "neither", item)
        if room("qa_other_paragraph") and len(item.paragraphs) > 1:
            others = [p for i, p in enumerate(item.paragraphs) if i != item.index]
            other = rng.choice(others)
            if item.answer.lower() not in other.lower() and novel_tokens(item.answer, other):
                add("qa_other_paragraph", other, claim, "neither", item)
    stats["fallback_statements"] += fallbacks
    stats["statements"] += statements
    return rows


# --- HaluEval ------------------------------------------------------------------------------------

_GLUED = re.compile(r"(?<=[a-z0-9)\]\"'])\.(?=[A-Z])")


def _sentence_like(text: str) -> bool:
    tokens = [t.strip(".,;:") for t in text.split()]
    finite = any(
        t in AUXILIARIES
        or (t.endswith("ed") and len(t) > 4)
        or t in IRREGULAR_PAST.values()
        or (t.endswith("s") and t[:-1] in BASE_VERBS)
        for t in tokens[1:]
        if t.islower()
    )
    return len(tokens) >= 4 and text[:1].isupper() and finite


def build_halueval(path: Path, *, quota: int, seed: int, stats: Counter[str]) -> list[Row]:
    """HaluEval QA: the question and a right answer (supported) or a hallucinated one
    (not_supported: the source does not say whether it contradicts or just goes beyond)."""
    raws = list(read_jsonl(path, stats=stats))
    # A question whose right answer no rule can state is dropped with its hallucinated answer:
    # the fallback wording on supported rows only would be a give-away.
    stated = {
        str(raw["question"])
        for raw in raws
        if int(raw["supported"]) == 1
        and rewrite(str(raw["question"]), clean(str(raw["hypothesis"]))) is not None
    }
    rows: list[Row] = []
    for raw in raws:
        knowledge = clean(_GLUED.sub(". ", str(raw["premise"])))
        question = str(raw["question"]).strip()
        answer = clean(str(raw["hypothesis"]))
        if not knowledge or not answer or str(raw["question"]) not in stated:
            stats["skipped_no_rule"] += 1
            continue
        if _sentence_like(answer):
            claim = answer if answer.endswith((".", "!", "?")) else answer + "."
            stats["rule:answer_is_sentence"] += 1
        else:
            statement = rewrite(question, answer, passage=knowledge)
            if statement is None:
                stats["skipped_no_rule"] += 1
                continue
            stats[f"rule:{statement.rule}"] += 1
            claim = statement.text
        label: DataLabel = "supported" if int(raw["supported"]) == 1 else "not_supported"
        rows.append(
            Row(
                id=f"halueval_qa_gen-{raw['id']}",
                premise=knowledge,
                hypothesis=claim,
                label=label,
                source="halueval_qa_gen",
                kind="qa_halueval",
                group=f"halueval:{digest(knowledge)}",
            )
        )
    rng = random.Random(f"{seed}:halueval")
    rng.shuffle(rows)
    return rows[:quota]
