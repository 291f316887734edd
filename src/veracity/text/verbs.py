"""Just enough English verb morphology to turn "did X win" into "X won": the irregular verbs,
common base forms, past tense and third person.

The claim reader (:mod:`veracity.text.grammar`) finds verbs with these forms, and the training
data (``veracity_training.data``) writes statements with them.

>>> past("win"), past("marry"), past("stop"), third_person("go")
('won', 'married', 'stopped', 'goes')
>>> regular_past("win")
'winned'
"""

from __future__ import annotations

__all__ = [
    "AUXILIARIES",
    "BASE_VERBS",
    "IRREGULAR_PAST",
    "PARTICIPLES",
    "is_base_verb",
    "is_participle",
    "past",
    "regular_past",
    "third_person",
]

_IRREGULAR = """
arise arose arisen; awake awoke awoken; be was been; bear bore born; beat beat beaten;
become became become; begin began begun; bend bent bent; bet bet bet; bid bid bid;
bind bound bound; bite bit bitten; bleed bled bled; blow blew blown; break broke broken;
breed bred bred; bring brought brought; broadcast broadcast broadcast; build built built;
burn burnt burnt; burst burst burst; buy bought bought; cast cast cast; catch caught caught;
choose chose chosen; cling clung clung; come came come; cost cost cost; creep crept crept;
cut cut cut; deal dealt dealt; dig dug dug; do did done; draw drew drawn; dream dreamt dreamt;
drink drank drunk; drive drove driven; eat ate eaten; fall fell fallen; feed fed fed;
feel felt felt; fight fought fought; find found found; flee fled fled; fly flew flown;
forbid forbade forbidden; forget forgot forgotten; forgive forgave forgiven;
freeze froze frozen; get got gotten; give gave given; go went gone; grind ground ground;
grow grew grown; hang hung hung; have had had; hear heard heard; hide hid hidden; hit hit hit;
hold held held; hurt hurt hurt; keep kept kept; kneel knelt knelt; know knew known;
lay laid laid; lead led led; lean leant leant; leap leapt leapt; learn learnt learnt;
leave left left; lend lent lent; let let let; lie lay lain; light lit lit; lose lost lost;
make made made; mean meant meant; meet met met; mislead misled misled;
overcome overcame overcome; overtake overtook overtaken; pay paid paid; prove proved proven;
put put put; quit quit quit; read read read; rebuild rebuilt rebuilt; ride rode ridden;
ring rang rung; rise rose risen; run ran run; say said said; see saw seen; seek sought sought;
sell sold sold; send sent sent; set set set; shake shook shaken; shed shed shed;
shine shone shone; shoot shot shot; show showed shown; shrink shrank shrunk; shut shut shut;
sing sang sung; sink sank sunk; sit sat sat; sleep slept slept; slide slid slid;
speak spoke spoken; spend spent spent; spin spun spun; split split split; spread spread spread;
spring sprang sprung; stand stood stood; steal stole stolen; stick stuck stuck;
sting stung stung; strike struck struck; strive strove striven; swear swore sworn;
sweep swept swept; swim swam swum; swing swung swung; take took taken; teach taught taught;
tear tore torn; tell told told; think thought thought; throw threw thrown;
undergo underwent undergone; understand understood understood; undertake undertook undertaken;
upset upset upset; wake woke woken; wear wore worn; weave wove woven; win won won;
wind wound wound; withdraw withdrew withdrawn; write wrote written; rewrite rewrote rewritten;
overthrow overthrew overthrown; outsell outsold outsold; foresee foresaw foreseen;
forecast forecast forecast; withstand withstood withstood; uphold upheld upheld;
"""

IRREGULAR_PAST: dict[str, str] = {}
_IRREGULAR_PARTICIPLE: dict[str, str] = {}
for _entry in _IRREGULAR.replace("\n", " ").split(";"):
    _parts = _entry.split()
    if len(_parts) == 3:
        IRREGULAR_PAST[_parts[0]] = _parts[1]
        _IRREGULAR_PARTICIPLE[_parts[0]] = _parts[2]

