"""The docstrings' examples run on the bundled sample (from the source folder), so they cannot
rot."""

import doctest
import pytest

import kbdata
import kbdata._seed
from conftest import SOURCE_DIR


@pytest.mark.parametrize("module", [kbdata, kbdata._seed], ids=lambda m: m.__name__)
def test_docstring_examples(module, monkeypatch):
    monkeypatch.chdir(SOURCE_DIR)
    result = doctest.testmod(module, extraglobs={"kbdata": kbdata},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
