#!/usr/bin/env python3
"""The wheel of python/ around a gatecheck binary that is already built, without cargo:
`scripts/package python OUTDIR --binary PATH` (CI packages the binary its test build made).

It writes what maturin's `bindings = "bin"` wheel holds, from the same sources: the module
(python/src/gatecheck), the binary as `gatecheck-X.data/scripts/gatecheck`, and the metadata of
python/pyproject.toml (the version is the workspace's, as maturin takes it from Cargo.toml).
The platform tag is this interpreter's (`linux_x86_64`): pip installs it here; PyPI wants
maturin's manylinux wheels (docs/publishing.md).

    python3 python/wheel_from_binary.py BINARY OUTDIR    # prints the wheel's path
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def workspace_version() -> str:
    cargo = tomllib.loads((HERE.parent / "Cargo.toml").read_text())
    return str(cargo["workspace"]["package"]["version"])


def metadata(project: dict, version: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"Keywords: {','.join(project.get('keywords', []))}",
        f"Author: {project['authors'][0]['name']}",
        f"License: {project['license']['text']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {r} ; extra == '{extra}'" for r in requirements]
    lines += [f"Project-URL: {name}, {url}" for name, url in project.get("urls", {}).items()]
    lines.append("Description-Content-Type: text/markdown; charset=UTF-8; variant=GFM")
    return "\n".join(lines) + "\n\n" + (HERE / project["readme"]).read_text()


def entry_points(project: dict) -> str:
    out = []
    for group, entries in project.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def build(binary: Path, outdir: Path) -> Path:
    pyproject = tomllib.loads((HERE / "pyproject.toml").read_text())
    project, maturin = pyproject["project"], pyproject["tool"]["maturin"]
    assert maturin["bindings"] == "bin", "python/pyproject.toml is no longer a bin wheel"
    # The wheel's file and folder names use the normalized name (`gatecheck_harness`), as
    # maturin's do; the metadata keeps the project's (`gatecheck-harness`).
    name, version = re.sub(r"[-_.]+", "_", project["name"]).lower(), workspace_version()
    tag = "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())
    dist_info, data = f"{name}-{version}.dist-info", f"{name}-{version}.data"
    source = HERE / maturin["python-source"] / maturin["module-name"]
    files: list[tuple[str, bytes, int]] = []
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            arcname = f"{maturin['module-name']}/{path.relative_to(source).as_posix()}"
            files.append((arcname, path.read_bytes(), 0o644))
    files.append((f"{data}/scripts/gatecheck", binary.read_bytes(), 0o755))
    files.append((f"{dist_info}/METADATA", metadata(project, version).encode(), 0o644))
    wheel = f"Wheel-Version: 1.0\nGenerator: gatecheck python/wheel_from_binary.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files.append((f"{dist_info}/WHEEL", wheel.encode(), 0o644))
    files.append((f"{dist_info}/entry_points.txt", entry_points(project).encode(), 0o644))
    record = []
    for arcname, content, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(content)}")
    record.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    outdir.mkdir(parents=True, exist_ok=True)
    target = outdir / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for arcname, content, mode in files:
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, content)
    return target


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, outdir = Path(sys.argv[1]), Path(sys.argv[2])
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        sys.exit(f"wheel_from_binary: {binary} is not an executable file")
    print(build(binary, outdir))


if __name__ == "__main__":
    main()
