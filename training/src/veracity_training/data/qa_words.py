"""The word tables of the question-and-answer rules (:mod:`veracity_training.data.qa_rules`,
:mod:`veracity_training.data.qa_answers`): verbs, prepositions, determiners, the nouns that tell
what a question asks for, and the patterns of times and numbers."""

from __future__ import annotations

import re

from veracity_training.data.text import MONTHS

__all__ = [
    "BE",
    "DETERMINERS",
    "DO",
    "FINITE",
    "HAVE",
    "HOW_ADJ",
    "MODALS",
    "NO_PREP_TIME",
    "NUMBER_WORDS",
    "PART_NOUNS",
    "PREPOSITIONS",
    "PRONOUNS",
    "PROPERTY_NOUNS",
    "QUANTIFIERS",
    "TEMPORAL_WORDS",
    "TIME_NOUNS",
    "WHY_STARTS",
]

BE = frozenset({"is", "are", "was", "were"})
DO = frozenset({"do", "does", "did"})
HAVE = frozenset({"has", "have", "had"})
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"})
PREPOSITIONS = frozenset(
    "in on at by for with from to into onto of about over under after before during since until "
    "between among through against within without across along around near behind toward towards "
    "upon off out up".split()
)
DETERMINERS = frozenset(
    "the a an his her its their this that these those my your our some any each every no "
    "another".split()
)
TIME_NOUNS = frozenset(
    "year years date day month time decade century period season era age".split()
)
PART_NOUNS = frozenset(
    "percentage percent proportion share fraction portion part number amount majority".split()
)
#: "What colour is X" asks for a property of X: the claim is "X is <answer>".
PROPERTY_NOUNS = frozenset(
    "size color colour type kind shape age height weight sort breed brand nationality genre style "
    "religion language species length width depth material gender ethnicity status".split()
)
HOW_ADJ = frozenset("old long tall far big large high deep wide heavy".split())
WHY_STARTS = ("because", "due to", "to ", "in order", "since ", "as a result", "so that")
TEMPORAL_WORDS = re.compile(
    r"\b(\d{3,4}s?|\d+(st|nd|rd|th)|centur(y|ies)|decades?|years?|months?|weeks?|days?|"
    r"spring|summer|autumn|fall|winter|season|era|period|age|war|reign|times?|morning|night|"
    r"evening|dynasty|ago|now|today|present|BC|AD|BCE|CE|" + "|".join(MONTHS) + r")\b",
    re.IGNORECASE,
)
NUMBER_WORDS = re.compile(
    r"\b(\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|thousand|million|billion|dozen|several|many|few|half|none|"
    r"single|both|once|twice|thrice)\b",
    re.IGNORECASE,
)


NO_PREP_TIME = frozenset(
    "around about approximately circa this next last every each today yesterday tomorrow "
    "recently later earlier once twice".split()
)
PRONOUNS = frozenset("i we you he she it they there".split())
QUANTIFIERS = frozenset("many most some several all both few each every no one two".split())
FINITE = frozenset("is are was were has have had will would can could should do does did".split())
