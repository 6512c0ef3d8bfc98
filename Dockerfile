# The Piquet table: `python -m app` on 0.0.0.0:8000, as a non-root user.
# Dependencies come from uv.lock exactly (no dev or test extras).

FROM python:3.11-slim AS build
ENV UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PROJECT_ENVIRONMENT=/opt/venv \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# The uv the Makefile uses (.tools/bin/uv).
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /src
# Only the lock first, so the dependency layer is rebuilt only when the lock changes.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --python /usr/local/bin/python3

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin piquet
# The venv's interpreter links to /usr/local/bin/python3: the same base image in both stages.
COPY --from=build /opt/venv /opt/venv
WORKDIR /srv/piquet
COPY engine/ engine/
COPY app/ app/
COPY templates/ templates/
COPY static/ static/
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIQUET_HOST=0.0.0.0 \
    PIQUET_PORT=8000 \
    PIQUET_DATA_DIR=/srv/piquet/data
# The catalogues compiled (app/locales: each language's .po to the .mo the server reads).
RUN python -m app.catalogues compile
# The tables' SQLite file: a volume, so that it outlives the container (docs/operating.md).
RUN mkdir -p /srv/piquet/data && chown piquet /srv/piquet/data
VOLUME /srv/piquet/data
USER piquet
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PIQUET_PORT', '8000'), timeout=3)"]
CMD ["python", "-m", "app"]
