"""Every compiled entry point that reads through offsets or indices refuses inconsistent ones with a Python
exception, never a crash. Each call runs in its own interpreter, so a crash fails its test instead of the run.

Offsets (n + 1 entries cutting a flat array into n runs) must start at 0, never decrease and end within the
array; indices read from caller-supplied tables (METEOR's candidates, phrase index, paraphrase pairs) must
point inside them. See ``src/mtsig/_checks.h``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.test_compiled_missing import require_compiled

require_compiled("mtsig._ter", "mtsig._meteor", "mtsig._tok", "mtsig._plan")


def _outcome(code: str) -> str:
    """Run ``code`` (which defines ``call()``) in a fresh interpreter: what call() raised, or 'ok'."""
    prog = textwrap.dedent(code) + textwrap.dedent(
        """
        try:
            call()
            print("ok")
        except Exception as exc:
            print(type(exc).__name__, exc)
        """
    )
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"the interpreter died (status {p.returncode}): {p.stderr[-2000:]}"
    return p.stdout.strip()


TER = """
import numpy as np
from mtsig import _ter
h = np.array([1, 2, 3, 4, 5], dtype=np.int32)
r = np.array([1, 3, 2, 4, 6, 7], dtype=np.int32)
out = np.zeros(2, dtype=np.int64)
def call():
    _ter.edits(h, np.array(HOFF, dtype=np.int64), r, np.array(ROFF, dtype=np.int64), out)
"""


@pytest.mark.parametrize(
    "hoff,roff,message",
    [
        ([0, 2, 5], [0, 3, 6], "ok"),
        ([-3, 2, 5], [0, 3, 6], "ValueError hyp_offsets: offsets must start at 0"),
        ([0, 4, 2], [0, 3, 6], "ValueError hyp_offsets: offsets decrease at entry 2"),
        ([0, 2, 50], [0, 3, 6], "ValueError hyp_offsets: offsets end at 50 beyond the 5 items"),
        ([0, 2, 5], [0, 3, 10**12], "ValueError ref_offsets: offsets end at 1000000000000 beyond the 6 items"),
        ([0, 2, 5], [0, 3, 6, 6], "ValueError offset arrays and output do not agree in length"),
    ],
)
def test_ter_edits(hoff, roff, message):
    assert _outcome(TER.replace("HOFF", repr(hoff)).replace("ROFF", repr(roff))).startswith(message)


SEARCH = """
from array import array
from mtsig import _meteor
def call():
    rows = array("i", ROWS)
    return _meteor.search(rows, array("i", OFF), N1, N2, WEIGHTS, 5)
"""


@pytest.mark.parametrize(
    "rows,off,n1,n2,weights,message",
    [
        ([0, 1, 0, 1, 0, 1, 1, 1, 1, 0], [0, 1, 2], 2, 2, [1.0], "ok"),
        ([0, 1, 0, 1, 0], [0, 2, 2], 2, 2, [1.0], "ValueError search: candidate offsets: offsets end at 2"),
        ([0, 1, 0, 1, 0], [-1, 1, 1], 2, 2, [1.0], "ValueError search: candidate offsets: offsets must start"),
        (
            [0, 1, 0, 1, 0, 1, 1, 1, 1, 0],
            [0, 2, 1],
            2,
            2,
            [1.0],
            "ValueError search: candidate offsets: offsets decrease",
        ),
        ([0, 1, 0, 1, 3], [0, 1, 1], 2, 2, [1.0], "ValueError search: candidate 0 does not fit"),  # stage 3, 1 weight
        ([1, 1, 0, 1, 0], [0, 1, 1], 2, 2, [1.0], "ValueError search: candidate 0 does not fit"),  # group 0 at 1
        ([0, 5, 0, 1, 0], [0, 1, 1], 2, 2, [1.0], "ValueError search: candidate 0 does not fit"),  # past the ref
        ([0, 1, 1, 9, 0], [0, 1, 1], 2, 2, [1.0], "ValueError search: candidate 0 does not fit"),  # past the hyp
        ([0, 1, -4, 1, 0], [0, 1, 1], 2, 2, [1.0], "ValueError search: candidate 0 does not fit"),
        ([0, 1, 0, 1, 0], [0, 1], 2, 2, [1.0], "ValueError search: inconsistent sizes"),
    ],
)
def test_meteor_search(rows, off, n1, n2, weights, message):
    code = SEARCH.replace("ROWS", repr(rows)).replace("OFF", repr(off)).replace("N1", str(n1))
    assert _outcome(code.replace("N2", str(n2)).replace("WEIGHTS", repr(weights))).startswith(message)


HASHES = """
import numpy as np
from mtsig import _meteor
def call():
    return _meteor.phrase_hashes(b"a bc def", np.array(OFF, dtype=np.int64).tobytes())
