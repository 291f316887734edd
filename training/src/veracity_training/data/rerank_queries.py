"""The reranker's queries: questions of the QA sets in ``shared/nlidata`` with their gold
paragraph and answers (read with the verifier's loaders, which drop every row and SQuAD paragraph
that overlaps an evaluation set), and their web-search style.

>>> web_query("How long is the life cycle of a flea?", keywords=True)
'long life cycle flea'
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from veracity_training.data.qa import _GLUED, load_cpkc, load_qed, load_squad
from veracity_training.data.sources import digest, read_jsonl
from veracity_training.data.text import clean

__all__ = [
    "INFORMAL_SHARE",
    "LICENSE_FOLDERS",
    "QUERY_QUOTAS",
    "Query",
    "contains_answer",
    "load_queries",
    "web_query",
]

#: Queries per source at scale 1.0 (a source with fewer gives them all).
QUERY_QUOTAS: Final[Mapping[str, int]] = {
    "squad_bigbench": 10_000,
    "qed_nq": 9_000,
    "cpkc_nq_counterfactual": 12_000,
    "halueval_qa_gen": 1_000,
}
#: SQuADShifts Reddit and Amazon are informal: only this share of their queries is used.
INFORMAL_SHARE = 0.15
#: The nlidata folders whose licences the card records.
LICENSE_FOLDERS = tuple(QUERY_QUOTAS)


@dataclass(frozen=True, slots=True)
class Query:
    """One question, its gold paragraph and the answer strings a negative must not hold."""

    qid: str
    question: str
    answers: tuple[str, ...]
    passage: str
    document: str
    source: str


def contains_answer(passage: str, answers: Sequence[str]) -> bool:
    """Whether any answer string occurs in ``passage`` as whole words, ignoring case.

    >>> contains_answer("It opened in 1905.", ["1905"]), contains_answer("In 19050.", ["1905"])
    (True, False)
    """
    low = passage.lower()
    return any(re.search(rf"(?<!\w){re.escape(a.lower())}(?!\w)", low) for a in answers if a)


def web_query(question: str, *, keywords: bool) -> str:
    """``question`` as typed into a web search box: lowercased, no closing punctuation, and with
    ``keywords`` only its content words, in order (the question itself if none is left).

    >>> web_query("How long is the life cycle of a flea?", keywords=False)
    'how long is the life cycle of a flea'
    >>> web_query("How long is the life cycle of a flea?", keywords=True)
    'long life cycle flea'
    """
    from veracity.text.words import STOPWORDS, word_tokens

    plain = re.sub(r"[\s?!.]+$", "", question.strip().lower())
    if not keywords:
        return plain
    words = [word for word in word_tokens(plain) if word not in STOPWORDS]
    return " ".join(words) or plain


def _question_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def load_queries(root: Path, *, seed: int, stats: dict[str, Counter[str]]) -> list[Query]:
    """Every usable query of the four sources, in a deterministic order (no sampling yet)."""
    queries: list[Query] = []
    squad_stats = stats.setdefault("squad_bigbench", Counter())
    keep = random.Random(f"{seed}:informal")
    for item in load_squad(root / "squad_bigbench", squad_stats):
        if (
            item.group.startswith(("squad:reddit", "squad:amazon"))
            and keep.random() >= INFORMAL_SHARE
        ):
            squad_stats["skipped_informal_share"] += 1
            continue
        queries.append(
            Query(
                f"squad-{item.qid}",
                item.question,
                (item.answer,),
                item.paragraphs[item.index],
                item.group,
                "squad_bigbench",
            )
        )
    qed_stats = stats.setdefault("qed_nq", Counter())
    for item in load_qed(root / "qed_nq" / "qed_all.jsonl", qed_stats):
        queries.append(
            Query(
                f"qed-{item.qid}",
                item.question,
                (item.answer,),
                item.paragraphs[item.index],
                item.group,
                "qed_nq",
            )
        )
    cpkc_stats = stats.setdefault("cpkc_nq_counterfactual", Counter())
    for item in load_cpkc(root / "cpkc_nq_counterfactual" / "cpkc.jsonl", cpkc_stats):
        edited = item.paragraphs[0]
        if item.real_answer.lower() in edited.lower() or item.answer not in edited:
            cpkc_stats["dropped_edit_not_reversible"] += 1
            continue
        real = edited.replace(item.answer, item.real_answer)
        queries.append(
            Query(
                f"cpkc-{item.qid}",
                item.question,
                (item.real_answer,),
                real,
                f"cpkc:{digest(real)}",
                "cpkc_nq_counterfactual",
            )
        )
    halueval_stats = stats.setdefault("halueval_qa_gen", Counter())
    for raw in read_jsonl(root / "halueval_qa_gen" / "halueval_qa_gen.jsonl", stats=halueval_stats):
        if int(raw["supported"]) != 1:
            continue
        knowledge = clean(_GLUED.sub(". ", str(raw["premise"])))
        answer = clean(str(raw["hypothesis"]))
        if not knowledge or not answer:
            halueval_stats["dropped_empty"] += 1
            continue
        queries.append(
            Query(
                f"halueval-{raw['id']}",
                str(raw["question"]).strip(),
                (answer,),
                knowledge,
                f"halueval:{digest(knowledge)}",
                "halueval_qa_gen",
            )
        )
    # One query text once: QED's NQ questions come back in CPKC, HaluEval repeats its questions.
    seen: set[str] = set()
    unique: list[Query] = []
    for query in queries:
        key = _question_key(query.question)
        if not key or not query.passage.strip():
            stats[query.source]["dropped_empty"] += 1
        elif key in seen:
            stats[query.source]["dropped_duplicate_question"] += 1
        else:
            seen.add(key)
            unique.append(query)
    return unique
