import pytest

# Asserts in tests/helpers report their values as the tests' own do (registered before anything imports them).
pytest.register_assert_rewrite("tests.helpers")
