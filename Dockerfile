# confbot's container image: `docker build -t confbot .` then `docker compose up` (compose.yaml)
# or `docker run -p 8080:8080 confbot` (the sample wiki, everything embedded in /data).
# Two stages: the first builds a virtual environment with confbot and its dependencies (every
# one a wheel, so no compiler is needed), the second copies only that environment onto a
# slim Python and runs it as an unprivileged user.
# Checked with hadolint and tests/test_container.py (docs/deployment.md).

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
RUN python -m venv /opt/confbot
# Dependencies first, from pyproject.toml alone, so that a code change reuses this layer.
COPY pyproject.toml README.md ./
RUN /opt/confbot/bin/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(p["dependencies"] + p["optional-dependencies"]["postgres"]))' > /tmp/requirements.txt \
    && /opt/confbot/bin/pip install --requirement /tmp/requirements.txt
COPY bot ./bot
COPY core ./core
COPY connectors ./connectors
COPY migrations ./migrations
RUN /opt/confbot/bin/pip install --no-deps . \
    && ln -s "$(/opt/confbot/bin/python -c 'import bot, pathlib; print(pathlib.Path(bot.__file__).parent / "sample_wiki" / "pages")')" /opt/confbot/sample-wiki

FROM python:3.11-slim-bookworm
RUN groupadd --system --gid 10001 confbot \
    && useradd --system --uid 10001 --gid confbot --home-dir /data --no-create-home confbot \
    && mkdir /data \
    && chown confbot:confbot /data
COPY --from=build /opt/confbot /opt/confbot
ENV PATH=/opt/confbot/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CONFBOT_DATA_DIR=/data \
    CONFBOT_WEB_HOST=0.0.0.0 \
    CONFBOT_WEB_PORT=8080
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
# Ready means: the state database can be written, the index read and consistent, the first
# sync done (bot/health.py). The start period covers indexing the sample wiki on a first start.
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen(f\"http://127.0.0.1:{os.environ.get('CONFBOT_WEB_PORT', '8080')}/readyz\", timeout=4)"]
ENTRYPOINT ["confbot"]
CMD ["serve"]
