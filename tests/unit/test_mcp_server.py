"""The MCP server without Neo4j, through the SDK's in-memory client: the five tools and their schemas, and the
errors that come before any query (an unknown method, arguments outside their schema, an argument no tool
declares, several documents to a one-document tool). Over stdio against the test server:
tests/integration/test_mcp.py."""

from __future__ import annotations

import datetime

from mcp import Client

from bookrag_neo4j.api_models import AskResult, CypherResult, RetrieveResult, Source, jsonable
from bookrag_neo4j.config import Settings
from bookrag_neo4j.db.reply_cap import UserRows, fitted, json_size, least_size, shortened
from bookrag_neo4j.mcp_server import build_server, unknown_arguments
from bookrag_neo4j.mcp_stdio import error_response
from bookrag_neo4j.retrieval.results import Citation
from bookrag_neo4j.sdk import BookRAG


async def test_tools_and_the_errors_before_any_query() -> None:
    rag = BookRAG(Settings(neo4j_uri="bolt://127.0.0.1:9", neo4j_password="unused"), use_llm=False)  # never reached
    async with Client(build_server(rag)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"list_documents", "table_of_contents", "retrieve", "ask", "read_cypher", "get_schema"}
        assert all(tools[name].annotations.read_only_hint for name in ("list_documents", "read_cypher", "get_schema"))
        assert not tools["ask"].annotations.destructive_hint
        for method in BookRAG.methods():  # the three and the baselines described, the ablations named as such
            shown = f"- {method.name}: " in tools["ask"].description
            assert shown == (method.role != "ablation"), method.name
        ablations = tools["ask"].description.split("Ablations, for evaluation only")[1]
        assert "bookrag-no-graph" in ablations and "- bookrag-no-graph" not in tools["ask"].description
        bad = await client.call_tool("ask", {"question": "What is lm?", "method": "bm42"})
        assert bad.is_error and "PlanError: unknown method 'bm42'; known: bookrag, " in bad.content[0].text
        capped = await client.call_tool("read_cypher", {"query": "RETURN 1", "max_rows": 1001})
        assert capped.is_error and capped.content[0].text == (  # one line, no pydantic dump or URL
            "Error executing tool read_cypher: invalid arguments: max_rows: Input should be less than or equal to "
            "1000 (got 1001)")
        empty = await client.call_tool("retrieve", {"question": "", "top_k": 0})
        assert empty.is_error and "\n" not in empty.content[0].text and "https://" not in empty.content[0].text
        assert "question: String should have at least 1 character" in empty.content[0].text
        assert "top_k: Input should be greater than or equal to 1 (got 0)" in empty.content[0].text
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["bookrag://documents/{doc}/pages/{page}"]
        assert templates[0].mime_type == "image/png"
        (prompt,) = (await client.list_prompts()).prompts
        text = (await client.get_prompt(prompt.name, {"question": "What is lm?"})).messages[0].content.text
        assert "What is lm?" in text and "retrieve" in text and "citation" in text
    await rag.aclose()


async def test_one_name_for_documents_and_unknown_arguments_refused() -> None:
    rag = BookRAG(Settings(neo4j_uri="bolt://127.0.0.1:9", neo4j_password="unused"), use_llm=False)  # never reached
    async with Client(build_server(rag)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for tool in tools.values():  # the published schema says what the server enforces
            assert tool.input_schema["additionalProperties"] is False, tool.name
        for name in ("table_of_contents", "retrieve", "ask"):
            assert "docs" in tools[name].input_schema["properties"] and "doc" not in tools[name].input_schema["properties"]
        assert tools["table_of_contents"].input_schema["required"] == ["docs"]
        assert "doc`" not in build_server(rag).instructions  # the instructions name `docs` alone

        async def refused(tool: str, arguments: dict) -> str:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments, result.structured_content)
            return result.content[0].text

        guessed = await refused("retrieve", {"question": "What is lm?", "doc": "a.pdf"})
        assert guessed == ("Error executing tool retrieve: unknown argument 'doc' (did you mean 'docs'?); retrieve "
                           "accepts question (required), docs, method, top_k")
        toc = await refused("table_of_contents", {"doc": "a.pdf"})
        assert "unknown argument 'doc' (did you mean 'docs'?); table_of_contents accepts docs (required)" in toc
        assert "list_documents accepts no arguments" in await refused("list_documents", {"top_k": 3})
        several = await refused("ask", {"question": "q", "docs": "a.pdf", "k": 3, "documents": ["b.pdf"]})
        assert "unknown arguments 'k', 'documents' (did you mean 'docs'?); ask accepts" in several
        assert "table_of_contents reads one document; docs names 2 (a.pdf, b.pdf): call it once for each" in \
            await refused("table_of_contents", {"docs": ["a.pdf", "b.pdf"]})
        assert "docs" in await refused("retrieve", {"question": "q", "docs": []})  # no list that names nothing
        assert "docs" in await refused("table_of_contents", {"docs": ""})
    await rag.aclose()


