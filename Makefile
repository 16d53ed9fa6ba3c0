# bookrag-neo4j: the two commands of the README, and their parts.
#   make demo   set everything up, start Neo4j (+GDS), apply the schema, run the demo
#   make test   set everything up and run the whole test suite against a real Neo4j with GDS
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
BOOKRAG := $(BIN)/bookrag

.PHONY: help install neo4j demo test stop clean

help:
	@echo "make demo    set up, start Neo4j with GDS, run the demo"
	@echo "make test    set up and run the test suite"
	@echo "make stop    stop the managed Neo4j servers (demo and test instances)"
	@echo "make clean   remove the virtual environment"

# The virtual environment, rebuilt when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# Neo4j: NEO4J_URI if set, else Docker if an engine answers, else a local server assembled from Maven Central.
neo4j: install
	$(BOOKRAG) neo4j start
	$(BOOKRAG) neo4j init

demo: neo4j
	$(BOOKRAG) neo4j status
	$(BOOKRAG) doctor || true

# pytest starts (or reuses) its own server instance "test" on ports 17687/17474.
test: install
	@$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: that is a failure"; fi; \
	exit $$rc

stop:
	-@[ -x $(BOOKRAG) ] && $(BOOKRAG) neo4j stop
	-@[ -x $(BOOKRAG) ] && $(BOOKRAG) neo4j stop --instance test

clean:
	rm -rf $(VENV) .pytest_cache