"""


@pytest.mark.parametrize(
    "off,message",
    [
        ([0, 1, 4, 8], "ok"),
        ([0, 1, 40], "ValueError phrase_hashes: offsets: offsets end at 40"),
        ([-5, 1, 4], "ValueError phrase_hashes: offsets: offsets must start at 0"),
        ([0, 6, 4], "ValueError phrase_hashes: offsets: offsets decrease"),
    ],
)
def test_meteor_phrase_hashes(off, message):
    assert _outcome(HASHES.replace("OFF", repr(off))).startswith(message)


PHRASES = """
import numpy as np
from mtsig import _meteor
phrases = [b"a", b"a b", b"b"]
blob = b"".join(phrases)
off = np.cumsum([0] + [len(p) for p in phrases]).astype(np.int64)
h = np.frombuffer(_meteor.phrase_hashes(blob, off.tobytes()), dtype=np.uint64)
order = np.argsort(h, kind="stable")
hashes, ids = h[order], order.astype(np.int32)
buckets = np.array([0, len(ids)], dtype=np.uint32)
CHANGE
def call():
    return _meteor.phrases(["a", "b"], 3, hashes.tobytes(), ids.tobytes(), buckets.tobytes(), blob, off.tobytes())
"""


@pytest.mark.parametrize(
    "change,message",
    [
        ("", "ok"),
        ("ids = np.full_like(ids, 7)", "ValueError phrases: the phrase index arrays do not agree"),
        ("ids = np.full_like(ids, -2)", "ValueError phrases: the phrase index arrays do not agree"),
        ("off = off.copy(); off[1:] = 10**9", "ValueError phrases: the phrase index arrays do not agree"),
        ("off = off.copy(); off[0] = -50", "ValueError phrases: the phrase index arrays do not agree"),
        ("buckets = np.array([0, 3, 4], dtype=np.uint32)", "ValueError phrases: inconsistent index arrays"),
        # two buckets end at 3 as they should, but the first claims 9 entries: read where it is used
        ("buckets = np.array([0, 9, 3], dtype=np.uint32)", "ValueError phrases: the phrase index arrays do not agree"),
    ],
)
def test_meteor_phrases(change, message):
    out = _outcome(PHRASES.replace("CHANGE", change))
    assert out.startswith(message), out


PARA = """
import numpy as np
from mtsig import _meteor
pairs = np.array([(0 << 32) | 1], dtype=np.int64)
order = np.array([0], dtype=np.int32)
start = np.array(START, dtype=np.uint32)
def call():
    return _meteor.para_find(pairs.tobytes(), order.tobytes(), start.tobytes(), ([0], [1], [0]), ([1], [1], [1]))
"""


@pytest.mark.parametrize(
    "start,message",
    [
        ([0, 1, 1], "ok"),
        ([0, 9, 1], "ValueError inconsistent paraphrase pair arrays"),  # phrase 0's pairs run past the table
        ([0, 1, 4], "ValueError inconsistent paraphrase pair arrays"),
    ],
)
def test_meteor_para_find(start, message):
    assert _outcome(PARA.replace("START", repr(start))).startswith(message)


SEGMENT = """
import numpy as np
from mtsig import _meteor
i32 = lambda x: np.array(x, dtype=np.int32).tobytes()
vocab = (i32([0, 1]), i32([0, 1]), i32([0, 0, 0]), i32([]), i32([1, 1]), bytes([0, 0]))
out = bytearray(23 * 8)
def call():
    return _meteor.segment(i32(HYP), i32([0, 1]), vocab, STAGES, [1.0] * len(STAGES), 5, None, None, None, out)
