"""``bookrag bench models``: throughput of the embedder and reranker, latency and tokens/s of the LLM.

    report = asyncio.run(bench_models(Settings(llm_provider="local"), text=Path("README.md").read_text()))

Passages are ~100-word windows of a real text, repeated to the requested count. LLM figures use distinct
prompts with the cache off: prompt reading speed from long prompts with a 1-token reply, generation speed
from short prompts with long replies (their short prompt time subtracted).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from ..config import Settings
from ..errors import ModelNotConfiguredError
from ..llm.factory import build_embedder, build_llm, build_reranker, llm_provider


def passages_from(text: str, count: int, words: int = 100) -> list[str]:
    tokens = text.split()
    windows = [" ".join(tokens[i:i + words]) for i in range(0, max(len(tokens) - words, 1), words)] or [text]
    return [f"{windows[i % len(windows)]} ({i})" for i in range(count)]


async def _time(fn: Any, *args: Any) -> tuple[Any, float]:
    began = time.perf_counter()
    result = await fn(*args)
    return result, time.perf_counter() - began


async def bench_models(settings: Settings, *, text: str, passages: int = 512, llm_calls: int = 5) -> dict[str, Any]:
    """Measure the configured embedder, reranker and (when configured) LLM; return a JSON-able report."""
    report: dict[str, Any] = {}
    batch = passages_from(text, passages)
    embedder = build_embedder(settings)
    _, load_s = await _time(embedder.embed, ["warm-up"])
    _, embed_s = await _time(embedder.embed, batch)
    report["embedder"] = {
        "model": embedder.name, "dimension": embedder.dimension, "load_and_first_call_s": round(load_s, 2),
        "passages": len(batch), "words_per_passage": 100, "seconds": round(embed_s, 2),
        "passages_per_s": round(len(batch) / embed_s, 1),
    }
    reranker = build_reranker(settings, embedder)
    pool = batch[:50]
    rounds = [await _time(reranker.score, f"question {i} about {pool[i].split()[3]}", pool) for i in range(5)]
    per_call = statistics.median(t for _, t in rounds)
    report["reranker"] = {
        "model": reranker.name, "passages_per_call": len(pool), "median_call_s": round(per_call, 3),
        "passages_per_s": round(len(pool) / per_call, 1),
    }
    if llm_provider(settings) == "none":
        report["llm"] = {"skipped": "no LLM configured"}
        return report
    llm = build_llm(settings.replace(llm_cache=False), cache=None)
    if llm is None:  # pragma: no cover
        raise ModelNotConfiguredError("no LLM")
    try:
        (_, warm_s) = await _time(llm.complete, [{"role": "user", "content": "Say OK."}], None)
        read, gen, latencies = [], [], []
        for i in range(llm_calls):
            long_prompt = [{"role": "user", "content": f"Read this ({i}):\n{' '.join(batch[i * 8:(i + 1) * 8])}\nReply OK."}]
            (reply, secs) = await _time(lambda m: llm.complete(m, max_tokens=1, use_cache=False), long_prompt)
            read.append((reply.usage.prompt_tokens, secs))
            short = [{"role": "user", "content": f"Write about {passages_from(text, 40)[i * 7].split()[5]} in 120 words."}]
            (reply, secs) = await _time(lambda m: llm.complete(m, max_tokens=160, use_cache=False), short)
            latencies.append(secs)
            gen.append((reply.usage.completion_tokens, reply.usage.prompt_tokens, secs))
        prompt_tps = sum(t for t, _ in read) / sum(s for _, s in read)
        gen_time = sum(s - p / prompt_tps for _, p, s in gen)
        report["llm"] = {
            "provider": llm.provider, "model": llm.model, "load_and_first_call_s": round(warm_s, 2),
            "prompt_tokens_per_s": round(prompt_tps, 1),
            "generation_tokens_per_s": round(sum(c for c, _, _ in gen) / gen_time, 1),
            "reply_latency_p50_s": round(statistics.median(latencies), 2),
            "mean_reply_tokens": round(statistics.mean(c for c, _, _ in gen), 1),
            "mean_long_prompt_tokens": round(statistics.mean(t for t, _ in read), 1),
        }
    finally:
        await llm.aclose()
    return report
