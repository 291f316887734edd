"""The API's request bodies and error shapes, as the OpenAPI schema shows them, and the
schema's declared limits."""

from __future__ import annotations

from typing import Any

from veracity import defaults
from veracity._deps import require
from veracity.defaults import SearchMode  # a type, so the schema lists the modes
from veracity.repair.pipeline import POLICIES
from veracity.server.service import SERVED_LAYERS, SERVED_RULES, VerifyOptions
from veracity.server.settings import Limits

require("fastapi", extra="server", purpose="the web service (veracity serve)")

from fastapi import Security  # noqa: E402
from fastapi.security import HTTPBearer  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402

__all__ = [
    "BEARER",
    "ERRORS",
    "GENERATION_HEADER",
    "JSON_OBJECT",
    "AskRequest",
    "CheckRequest",
    "ErrorBody",
    "ErrorDetail",
    "LimitReached",
    "Pair",
    "RepairRequest",
    "SearchRequest",
    "VerifyRequest",
    "declare_limits",
    "sse_response",
]


def sse_response(*names: str) -> dict[int | str, dict[str, Any]]:
    """The declared answer of a stream: events named ``names`` (and ``error``), each with a
    JSON ``data`` (comments keep the connection alive)."""
    return {
        200: {
            "description": "Server-Sent Events (see the endpoint's description)",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "event": {"type": "string", "enum": [*names, "error"]},
                            "data": {"type": "string", "contentMediaType": "application/json"},
                        },
                        "required": ["event", "data"],
                    }
                }
            },
        }
    }


JSON_OBJECT: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"schema": {"type": "object"}}}}
}


class LimitReached(BaseModel):
    name: str = Field(description="the limit, as `veracity serve --help` and Limits name it")
    value: float = Field(description="its value on this server")


class ErrorDetail(BaseModel):
    status: int
    type: str = Field(description="limit, invalid, unauthorized, not_found, overloaded, ...")
    message: str = Field(description="what went wrong and what to send instead")
    limit: LimitReached | None = Field(None, description="the limit reached, if one was")


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {status, type, message, limit?}}``."""

    error: ErrorDetail


#: The errors any endpoint may answer, with the body they are sent with.
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "bad input, or a Host this server does not answer to",
        401: "a bearer token is needed (the server was started with --token) or is wrong",
        404: "no such document",
        408: "the body or the work took longer than its time limit",
        413: "the body is over body_bytes",
        422: "a field of the wrong type, or over a limit (the limit is named)",
        500: "an unforeseen failure (its id is in the server's log)",
        503: "busy (Retry-After says when to retry), or the index or a model cannot be used",
    }.items()
}


def declare_limits(schema: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """``schema`` (the OpenAPI document) with this server's limits on the request fields."""
    bounds = {
        "query": {"maxLength": limits.question_chars},
        "question": {"maxLength": limits.question_chars},
        "answer": {"maxLength": limits.answer_chars},
        "k": {"maximum": limits.k},
        "sources": {"maxItems": limits.sources},
        "doc_ids": {"maxItems": limits.sources},
        "pairs": {"maxItems": limits.pairs},
    }
    for model in schema.get("components", {}).get("schemas", {}).values():
        for name, field in model.get("properties", {}).items():
            if name in bounds:
                target = next(
                    (option for option in field.get("anyOf", ()) if option.get("type")), field
                )
                target.update(bounds[name])
    return schema


#: The bearer scheme, declared in the API description (the token is checked by ``authorized``).
BEARER = Security(
    HTTPBearer(
        auto_error=False,
        description="the --token the server was started with (none needed without one)",
    )
)


# --- requests -------------------------------------------------------------------------------
class _Body(BaseModel):
    """Every request body: no unknown fields, and each field of its own JSON type (``"k": true``
    or ``"k": "5"`` is a 422, never read as 1 or 5)."""

    model_config = ConfigDict(extra="forbid", strict=True)


