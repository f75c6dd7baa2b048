# The dashboard in a container. Inside the container the server binds 0.0.0.0 so the published port
# works; outside Docker the default stays loopback-only (.streamlit/config.toml).
# A server that others can reach should have sign-in on: docker-compose.auth.yml mounts a secrets file with an
# [auth] section at run time (README: "Team server with sign-in"); .dockerignore keeps every *secrets.toml out
# of the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    OMP_WAIT_POLICY=PASSIVE

RUN useradd --create-home --uid 10001 app
WORKDIR /app

COPY requirements.txt ./
RUN pip install -r requirements.txt
# Optional: docker build --build-arg WITH_DASK=1 adds the Dask cluster backend (docker-compose.dask.yml).
ARG WITH_DASK=0
RUN if [ "$WITH_DASK" = "1" ]; then pip install "dask==2025.12.0" "distributed==2025.12.0"; fi

COPY --chown=app:app . .
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status == 200 else 1)"

CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", "--browser.serverAddress=localhost"]
