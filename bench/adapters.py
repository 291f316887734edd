"""What the framework adapters cost: the same answer verified through the library and through
each adapter, with the same loaded verifier.

    nice -n 5 .venv/bin/python bench/adapters.py --runs 5

The sample answer (examples/answer_to_check.md) against the sample corpus's waggle-dance page,
with the shipped verifier loaded once and shared: ``GroundingCheck`` called directly, then
LangChain's ``VerifyAnswer``, LlamaIndex's ``VeracityEvaluator``, Haystack's ``Verifier`` (run
alone and inside a ``Pipeline``) and the pytest plugin's ``GroundedAssertion``. Each way runs
once to warm up, then ``--runs`` times in turns; the table gives medians and the overhead over
the direct call (the adapters convert documents and results; the work is the library's).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

from _report import REPO, write_result

EXAMPLES = REPO / "examples"
SOURCE = EXAMPLES / "sample_corpus" / "biology" / "waggle_dance.md"


def ways(answer: str, text: str) -> dict[str, Callable[[], Any]]:
    """Each way of verifying ``answer`` against ``text``, as a call with nothing left to load."""
    from haystack import Document as HaystackDocument
    from haystack import Pipeline
    from langchain_core.documents import Document as LangChainDocument

    from veracity.adapters.haystack import Verifier
    from veracity.adapters.langchain import VerifyAnswer
    from veracity.adapters.llamaindex import VeracityEvaluator
    from veracity.adapters.pytest_plugin import GroundedAssertion, NotGroundedError
    from veracity.adapters.scorers import loaded_scorer
    from veracity.verify.grounding import GroundingCheck

    scorer = loaded_scorer("embedded")
    check = GroundingCheck(scorer)
    runnable = VerifyAnswer(verifier=scorer)
    evaluator = VeracityEvaluator(verifier=scorer)
    component = Verifier(verifier=scorer)
    pipeline = Pipeline()
    pipeline.add_component("verifier", Verifier(verifier=scorer))
    assertion = GroundedAssertion(scorer)
    lc_docs = [LangChainDocument(page_content=text, id="waggle")]
    hs_docs = [HaystackDocument(content=text, id="waggle")]

    def asserted() -> Any:
        try:
            return assertion(answer, [text])
        except NotGroundedError as failed:  # the sample answer is not grounded: that is the point
            return failed.grounding

    return {
        "library (GroundingCheck)": lambda: check.run(answer, [text]),
        "LangChain VerifyAnswer": lambda: runnable.invoke({"answer": answer, "context": lc_docs}),
        "LlamaIndex VeracityEvaluator": lambda: evaluator.evaluate(
            response=answer, contexts=[text]
        ),
        "Haystack Verifier": lambda: component.run(answer=answer, documents=hs_docs),
        "Haystack Pipeline": lambda: pipeline.run(
            {"verifier": {"answer": answer, "documents": hs_docs}}
        ),
        "pytest assert_grounded": asserted,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", default="adapters")
    args = parser.parse_args()
    answer = (EXAMPLES / "answer_to_check.md").read_text(encoding="utf-8")
    calls = ways(answer, SOURCE.read_text(encoding="utf-8"))
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # warm-up: the knowledge layer's spaCy, the frameworks' lazy parts
    for _ in range(args.runs):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["library (GroundingCheck)"]
    load = os.getloadavg()[0]
    lines = [
        f"The sample answer (4 claims) against the waggle-dance page, the shipped verifier "
        f"shared by every way; medians of {args.runs} runs in turns after a warm-up. Load "
        f"average at the end: {load:.2f} (a training job shared the 2 cores when above 1).",
        "",
        "| way | median (s) | over the library (ms) | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, median in medians.items():
        lines.append(
            f"| {name} | {median:.4f} | {1000 * (median - base):+.1f} | {median / base:.3f} |"
        )
    figures = {"runs": args.runs, "median_s": medians, "load_average": load, "times_s": times}
    command = "python bench/adapters.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    write_result(args.name, figures, "\n".join(lines), command.strip())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
