"""Does the phone build resolve? Flet's mobile dependency resolution, simulated without Flutter.

    python -m bench.mobile_resolve [--targets android-arm64-v8a,android-x86_64,ios-arm64] [--json]

What `flet build apk|ipa` does (../shared/notes/MOBILE.md): pip, once per target, with ``--only-binary
:all:``, Flet's own mobile index as an extra index, and a ``sitecustomize`` that makes ``platform.system()``
say Android or iOS and ``sysconfig.get_platform()`` name the target. Here: the same shim, Python 3.13 with
pip 26 (it knows Android and iOS wheel tags), the public registry, and empty stand-in wheels (right name,
version, tag and requirements) for what Flet's mobile index builds, listed in ``FLET_MOBILE_INDEX`` below.
A dependency with no wheel for a target fails the run, and pip's message names it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {
    "android-arm64-v8a": "android_24_arm64_v8a",
    "android-x86_64": "android_24_x86_64",
    "ios-arm64": "ios_13_0_arm64_iphoneos",
}
PYTHON_TAG = "cp313"  # Flet's mobile Python; the simulation runs pip under 3.13

# What Flet's mobile package index builds (recipes in flet-dev/mobile-forge), as MOBILE.md lists them
# (researched 2026-11-30 from the recipes of 2026-08), with each release's own requirements from PyPI.
# Versions the note does not give are recent releases of those packages: a stand-in, not a measurement.
FLET_MOBILE_INDEX: dict[str, tuple[str, list[str]]] = {
    "onnxruntime": ("1.27.0", ["flatbuffers", "numpy>=1.21.6", "packaging", "protobuf", "sympy"]),
    "tokenizers": ("0.23.1", ["huggingface-hub<2.0,>=0.16.4"]),
    "numpy": ("2.4.6", []),
    "lxml": ("6.1.1", []),
    "apsw": ("3.53.2.0", []),
    "pydantic-core": ("2.33.2", ["typing-extensions!=4.7.0,>=4.6.0"]),
    "jiter": ("0.15.0", []),
    "orjson": ("3.11.4", []),
    "ormsgpack": ("1.12.0", []),
    "zstandard": ("0.25.0", []),
    "regex": ("2025.11.3", []),
    "tiktoken": ("0.12.0", ["regex>=2022.1.18", "requests>=2.26.0"]),
    "uuid-utils": ("0.12.0", []),
    "msgpack": ("1.1.2", []),
    "xxhash": ("3.6.0", []),
    "pyyaml": ("6.0.3", []),
    "cffi": ("2.0.0", ["pycparser"]),
    "cryptography": ("46.0.3", ["cffi>=2.0.0"]),
}
SHIM = """
import os, platform, sys, sysconfig
target = os.environ.get("QUIRE_MOBILE_TARGET", "")
if target.startswith("android-"):
    abi = target.split("-", 1)[1].replace("-", "_")
    platform.system = lambda: "Android"
    sysconfig.get_platform = lambda: f"android-24-{abi}"
    platform.android_ver = lambda *a, **k: platform.AndroidVer("14", 24, "", "", "", False)
elif target.startswith("ios-"):
    sysconfig.get_config_vars()  # before _multiarch changes, or the host's sysconfig breaks
    platform.system = lambda: "iOS"
    sysconfig.get_platform = lambda: "ios-13.0-arm64-iphoneos"
    sys.implementation._multiarch = "arm64_iphoneos"
    platform.ios_ver = lambda *a, **k: platform.IOSVersionInfo("iOS", "13.0", "iPhone", False)