"""


@pytest.mark.parametrize(
    "hyp,stages,message",
    [
        ([0, 1], b"\x00", "ok"),
        ([0, 1], b"\x00\x01\x01\x01\x01", "ValueError segment: inconsistent stages"),  # a 5th stage: no room in the row
        ([0, 5], b"\x00", "ValueError segment: inconsistent vocabulary arrays or word ids"),
        ([0, -1], b"\x00", "ValueError segment: inconsistent vocabulary arrays or word ids"),
    ],
)
def test_meteor_segment(hyp, stages, message):
    assert _outcome(SEGMENT.replace("HYP", repr(hyp)).replace("STAGES", repr(stages))).startswith(message)


CLIP = """
import numpy as np
from mtsig import _tok
i64 = lambda x: np.array(x, dtype=np.int64)
def call():
    m = np.zeros(2)
    _tok.clip_counts(i64(OFF), i64([0, 1, 2, 0]), 3, i64([0, 1, 3]), i64([1, 1, 1]), i64(STARTS), None, m, None)
"""


@pytest.mark.parametrize(
    "off,starts,message",
    [
        ([0, 2, 4], [0, 2, 3], "ok"),
        ([-9, 2, 4], [0, 2, 3], "ValueError clip_counts: segment offsets: offsets must start at 0"),
        ([0, 3, 2], [0, 2, 3], "ValueError clip_counts: segment offsets: offsets decrease"),
        ([0, 2, 99], [0, 2, 3], "ValueError clip_counts: segment offsets: offsets end at 99"),
        ([0, 2, 4], [0, 5, 3], "ValueError clip_counts: reference key starts: offsets decrease"),
    ],
)
def test_tok_clip_counts(off, starts, message):
    assert _outcome(CLIP.replace("OFF", repr(off)).replace("STARTS", repr(starts))).startswith(message)


# ------------------------------------------------------------------------------------------------ objects that run code
CALLBACKS = {
    # a token whose __hash__ grows a later list: the lengths were summed before the loop (ASan: _tok.c:302)
    "code_words: a str subclass token": (
        """
from mtsig import _tok
later = ["x"]
class Grow(str):
    def __hash__(self):
        later.extend(["y"] * 1000)
        return 1
def call():
    return _tok.code_words([["a", Grow("b")], later], {}, True)
""",
        "TypeError code_words: tokens must be str",
    ),
    "code_words: a vocabulary id that is not an int": (
        """
from mtsig import _tok
def call():
    return _tok.code_words([["a"]], {"a": "x"}, False)
""",
        "TypeError code_words: vocabulary ids must be int",
    ),
    # an item whose __index__ empties the list being read (a length taken before the items)
    "para_find: __index__ empties its list": (
        """
from mtsig import _meteor
class Shrink:
    def __init__(self, lst): self.lst = lst
    def __index__(self):
        self.lst.clear()
        return 0
starts = [0] * 50
starts[0] = Shrink(starts)
def call():
    return _meteor.para_find(b"", b"", b"\\0\\0\\0\\0", (starts, [1] * 50, [0] * 50), ([0], [1], [0]))
""",
        "ok",  # read from a snapshot taken before any item's __index__ runs
    ),
    "search: __float__ empties the weights": (
        """
from array import array
from mtsig import _meteor
class Shrink(float):
    def __float__(self):
        w.clear()
        return 1.0
w = [1.0] * 10
w[0] = Shrink(1.0)
def call():
    return _meteor.search(array("i", [0, 1, 0, 1, 0]), array("i", [0, 1, 1]), 2, 2, w, 5)
""",
        "ok",
    ),
}


@pytest.mark.parametrize("case", list(CALLBACKS))
def test_python_callbacks_cannot_resize_what_c_reads(case):
    code, message = CALLBACKS[case]
    assert _outcome(code).startswith(message)
