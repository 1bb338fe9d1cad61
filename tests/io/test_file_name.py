"""io reads paths with os.path (pathlib is not imported by a short command): a system's name from its file is the
name pathlib would give."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from mtsig.io.load import file_name


@pytest.mark.parametrize("path", ["a/b.txt", "b.txt", "a/b/", "/x/y", ".", "..", "/", "./c", "a//b", "ü/ç.txt",
                                  "a/./b.en", "dir/.hidden"])  # fmt: skip
def test_file_name_is_pathlibs_name(path):
    assert file_name(path) == PurePosixPath(path).name
    assert file_name(Path(path)) == Path(path).name  # a PathLike too


def test_missing_file_and_folder_are_said_as_before(tmp_path):
    from mtsig.errors import InputError
    from mtsig.io.text import read_text

    with pytest.raises(InputError, match="no such file"):
        read_text(tmp_path / "absent.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_text(tmp_path)
    (tmp_path / "f.txt").write_text("x\n", encoding="utf-8")
    assert read_text(tmp_path / "f.txt") == "x\n"