MODE_HELP = (
    f"how the index is searched: {', '.join(defaults.SEARCH_MODES[:-1])} or "
    f"{defaults.SEARCH_MODES[-1]} (default: the server's --mode)"
)


class SearchRequest(_Body):
    query: str = Field(min_length=1, description="what to look for")
    k: int = Field(defaults.TOP_K, ge=1, description="passages to return")
    mode: SearchMode | None = Field(None, description=MODE_HELP)


class AskRequest(_Body):
    question: str = Field(min_length=1)
    k: int = Field(defaults.TOP_K, ge=1, description="passages given to the model")
    tau: float = Field(
        defaults.CITATION_TAU, ge=0.0, le=1.0, description="P(supported) a citation must reach"
    )
    mode: SearchMode | None = Field(None, description=MODE_HELP)


class VerifyRequest(_Body):
    answer: str = Field(min_length=1, description="the answer to check, from any system")
    question: str | None = Field(None, description="the question it replies to")
    sources: list[str] = Field(
        default_factory=list, description="source texts to check against (ids text-1, ...)"
    )
    doc_ids: list[str] = Field(
        default_factory=list, description="documents of the index to check against"
    )
    layers: list[str] = Field(
        default_factory=lambda: list[str](defaults.VERIFY_LAYERS),
        description=", ".join(SERVED_LAYERS),
        json_schema_extra={"items": {"type": "string", "enum": list(SERVED_LAYERS)}},
    )
    rule: str = Field(
        defaults.VERIFY_RULE,
        description=" or ".join((", ".join(SERVED_RULES[:-1]), SERVED_RULES[-1])),
        json_schema_extra={"enum": list(SERVED_RULES)},
    )
    k: int = Field(defaults.VERIFY_TOP_K, ge=1, description="passages per claim")
    tau: float = Field(defaults.VERIFY_TAU, ge=0.0, le=1.0)
    mode: SearchMode | None = Field(
        None, description=MODE_HELP + "; unused with sources or doc_ids"
    )

    def options(self) -> VerifyOptions:
        return VerifyOptions(
            answer=self.answer,
            question=self.question,
            sources=tuple(self.sources),
            doc_ids=tuple(self.doc_ids),
            layers=tuple(self.layers),
            rule=self.rule,
            k=self.k,
            tau=self.tau,
            mode=self.mode,
        )


class RepairRequest(_Body):
    answer: str = Field(min_length=1, description="the answer to repair, from any system")
    question: str | None = Field(None, description="the question it replies to")
    sources: list[str] = Field(
        default_factory=list, description="source texts to repair against (ids text-1, ...)"
    )
    doc_ids: list[str] = Field(
        default_factory=list, description="documents of the index to repair against"
    )
    policy: str = Field(
        defaults.REPAIR_POLICY,
        description=" or ".join((", ".join(POLICIES[:-1]), POLICIES[-1])),
        json_schema_extra={"enum": list(POLICIES)},
    )
    k: int = Field(defaults.VERIFY_TOP_K, ge=1, description="passages per claim")
    tau: float = Field(defaults.VERIFY_TAU, ge=0.0, le=1.0)
    mode: SearchMode | None = Field(
        None, description=MODE_HELP + "; unused with sources or doc_ids"
    )

    def options(self) -> VerifyOptions:
        return VerifyOptions(
            answer=self.answer,
            question=self.question,
            sources=tuple(self.sources),
            doc_ids=tuple(self.doc_ids),
            k=self.k,
            tau=self.tau,
            policy=self.policy,
            mode=self.mode,
        )


class Pair(_Body):
    premise: str
    claim: str
    id: str | None = None


class CheckRequest(_Body):
    pairs: list[Pair] = Field(min_length=1)


# --- responses ------------------------------------------------------------------------------
#: The index generation a response was read from.
GENERATION_HEADER = "X-Veracity-Generation"
