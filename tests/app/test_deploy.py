"""deploy/ agrees with the app: compose's app services are nginx's upstream servers, on
the port the image serves; its settings are the app's; nginx's front-door limits are
the app's own defaults (docker compose itself cannot run here: no Docker)."""

from __future__ import annotations

import re

import yaml

from app.settings import ROOT, Settings

DEPLOY = ROOT / "deploy"


def nginx() -> str:
    """The site (limits, routing) and the compose file's upstream."""
    return (DEPLOY / "nginx-table.conf").read_text() + (DEPLOY / "nginx-compose.conf").read_text()


def test_the_one_host_configuration_names_processes_by_address_and_includes_the_site() -> None:
    """deploy/nginx.conf runs on the distribution's nginx: no `resolve` (nginx 1.27.3+),
    no resolver, the processes by address; the site is the same file compose mounts."""
    conf = (DEPLOY / "nginx.conf").read_text()
    assert "resolve" not in conf and "resolver" not in conf
    assert re.findall(r"^\s*server 127\.0\.0\.1:\d+ max_fails=0;", conf, re.M)
    assert "include nginx-table.conf;" in conf
    assert "include nginx-table.conf;" in (DEPLOY / "nginx-compose.conf").read_text()


def test_nginx_sends_to_every_app_service_of_compose_on_the_image_s_port() -> None:
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    apps = sorted(name for name, s in services.items() if "build" in s)
    servers = re.findall(r"^\s*server (\w+):(\d+) ", nginx(), re.M)
    assert sorted(name for name, _ in servers) == apps == ["app1", "app2", "app3"]
    port = re.search(r"PIQUET_PORT=(\d+)", (ROOT / "Dockerfile").read_text())
    assert port is not None and {p for _, p in servers} == {port[1]}
    # nginx's published port is the one it listens on.
    assert services["nginx"]["ports"] == ["8080:80"] and "listen 80;" in nginx()
    assert services["nginx"]["volumes"][0].startswith("./nginx-compose.conf:/etc/nginx/nginx.conf")
    assert services["nginx"]["volumes"][1].startswith(
        "./nginx-table.conf:/etc/nginx/nginx-table.conf")
    # Redis as the app's durability check expects it: every answer on disk first.
    redis = services["redis"]["command"]
    assert redis[redis.index("--appendfsync") + 1] == "always" and "--appendonly" in redis
    for name in apps:
        env = services[name]["environment"]
        for key in env:
            assert key == "FORWARDED_ALLOW_IPS" or key.removeprefix("PIQUET_").lower() in (
                Settings.model_fields), key
        redis = re.fullmatch(r"redis://(\w+):6379/0", env["PIQUET_REDIS_URL"])
        assert redis is not None and redis[1] in services


def test_nginx_s_limits_are_the_app_s() -> None:
    conf, settings = nginx(), Settings()
    assert f"client_max_body_size {settings.max_body_bytes // 1024}k;" in conf
    assert f"limit_conn per_address {settings.max_connections_per_address};" in conf
    assert f"rate={settings.rooms_per_minute:g}r/m;" in conf
    assert f"burst={settings.rooms_burst} " in conf
    assert f"client_header_timeout {settings.header_timeout:g}s;" in conf
    assert f"keepalive_timeout {settings.keep_alive_seconds}s;" in conf
    # A quiet socket is pinged every ping_interval; nginx's idle limit is over 3 of them.
    idle = re.search(r"location /ws/ \{[^}]*proxy_read_timeout (\d+)s;", conf)
    assert idle is not None and int(idle[1]) > 3 * settings.ping_interval
