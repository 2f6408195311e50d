"""The shared libraries the sandbox binds are found with ``ldd`` once and
kept in the cache folder: the next process reads them instead, and an entry
that no longer fits the files, or names something that is not a library, is
not used."""

from __future__ import annotations

import json
import sys

import pytest

from veriplan.sandbox import bwrap


@pytest.fixture
def calls(monkeypatch, tmp_path):
    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path))
    made: list[list[str]] = []
    real = bwrap._shared_libraries

    def counted(files):
        made.append(list(files))
        return real(files)

    monkeypatch.setattr(bwrap, "_shared_libraries", counted)
    return made


def test_ldd_runs_once_and_the_next_process_reads_the_cache(calls, tmp_path):
    exe = [sys.executable]
    first = bwrap._cached_libraries(exe)
    assert calls == [exe] and first
    assert any("libc" in name for name, _ in first)
    again = bwrap._cached_libraries(exe)
    assert again == first and len(calls) == 1  # read from the file, ldd not run
    assert (tmp_path / bwrap.LIBRARY_CACHE).is_file()


def test_other_files_are_another_entry(calls, tmp_path):
    bwrap._cached_libraries([sys.executable])
    other = tmp_path / "module.so"
    other.write_bytes(b"not a library")
    bwrap._cached_libraries([sys.executable, str(other)])
    assert len(calls) == 2  # a file more: ldd again


def test_an_entry_naming_anything_but_a_library_is_not_used(calls, tmp_path):
    bwrap._cached_libraries([sys.executable])
    path = tmp_path / bwrap.LIBRARY_CACHE
    entry = json.loads(path.read_text())
    secret = tmp_path / "id_rsa"
    secret.write_text("key")
    entry["libraries"].append([str(secret), str(secret)])
    path.write_text(json.dumps(entry))
    libs = bwrap._cached_libraries([sys.executable])
    assert len(calls) == 2 and all(str(secret) not in pair for pair in libs)
