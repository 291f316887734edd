"""Every default model, threshold and limit, in one place."""

from __future__ import annotations

# --- corpus -----------------------------------------------------------------------------------
#: Chunk size and overlap, in word-level tokens (see ``corpus.chunker.count_tokens``).
CHUNK_TOKENS = 160
CHUNK_OVERLAP = 32
#: Files larger than this are refused (bytes).
MAX_FILE_BYTES = 50 * 1024 * 1024
#: File extensions the loaders read.
EXTENSIONS = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".jsonl")

# --- index ------------------------------------------------------------------------------------
INDEX_FORMAT_VERSION = 1

# --- retrieval --------------------------------------------------------------------------------
TOP_K = 5
SEARCH_MODE = "hybrid"
SEARCH_MODES = ("bm25", "dense", "hybrid")
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
EMBED_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
EMBED_MAX_TOKENS = 256
EMBED_BATCH = 32

# --- verifier ---------------------------------------------------------------------------------
VERIFIER = "embedded"
VERIFIER_MAX_TOKENS = 256
VERIFIER_WINDOW_STRIDE_TOKENS = 64
VERIFIER_BATCH = 16
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
