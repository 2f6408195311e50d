"""The sandbox child: ``python -I -m veriplan.sandbox.child SCRATCH``.

Reads ``job.json`` from the scratch directory, imports the trusted target,
bounds stdout/stderr, turns the guard on, calls the target and writes
``result.json``. Untrusted code runs only inside the target, after the guard.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import traceback


class _Sink:
    """Keeps the first ``keep`` characters written, counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep, self.parts, self.size = keep, [], 0

    def write(self, text: str) -> int:
        if self.size < self.keep:
            self.parts.append(text[: self.keep - self.size])
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return "".join(self.parts)


def main(scratch: str) -> None:
    dump = json.dumps  # kept before untrusted code runs
    write_result = os.path.join(scratch, "result.json")
    with open(os.path.join(scratch, "job.json")) as f:
        job = json.load(f)
    module, _, name = job["target"].partition(":")
    target = getattr(importlib.import_module(module), name)
    from veriplan.sandbox import guard

    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes fail, not kill
    sink = _Sink(int(job.get("output_bytes", 65536)))
    real_out = sys.stdout
    sys.stdout = sys.stderr = sink  # type: ignore[assignment]
    try:
        netns = os.readlink("/proc/self/ns/net")
    except OSError:
        netns = ""
    guard.install(scratch)
    try:
        result = {"returned": target(job["payload"])}
    except SystemExit as e:
        result = {"escaped": "exit", "detail": f"the code called sys.exit({e.code!r})"}
    except MemoryError:
        result = {"escaped": "memory", "detail": "the memory limit was reached"}
    except BaseException as e:  # noqa: BLE001 - the job's own failure, reported as data
        result = {"escaped": "exception", "detail": "".join(
            traceback.format_exception_only(type(e), e)).strip()[-2000:]}
    result["stdout"] = sink.text()
    result["stdout_size"] = sink.size
    result["netns"] = netns
    try:
        text = dump(result)
    except (TypeError, ValueError) as e:
        text = dump({"escaped": "unserializable", "detail": f"the result is not JSON: {e}",
                     "netns": netns, "stdout": "", "stdout_size": sink.size})
    with open(write_result, "w") as f:
        f.write(text)
    real_out.flush()


if __name__ == "__main__":
    main(sys.argv[1])  # the exit status is 0; outcomes travel in result.json
