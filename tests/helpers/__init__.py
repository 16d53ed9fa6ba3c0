"""Code the tests share (no test module imports another): the CLI runner, the real documents, test doubles
for models, Browser links and the Browser driver, time limits. Shared pytest fixtures live in ``tests/conftest.py``.
(``tests/__init__.py`` has pytest rewrite the asserts here, as it does the tests'.)"""
