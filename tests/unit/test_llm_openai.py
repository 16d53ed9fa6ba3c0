"""The OpenAI-compatible provider against a real local HTTP server: repair, re-ask, retries, timeouts, an
unreachable endpoint, structured-output fallback, the response cache and usage accounting."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from bookrag_neo4j.errors import EndpointDownError, ModelOutputError, ModelUnavailableError
from bookrag_neo4j.llm import ResponseCache, render_prompt, track_usage
from bookrag_neo4j.llm.chat import unreachable
from bookrag_neo4j.llm.openai_chat import OpenAIChatModel

PATH = "/v1/chat/completions"


class Answer(BaseModel):
    answer: str
    pages: list[int]


def completion(content: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    srv = HTTPServer(threaded=True)  # a slow (timed-out) request must not block the retry
    srv.start()
    yield srv
    srv.clear()
    if srv.is_running():
        srv.stop()


def model(server: HTTPServer, **kwargs: Any) -> OpenAIChatModel:
    kwargs.setdefault("retry_wait", 0.01)
    return OpenAIChatModel("test-model", base_url=server.url_for("/v1"), api_key="k", **kwargs)


def bodies(server: HTTPServer) -> list[dict[str, Any]]:
    return [json.loads(req.get_data()) for req, _ in server.log]


MESSAGES = [{"role": "user", "content": "Where is the revenue table?"}]


async def test_broken_json_is_repaired_without_a_second_call(server: HTTPServer) -> None:
    server.expect_ordered_request(PATH, method="POST").respond_with_json(
        completion('Sure! ```json\n{"answer": "page 4", "pages": [4, 5],}\n```')  # trailing comma, fenced
    )
    value, usage = await model(server).complete(MESSAGES, Answer)
    assert value == Answer(answer="page 4", pages=[4, 5])
    assert usage.calls == 1 and len(server.log) == 1
    sent = bodies(server)[0]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["title"] == "Answer"


async def test_invalid_reply_is_reasked_with_the_error(server: HTTPServer) -> None:
    server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "page 4"}'))
    server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "p4", "pages": [4]}'))
    value, usage = await model(server).complete(MESSAGES, Answer)
    assert value.pages == [4]
    assert usage.calls == 2 and usage.prompt_tokens == 22
    second = bodies(server)[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": '{"answer": "page 4"}'}
    assert "pages" in second[-1]["content"] and "Field required" in second[-1]["content"]


async def test_still_invalid_after_reask_raises_with_raw_reply(server: HTTPServer) -> None:
    for _ in range(2):
        server.expect_ordered_request(PATH, method="POST").respond_with_json(completion("I cannot answer that."))
    prompt = render_prompt("query_classify", question="Where?")
    with pytest.raises(ModelOutputError) as info:
        await model(server).complete(prompt, Answer)
    assert info.value.raw == "I cannot answer that."
    assert info.value.prompt.startswith("query_classify@")


async def test_429_then_success(server: HTTPServer) -> None:
    server.expect_ordered_request(PATH, method="POST").respond_with_json(
        {"error": {"message": "slow down", "type": "rate_limit"}}, status=429, headers={"Retry-After": "0.05"}
    )
    server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "a", "pages": []}'))
    value, usage = await model(server).complete(MESSAGES, Answer)
    assert value.answer == "a" and len(server.log) == 2 and usage.calls == 1


async def test_timeout_is_retried(server: HTTPServer) -> None:
    calls = {"n": 0}

    def slow_then_fast(request: Request) -> Response:
        calls["n"] += 1
        if calls["n"] == 1:
            time.sleep(6.0)  # well past the client's timeout
        return Response(json.dumps(completion("plain text reply")), content_type="application/json")

    server.expect_request(PATH, method="POST").respond_with_handler(slow_then_fast)
    # the retried (fast) request must answer within the timeout even on a busy machine: 2 s, not a tight 0.5 s
    value, _ = await model(server, timeout=2.0).complete(MESSAGES)
    assert value == "plain text reply" and calls["n"] == 2


async def test_server_errors_exhaust_retries(server: HTTPServer) -> None:
    server.expect_request(PATH, method="POST").respond_with_json({"error": {"message": "boom"}}, status=503)
    with pytest.raises(ModelUnavailableError, match="3 attempts"):
        await model(server, max_retries=2).complete(MESSAGES)
    assert len(server.log) == 3


async def test_falls_back_to_json_mode_when_schema_is_unsupported(server: HTTPServer) -> None:
    server.expect_ordered_request(PATH, method="POST").respond_with_json(
        {"error": {"message": "response_format json_schema is not supported"}}, status=400
    )
    for _ in range(2):
        server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "x", "pages": [1]}'))
    llm = model(server)
    await llm.complete(MESSAGES, Answer)
    await llm.complete([{"role": "user", "content": "another question"}], Answer)
    sent = bodies(server)
    assert [b.get("response_format", {}).get("type") for b in sent] == ["json_schema", "json_object", "json_object"]
    assert '"pages"' in sent[1]["messages"][0]["content"]  # the schema travels in the prompt instead


async def test_cache_answers_a_second_identical_call(server: HTTPServer, tmp_path) -> None:
    server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "c", "pages": [2]}'))
    first = await model(server, cache=ResponseCache(tmp_path / "cache.sqlite")).complete(MESSAGES, Answer, stage="s")
    again = model(server, cache=ResponseCache(tmp_path / "cache.sqlite"))  # a new process, same cache file
    second = await again.complete(MESSAGES, Answer, stage="s")
    assert len(server.log) == 1
    assert second.value == first.value
    assert second.usage.calls == 0 and second.usage.cached_calls == 1 and second.usage.total_tokens == 0
    server.expect_ordered_request(PATH, method="POST").respond_with_json(completion('{"answer": "d", "pages": []}'))
    third = await again.complete(MESSAGES, Answer, stage="s", temperature=0.7)  # other parameters: a new call
    assert third.value.answer == "d" and len(server.log) == 2


async def test_usage_is_accounted_per_stage(server: HTTPServer) -> None:
    server.expect_request(PATH, method="POST").respond_with_json(completion("ok", 100, 10))
    llm = model(server)
    with track_usage() as ledger:
        await llm.complete(MESSAGES, stage="index.extract")
        await llm.complete([{"role": "user", "content": "2"}], stage="index.extract")
        with track_usage() as inner:  # a nested ledger sees its own calls; the outer one sees them too
            await llm.complete([{"role": "user", "content": "3"}], stage="query.plan")
    assert inner.total().calls == 1 and set(inner.by_stage()) == {"query.plan"}
    stages = ledger.by_stage()
    assert stages["index.extract"].calls == 2 and stages["index.extract"].prompt_tokens == 200
    assert stages["query.plan"].completion_tokens == 10
    assert ledger.total().total_tokens == 330
    assert llm.usage.total().calls == 3


async def test_images_travel_as_content_parts(server: HTTPServer, tmp_path) -> None:
    from bookrag_neo4j.llm import image_part

    png = tmp_path / "figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    server.expect_request(PATH, method="POST").respond_with_json(completion("a bar chart"))
    messages = [{"role": "user", "content": [{"type": "text", "text": "Describe the figure."}, image_part(png)]}]
    value, _ = await model(server).complete(messages)
    assert value == "a bar chart"
    sent = bodies(server)[0]["messages"][0]["content"]
    assert sent[1]["type"] == "image_url" and sent[1]["image_url"]["url"].startswith("data:image/png;base64,")


async def test_openai_embeddings_are_batched_and_normalised(server: HTTPServer) -> None:
    from bookrag_neo4j.llm import OpenAIEmbedder

    def reply(request: Request) -> Response:
        inputs = json.loads(request.get_data())["input"]
        data = [{"object": "embedding", "index": i, "embedding": [3.0, 4.0 + i]} for i in range(len(inputs))]
        body = {"object": "list", "data": data[::-1], "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        return Response(json.dumps(body), content_type="application/json")

    server.expect_request("/v1/embeddings", method="POST").respond_with_handler(reply)
    embedder = OpenAIEmbedder("m", base_url=server.url_for("/v1"), api_key="k", batch_size=2)
    vectors = await embedder.embed(["a", "b", "c"])
    assert len(server.log) == 2  # batches of 2
    assert vectors[0] == pytest.approx([0.6, 0.8]) and vectors[1] == pytest.approx([3 / 34**0.5, 5 / 34**0.5])
    assert embedder.dimension == 2


async def test_an_unreachable_endpoint_is_asked_once_then_marked_down_until_it_answers() -> None:
    srv = HTTPServer(port=0)
    srv.start()
    url, port = srv.url_for("/v1"), srv.port
    srv.stop()  # nothing listens there now: connection refused
    llm = OpenAIChatModel("test-model", base_url=url, api_key="k", retry_wait=0.01)
    llm.DOWN_SECONDS = 0.5
    asked = {"n": 0}
    generate = llm._generate

    async def counted(*args: Any, **kwargs: Any) -> Any:
        asked["n"] += 1
        return await generate(*args, **kwargs)

    llm._generate = counted  # type: ignore[method-assign]
    for _ in range(3):
        with pytest.raises(EndpointDownError, match=f"at {url} is not reachable"):
            await llm.complete(MESSAGES)
    assert asked["n"] == 1 and llm.down  # no retries, and the later calls fall back at once
    back = HTTPServer(port=port)
    back.expect_request(PATH, method="POST").respond_with_json(completion("back"))
    back.start()
    try:
        time.sleep(0.6)
        assert llm.down is None and (await llm.complete(MESSAGES)).value == "back"  # asked again after a while
    finally:
        back.stop()


def test_what_counts_as_unreachable() -> None:
    import socket

    import httpx

    try:
        raise httpx.ConnectError("refused") from ConnectionRefusedError(111, "refused")
    except httpx.ConnectError as exc:
        assert unreachable(exc)
    try:
        raise ValueError("wrapped") from socket.gaierror(-2, "Name or service not known")
    except ValueError as exc:
        assert unreachable(exc)
    assert not unreachable(httpx.ReadTimeout("slow")) and not unreachable(ConnectionResetError())
