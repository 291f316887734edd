"""Every network veracity runs, and its runtime: the room of the models.

==========================  ====================================================================
:mod:`.pairs`               pair scorers: does a premise support, contradict or say nothing of
                            a claim (``PairScorer``; the shipped verifier, Hugging Face and
                            seq2seq checkers, the LLM judge, similarity scorers, windows)
:mod:`.relevance`           relevance scorers (rerankers): how well a passage answers a query
                            (``RelevanceScorer``; the shipped cross-encoder, Hugging Face ones)
:mod:`.embedding`           sentence embeddings (``Embedder``, ``StaticEmbedder``)
:mod:`.chat`                chat models (``ChatModel``; OpenAI-compatible servers, llama.cpp)
:mod:`.onnx`                the ONNX runtime the shipped networks run on
:mod:`.factories`           :class:`Models`: the factories of the models by the names users give
==========================  ====================================================================

The room knows nothing of answers or reports; it uses ``text/`` and ``prompts/`` (the LLM
judge's prompt) only.

"""

from veracity.models.factories import VERIFIERS, Models

__all__ = ["VERIFIERS", "Models"]