PARTICIPLES = frozenset(_IRREGULAR_PARTICIPLE.values()) | frozenset(IRREGULAR_PAST.values())

AUXILIARIES = frozenset(
    "is are was were be been am do does did has have had can could will would shall should may "
    "might must".split()
)

# Common base-form verbs (questions like "when did X <verb> ..." need the verb found).
_BASE = """
accept achieve acquire act add admit adopt advance affect agree aim allow announce appear apply
appoint approve argue arrange arrive ask assume attack attempt attend attract award ban base beat
become begin believe belong bind block blow border break bring build burn buy call capture carry
cast catch cause celebrate change charge choose claim close collapse collect combine come command
compete complete compose conclude conduct confirm connect conquer consider consist construct contain
continue contribute control convert convince cost count cover create cross cut date deal debut
decide declare decline defeat defend define deliver demand deny depend describe design destroy
determine develop die direct discover discuss dissolve divide do draft draw drive drop earn eat
elect emerge employ enable end endorse enter establish evolve exist expand expect experience explain
export face fail fall feature feel fight file fill film find finish fire flee flow fly follow force
form found free gain get give go govern grant grow guide handle happen hate have head hear help hire
hit hold host identify import include increase influence inherit inspire install introduce invade
invent invest invite involve issue join keep kill know land last launch lead learn leave lend let
lie like limit link list live locate lose love maintain make manage mark marry mean measure meet
merge migrate mine move name need nominate note notice obtain occupy occur offer open operate order
organize originate own paint part pass pay perform place plan plant play portray possess predict
prefer prepare present preserve prevent produce promote propose protect prove provide publish pull
purchase pursue put raise reach read receive recognize record recover reduce refer refuse regain
regard reject release rely remain remove rename repeal replace report represent require resign
resist respond rest retain retire return reveal rise rule run save say score see seek seize select
sell send separate serve set settle share shoot show sign sing sink sit solve speak spend split
sponsor spread stand star start state stay steal stop store strike study succeed suffer suggest
supply support surrender survive suspend take talk teach tell tend terminate test think throw
tour trade train transfer translate travel treat try turn undergo unite use vary visit vote want
warn wear win withdraw work write
"""
BASE_VERBS = frozenset(_BASE.split()) | frozenset(IRREGULAR_PAST)

_VOWELS = "aeiou"


def is_base_verb(word: str) -> bool:
    return word.lower() in BASE_VERBS


def is_participle(word: str) -> bool:
    """Past participles: irregular ones, "-ed" forms and "born"."""
    low = word.lower()
    if low in PARTICIPLES or low == "born":
        return True
    return len(low) > 4 and low.endswith("ed") and low not in {"hundred", "indeed", "sacred"}


def past(verb: str) -> str:
    """Simple past of a base-form verb."""
    low = verb.lower()
    out = IRREGULAR_PAST[low] if low in IRREGULAR_PAST else regular_past(low)
    return out if verb.islower() else verb[:1] + out[1:]


def regular_past(verb: str) -> str:
    """The "-ed" past of a lower-case base-form verb, irregular or not ("stop" -> "stopped")."""
    low = verb
    if low.endswith("e"):
        out = low + "d"
    elif low.endswith("y") and len(low) > 2 and low[-2] not in _VOWELS:
        out = low[:-1] + "ied"
    elif (
        len(low) >= 3
        and low[-1] not in _VOWELS + "wxy"
        and low[-2] in _VOWELS
        and low[-3] not in _VOWELS
        and sum(ch in _VOWELS for ch in low) == 1
    ):
        out = low + low[-1] + "ed"  # stop -> stopped (one-syllable CVC words)
    else:
        out = low + "ed"
    return out


def third_person(verb: str) -> str:
    """Third-person singular present of a base-form verb."""
    low = verb.lower()
    special = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if low in special:
        return special[low]
    if low.endswith(("s", "x", "z", "ch", "sh", "o")):
        return low + "es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in _VOWELS:
        return low[:-1] + "ies"
    return low + "s"