"""


def find_python313() -> str | None:
    """A Python 3.13 interpreter: $QUIRE_PYTHON313, python3.13 on PATH, or pyenv's."""
    candidates = [os.environ.get("QUIRE_PYTHON313"), shutil.which("python3.13")]
    candidates += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.13*/bin/python3.13"))
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 13)"],
                                        capture_output=True).returncode == 0:  # fmt: skip
            return candidate
    return None


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def stand_in_wheel(folder: Path, name: str, version: str, requires: list[str], platform_tag: str) -> Path:
    """An empty wheel that tells pip the package exists for this target, with the real one's requirements."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-{PYTHON_TAG}-{PYTHON_TAG}-{platform_tag}.whl"
    files = {
        f"{dist}.dist-info/METADATA": "\n".join(
            ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
            + [f"Requires-Dist: {r}" for r in requires]
        ).encode()
        + b"\n",
        f"{dist}.dist-info/WHEEL": (
            f"Wheel-Version: 1.0\nGenerator: quire-bench\nRoot-Is-Purelib: false\nTag: {PYTHON_TAG}-{PYTHON_TAG}-{platform_tag}\n"
        ).encode(),
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{dist}.dist-info/RECORD,,"]
    files[f"{dist}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w") as wheel:
        for entry, data in files.items():
            wheel.writestr(entry, data)
    return path


def requirements(kind: str) -> list[str]:
    """The project's dependencies plus ``[tool.flet.<android|ios>].dependencies``, as `flet build` joins them
    (``dev_packages`` from their folders)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    flet = config.get("tool", {}).get("flet", {})
    found = list(config["project"]["dependencies"]) + list(flet.get(kind, {}).get("dependencies", []))
    local = flet.get(kind, {}).get("dev_packages") or flet.get("dev_packages") or {}
    # As flet build does: a package kept in this repository is installed from its folder, not the registry.
    return [f"{line} @ {(ROOT / local[line]).resolve().as_uri()}" if line in local else line for line in found]


def resolve(python: str, target: str, work: Path) -> dict:
    """pip's dry run for one target: the packages it would install, or the error that stopped it."""
    standins = work / f"wheels-{target}"
    standins.mkdir(parents=True, exist_ok=True)
    for name, (version, requires) in FLET_MOBILE_INDEX.items():
        stand_in_wheel(standins, name, version, requires, TARGETS[target])
    shim = work / "shim"
    shim.mkdir(exist_ok=True)
    partial = shim / f"sitecustomize-{target}.tmp"  # targets resolve at once: each replaces the file whole
    partial.write_text(SHIM, encoding="utf-8")
    os.replace(partial, shim / "sitecustomize.py")
    reqs = work / f"requirements-{target}.txt"
    reqs.write_text("\n".join(requirements("android" if target.startswith("android") else "ios")) + "\n")
    report = work / f"report-{target}.json"
    env = {**os.environ, "PYTHONPATH": str(shim), "QUIRE_MOBILE_TARGET": target, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run(
        [python, "-m", "pip", "install", "--dry-run", "--quiet", "--only-binary", ":all:", "--ignore-installed",
         "--target", str(work / f"target-{target}"), "--report", str(report), "--find-links", str(standins),
         "-r", str(reqs)],
        env=env, capture_output=True, text=True, timeout=1500,
    )  # fmt: skip
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip() and "WARNING" not in line]
        return {"target": target, "ok": False, "error": "\n".join(lines[-8:])}
    installed = json.loads(report.read_text())["install"]
    packages = sorted(f"{i['metadata']['name']}=={i['metadata']['version']}" for i in installed)
    return {"target": target, "ok": True, "packages": len(packages), "resolved": packages}


def pip_environment(work: Path) -> str | None:
    """A Python 3.13 virtual environment with pip 26 (the first to know Android and iOS tags)."""
    python = find_python313()
    if python is None:
        return None
    venv = work / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, capture_output=True)
    pip = str(venv / "bin" / "python")
    subprocess.run([pip, "-m", "pip", "install", "--quiet", "pip>=26"], check=True, capture_output=True, timeout=600)
    return pip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated: " + ", ".join(TARGETS))
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}: use {', '.join(TARGETS)}")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        python = pip_environment(work)
        if python is None:
            print("no Python 3.13 here (set $QUIRE_PYTHON313): the simulation needs it", file=sys.stderr)
            return 2
        with ThreadPoolExecutor(len(targets)) as pool:  # each target is a pip process, mostly waiting on the network
            results = list(pool.map(lambda target: resolve(python, target, work), targets))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for result in results:
            if result["ok"]:
                print(f"{result['target']:20} resolves: {result['packages']} packages")
            else:
                print(f"{result['target']:20} FAILS:\n  " + result["error"].replace("\n", "\n  "))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