def test_unknown_arguments_message() -> None:
    schema = {"properties": {"query": {}, "params": {}, "max_rows": {}}, "required": ["query"]}
    assert unknown_arguments("read_cypher", ["query", "max_rows"], schema) is None
    assert unknown_arguments("read_cypher", ["cypher", "maxrows"], schema) == (
        "unknown arguments 'cypher', 'maxrows' (did you mean 'max_rows'?); read_cypher accepts query (required), "
        "params, max_rows")


def test_citations_and_rows_as_json() -> None:
    citation = Citation(document="a.pdf", doc_key="k", node_key="n", section_path="2 Method > 2.1 Data",
                        page_start=3, page_end=5)
    source = Source.of(citation)
    assert source.pages == [3, 4, 5] and source.label == "a.pdf, 2 Method > 2.1 Data, pp. 3–5"
    assert Source.of(citation, [3, 5]).pages == [3, 5]  # a merged cross-page unit: its own pages
    assert Source.of(citation.model_copy(update={"page_start": 0, "page_end": 0})).pages == []
    day = datetime.date(2024, 5, 1)
    assert jsonable([{"d": day, "n": 1, "xs": [1.5, None]}]) == [{"d": "2024-05-01", "n": 1, "xs": [1.5, None]}]


def test_results_carry_warnings_and_say_how_rows_were_cut() -> None:
    for model in (RetrieveResult, AskResult):
        assert "warnings" in model.model_json_schema()["properties"], model
    rows = UserRows([{"i": i} for i in range(1, 4)])
    whole = CypherResult.of(rows, 3, 1000)
    assert not whole.truncated and whole.note is None and whole.row_count == 3
    more = CypherResult.of(UserRows([{"i": i} for i in range(1, 5)]), 3, 1000)
    assert more.truncated and more.row_count == 3 and "more than 3 rows" in more.note
    cut = UserRows([{"i": 1}, {"i": 2}])
    cut.cut, cut.cut_at = "the reply reached its 1,000-byte cap", 2
    assert CypherResult.of(cut, 3, 1000).note == cut.cut and CypherResult.of(cut, 3, 1000).truncated
    past = CypherResult.of(cut, 1, 1000)  # the byte cap met past max_rows: the row cap is what cut
    assert past.truncated and past.row_count == 1 and "more than 1 rows" in past.note


def test_values_shortened_to_fit_a_byte_budget() -> None:
    assert shortened("abcdef", 3) == "abc… [3 more characters]" and shortened("abc", 3) == "abc"
    assert shortened([1, 2, 3, 4], 2) == [1, 2, "… [2 more items]"]
    assert shortened({"a": "xxxx", "b": 1, "c": 2}, 2) == {"a": "xx… [2 more characters]", "b": 1,
                                                          "…": "[1 more keys]"}
    assert shortened(b"\x00\x01\x02", 1) == "b'\\x00'… [2 more bytes]"
    row = {"text": "é" * 10_000, "n": 10_000, "day": datetime.date(2024, 5, 1)}
    assert json_size(row) == len('{"text":"","n":10000,"day":"2024-05-01"}') + 20_000
    assert least_size(row, 10**9) <= json_size(row) and least_size(row, 100) <= 10_100  # it stops past 100
    assert least_size([["x" * 50] * 10] * 10, 10**9) <= json_size([["x" * 50] * 10] * 10)
    short = fitted(row, 1000)
    assert short is not None and json_size(short) <= 1000 and short["n"] == 10_000
    assert short["text"].startswith("é" * 400) and short["text"].endswith(" more characters]")
    assert fitted(row, 10) is None  # not even its shortest form fits


def test_unreadable_lines_are_answered_with_json_rpc_errors() -> None:
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    def answer(line: str):
        try:
            jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValidationError as exc:
            return error_response(exc)
        raise AssertionError(f"{line!r} was readable")

    parse = answer('{"jsonrpc": "2.0", "id": 1')
    assert parse.id is None and parse.error.code == -32700 and parse.error.message.startswith("Parse error")
    assert answer("  \n") is None  # a blank line: no reply
    invalid = answer('{"jsonrpc": "2.0", "id": 7, "method": 5}')
    assert invalid.id == 7 and invalid.error.code == -32600
    assert answer('{"jsonrpc": "2.0", "id": true, "method": 5}').id is None
    assert answer("[1, 2]").error.code == -32600
