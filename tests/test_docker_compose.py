from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_runs_every_process_with_health_checks():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) >= {"postgres", "redis", "web", "worker", "beat"}
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert "healthcheck" in services[name], name
    assert "uvicorn reviewapp.asgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "reviewapp", "worker"]
    assert "beat" in services["beat"]["command"]
    env = services["web"]["environment"]
    assert env["DATABASE_URL"].startswith("postgres://")
    assert env["REDIS_URL"].startswith("redis://")
    assert services["web"]["depends_on"]["postgres"]["condition"] == "service_healthy"
