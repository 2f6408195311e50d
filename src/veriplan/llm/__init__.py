"""The LLM layer: one typed interface over every backend, with a response
cache, retries, bounded concurrency and usage accounting around it."""

from veriplan.llm.backends.scripted import ScriptedBackend
from veriplan.llm.cache import ResponseCache, default_cache_path
from veriplan.llm.client import LLM
from veriplan.llm.parsing import parse_structured
from veriplan.llm.registry import BACKENDS, DEFAULT_BACKEND, create_backend
from veriplan.llm.retry import RetryPolicy
from veriplan.llm.structured import StructuredResponse
from veriplan.llm.types import LLMRequest, LLMResponse, Message
from veriplan.llm.usage import PriceTable

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "LLM", "LLMRequest", "LLMResponse", "Message",
           "PriceTable", "ResponseCache", "RetryPolicy", "ScriptedBackend", "StructuredResponse",
           "create_backend", "default_cache_path", "parse_structured"]
